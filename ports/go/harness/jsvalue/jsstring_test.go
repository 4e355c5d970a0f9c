package jsvalue

import "testing"

func TestTrimIsJSTrim(t *testing.T) {
	cases := map[string]string{
		"\ufeff\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\t\n\v\f\r x y \u3000": "x y",
		"\u0085x\u200b": "\u0085x\u200b", // not JS whitespace
		"\u1fff\u200bx": "\u1fff\u200bx",
		"":              "",
		" \t ":          "",
		"\xed\xa0\x80 ": "\xed\xa0\x80", // a lone surrogate is not whitespace
	}
	for in, want := range cases {
		if got := Trim(in); got != want {
			t.Errorf("Trim(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToLowerCaseIsJSToLowerCase(t *testing.T) {
	cases := map[string]string{
		"İSTANBUL":         "i̇stanbul",
		"ΟΔΟΣ ΣΑ Σ ΑΣ.":    "οδος σα σ ας.",
		"Σ":                "σ",
		"ABC\xed\xa0\x80Ä": "abc\xed\xa0\x80ä",
	}
	for in, want := range cases {
		if got := ToLowerCase(in); got != want {
			t.Errorf("ToLowerCase(%q) = %q, want %q", in, got, want)
		}
	}
}
