// Package protocol implements version 1 of the conformance protocol: one
// JSON request per line in, one JSON response per line out. It is shared by
// the harness binary and the vector replay tests.
package protocol

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"

	doomloop "doomloop.invalid/ports/go"
)

// Version is the protocol version this package speaks.
const Version = 1

// Implementation identity reported by the handshake.
const (
	ImplementationName     = "doomloop-kit-go-port"
	ImplementationLanguage = "go"
	ImplementationVersion  = "0.1.0"
)

// Features lists the optional features this port implements in full.
var Features = []string{
	"bigint",
	"circular-references",
	"deep-nesting",
	"function-values",
	"json-own-members",
	"large-integers",
	"lone-surrogates",
	"loop-key-functions",
	"negative-zero",
	"non-finite-numbers",
	"undefined",
}

// Error codes of protocol v1.
const (
	CodeCanonicalization    = "canonicalization"
	CodeBadRequest          = "bad-request"
	CodeUnknownOp           = "unknown-op"
	CodeUnknownSession      = "unknown-session"
	CodeUnsupportedProtocol = "unsupported-protocol"
	CodeInternal            = "internal"
)

// OpError is an operation that ends in an error response.
type OpError struct {
	Code    string
	Message string
}

func (e *OpError) Error() string { return e.Code + ": " + e.Message }

