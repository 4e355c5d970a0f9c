package engine

import "testing"

// Arguments are trimmed as JS trim trims before JSON.parse (ENG-137); blank
// text parses as {} (ENG-38); text that does not parse, or parses to a
// string, is malformed, with the raw text or the parsed string as identity.
func TestArgumentsAreTrimmedAsJSTrims(t *testing.T) {
	cases := []struct {
		raw, identity string
		malformed     bool
	}{
		{"\ufeff {\"a\":1}\u00a0\u2028", "", false},
		{"\u3000", "", false},
		{"\u0085{}", "\u0085{}", true},
		{` "x" `, "x", true},
		{"{\"a\":", "{\"a\":", true},
	}
	for _, c := range cases {
		_, malformed, identity := parseArguments(c.raw)
		if malformed != c.malformed || identity != c.identity {
			t.Errorf("%q: malformed %v identity %q", c.raw, malformed, identity)
		}
	}
}
