package engine

import (
	"math"
	"strings"
	"testing"

	"doomloop.invalid/harness/jsvalue"
)

// JS objects keep array-index names first, in ascending order, then the
// others in insertion order; a repeated name keeps its first place and its
// last value. JSON.stringify writes that order (ENG-105).
func TestObjectsKeepJSPropertyOrder(t *testing.T) {
	cases := map[string]string{
		`{"b":1,"1":2,"a":3,"0":4,"01":5,"4294967295":6,"4294967294":7,"-1":8}`: `{"0":4,"1":2,"4294967294":7,"b":1,"a":3,"01":5,"4294967295":6,"-1":8}`,
		`{"a":1,"b":2,"a":3}`:                        `{"a":3,"b":2}`,
		`{"__proto__":{"x":1},"y":[{"10":1,"9":2}]}`: `{"__proto__":{"x":1},"y":[{"9":2,"10":1}]}`,
	}
	for text, want := range cases {
		v, err := parseJSON([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := stringify(v); got != want {
			t.Errorf("%s: got %s, want %s", text, got, want)
		}
	}
	o := newObject("b", 1.0, "a", 2.0, "3", 3.0)
	o.Delete("b")
	o.Delete("3")
	o.Set("2", 4.0)
	if got := stringify(o); got != `{"2":4,"a":2}` {
		t.Errorf("after Delete and Set: %s", got)
	}
}

// JSON.stringify's forms (ENG-105): ECMAScript numbers, -0 as 0, a
// non-finite number as null, JS escapes with lone surrogates as \uXXXX, an
// undefined member left out.
func TestStringifyWritesAsJS(t *testing.T) {
	v, err := parseJSON([]byte(` { "n" : [ 1e-7, 9007199254740993, -0, 1e400, 2.50, 1E21 ] , "s" : "\ud800\u0001\"é\u2028" } `))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":[1e-7,9007199254740992,0,null,2.5,1e+21],"s":"\ud800\u0001\"é` + "\u2028" + `"}`
	if got := stringify(v); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := stringify(newObject("a", jsvalue.Undefined{}, "b", math.NaN())); got != `{"b":null}` {
		t.Errorf("got %s", got)
	}
	if wire := wireValue(newObject("z", math.Copysign(0, -1))).(map[string]any); math.Signbit(wire["z"].(float64)) {
		t.Error("-0 must reach the transcript as 0")
	}
}

func TestParseRefusesWhatJSONParseRefuses(t *testing.T) {
	for _, text := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `"\x"`, `NaN`, `01`, `[1] x`,
		`{"a":1 "b":2}`, `"unterminated`, "\"\x01\"", strings.Repeat("[", 100002) + strings.Repeat("]", 100002)} {
		if v, err := parseJSON([]byte(text)); err == nil {
			t.Errorf("%q parsed as %v", text, v)
		}
	}
}

func TestArgumentsAreTrimmedAsJSTrims(t *testing.T) {
	cases := []struct {
		raw, identity string
		malformed     bool
	}{
		{"\ufeff {\"a\":1}\u00a0\u2028", "", false}, // ENG-137
		{"\u3000", "", false},                       // ENG-38: blank parses as {}
		{"\u0085{}", "\u0085{}", true},              // not JS whitespace: the raw text, untrimmed
		{` "x" `, "x", true},                        // a JSON string is malformed, its value the identity
		{"{\"a\":", "{\"a\":", true},
	}
	for _, c := range cases {
		_, malformed, identity := parseArguments(c.raw)
		if malformed != c.malformed || identity != c.identity {
			t.Errorf("%q: malformed %v identity %q", c.raw, malformed, identity)
		}
	}
	if lowerJS("İSTANBUL ΟΔΟΣ \xed\xa0\x80") != "i̇stanbul οδος \xed\xa0\x80" {
		t.Errorf("lowerJS: %q", lowerJS("İSTANBUL ΟΔΟΣ \xed\xa0\x80"))
	}
}
