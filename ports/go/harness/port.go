// Package harness serves a Go port of the doom-loop monitor over version 1
// of the conformance protocol (spec/protocol.md): one JSON request per line
// on stdin, one JSON response per line on stdout. A port implements Port
// (its identity and features) and, for each family of operations it
// supports, one of the small interfaces below; Serve does the rest: framing,
// the handshake, ids, sessions, tagged values (package jsvalue), input
// checks and error codes. An operation whose interface the port does not
// implement is answered "unknown-op".
//
// Values cross this boundary in the jsvalue model: nil, bool, float64,
// string, []any, map[string]any, and jsvalue.Undefined, BigInt, Function
// and *ScriptedLoopKey for what only JavaScript has. Results are values of
// the same model; the harness writes them in tagged form.
package harness

import "errors"

// Implementation names the port in the handshake.
type Implementation struct {
	Name, Language, Version string
}

// Port is what every port implements.
type Port interface {
	Implementation() Implementation
	// Features lists the feature tags (spec/features.md) the port
	// implements completely.
	Features() []string
}

// Warning is a configuration warning: Message is the SDK's text (spec
// §9.1); Code, and Rung and ShadowedBy for a dead rung, follow from it.
type Warning struct {
	Code, Rung, ShadowedBy, Message string
}

// WarnFunc receives what the SDK passes to console.warn: the message and,
// for declareRound's log, the error. The harness writes it to stderr.
type WarnFunc func(message string, err error)

// OptionResolver resolves the doomLoop option (resolveOption, create).
// config is the port's resolved configuration, handed back to NewMonitor;
// its wire form is config.JSON() when it has that method, else config
// itself; a wire form of nil means detection is off.
type OptionResolver interface {
	ResolveOption(option any) (config any, warnings []Warning, err error)
}

// MonitorFactory builds monitors (create). config comes from
// ResolveOption and is never off; state is jsvalue.Undefined when the
// request has none, else the monitor is constructed, then restored.
type MonitorFactory interface {
	NewMonitor(config any, state any, warn WarnFunc) (Monitor, error)
}

// ToolCall is one call of a declared round.
type ToolCall struct {
	ToolName    string
	KeyMaterial any
}

// RecordOptions are recordToolCall's options, defaults applied.
type RecordOptions struct {
	AllowBlock bool
	Detector   string // "tool-fingerprint" or "server-tool-fingerprint"
}

// Monitor is one session's monitor. Results are wire values: the call
// record, the verdict (nil for none), the state blob.
type Monitor interface {
	DeclareRound(round float64, calls []ToolCall) error
	RecordToolCall(toolName string, keyMaterial any, round float64, opts RecordOptions) (any, error)
	RecordAssistantText(text string) (any, error)
	ResetTextStreak()
	CanEscalate() bool
	ConsumeEscalation()
	State() any
	Restore(state any)
}

// LoopKeyResolver answers resolveLoopKey with {kind, keyMaterial?, warning?}.
// loopKey is jsvalue.Undefined when the tool declares none.
type LoopKeyResolver interface {
	ResolveLoopKey(loopKey any, args map[string]any) (any, error)
}

// Canonicalizer answers canonicalize.
type Canonicalizer interface {
	Canonicalize(value any) (string, error)
}

// Fingerprinter answers fingerprintKeyMaterial and fingerprintToolCall.
type Fingerprinter interface {
	FingerprintKeyMaterial(keyMaterial any) (string, error)
	FingerprintToolCall(toolName string, keyMaterial any) (string, error)
}

// TextDetector answers detectTextRepetition; options holds the members
// given (absent options: empty), the result is the repetition or nil.
type TextDetector interface {
	DetectTextRepetition(text string, options map[string]any) (any, error)
}

// Rung is a ladder threshold: disabled, or enabled at an integer At.
type Rung struct {
	Enabled bool
	At      float64
}

// Rungs names the ladder's rungs in the order of a Ladder.
var Rungs = [5]string{"observe", "steer", "escalate", "block", "stop"}

// Ladder holds the five rungs in the order of Rungs.
type Ladder [5]Rung

// LadderResolver answers resolveLadderAction with an action name, or ""
// for none.
type LadderResolver interface {
	ResolveLadderAction(ladder Ladder, streak float64, allowBlock, allowEscalate bool) (string, error)
}

// ScenarioRunner answers runScenario (protocol revision 1.2, feature
// "engine", PROT-31): it runs one engine scenario (spec §15.1.4) through the
// port's engine and returns the transcript, plain JSON in this package's
// value model. scenario is the request's "scenario" member as JSON text,
// exactly as sent, for the port to parse: the engine level observes the
// order of an object's members (ENG-105: a tool's result reaches the model
// as JS JSON.stringify writes it), which a map cannot keep. An error the
// port's ErrorCoder names CodeBadScenario answers "bad-scenario": a
// scenario that is not well formed (PROT-32), or a run outside the engine
// level's domain (PROT-43).
type ScenarioRunner interface {
	RunScenario(scenario []byte) (transcript any, err error)
}

// ErrorCoder, when the port implements it, names the protocol error code
// (one of the Code constants) of each error the port returns. Without it,
// an *Error gives its own code and anything else is "internal".
type ErrorCoder interface {
	ErrorCode(err error) string
}

// Codes is an ErrorCoder from data: the code of an error is the code of
// the sentinel it wraps (errors.Is), else "internal". Embed it in a port:
//
//	type port struct{ harness.Codes }
//	port{harness.Codes{mypkg.ErrCanonicalization: harness.CodeCanonicalization}}
type Codes map[error]string

// ErrorCode implements ErrorCoder.
func (c Codes) ErrorCode(err error) string {
	for sentinel, code := range c {
		if errors.Is(err, sentinel) {
			return code
		}
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Error is an error response with a chosen code.
type Error struct {
	Code, Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Error codes of protocol v1 (spec/protocol.md §P.7).
const (
	CodeCanonicalization    = "canonicalization"
	CodeTypeError           = "type-error"
	CodeBadRequest          = "bad-request"
	CodeUnknownOp           = "unknown-op"
	CodeUnknownSession      = "unknown-session"
	CodeUnsupportedProtocol = "unsupported-protocol"
	CodeInternal            = "internal"
	CodeBadScenario         = "bad-scenario"
)
