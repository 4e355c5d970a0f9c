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
	CodeTypeError           = "type-error"
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
	// Warn, when set, receives the monitor's logs and the configuration
	// warnings, exactly as the SDK passes them to console.warn.
	Warn doomloop.WarnFunc
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
		if raw, ok := req["id"].(float64); ok && raw == math.Trunc(raw) && math.Abs(raw) <= maxSafeInteger {
			id = raw + 0 // -0 is the integer 0
		} else {
			return nil, badRequest("member \"id\" must be an integer")
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
		out, err = doomloop.AppendJSON(nil, map[string]any{"id": id,
			"error": map[string]any{"code": CodeInternal, "message": "unencodable result: " + err.Error()}})
	}
	if err != nil || len(out) == 0 { // never an empty line
		out = []byte(`{"id":null,"error":{"code":"internal","message":"unencodable response"}}`)
	}
	return out
}

// maxSafeInteger is 2^53 - 1: a request id beyond it cannot be told apart
// from its neighbours once read as a double.
const maxSafeInteger = 1<<53 - 1

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
		m, err := s.CreateMonitor(req)
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
		return fn(s, req)
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

// failure maps an error of the port to its protocol error: canonicalization
// (the SDK's message), type-error (the SDK throws a TypeError), bad-request
// (an input outside the port's domain), internal otherwise.
func failure(err error) *OpError {
	switch {
	case errors.Is(err, doomloop.ErrCanonicalization):
		return &OpError{Code: CodeCanonicalization, Message: err.Error()}
	case errors.Is(err, doomloop.ErrTypeError):
		return &OpError{Code: CodeTypeError, Message: err.Error()}
	case errors.Is(err, doomloop.ErrOutsideDomain):
		return &OpError{Code: CodeBadRequest, Message: err.Error()}
	}
	return &OpError{Code: CodeInternal, Message: err.Error()}
}

// resolve resolves an option, sending its warnings to the Warn hook.
func (s *Server) resolve(option any) (*doomloop.Config, []doomloop.ConfigWarning, *OpError) {
	config, warnings, err := doomloop.ResolveOption(option)
	if err != nil {
		return nil, nil, failure(err)
	}
	if s.Warn != nil {
		for _, w := range warnings {
			s.Warn(w.Message, nil)
		}
	}
	return config, warnings, nil
}

// CreateMonitor builds a monitor from a create request: "option" (tagged,
// required) and, when present, "state" (construct, then restore).
func (s *Server) CreateMonitor(req map[string]any) (*doomloop.Monitor, *OpError) {
	option, err := input(req, "option", true)
	if err != nil {
		return nil, err
	}
	config, _, err := s.resolve(option)
	if err != nil {
		return nil, err
	}
	if config == nil {
		return nil, badRequest("the option turns detection off: there is no monitor")
	}
	state, err := input(req, "state", false)
	if err != nil {
		return nil, err
	}
	warn := doomloop.WithWarn(s.Warn)
	if _, absent := state.(doomloop.Undefined); absent {
		return doomloop.NewMonitor(config, warn), nil
	}
	return doomloop.NewMonitorWithState(config, state, warn), nil
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
		// a member holding undefined is absent (spec §10.6)
		if raw, has := given["allowBlock"]; has && !isUndefined(raw) {
			allow, ok := raw.(bool)
			if !ok {
				return nil, badRequest("options.allowBlock must be a boolean")
			}
			opts.NoBlock = !allow
		}
		if raw, has := given["detector"]; has && !isUndefined(raw) {
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
		return nil, failure(cerr)
	}
	return record.JSON(), nil
}

func recordAssistantText(m *doomloop.Monitor, req map[string]any) (any, *OpError) {
	text, err := stringInput(req, "text")
	if err != nil {
		return nil, err
	}
	verdict, verr := m.RecordAssistantText(text)
	if verr != nil {
		return nil, failure(verr)
	}
	return verdict.JSON(), nil
}

type functionOp func(*Server, map[string]any) (any, *OpError)

var functionOps = map[string]functionOp{
	"resolveOption": func(s *Server, req map[string]any) (any, *OpError) {
		option, err := input(req, "option", false)
		if err != nil {
			return nil, err
		}
		config, warnings, rerr := s.resolve(option)
		if rerr != nil {
			return nil, rerr
		}
		list := make([]any, len(warnings))
		for i, w := range warnings {
			list[i] = w.JSON()
		}
		// JS-only values given in the option are echoed in tagged form.
		return map[string]any{"config": doomloop.EncodeTagged(config.JSON()), "warnings": list}, nil
	},
	"resolveLoopKey": func(s *Server, req map[string]any) (any, *OpError) {
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
	"canonicalize": func(s *Server, req map[string]any) (any, *OpError) {
		v, err := input(req, "value", true)
		if err != nil {
			return nil, err
		}
		text, cerr := doomloop.Canonicalize(v)
		if cerr != nil {
			return nil, failure(cerr)
		}
		return text, nil
	},
	"fingerprintKeyMaterial": func(s *Server, req map[string]any) (any, *OpError) {
		v, err := input(req, "keyMaterial", true)
		if err != nil {
			return nil, err
		}
		fp, cerr := doomloop.FingerprintKeyMaterial(v)
		if cerr != nil {
			return nil, failure(cerr)
		}
		return fp, nil
	},
	"fingerprintToolCall": func(s *Server, req map[string]any) (any, *OpError) {
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
			return nil, failure(cerr)
		}
		return fp, nil
	},
	"detectTextRepetition": func(s *Server, req map[string]any) (any, *OpError) {
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
		found, derr := doomloop.DetectTextRepetition(text, opts)
		if derr != nil {
			return nil, failure(derr)
		}
		return found.JSON(), nil
	},
	"resolveLadderAction": resolveLadderAction,
}

func resolveLadderAction(_ *Server, req map[string]any) (any, *OpError) {
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
			// a fractional or non-finite rung is outside the domain (D10)
			if t != math.Trunc(t) || math.IsInf(t, 0) {
				return nil, badRequest("ladder.%s must be an integer or false", rung)
			}
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
	allowEscalate := true // absent or undefined: the default (spec §10.6)
	raw, err := input(req, "allowEscalate", false)
	if err != nil {
		return nil, err
	}
	if !isUndefined(raw) {
		b, ok := raw.(bool)
		if !ok { // JS truthiness is feature js-coercion, not declared
			return nil, badRequest("member \"allowEscalate\" must be a boolean")
		}
		allowEscalate = b
	}
	action := doomloop.ResolveLadderAction(ladder, streak, allowBlock, allowEscalate)
	if action == "" {
		return nil, nil
	}
	return string(action), nil
}

func isUndefined(v any) bool {
	_, ok := v.(doomloop.Undefined)
	return ok
}
