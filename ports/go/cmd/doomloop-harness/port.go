package main

import (
	"doomloop.invalid/harness"
	doomloop "doomloop.invalid/ports/go"
	"doomloop.invalid/ports/go/engine"
)

// port serves the doomloop package through the harness library.
type port struct{ harness.Codes }

// newPort maps the doomloop errors to their protocol codes.
func newPort() port {
	return port{harness.Codes{doomloop.ErrCanonicalization: harness.CodeCanonicalization,
		doomloop.ErrTypeError: harness.CodeTypeError, engine.ErrBadScenario: harness.CodeBadScenario}}
}

func (port) Implementation() harness.Implementation {
	return harness.Implementation{Name: "doomloop-kit-go-port", Language: "go", Version: "0.1.0"}
}

// Features: everything but js-inherited-members and object-identity (the
// Go monitor has no fingerprint memo: MON-60, PROT-39).
// Shared objects decode as one shared map or slice (PROT-33). engine: the
// engine package answers runScenario (PROT-31).
func (port) Features() []string {
	return []string{"bigint", "circular-references", "deep-nesting", "engine", "function-values", "js-coercion",
		"json-own-members", "large-integers", "lone-surrogates", "loop-key-functions", "negative-zero",
		"non-finite-numbers", "shared-objects", "undefined"}
}

func (port) ResolveOption(option any) (any, []harness.Warning, error) {
	config, warnings, err := doomloop.ResolveOption(option)
	list := make([]harness.Warning, len(warnings))
	for i, w := range warnings {
		list[i] = harness.Warning{Code: w.Code, Rung: string(w.Rung), ShadowedBy: string(w.ShadowedBy), Message: w.Message}
	}
	return config, list, err
}

func (port) NewMonitor(config, state any, warn harness.WarnFunc) (harness.Monitor, error) {
	return monitor{doomloop.NewMonitorWithState(config.(*doomloop.Config), state, doomloop.WithWarn(doomloop.WarnFunc(warn)))}, nil
}

func (port) ResolveLoopKey(loopKey any, args map[string]any) (any, error) {
	return doomloop.ResolveLoopKey(loopKey, args).JSON(), nil
}

func (port) Canonicalize(v any) (string, error)           { return doomloop.Canonicalize(v) }
func (port) FingerprintKeyMaterial(k any) (string, error) { return doomloop.FingerprintKeyMaterial(k) }
func (port) FingerprintToolCall(n string, k any) (string, error) {
	return doomloop.FingerprintToolCall(n, k)
}

func (port) DetectTextRepetition(text string, o map[string]any) (any, error) {
	found, err := doomloop.DetectTextRepetition(text, doomloop.TextOptions{MaxPeriodTokens: o["maxPeriodTokens"],
		MinRepeats: o["minRepeats"], MinCoveredTokens: o["minCoveredTokens"], MaxWindowTokens: o["maxWindowTokens"]})
	return found.JSON(), err
}

func (port) ResolveLadderAction(l harness.Ladder, streak float64, allowBlock, allowEscalate bool) (string, error) {
	ladder := doomloop.Ladder{Observe: doomloop.Threshold(l[0]), Steer: doomloop.Threshold(l[1]),
		Escalate: doomloop.Threshold(l[2]), Block: doomloop.Threshold(l[3]), Stop: doomloop.Threshold(l[4])}
	return string(doomloop.ResolveLadderAction(ladder, streak, allowBlock, allowEscalate)), nil
}

// RunScenario runs an engine scenario through the engine package (PROT-31).
func (port) RunScenario(scenario []byte) (any, error) {
	transcript, err := engine.RunScenario(scenario)
	if err != nil {
		return nil, err
	}
	return transcript.JSON(), nil
}

// monitor adapts *doomloop.Monitor to harness.Monitor.
type monitor struct{ *doomloop.Monitor }

func (m monitor) DeclareRound(round float64, calls []harness.ToolCall) error {
	list := make([]doomloop.ToolCall, len(calls))
	for i, c := range calls {
		list[i] = doomloop.ToolCall(c)
	}
	m.Monitor.DeclareRound(round, list)
	return nil
}

func (m monitor) RecordToolCall(name string, key any, round float64, o harness.RecordOptions) (any, error) {
	record, err := m.Monitor.RecordToolCall(name, key, round,
		doomloop.RecordOptions{NoBlock: !o.AllowBlock, Detector: doomloop.Detector(o.Detector)})
	return record.JSON(), err
}

func (m monitor) RecordAssistantText(text string) (any, error) {
	verdict, err := m.Monitor.RecordAssistantText(text)
	return verdict.JSON(), err
}

func (m monitor) State() any        { return m.Monitor.State() }
func (m monitor) Restore(state any) { m.Monitor.Restore(state) }
