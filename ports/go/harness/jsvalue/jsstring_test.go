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
		// Final_Sigma: cased (not letter) before, case-ignorables skipped both
		// ways (checked against Node's toLowerCase)
		"中Σ":             "中σ",
		"AΣ中":            "aς中",
		"A\u00adΣ":       "a\u00adς",
		"ΑΣ.Α":           "ασ.α",
		"ΑΣ'":            "ας'",
		"A\u0301Σ\u0301": "a\u0301ς\u0301",
		"AΣ\u0301b":      "aσ\u0301b",
		"ʰΣ":             "ʰσ",
		"\u0345Σ":        "\u0345σ",
		"AΣ\xed\xa0\x80": "aς\xed\xa0\x80",
		"A\xed\xa0\x80Σ": "a\xed\xa0\x80σ",
		"ΑΣ:x":           "ασ:x",
		"A·Σ":            "a·ς",
		"A\u2019Σ b":     "a\u2019ς b",
		"AΣ\u00ad":       "aς\u00ad",
	}
	for in, want := range cases {
		if got := ToLowerCase(in); got != want {
			t.Errorf("ToLowerCase(%q) = %q, want %q", in, got, want)
		}
	}
}
