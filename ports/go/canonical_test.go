package doomloop

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"doomloop.invalid/harness/jsvalue"
)

func mustParse(t *testing.T, text string) any {
	t.Helper()
	v, err := ParseJSON([]byte(text))
	if err != nil {
		t.Fatalf("ParseJSON(%s): %v", text, err)
	}
	return v
}

// The upstream fingerprint vectors, restated (spec §6.2, U1-U12).
func TestUpstreamFingerprints(t *testing.T) {
	tests := []struct {
		id, tool, key, canonical, fp string
	}{
		{"U1", "bash", `{"command":"ls -la","cwd":"/tmp"}`, `{"command":"ls -la","cwd":"/tmp"}`, "c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4"},
		{"U2", "bash", `{"cwd":"/tmp","command":"ls -la"}`, `{"command":"ls -la","cwd":"/tmp"}`, "c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4"},
		{"U3", "list_tasks", `{}`, `{}`, "b84a3e324e9dc95335f72cfee5e5898465349be72cb1348fe7927c49c8d65d92"},
		{"U4", "web_search", `{"query":"café 🎉"}`, `{"query":"café 🎉"}`, "a8bd7e02e874cd1d68db436c3228a42ed2d656ddd30d3195db0e72378479b160"},
		{"U5", "calc", `{"value":0}`, `{"value":0}`, "2c0292f2f8e9099f2879c189b8bd0d61fdc24dea98f06ec1d96f17f8ccb86f7d"},
		{"U5-0", "calc", `{"value":-0}`, `{"value":0}`, "2c0292f2f8e9099f2879c189b8bd0d61fdc24dea98f06ec1d96f17f8ccb86f7d"},
		{"U6", "calc", `{"value":1e+21}`, `{"value":1e+21}`, "53f17cc32c78fee57f8e6aba17c4d5f75ca2aa5a1d06d359880c584993dcaaff"},
		{"U7", "query", `{"filter":{"tags":["b","a"],"depth":2},"sort":null}`, `{"filter":{"depth":2,"tags":["b","a"]},"sort":null}`, "b42e583c626c3b2bcbd5adf86b7099d784ef15398f2e0c530262372e73850f4e"},
		{"U8", "echo", `{"s":"\ud800"}`, `{"s":"\ud800"}`, "9d901512fe3c9139d48aeaec555bc91c5b8069950bc17a6d014c85bf03c0d8eb"},
		{"U9", "echo", "{\"s\":\"e\u0301\"}", "{\"s\":\"e\u0301\"}", "a281d1b32556677dee1b6039b78cde21229a6777874c6dc8eafc4bff64058568"},
		{"U10", "web_search", `"openrouter agent sdk"`, `"openrouter agent sdk"`, "dd066597b3c639cd2c905159c3ee5bda98c29add4deef7d20f723583c1e7e177"},
		{"U11", "", `"I am stuck."`, `"I am stuck."`, "37c38ab53f4c3570d8baf87392cb035ef8b2ad98ca1c1e083ea84184173911aa"},
		{"U12", "", `"Retrying the same plan."`, `"Retrying the same plan."`, "764fb75d0e16f75f0265b68d579c571e704b6ce9ea2b5dea784200cb701fe3df"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			key := mustParse(t, tt.key)
			got, err := Canonicalize(key)
			if err != nil || got != tt.canonical {
				t.Fatalf("Canonicalize = %q, %v; want %q", got, err, tt.canonical)
			}
			var fp string
			if tt.id == "U11" || tt.id == "U12" {
				fp, err = FingerprintKeyMaterial(key)
			} else {
				fp, err = FingerprintToolCall(tt.tool, key)
			}
			if err != nil || fp != tt.fp {
				t.Fatalf("fingerprint = %s, %v; want %s", fp, err, tt.fp)
			}
		})
	}
}

// The upstream file itself, when this checkout sits next to it.
func TestUpstreamFile(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "upstream", "doom-loop-fingerprints.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("upstream vector file not available: %v", err)
	}
	doc := mustParse(t, string(data)).(map[string]any)
	count := 0
	for _, group := range []string{"toolCallVectors", "keyMaterialVectors"} {
		for _, raw := range doc[group].([]any) {
			v := raw.(map[string]any)
			canonical, err := Canonicalize(v["keyMaterial"])
			if err != nil || canonical != v["jcs"] {
				t.Errorf("%s: canonical %q (%v), want %q", v["name"], canonical, err, v["jcs"])
			}
			var fp string
			if name, ok := v["toolName"].(string); ok {
				fp, err = FingerprintToolCall(name, v["keyMaterial"])
			} else {
				fp, err = FingerprintKeyMaterial(v["keyMaterial"])
			}
			if err != nil || fp != v["fingerprint"] {
				t.Errorf("%s: fingerprint %s (%v), want %s", v["name"], fp, err, v["fingerprint"])
			}
			count++
		}
	}
	if count != 12 {
		t.Errorf("checked %d upstream entries, want 12", count)
	}
}

func TestToolNameFingerprints(t *testing.T) {
	for _, tt := range []struct{ name, fp string }{
		{"", "a062dd4952b935e430d409c4a5e5cd760e8781e3200d5c7e12a232dddba8a528"},
		{mustParse(t, `"\ud800"`).(string), "7bc18b25e5273e746be13f502919437402e75725292cb4dbe61ab43b75e13ca4"},
		{"\ufffd", "7bc18b25e5273e746be13f502919437402e75725292cb4dbe61ab43b75e13ca4"},
	} {
		if fp, _ := FingerprintToolCall(tt.name, map[string]any{}); fp != tt.fp {
			t.Errorf("name %q: %s want %s", tt.name, fp, tt.fp)
		}
	}
}

