package engine

import (
	"errors"
	"slices"
	"testing"

	"doomloop.invalid/harness/jsvalue"
)

func runJSON(t *testing.T, scenario string) *Transcript {
	t.Helper()
	transcript, err := RunScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	return transcript
}

// The runs ENG-151 puts outside the domain run as the spec recommends: a
// pending call decided twice is decided once.
func TestACallDecidedTwiceIsDecidedOnce(t *testing.T) {
	transcript := runJSON(t, `{"id": "twice", "doomLoop": true, "tools": [{"name": "risky", "kind": "approval"}],
	  "runs": [{"input": "go", "model": [{"output": [{"type": "function_call", "name": "risky", "arguments": "{}", "callId": "c1"}]}]},
	           {"approve": ["c1", "c1"], "reject": ["c1"], "model": [{"output": []}]}]}`)
	resume := transcript.Runs[1]
	if len(resume.Executions) != 1 {
		t.Errorf("the body ran %d times", len(resume.Executions))
	}
	input := resume.Dispatches[0].Request.Value("input").([]any)
	outputs := 0
	for _, item := range input {
		if asObject(item).Value("type") == "function_call_output" {
			outputs++
		}
	}
	if outputs != 1 {
		t.Errorf("%d outputs for one call", outputs)
	}
}

// A HITL call in a response that pauses for approval stays pending with the
// approval calls, and approving it runs its body; a null result answers null.
func TestAHITLCallBesideApprovalsStaysPending(t *testing.T) {
	transcript := runJSON(t, `{"id": "hitl", "doomLoop": true,
	  "tools": [{"name": "risky", "kind": "approval"}, {"name": "ask", "kind": "hitl", "result": null}],
	  "runs": [{"input": "go", "model": [{"output": [
	             {"type": "function_call", "name": "risky", "arguments": "{}", "callId": "c1"},
	             {"type": "function_call", "name": "ask", "arguments": "{}", "callId": "c2"}]}]},
	           {"approve": ["c2"], "reject": ["c1"], "model": [{"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}]}]}]}`)
	pending := transcript.Runs[0].State.Value("pendingToolCalls").([]any)
	if len(pending) != 2 || transcript.Runs[0].State.Value("status") != "awaiting_approval" {
		t.Errorf("pending %v", jsvalue.Stringify(pending))
	}
	resume := transcript.Runs[1]
	if len(resume.Executions) != 1 || resume.Executions[0].CallID != "c2" {
		t.Errorf("executions %v", resume.Executions)
	}
	input := resume.Dispatches[0].Request.Value("input").([]any)
	if got := jsvalue.Stringify(input[len(input)-2]); got != `{"type":"function_call_output","id":"output_c2","callId":"c2","output":"null"}` {
		t.Errorf("the HITL call's output: %s", got)
	}
}

// A scenario whose tool choice is null or has no canonical form (ENG-172,
// ENG-173) is not well formed.
func TestScenariosThatCannotMakeARunAreBad(t *testing.T) {
	for name, scenario := range map[string]string{
		"null tool choice": `{"id": "x", "request": {"toolChoice": null}, "runs": [{"input": "go"}]}`,
		"infinite choice":  `{"id": "x", "request": {"toolChoice": {"type": "function", "n": 1e400}}, "runs": [{"input": "go"}]}`,
		"fractional count": `{"id": "x", "request": {"toolChoiceFromDispatch": 0.5}, "runs": [{"input": "go"}]}`,
		"infinite count":   `{"id": "x", "request": {"stopWhenSteps": 1e400}, "runs": [{"input": "go"}]}`,
		"null count":       `{"id": "x", "request": {"stopWhenSteps": null}, "runs": [{"input": "go"}]}`,
		"not JSON":         `{"id": "x",`,
		"unknown member":   `{"id": "x", "runs": [], "extra": 1}`,
	} {
		if _, err := RunScenario([]byte(scenario)); !errors.Is(err, ErrBadScenario) {
			t.Errorf("%s: got %v, want a bad scenario", name, err)
		}
	}
	// an overridden scenario option is never resolved; a large integer is a count
	runJSON(t, `{"id": "x", "doomLoop": null, "request": {"stopWhenSteps": 1e300}, "runs": [{"input": "go", "doomLoop": true, "model": [{"output": []}]}]}`)
}

// An option whose resolution throws (JS TypeError) fails its run with
// type-error before the run is built, keeping the warnings printed before
// the throw (ENG-176, CFG-47); the scenario is well formed.
func TestAnOptionThatThrowsFailsItsRun(t *testing.T) {
	for name, c := range map[string]struct {
		scenario string
		codes    []string
	}{
		"null option":      {`{"id": "x", "runs": [{"input": "go", "doomLoop": null}]}`, nil},
		"null text option": {`{"id": "x", "doomLoop": {"ladder": {"escalate": 4}, "text": null}, "runs": [{"input": "go"}]}`, []string{"dead-rung", "escalation-rung-unconfigured"}},
		"null escalation":  {`{"id": "x", "doomLoop": {"ladder": {"block": 6, "stop": 6}, "escalation": null}, "runs": [{"input": "go"}]}`, []string{"dead-rung"}},
	} {
		transcript := runJSON(t, c.scenario)
		run := transcript.Runs[0]
		if run.End.Error != errTypeError || run.End.Reason != "" || run.Config != nil || len(run.Dispatches) != 0 {
			t.Errorf("%s: end %+v, config %v, %d dispatches", name, run.End, run.Config, len(run.Dispatches))
		}
		if !slices.Equal(run.ConfigWarnings, c.codes) {
			t.Errorf("%s: config warnings %v, want %v", name, run.ConfigWarnings, c.codes)
		}
	}
}
