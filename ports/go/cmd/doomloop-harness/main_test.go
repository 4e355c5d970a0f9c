package main

import (
	"bytes"
	"strings"
	"testing"

	"doomloop.invalid/harness"
	doomloop "doomloop.invalid/ports/go"
)

// session runs the harness over the given request lines and returns one
// decoded response per non-blank line.
func session(t *testing.T, lines ...string) []map[string]any {
	t.Helper()
	var out, errs bytes.Buffer
	if code := harness.Run(newPort(), strings.NewReader(strings.Join(lines, "\n")), &out, &errs); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs.String())
	}
	var responses []map[string]any
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		v, err := doomloop.ParseJSON([]byte(line))
		if err != nil {
			t.Fatalf("response %q is not JSON: %v", line, err)
		}
		responses = append(responses, v.(map[string]any))
	}
	return responses
}

func code(r map[string]any) string {
	e, _ := r["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestHandshake(t *testing.T) {
	r := session(t, `{"id":0,"op":"hello","protocol":1}`, `{"id":1,"op":"hello","protocol":2}`)
	result := r[0]["result"].(map[string]any)
	impl := result["implementation"].(map[string]any)
	if impl["name"] != "doomloop-kit-go-port" || impl["language"] != "go" || result["protocol"] != 1.0 {
		t.Fatalf("hello: %v", r[0])
	}
	if code(r[1]) != "unsupported-protocol" || r[1]["id"] != 1.0 {
		t.Fatalf("protocol 2: %v", r[1])
	}
}

func TestBadInputNeverStopsTheHarness(t *testing.T) {
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	r := session(t,
		`not json`,
		`[1,2]`,
		`{"op":"hello","protocol":1}`,
		`{"id":"x","op":"hello"}`,
		`{"id":3,"op":"frobnicate"}`,
		`{"id":4,"op":"getState","session":"nope"}`,
		`{"id":5,"op":"getState"}`,
		`{"id":6,"op":"canonicalize"}`,
		`{"id":7,"op":"canonicalize","value":{"$js":"ref","up":9}}`,
		`{"id":8,"op":"canonicalize","value":`+deep+`}`,
		`{"id":9,"op":"canonicalize","value":{"$js":"nest","depth":1000000000,"value":0}}`,
		`{"id":10,"op":"canonicalize","value":{"$js":"bigint","value":"1"}}`,
		`{"id":11,"op":"create","option":false}`,
		`{"id":12,"op":"create","option":true}`,
		`{"id":13,"op":"recordToolCall","session":"s1","toolName":7,"keyMaterial":{},"round":0}`,
		`{"id":14,"op":"restore","session":"s1","state":[1]}`,
		`{"id":15,"op":"close","session":"s1"}`,
		`{"id":16,"op":"close","session":"s1"}`,
		`   `,
		`{"id":17,"op":"canonicalize","value":"\ud800"}`,
	)
	want := []string{"bad-request", "bad-request", "bad-request", "bad-request", "unknown-op",
		"unknown-session", "bad-request", "bad-request", "bad-request", "bad-request", "bad-request",
		"canonicalization", "bad-request", "", "bad-request", "", "", "unknown-session", ""}
	if len(r) != len(want) {
		t.Fatalf("%d responses for %d requests", len(r), len(want))
	}
	for i, w := range want {
		if got := code(r[i]); got != w {
			t.Errorf("response %d: code %q, want %q (%v)", i, got, w, r[i])
		}
	}
	lone, _ := doomloop.ParseJSON([]byte(`"\"\\ud800\""`))
	if s := r[len(r)-1]["result"]; s != lone {
		t.Errorf("lone surrogate round trip: %v", s)
	}
}

// The protocol edges of issue 11 (decision D11) and the new error code
// type-error (D3); expected answers from sdk-0.9.0-observations.jsonl.
func TestProtocolEdges(t *testing.T) {
	deep := strings.Repeat("[", 5000) + "0" + strings.Repeat("]", 5000)
	r := session(t,
		`{"id": -0, "op": "canonicalize", "value": 1}`,
		`{"id": 1.0, "op": "canonicalize", "value": 1}`,
		`{"id": 9007199254740993, "op": "canonicalize", "value": 1}`,
		`{"id": -9007199254740992, "op": "canonicalize", "value": 1}`,
		`{"id": 4, "op": "canonicalize", "value": {"$js": "bigint", "value": "+1"}}`,
		`{"id": 5, "op": "canonicalize", "value": `+deep+`}`,
		`{"id": 6, "op": "resolveOption", "option": null}`,
		`{"id": 7, "op": "create", "option": {"text": null}}`,
		`{"id": 8, "op": "resolveOption", "option": {"escalation": null}}`,
		`{"id": 9, "op": "detectTextRepetition", "text": "a a a a", "options": {"minRepeats": {"$js": "symbol"}, "minCoveredTokens": 2}}`,
		`{"id": 10, "op": "resolveLadderAction", "ladder": {"observe": 2, "steer": 3, "escalate": 4, "block": 5, "stop": 6}, "streak": 4, "allowBlock": true, "allowEscalate": {"$js": "undefined"}}`,
		`{"id": 11, "op": "resolveLadderAction", "ladder": {"observe": 2, "steer": 3, "escalate": 4, "block": 2.5, "stop": 6}, "streak": 4, "allowBlock": true}`,
		`{"id": 12, "op": "create", "option": true}`,
		`{"id": 13, "op": "recordToolCall", "session": "s1", "toolName": "t", "keyMaterial": "k", "round": 1, "options": {"allowBlock": {"$js": "undefined"}, "detector": {"$js": "undefined"}}}`,
		`{"id": 14, "op": "detectTextRepetition", "text": "foo bar baz foo bar baz foo bar baz foo bar baz foo bar baz", "options": {"maxPeriodTokens": {"$js": "bigint", "value": "3"}, "minCoveredTokens": 3}}`,
	)
	want := []struct {
		id   any
		code string
	}{{0.0, ""}, {1.0, ""}, {nil, "bad-request"}, {nil, "bad-request"}, {4.0, "bad-request"},
		{5.0, "canonicalization"}, {6.0, "type-error"}, {7.0, "type-error"}, {8.0, "type-error"},
		{9.0, "type-error"}, {10.0, ""}, {11.0, "bad-request"}, {12.0, ""}, {13.0, ""}, {14.0, "type-error"}}
	if len(r) != len(want) {
		t.Fatalf("%d responses for %d requests", len(r), len(want))
	}
	for i, w := range want {
		if r[i]["id"] != w.id || code(r[i]) != w.code {
			t.Errorf("response %d: %v, want id %v and code %q", i, r[i], w.id, w.code)
		}
	}
	if msg := r[5]["error"].(map[string]any)["message"]; msg != "Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting" {
		t.Errorf("depth message %q", msg)
	}
	if r[10]["result"] != "escalate" {
		t.Errorf("allowEscalate undefined is the default true: %v", r[10])
	}
	if rec := r[13]["result"].(map[string]any); rec["streak"] != 1.0 || rec["duplicateInRound"] != false {
		t.Errorf("options members holding undefined are absent: %v", rec)
	}
}

// The harness's stderr receives the SDK's console.warn texts.
func TestWarningsReachStderr(t *testing.T) {
	var out, errs bytes.Buffer
	lines := strings.Join([]string{
		`{"id": 1, "op": "create", "option": {"escalation": {"model": null}}}`,
		`{"id": 2, "op": "restore", "session": "s1", "state": null}`,
	}, "\n")
	if code := harness.Run(newPort(), strings.NewReader(lines), &out, &errs); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "[DoomLoop] escalation config provided but the escalate ladder rung is disabled; set ladder.escalate to a streak threshold for recovery to trigger.\n" +
		"[DoomLoop] Ignoring invalid persisted doom-loop state\n"
	if errs.String() != want {
		t.Errorf("stderr %q, want %q", errs.String(), want)
	}
}