func badRequest(format string, args ...any) *OpError {
	return &OpError{Code: CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

// Server holds the sessions of one harness process.
type Server struct {
	sessions map[string]*doomloop.Monitor
	next     int
	// Log, when set, receives diagnostics (the stack of an internal error).
	Log io.Writer
}

// NewServer returns a server with no sessions.
func NewServer() *Server {
	return &Server{sessions: map[string]*doomloop.Monitor{}}
}

// HandleLine answers one request line with one response line (no newline).
// It never panics: a failure inside an operation is an "internal" error.
func (s *Server) HandleLine(line []byte) []byte {
	var id any
	result, opErr := func() (result any, opErr *OpError) {
		defer func() {
			if p := recover(); p != nil {
				opErr = &OpError{Code: CodeInternal, Message: fmt.Sprintf("panic: %v", p)}
				if s.Log != nil {
					fmt.Fprintf(s.Log, "internal error: %v\n%s\n", p, debug.Stack())
				}
			}
		}()
		parsed, err := doomloop.ParseJSON(line)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		req, ok := parsed.(map[string]any)
		if !ok {
			return nil, badRequest("a request must be a JSON object")
		}
		if raw, ok := req["id"].(float64); ok && raw == math.Trunc(raw) && !math.IsInf(raw, 0) {
			id = raw
		} else {
			return nil, badRequest("member 'id' must be an integer")
		}
		op, ok := req["op"].(string)
		if !ok {
			return nil, badRequest("a request needs a string op")
		}
		return s.Dispatch(op, req)
	}()
	var response map[string]any
	if opErr != nil {
		response = map[string]any{"id": id, "error": map[string]any{"code": opErr.Code, "message": opErr.Message}}
	} else {
		response = map[string]any{"id": id, "result": result}
	}
	out, err := doomloop.AppendJSON(nil, response)
	if err != nil {
		out, _ = doomloop.AppendJSON(nil, map[string]any{"id": id,
			"error": map[string]any{"code": CodeInternal, "message": "unencodable result: " + err.Error()}})
	}
	return out
}

// Dispatch runs one operation on an already parsed request. Results are
// plain JSON values, except that resolveOption and resolveLoopKey echo
// JS-only input values in their tagged form.
func (s *Server) Dispatch(op string, req map[string]any) (any, *OpError) {
	switch op {
	case "hello":
		if v, ok := req["protocol"].(float64); !ok || v != Version {
			return nil, &OpError{Code: CodeUnsupportedProtocol,
				Message: "this harness speaks protocol " + strconv.Itoa(Version) + " only"}
		}
		features := make([]any, len(Features))
		for i, f := range Features {
			features[i] = f
		}
		return map[string]any{
			"protocol": float64(Version),
			"implementation": map[string]any{
				"name": ImplementationName, "language": ImplementationLanguage, "version": ImplementationVersion,
			},
			"features": features,
		}, nil
	case "create":
		m, err := CreateMonitor(req)
		if err != nil {
			return nil, err
		}
		s.next++
		id := "s" + strconv.Itoa(s.next)
		s.sessions[id] = m
		return map[string]any{"session": id}, nil
	case "close":
		name, err := s.session(req)
		if err != nil {
			return nil, err
		}
		delete(s.sessions, name)
		return nil, nil
	}
	if fn, ok := monitorOps[op]; ok {
		name, err := s.session(req)
		if err != nil {
			return nil, err
		}
		return fn(s.sessions[name], req)
	}
	if fn, ok := functionOps[op]; ok {
		return fn(req)
	}
	return nil, &OpError{Code: CodeUnknownOp, Message: fmt.Sprintf("unknown op %q", op)}
}

func (s *Server) session(req map[string]any) (string, *OpError) {
	name, ok := req["session"].(string)
	if !ok {
		return "", badRequest("member 'session' must be a string")
	}
	if _, open := s.sessions[name]; !open {
		return "", &OpError{Code: CodeUnknownSession, Message: fmt.Sprintf("no open session %q", name)}
	}
	return name, nil
}

// IsMonitorOp reports whether op needs a monitor (a session).
func IsMonitorOp(op string) bool {
	_, ok := monitorOps[op]
	return ok
}

// input returns a decoded input member: Undefined when absent (or a
// bad-request error when it is required).
func input(req map[string]any, name string, required bool) (any, *OpError) {
	raw, ok := req[name]
	if !ok {
		if required {
			return nil, badRequest("missing member %q", name)
		}
		return doomloop.Undefined{}, nil
	}
	v, err := doomloop.DecodeTagged(raw)
	if err != nil {
		return nil, badRequest("member %q: %v", name, err)
	}
	return v, nil
}

func stringInput(req map[string]any, name string) (string, *OpError) {
	v, err := input(req, name, true)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest("member %q must be a string", name)
	}
	return s, nil
}

func numberInput(req map[string]any, name string) (float64, *OpError) {
	v, err := input(req, name, true)
	if err != nil {
		return 0, err
	}
	f, ok := v.(float64)
	if !ok {
		return 0, badRequest("member %q must be a number", name)
	}
	return f, nil
}

func boolInput(req map[string]any, name string) (bool, *OpError) {
	v, err := input(req, name, true)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, badRequest("member %q must be a boolean", name)
	}
	return b, nil
}

func canonical(err error) *OpError {
	if errors.Is(err, doomloop.ErrCanonicalization) {
		return &OpError{Code: CodeCanonicalization, Message: err.Error()}
	}
	return &OpError{Code: CodeInternal, Message: err.Error()}
}

// CreateMonitor builds a monitor from a create request: "option" (tagged,
// required) and, when present, "state" (construct, then restore).
func CreateMonitor(req map[string]any) (*doomloop.Monitor, *OpError) {
	option, err := input(req, "option", true)
	if err != nil {
		return nil, err
	}
	config, _ := doomloop.ResolveOption(option)
	if config == nil {
		return nil, badRequest("the option turns detection off: there is no monitor")
	}
	state, err := input(req, "state", false)
	if err != nil {
		return nil, err
	}
	if _, absent := state.(doomloop.Undefined); absent {
		return doomloop.NewMonitor(config), nil
	}
	return doomloop.NewMonitorWithState(config, state), nil
}

type monitorOp func(*doomloop.Monitor, map[string]any) (any, *OpError)

