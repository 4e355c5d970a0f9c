package harness

import "doomloop.invalid/harness/jsvalue"

// input returns a decoded input member: jsvalue.Undefined when absent (or a
// bad-request error when it is required).
func input(req map[string]any, name string, required bool) (any, *Error) {
	raw, ok := req[name]
	if !ok {
		if required {
			return nil, badRequest("missing member %q", name)
		}
		return jsvalue.Undefined{}, nil
	}
	v, err := jsvalue.DecodeTagged(raw)
	if err != nil {
		return nil, badRequest("member %q: %v", name, err)
	}
	return v, nil
}

// typedInput returns a required input member of type T.
func typedInput[T any](req map[string]any, name, what string) (T, *Error) {
	var zero T
	v, err := input(req, name, true)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, badRequest("member %q must be %s", name, what)
	}
	return t, nil
}

// flag reads an optional boolean (Undefined: def). A non-boolean is JS
// truthiness for a port declaring js-coercion, else outside the domain
// (PROT-28: resolveLadderAction's allowEscalate).
func (s *Server) flag(v any, name string, def bool) (bool, *Error) {
	switch b := v.(type) {
	case jsvalue.Undefined:
		return def, nil
	case bool:
		return b, nil
	}
	if s.declares("js-coercion") {
		return jsvalue.Truthy(v), nil
	}
	return false, badRequest("%s must be a boolean", name)
}

// wire is the wire form of a resolved configuration.
func wire(config any) any {
	if c, ok := config.(interface{ JSON() any }); ok {
		return c.JSON()
	}
	return config
}

func (s *Server) resolve(option any) (any, []Warning, *Error) {
	resolver, ok := s.port.(OptionResolver)
	if !ok {
		return nil, nil, unknownOp("resolveOption")
	}
	config, warnings, err := resolver.ResolveOption(option)
	if err != nil {
		return nil, nil, s.failure(err)
	}
	for _, w := range warnings {
		s.warn(w.Message, nil)
	}
	return config, warnings, nil
}

type monitorOp func(*Server, Monitor, map[string]any) (any, *Error)

var monitorOps = map[string]monitorOp{
	"declareRound":        declareRound,
	"recordToolCall":      recordToolCall,
	"recordAssistantText": recordAssistantText,
	"resetTextStreak": func(_ *Server, m Monitor, _ map[string]any) (any, *Error) {
		m.ResetTextStreak()
		return nil, nil
	},
	"canEscalate": func(_ *Server, m Monitor, _ map[string]any) (any, *Error) {
		return m.CanEscalate(), nil
	},
	"consumeEscalation": func(_ *Server, m Monitor, _ map[string]any) (any, *Error) {
		m.ConsumeEscalation()
		return nil, nil
	},
	"getState": func(_ *Server, m Monitor, _ map[string]any) (any, *Error) {
		return m.State(), nil
	},
	"restore": func(_ *Server, m Monitor, req map[string]any) (any, *Error) {
		state, err := input(req, "state", true)
		if err != nil {
			return nil, err
		}
		m.Restore(state)
		return nil, nil
	},
}

func declareRound(s *Server, m Monitor, req map[string]any) (any, *Error) {
	list, err := typedInput[[]any](req, "calls", "an array")
	if err != nil {
		return nil, err
	}
	calls := make([]ToolCall, 0, len(list))
	for _, item := range list {
		call, ok := item.(map[string]any)
		name, isString := call["toolName"].(string)
		if !ok || !isString {
			return nil, badRequest("each call needs a string toolName")
		}
		key, has := call["keyMaterial"]
		if !has {
			key = jsvalue.Undefined{}
		}
		calls = append(calls, ToolCall{ToolName: name, KeyMaterial: key})
	}
	round, err := typedInput[float64](req, "round", "a number")
	if err != nil {
		return nil, err
	}
	if err := m.DeclareRound(round, calls); err != nil {
		return nil, s.failure(err)
	}
	return nil, nil
}

func recordToolCall(s *Server, m Monitor, req map[string]any) (any, *Error) {
	v, err := input(req, "options", false)
	if err != nil {
		return nil, err
	}
	opts := RecordOptions{AllowBlock: true, Detector: "tool-fingerprint"}
	if given, ok := v.(map[string]any); ok {
		// a member holding undefined is absent (spec §10.6); another
		// non-boolean is outside the domain (PROT-28)
		switch b := member(given, "allowBlock").(type) {
		case jsvalue.Undefined:
		case bool:
			opts.AllowBlock = b
		default:
			return nil, badRequest("options.allowBlock must be a boolean")
		}
		switch d := member(given, "detector"); d {
		case jsvalue.Undefined{}:
		case "tool-fingerprint", "server-tool-fingerprint":
			opts.Detector = d.(string)
		default:
			return nil, badRequest("options.detector must be a tool detector")
		}
	}
	name, err := typedInput[string](req, "toolName", "a string")
	if err != nil {
		return nil, err
	}
	key, err := input(req, "keyMaterial", true)
	if err != nil {
		return nil, err
	}
	round, err := typedInput[float64](req, "round", "a number")
	if err != nil {
		return nil, err
	}
	record, rerr := m.RecordToolCall(name, key, round, opts)
	if rerr != nil {
		return nil, s.failure(rerr)
	}
	return record, nil
}

func recordAssistantText(s *Server, m Monitor, req map[string]any) (any, *Error) {
	text, err := typedInput[string](req, "text", "a string")
	if err != nil {
		return nil, err
	}
	verdict, verr := m.RecordAssistantText(text)
	if verr != nil {
		return nil, s.failure(verr)
	}
	return verdict, nil
}

// member returns m[name], or Undefined when m has no such member.
func member(m map[string]any, name string) any {
	if v, ok := m[name]; ok {
		return v
	}
	return jsvalue.Undefined{}
}
