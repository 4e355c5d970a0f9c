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

// finalSigma: a capital sigma between a letter before it and no letter
// after it (the Final_Sigma condition, case-ignorable characters aside).
func finalSigma(before, after string) bool {
	previous, _ := utf8.DecodeLastRuneInString(before)
	next, size := utf8.DecodeRuneInString(after)
	return before != "" && unicode.IsLetter(previous) && (size == 0 || !unicode.IsLetter(next))
}
