package jsvalue

import (
	"unicode"
	"unicode/utf8"
)

// IsJSWhitespace reports whether a code point is in the ECMAScript
// WhiteSpace or LineTerminator set: what String.prototype.trim removes and
// \s matches.
func IsJSWhitespace(r rune) bool {
	switch r {
	case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Trim is JS String.prototype.trim.
func Trim(s string) string {
	start, end := 0, len(s)
	for start < end {
		r, n := DecodePoint(s[start:])
		if !IsJSWhitespace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !IsJSWhitespace(r) {
			break
		}
		end -= n
	}
	return s[start:end]
}

// ToLowerCase is JS String.prototype.toLowerCase: the full lower-case
// mapping, so U+0130 becomes "i̇" and a capital sigma at the end of a word
// "ς"; lone surrogates stay.
func ToLowerCase(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, n := DecodePoint(s[i:])
		switch {
		case isSurrogate(r):
			b = appendPoint(b, r)
		case r == 0x130:
			b = append(b, "i\u0307"...)
		case r == 0x3A3 && finalSigma(s[:i], s[i+n:]):
			b = append(b, "ς"...)
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		i += n
	}
	return string(b)
}

// finalSigma is the Unicode Final_Sigma condition (Unicode 3.13, Table
// 3-17): skipping case-ignorable characters, the nearest character before
// the sigma is cased and the nearest one after it is not (or there is none).
func finalSigma(before, after string) bool {
	for before != "" {
		r, n := utf8.DecodeLastRuneInString(before)
		if !caseIgnorable(r) {
			if !cased(r) {
				return false
			}
			break
		}
		before = before[:len(before)-n]
	}
	if before == "" {
		return false
	}
	for after != "" {
		r, n := utf8.DecodeRuneInString(after)
		if !caseIgnorable(r) {
			return !cased(r)
		}
		after = after[n:]
	}
	return true
}

// cased is the Unicode Cased property: Lu, Ll, Lt, Other_Lowercase or
// Other_Uppercase. A lone surrogate (read as U+FFFD here) is not cased.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is the Unicode Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// or Word_Break MidLetter, MidNumLet or Single_Quote (listed here, as Go's
// unicode package has no Word_Break tables).
func caseIgnorable(r rune) bool {
	switch r {
	case 0x27, // Single_Quote
		0x2E, 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E, // MidNumLet
		0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A: // MidLetter
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