var monitorOps = map[string]monitorOp{
	"declareRound":        declareRound,
	"recordToolCall":      recordToolCall,
	"recordAssistantText": recordAssistantText,
	"resetTextStreak": func(m *doomloop.Monitor, _ map[string]any) (any, *OpError) {
		m.ResetTextStreak()
		return nil, nil
	},
	"canEscalate": func(m *doomloop.Monitor, _ map[string]any) (any, *OpError) {
		return m.CanEscalate(), nil
	},
	"consumeEscalation": func(m *doomloop.Monitor, _ map[string]any) (any, *OpError) {
		m.ConsumeEscalation()
		return nil, nil
	},
	"getState": func(m *doomloop.Monitor, _ map[string]any) (any, *OpError) {
		// a tool named "$js" must travel with the object escape (PROT-07)
		return doomloop.EncodeTagged(m.State()), nil
	},
	"restore": func(m *doomloop.Monitor, req map[string]any) (any, *OpError) {
		state, err := input(req, "state", true)
		if err != nil {
			return nil, err
		}
		m.Restore(state)
		return nil, nil
	},
}

func declareRound(m *doomloop.Monitor, req map[string]any) (any, *OpError) {
	v, err := input(req, "calls", true)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badRequest("member \"calls\" must be an array")
	}
	calls := make([]doomloop.ToolCall, 0, len(list))
	for _, item := range list {
		call, ok := item.(map[string]any)
		name, isString := call["toolName"].(string)
		if !ok || !isString {
			return nil, badRequest("each call needs a string toolName")
		}
		key, has := call["keyMaterial"]
		if !has {
			key = doomloop.Undefined{}
		}
		calls = append(calls, doomloop.ToolCall{ToolName: name, KeyMaterial: key})
	}
	round, err := numberInput(req, "round")
	if err != nil {
		return nil, err
	}
	m.DeclareRound(round, calls)
	return nil, nil
}

func recordToolCall(m *doomloop.Monitor, req map[string]any) (any, *OpError) {
	v, err := input(req, "options", false)
	if err != nil {
		return nil, err
	}
	var opts doomloop.RecordOptions
	if given, ok := v.(map[string]any); ok {
		if raw, has := given["allowBlock"]; has {
			allow, ok := raw.(bool)
			if !ok {
				return nil, badRequest("options.allowBlock must be a boolean")
			}
			opts.NoBlock = !allow
		}
		if raw, has := given["detector"]; has {
			switch raw {
			case string(doomloop.DetectorToolFingerprint), string(doomloop.DetectorServerToolFingerprint):
				opts.Detector = doomloop.Detector(raw.(string))
			default:
				return nil, badRequest("options.detector must be a tool detector")
			}
		}
	}
	name, err := stringInput(req, "toolName")
	if err != nil {
		return nil, err
	}
	key, err := input(req, "keyMaterial", true)
	if err != nil {
		return nil, err
	}
	round, err := numberInput(req, "round")
	if err != nil {
		return nil, err
	}
	record, cerr := m.RecordToolCall(name, key, round, opts)
	if cerr != nil {
		return nil, canonical(cerr)
	}
	return record.JSON(), nil
}

func recordAssistantText(m *doomloop.Monitor, req map[string]any) (any, *OpError) {
	text, err := stringInput(req, "text")
	if err != nil {
		return nil, err
	}
	return m.RecordAssistantText(text).JSON(), nil
}

type functionOp func(map[string]any) (any, *OpError)

