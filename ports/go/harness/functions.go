package harness

import (
	"math"
	"strconv"
)

type functionOp func(*Server, map[string]any) (any, *Error)

var functionOps = map[string]functionOp{
	"create":                 create,
	"resolveOption":          resolveOption,
	"resolveLoopKey":         resolveLoopKey,
	"canonicalize":           canonicalize,
	"fingerprintKeyMaterial": fingerprintKeyMaterial,
	"fingerprintToolCall":    fingerprintToolCall,
	"detectTextRepetition":   detectTextRepetition,
	"resolveLadderAction":    resolveLadderAction,
}

// create resolves "option" (required) and builds a monitor, restored from
// "state" when present (construct-then-restore).
func create(s *Server, req map[string]any) (any, *Error) {
	factory, ok := s.port.(MonitorFactory)
	if !ok {
		return nil, unknownOp("create")
	}
	option, err := input(req, "option", true)
	if err != nil {
		return nil, err
	}
	config, _, err := s.resolve(option)
	if err != nil {
		return nil, err
	}
	if wire(config) == nil {
		return nil, badRequest("the option turns detection off: there is no monitor")
	}
	state, err := input(req, "state", false)
	if err != nil {
		return nil, err
	}
	m, merr := factory.NewMonitor(config, state, s.warn)
	if merr != nil {
		return nil, s.failure(merr)
	}
	s.next++
	id := "s" + strconv.Itoa(s.next)
	s.sessions[id] = m
	return map[string]any{"session": id}, nil
}

func resolveOption(s *Server, req map[string]any) (any, *Error) {
	option, err := input(req, "option", false)
	if err != nil {
		return nil, err
	}
	config, warnings, err := s.resolve(option)
	if err != nil {
		return nil, err
	}
	list := make([]any, len(warnings))
	for i, w := range warnings {
		entry := map[string]any{"code": w.Code, "message": w.Message}
		if w.Rung != "" {
			entry["rung"], entry["shadowedBy"] = w.Rung, w.ShadowedBy
		}
		list[i] = entry
	}
	return map[string]any{"config": wire(config), "warnings": list}, nil
}

func resolveLoopKey(s *Server, req map[string]any) (any, *Error) {
	resolver, ok := s.port.(LoopKeyResolver)
	if !ok {
		return nil, unknownOp("resolveLoopKey")
	}
	args, err := typedInput[map[string]any](req, "args", "an object")
	if err != nil {
		return nil, err
	}
	loopKey, err := input(req, "loopKey", false)
	if err != nil {
		return nil, err
	}
	return s.answer(resolver.ResolveLoopKey(loopKey, args))
}

func canonicalize(s *Server, req map[string]any) (any, *Error) {
	c, ok := s.port.(Canonicalizer)
	if !ok {
		return nil, unknownOp("canonicalize")
	}
	v, err := input(req, "value", true)
	if err != nil {
		return nil, err
	}
	return s.answer(c.Canonicalize(v))
}

func fingerprintKeyMaterial(s *Server, req map[string]any) (any, *Error) {
	f, ok := s.port.(Fingerprinter)
	if !ok {
		return nil, unknownOp("fingerprintKeyMaterial")
	}
	v, err := input(req, "keyMaterial", true)
	if err != nil {
		return nil, err
	}
	return s.answer(f.FingerprintKeyMaterial(v))
}

func fingerprintToolCall(s *Server, req map[string]any) (any, *Error) {
	f, ok := s.port.(Fingerprinter)
	if !ok {
		return nil, unknownOp("fingerprintToolCall")
	}
	name, err := typedInput[string](req, "toolName", "a string")
	if err != nil {
		return nil, err
	}
	v, err := input(req, "keyMaterial", true)
	if err != nil {
		return nil, err
	}
	return s.answer(f.FingerprintToolCall(name, v))
}

func detectTextRepetition(s *Server, req map[string]any) (any, *Error) {
	d, ok := s.port.(TextDetector)
	if !ok {
		return nil, unknownOp("detectTextRepetition")
	}
	text, err := typedInput[string](req, "text", "a string")
	if err != nil {
		return nil, err
	}
	v, err := input(req, "options", false)
	if err != nil {
		return nil, err
	}
	options, _ := v.(map[string]any)
	if options == nil {
		options = map[string]any{}
	}
	return s.answer(d.DetectTextRepetition(text, options))
}

func resolveLadderAction(s *Server, req map[string]any) (any, *Error) {
	resolver, ok := s.port.(LadderResolver)
	if !ok {
		return nil, unknownOp("resolveLadderAction")
	}
	given, err := typedInput[map[string]any](req, "ladder", "an object")
	if err != nil {
		return nil, err
	}
	var ladder Ladder
	for i, rung := range Rungs {
		switch t := given[rung].(type) {
		case bool:
			if t {
				return nil, badRequest("ladder.%s must be an integer or false", rung)
			}
		case float64:
			// a fractional or non-finite rung is outside the domain (D10)
			if t != math.Trunc(t) || math.IsInf(t, 0) {
				return nil, badRequest("ladder.%s must be an integer or false", rung)
			}
			ladder[i] = Rung{Enabled: true, At: t}
		default:
			return nil, badRequest("ladder.%s must be an integer or false", rung)
		}
	}
	streak, err := typedInput[float64](req, "streak", "a number")
	if err != nil {
		return nil, err
	}
	allowBlock, err := typedInput[bool](req, "allowBlock", "a boolean")
	if err != nil {
		return nil, err
	}
	raw, err := input(req, "allowEscalate", false)
	if err != nil {
		return nil, err
	}
	allowEscalate, err := s.flag(raw, "member \"allowEscalate\"", true)
	if err != nil {
		return nil, err
	}
	action, aerr := resolver.ResolveLadderAction(ladder, streak, allowBlock, allowEscalate)
	if aerr != nil || action == "" {
		return nil, s.failureOrNil(aerr)
	}
	return action, nil
}

// answer turns a port's (result, error) into the operation's answer.
func (s *Server) answer(result any, err error) (any, *Error) {
	if err != nil {
		return nil, s.failure(err)
	}
	return result, nil
}

func (s *Server) failureOrNil(err error) *Error {
	if err == nil {
		return nil
	}
	return s.failure(err)
}
