package engine

import (
	"strings"
	"sync"
	"testing"
	"time"

	"doomloop.invalid/harness/jsvalue"
)

const twoCalls = `{"id": "two", "doomLoop": true, "tools": [{"name": "read"}],
  "runs": [{"input": "go", "model": [
    {"output": [{"type": "function_call", "name": "read", "arguments": "{\"p\":1}", "callId": "a"},
                {"type": "function_call", "name": "read", "arguments": "{\"p\":2}", "callId": "b"}]},
    {"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}]}]}]}`

func hooks(run *RunTranscript) string {
	var names []string
	for _, e := range run.Events {
		id, _ := e.Payload.Value("callId").(string)
		names = append(names, e.Hook+" "+id)
	}
	return strings.Join(names, ", ")
}

// Each call of a normal round runs on its own goroutine (ENG-138): call a
// waits before its PreToolUse until call b has run its body. A loop that ran
// the calls one after another would never get there.
func TestTheCallsOfABatchRunOnTheirOwnGoroutines(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	steps := map[string]int{}
	var mu sync.Mutex
	s, err := ParseScenario([]byte(twoCalls))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Transcript)
	go func() {
		transcript, err := s.Run(WithInterleaving(func(id string) {
			mu.Lock()
			steps[id]++
			n := steps[id]
			mu.Unlock()
			switch {
			case id == "a" && n == 1:
				<-release
			case id == "b" && n == 3: // after b's body
				once.Do(func() { close(release) })
			}
		}))
		if err != nil {
			t.Error(err)
		}
		done <- transcript
	}()
	select {
	case transcript := <-done:
		run := transcript.Runs[0]
		// a is released once b's body has run, before b's PostToolUse: the
		// two may come in either order (ENG-138 (b) orders a call's own events only).
		got := hooks(run)
		if got != "SessionStart , PreToolUse b, PostToolUse b, PreToolUse a, PostToolUse a, SessionEnd " &&
			got != "SessionStart , PreToolUse b, PreToolUse a, PostToolUse b, PostToolUse a, SessionEnd " &&
			got != "SessionStart , PreToolUse b, PreToolUse a, PostToolUse a, PostToolUse b, SessionEnd " {
			t.Errorf("events: %s", got)
		}
		if run.Executions[0].CallID != "b" || run.Executions[1].CallID != "a" {
			t.Errorf("executions: %v", run.Executions)
		}
		// the outputs stay in emission order (ENG-138 (d))
		input := run.Dispatches[1].Request.Value("input").([]any)
		if jsvalue.Stringify(input[3]) != `{"type":"function_call_output","id":"output_a","callId":"a","output":"{\"ok\":true}"}` {
			t.Errorf("first output: %s", jsvalue.Stringify(input[3]))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("call a never ran after call b: the batch's calls did not run concurrently")
	}
}

// A call that crashes on its goroutine fails the scenario with an error;
// the process and the other calls go on.
func TestACrashingCallIsAnErrorNotACrash(t *testing.T) {
	s, err := ParseScenario([]byte(twoCalls))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(WithInterleaving(func(id string) {
		if id == "b" {
			panic("boom")
		}
	}))
	if err == nil || !strings.Contains(err.Error(), `call "b" panicked: boom`) {
		t.Fatalf("got %v", err)
	}
	// the goroutine's stack, where the panic was raised, is kept
	if !strings.Contains(err.Error(), "TestACrashingCallIsAnErrorNotACrash.func") {
		t.Errorf("no stack in %v", err)
	}
}
