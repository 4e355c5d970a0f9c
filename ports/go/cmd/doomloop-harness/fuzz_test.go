package main

import (
	"testing"

	"doomloop.invalid/harness"
	doomloop "doomloop.invalid/ports/go"
)

// FuzzHandleLine: whatever a request line holds, the answer is one JSON
// object with an id and exactly one of result and error.
func FuzzHandleLine(f *testing.F) {
	for _, seed := range []string{
		`{"id":0,"op":"hello","protocol":1}`,
		`{"id":1,"op":"canonicalize","value":{"a":[1,"\ud800",{"$js":"undefined"}]}}`,
		`{"id":2,"op":"resolveLoopKey","args":{"x":{"$js":"ref","up":1}},"loopKey":{"$js":"function","returns":{"$js":"nest","depth":3,"value":1}}}`,
		`{"id":3,"op":"create","option":{"ladder":{"observe":1},"escalation":{"model":"m"}},"state":{"tools":[{"fingerprint":"x","streak":2}]}}`,
		`{"id":4,"op":"recordToolCall","session":"s1","toolName":"read","keyMaterial":{"path":"a"},"round":0}`,
		`{"id":5,"op":"detectTextRepetition","text":"a a a a a a a a a a a a","options":{"minRepeats":2}}`,
		`{"id":6,"op":"resolveOption","option":{"text":{"minRepeats":null}}}`,
		`[`, `{"id":1e400}`, `{"id":-0,"op":"canonicalize","value":1}`, `{"id":9007199254740993,"op":"hello"}`,
		`{"id":8,"op":"resolveOption","option":null}`, `{"id":7,"op":"restore","session":"s1","state":{"$js":"object","value":{"$js":1}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := harness.NewServer(newPort())
		s.HandleLine([]byte(`{"id":0,"op":"create","option":true}`))
		out := s.HandleLine(line)
		v, err := doomloop.ParseJSON(out)
		if err != nil {
			t.Fatalf("response %q is not JSON: %v", out, err)
		}
		r, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("response %q is not an object", out)
		}
		_, hasID := r["id"]
		_, hasResult := r["result"]
		_, hasError := r["error"]
		if !hasID || hasResult == hasError {
			t.Fatalf("malformed response %q", out)
		}
		if e, ok := r["error"].(map[string]any); ok && e["code"] == harness.CodeInternal {
			t.Fatalf("internal error for %q: %v", line, e["message"])
		}
	})
}