func TestStringsAndKeys(t *testing.T) {
	v := mustParse(t, `{"s":"\u0001é😀\ud800/\"\u2028\u007f\b\f\n\r\t\\","｡":1,"😀":2,"B":3,"a":4,"ab":5}`)
	want := "{\"B\":3,\"a\":4,\"ab\":5,\"s\":\"\\u0001é😀\\ud800/\\\"\u2028\u007f\\b\\f\\n\\r\\t\\\\\",\"😀\":2,\"｡\":1}"
	if got, err := Canonicalize(v); err != nil || got != want {
		t.Fatalf("got  %s\nwant %s (%v)", got, want, err)
	}
	// A surrogate pair written as two escapes is the same string as the character.
	if got, _ := Canonicalize(mustParse(t, `"\ud83d\ude00"`)); got != `"😀"` {
		t.Fatalf("pair: %s", got)
	}
	if got, _ := Canonicalize(mustParse(t, `"\ude00\ud83d"`)); got != `"\ude00\ud83d"` {
		t.Fatalf("reversed pair: %s", got)
	}
}

func nest(depth int, inner any, object bool) any {
	v := inner
	for i := 0; i < depth; i++ {
		if object {
			v = map[string]any{"a": v}
		} else {
			v = []any{v}
		}
	}
	return v
}

func TestDepthAndErrors(t *testing.T) {
	for _, object := range []bool{false, true} {
		empty := any([]any{})
		if object {
			empty = map[string]any{}
		}
		cases := []struct {
			v  any
			ok bool
		}{
			{nest(64, empty, object), true},
			{nest(65, empty, object), false},
			{nest(64, 0.0, object), true},
			{nest(65, 0.0, object), false},
		}
		for i, tt := range cases {
			_, err := Canonicalize(tt.v)
			if (err == nil) != tt.ok {
				t.Errorf("object=%v case %d: err %v", object, i, err)
			}
		}
	}
	if _, err := Canonicalize(nest(64, map[string]any{"x": Undefined{}}, false)); err != nil {
		t.Errorf("dropped member must not be depth-checked: %v", err)
	}
	if _, err := Canonicalize(nest(64, []any{Undefined{}}, false)); err == nil {
		t.Errorf("array element at depth 65 must fail")
	}
	if _, err := Canonicalize(nest(1000000, 1.0, false)); err == nil {
		t.Errorf("very deep input must fail cleanly")
	}
	shared := []any{1.0}
	if got, err := Canonicalize([]any{shared, shared}); err != nil || got != "[[1],[1]]" {
		t.Errorf("shared, not circular: %s %v", got, err)
	}
	cyclic := []any{nil}
	cyclic[0] = cyclic
	for _, bad := range []any{cyclic, math.NaN(), math.Inf(-1), BigInt{Digits: "12"}, map[string]any{"n": mustParse(t, "1e400")}} {
		if _, err := Canonicalize(bad); !errors.Is(err, ErrCanonicalization) {
			t.Errorf("Canonicalize(%v) error %v", bad, err)
		}
	}
	got, err := Canonicalize([]any{Undefined{}, Function{}, map[string]any{"u": Undefined{}, "f": Function{Symbol: true}, "k": 1.0}})
	if err != nil || got != `[null,null,{"k":1}]` {
		t.Errorf("JS-only values: %s %v", got, err)
	}
	if got, _ := Canonicalize(mustParse(t, `{"n":9007199254740993}`)); got != `{"n":9007199254740992}` {
		t.Errorf("large integer: %s", got)
	}
}

func TestTextDetection(t *testing.T) {
	stuck := strings.Repeat("I am stuck. ", 4)
	r, _ := DetectTextRepetition(stuck, TextOptions{})
	if r == nil || r.Repeats != 4 || r.PeriodTokens != 3 || r.CoveredTokens != 12 || r.Sample != "I am stuck." {
		t.Fatalf("got %+v", r)
	}
	if r, _ := DetectTextRepetition("no no no no no no", TextOptions{MinRepeats: 2.0, MinCoveredTokens: 6.0}); r == nil || r.Repeats != 6 || r.PeriodTokens != 1 {
		t.Fatalf("tie keeps the smaller period: %+v", r)
	}
	// U+0085 and U+001C are token characters; U+FEFF is whitespace.
	if got := tokens("a\u0085b\u001cc\ufeffd"); len(got) != 2 {
		t.Fatalf("tokens %q", got)
	}
	if got := NormalizeText("\ufeff a\t\u2003b \u3000"); got != "a b" {
		t.Fatalf("normalize %q", got)
	}
	// The budget cut splits a surrogate pair: the kept low half stays alone
	// as part of the first token. 64 units kept of "ab" + 😀×40 + " 😀 😀 ".
	text := "ab" + strings.Repeat("😀", 40) + " 😀 😀 "
	if r, _ := DetectTextRepetition(text, TextOptions{MaxWindowTokens: 1.0, MinCoveredTokens: 1.0, MinRepeats: 1.0}); r != nil {
		t.Fatalf("one kept token cannot repeat: %+v", r)
	}
	low := jsvalue.FromUnits([]uint16{0xDE00})
	if got := tokens(jsvalue.FromUnits(jsvalue.ToUnits(text)[len(jsvalue.ToUnits(text))-64:])); got[0] != low+strings.Repeat("😀", 28) {
		t.Fatalf("cut tokens %q", got)
	}
}
