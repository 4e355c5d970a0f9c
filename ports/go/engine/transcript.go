package engine

import "doomloop.invalid/harness/jsvalue"

// Transcript is the observable run of every run of a scenario (ENG-156).
type Transcript struct {
	Scenario string
	Runs     []*RunTranscript
}

// RunTranscript is what one run made observable (ENG-156): every
// dispatch's request, the hook events and the tool bodies that ran as they
// happened (a concurrent batch's in the order its goroutines produced,
// ENG-138), the warnings (informative, ENG-108), how the run ended and the
// state it saved last.
type RunTranscript struct {
	Index              int
	DecisionResume     bool
	Config             any // the resolved option's wire form; nil when off
	ConfigWarnings     []string
	Dispatches         []Dispatch
	Events             []Event
	Executions         []Execution
	Warnings           []string
	LoopKeyInvocations map[string]int
	End                RunEnd
	State              *Object // nil: the run saved nothing
}

// Dispatch is one request to the model and the id of the response it got;
// ResponseID is "" when the scripted model was exhausted (ENG-19, ENG-20).
type Dispatch struct {
	Index      int
	Kind       string // initial, follow-up, resume, final or retry
	Request    *Object
	ResponseID string
}

// RunEnd is how a run ended (ENG-86, ENG-87, ENG-141).
type RunEnd struct {
	Status          any    // the status the state accessor holds; nil without one, undefined when its state has none
	Reason          string // the reason the run reached; "" for a run refused before it started
	FinalResponseID string // "" without a final response
	FinalText       *string
	StopVerdict     any // what the stop verdict accessor gives; nil when none
	// Error is the failure's kind, "" for a run that did not fail (ENG-141);
	// ErrorDispatch is the failed dispatch of a script-exhausted failure.
	Error         string
	ErrorDispatch int
	ErrorMessage  string
}

// JSON is the transcript as the conformance protocol carries it
// (§15.1.4, PROT-31): plain JSON in the harness library's value model.
func (t *Transcript) JSON() any {
	runs := make([]any, len(t.Runs))
	for i, r := range t.Runs {
		runs[i] = r.json()
	}
	return map[string]any{"scenario": t.Scenario, "runs": runs}
}

func (r *RunTranscript) json() map[string]any {
	dispatches := make([]any, len(r.Dispatches))
	for i, d := range r.Dispatches {
		dispatches[i] = map[string]any{"index": float64(d.Index), "kind": d.Kind, "request": wireValue(d.Request),
			"responseId": nullable(d.ResponseID)}
	}
	events := make([]any, len(r.Events))
	for i, e := range r.Events {
		event := map[string]any{"hook": e.Hook, "payload": wireValue(e.Payload)}
		if e.AppliedAction != "" {
			event["appliedAction"] = e.AppliedAction
		}
		events[i] = event
	}
	executions := make([]any, len(r.Executions))
	for i, e := range r.Executions {
		executions[i] = map[string]any{"callId": e.CallID, "name": e.Name, "arguments": wireValue(e.Arguments),
			"round": float64(e.Round)}
	}
	invocations := map[string]any{}
	for name, n := range r.LoopKeyInvocations {
		invocations[name] = float64(n)
	}
	end := map[string]any{"reason": nullable(r.End.Reason),
		"finalResponseId": nullable(r.End.FinalResponseID), "finalText": nil,
		"stopVerdict": wireValue(r.End.StopVerdict)}
	if !jsvalue.IsUndefined(r.End.Status) { // left out when the state held has no status (ENG-191)
		end["status"] = wireValue(r.End.Status)
	}
	if r.End.FinalText != nil {
		end["finalText"] = *r.End.FinalText
	}
	if r.End.Error != "" {
		failure := map[string]any{"kind": r.End.Error, "message": r.End.ErrorMessage}
		if r.End.Error == errScriptExhausted {
			failure["dispatch"] = float64(r.End.ErrorDispatch)
		}
		end["error"] = failure
	}
	var state any
	if r.State != nil {
		state = wireValue(r.State)
	}
	return map[string]any{
		"index": float64(r.Index), "decisionResume": r.DecisionResume, "config": r.Config,
		"configWarnings": stringList(r.ConfigWarnings), "dispatches": dispatches, "events": events,
		"executions": executions, "warnings": stringList(r.Warnings), "loopKeyInvocations": invocations,
		"end": end, "state": state,
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func stringList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
