package jsvalue

import (
	"math"
	"strings"
	"testing"
)

// JS objects keep array-index names first, in ascending order, then the
// others in insertion order; a repeated name keeps its first place and its
// last value. JSON.stringify writes that order (checked against Node).
func TestOrderedObjectsKeepJSPropertyOrder(t *testing.T) {
	cases := map[string]string{
		`{"b":1,"1":2,"a":3,"0":4,"01":5,"4294967295":6,"4294967294":7,"-1":8}`: `{"0":4,"1":2,"4294967294":7,"b":1,"a":3,"01":5,"4294967295":6,"-1":8}`,
		`{"a":1,"b":2,"a":3}`: `{"a":3,"b":2}`,
		`{"__proto__":{"x":1},"y":[{"10":1,"9":2,"":[]}],"z":{}}`: `{"__proto__":{"x":1},"y":[{"9":2,"10":1,"":[]}],"z":{}}`,
	}
	for text, want := range cases {
		v, err := ParseOrdered([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := Stringify(v); got != want {
			t.Errorf("%s: got %s, want %s", text, got, want)
		}
	}
	o := NewObject("b", 1.0, "a", 2.0, "3", 3.0)
	o.Delete("b")
	o.Delete("3")
	o.Delete("none")
	o.Set("2", 4.0)
	if got := Stringify(o); got != `{"2":4,"a":2}` || o.Len() != 2 || !o.Has("a") || o.Has("b") {
		t.Errorf("after Delete and Set: %s", got)
	}
	var none *Object
	if none.Len() != 0 || none.Has("a") || !IsUndefined(none.Value("a")) {
		t.Error("a nil *Object has no members")
	}
}

// JSON.stringify's forms: ECMAScript numbers, -0 as 0, a non-finite number
// as null, JS escapes with lone surrogates as \uXXXX, an undefined member
// left out, an undefined element null, a map in code-unit order.
func TestStringifyWritesAsJS(t *testing.T) {
	v, err := ParseOrdered([]byte(` { "n" : [ 1e-7, 9007199254740993, -0, 1e400, -1e400, 2.50, 1E21, true, null ] , "s" : "\ud800\u0001\"é\u2028" } `))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":[1e-7,9007199254740992,0,null,null,2.5,1e+21,true,null],"s":"\ud800\u0001\"é` + "\u2028" + `"}`
	if got := Stringify(v); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	mixed := NewObject("a", Undefined{}, "b", math.NaN(), "c", []any{Undefined{}, map[string]any{"y": 1, "x": false}})
	if got := Stringify(mixed); got != `{"b":null,"c":[null,{"x":false,"y":1}]}` {
		t.Errorf("got %s", got)
	}
	plain := Plain(NewObject("o", NewObject("k", []any{NewObject()}))).(map[string]any)
	if inner := plain["o"].(map[string]any)["k"].([]any)[0]; len(inner.(map[string]any)) != 0 {
		t.Errorf("Plain: %v", plain)
	}
}

func TestParseOrderedRefusesWhatJSONParseRefuses(t *testing.T) {
	for _, text := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `"\x"`, `NaN`, `01`, `[1] x`,
		`{"a":1 "b":2}`, `"unterminated`, "\"\x01\"", `[1}`, `{"a"}`, `1 2`} {
		if v, err := ParseOrdered([]byte(text)); err == nil {
			t.Errorf("%q parsed as %v", text, v)
		}
	}
	deep := strings.Repeat("[", 1000000) + strings.Repeat("]", 1000000)
	if _, err := ParseOrdered([]byte(deep)); err != nil {
		t.Errorf("a deep array: %v", err)
	}
}

func TestArrayIndexNamesAreCanonical(t *testing.T) {
	for name, want := range map[string]int64{"0": 0, "7": 7, "4294967294": 4294967294,
		"07": -1, "-0": -1, "+7": -1, "-1": -1, "4294967295": -1, "": -1, "1e3": -1, "x": -1} {
		n, ok := ArrayIndex(name)
		if ok != (want >= 0) || (ok && int64(n) != want) {
			t.Errorf("ArrayIndex(%q) = %d, %v", name, n, ok)
		}
	}
}

// A string holding a raw lone surrogate (stored as its three-byte
// sequence) reads back as that surrogate, not as one U+FFFD per byte; a
// raw high and low surrogate written apart join into their character, and
// a byte that is not UTF-8 at all is still read as U+FFFD.
func TestParsersKeepRawLoneSurrogates(t *testing.T) {
	cases := map[string]string{
		"\"\xed\xa0\x80\"":             "\xed\xa0\x80",
		"\"a\xed\xbf\xbfb\"":           "a\xed\xbf\xbfb",
		"\"\\n\xed\xa0\x80\"":          "\n\xed\xa0\x80",
		"\"\xed\xa0\xbd\xed\xb8\x80\"": "\U0001F600",
		"\"\xed\xa0\xbd\\ude00\"":      "\U0001F600",
		"\"\xffx\"":                    "\ufffdx",
	}
	for text, want := range cases {
		for name, parse := range map[string]func([]byte) (any, error){"ParseJSON": ParseJSON, "ParseOrdered": ParseOrdered} {
			got, err := parse([]byte(text))
			if err != nil || got != want {
				t.Errorf("%s(%q) = %q, %v; want %q", name, text, got, err, want)
			}
		}
	}
	v, err := ParseOrdered([]byte("{\"q\":\"\xed\xa0\x80\"}"))
	if err != nil || Stringify(v) != `{"q":"\ud800"}` {
		t.Errorf("an object member: %v, %v", v, err)
	}
}