var functionOps = map[string]functionOp{
	"resolveOption": func(req map[string]any) (any, *OpError) {
		option, err := input(req, "option", false)
		if err != nil {
			return nil, err
		}
		config, warnings := doomloop.ResolveOption(option)
		list := make([]any, len(warnings))
		for i, w := range warnings {
			list[i] = w.JSON()
		}
		// JS-only values given in the option are echoed in tagged form.
		return map[string]any{"config": doomloop.EncodeTagged(config.JSON()), "warnings": list}, nil
	},
	"resolveLoopKey": func(req map[string]any) (any, *OpError) {
		v, err := input(req, "args", true)
		if err != nil {
			return nil, err
		}
		args, ok := v.(map[string]any)
		if !ok {
			return nil, badRequest("member \"args\" must be an object")
		}
		loopKey, err := input(req, "loopKey", false)
		if err != nil {
			return nil, err
		}
		return doomloop.EncodeTagged(doomloop.ResolveLoopKey(loopKey, args).JSON()), nil
	},
	"canonicalize": func(req map[string]any) (any, *OpError) {
		v, err := input(req, "value", true)
		if err != nil {
			return nil, err
		}
		text, cerr := doomloop.Canonicalize(v)
		if cerr != nil {
			return nil, canonical(cerr)
		}
		return text, nil
	},
	"fingerprintKeyMaterial": func(req map[string]any) (any, *OpError) {
		v, err := input(req, "keyMaterial", true)
		if err != nil {
			return nil, err
		}
		fp, cerr := doomloop.FingerprintKeyMaterial(v)
		if cerr != nil {
			return nil, canonical(cerr)
		}
		return fp, nil
	},
	"fingerprintToolCall": func(req map[string]any) (any, *OpError) {
		name, err := stringInput(req, "toolName")
		if err != nil {
			return nil, err
		}
		v, err := input(req, "keyMaterial", true)
		if err != nil {
			return nil, err
		}
		fp, cerr := doomloop.FingerprintToolCall(name, v)
		if cerr != nil {
			return nil, canonical(cerr)
		}
		return fp, nil
	},
	"detectTextRepetition": func(req map[string]any) (any, *OpError) {
		text, err := stringInput(req, "text")
		if err != nil {
			return nil, err
		}
		v, err := input(req, "options", false)
		if err != nil {
			return nil, err
		}
		var opts doomloop.TextOptions
		if given, ok := v.(map[string]any); ok {
			opts = doomloop.TextOptions{
				MaxPeriodTokens:  given["maxPeriodTokens"],
				MinRepeats:       given["minRepeats"],
				MinCoveredTokens: given["minCoveredTokens"],
				MaxWindowTokens:  given["maxWindowTokens"],
			}
		}
		return doomloop.DetectTextRepetition(text, opts).JSON(), nil
	},
	"resolveLadderAction": resolveLadderAction,
}

func resolveLadderAction(req map[string]any) (any, *OpError) {
	v, err := input(req, "ladder", true)
	if err != nil {
		return nil, err
	}
	given, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest("member \"ladder\" must be an object")
	}
	var ladder doomloop.Ladder
	thresholds := []*doomloop.Threshold{&ladder.Observe, &ladder.Steer, &ladder.Escalate, &ladder.Block, &ladder.Stop}
	for i, rung := range doomloop.Rungs {
		switch t := given[string(rung)].(type) {
		case bool:
			if t {
				return nil, badRequest("ladder.%s must be an integer or false", rung)
			}
			*thresholds[i] = doomloop.Disabled
		case float64:
			*thresholds[i] = doomloop.At(t)
		default:
			return nil, badRequest("ladder.%s must be an integer or false", rung)
		}
	}
	streak, err := numberInput(req, "streak")
	if err != nil {
		return nil, err
	}
	allowBlock, err := boolInput(req, "allowBlock")
	if err != nil {
		return nil, err
	}
	allowEscalate := true
	if _, given := req["allowEscalate"]; given {
		raw, err := input(req, "allowEscalate", false)
		if err != nil {
			return nil, err
		}
		allowEscalate = referenceTruthy(raw)
	}
	action := doomloop.ResolveLadderAction(ladder, streak, allowBlock, allowEscalate)
	if action == "" {
		return nil, nil
	}
	return string(action), nil
}

// referenceTruthy reads a non-boolean allowEscalate the way the Python
// reference does (its truth value): null, undefined, 0, "", [] and {} are
// false. The specification only defines booleans here.
func referenceTruthy(v any) bool {
	switch x := v.(type) {
	case nil, doomloop.Undefined:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}
