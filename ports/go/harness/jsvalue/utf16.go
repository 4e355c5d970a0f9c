package jsvalue

import (
	"slices"
	"unicode/utf8"
)

// Strings are Go strings holding UTF-8, extended so that a lone UTF-16
// surrogate (U+D800..U+DFFF) is stored as its three-byte sequence
// ED A0..BF 80..BF (generalized UTF-8, "WTF-8"). A valid surrogate pair is
// always stored as the single four-byte sequence of the character it
// encodes. Bytes that are not UTF-8 at all are read as U+FFFD.

const replacementChar = 0xFFFD

// DecodePoint decodes one code point (a surrogate code point included) at
// the start of s and returns it with its byte length.
func DecodePoint(s string) (rune, int) {
	c := s[0]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	if c == 0xED && len(s) >= 3 && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF {
		return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n
}

func isSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

// ToUnits returns the UTF-16 code units of s.
func ToUnits(s string) []uint16 {
	units := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		r, n := DecodePoint(s[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			units = append(units, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			units = append(units, uint16(r))
		}
	}
	return units
}

// appendPoint appends code point r (a surrogate included) in generalized UTF-8.
func appendPoint(b []byte, r rune) []byte {
	if isSurrogate(r) {
		return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// FromUnits builds the string of a code-unit sequence: pairs are joined,
// lone surrogates kept.
func FromUnits(units []uint16) string {
	b := make([]byte, 0, len(units))
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if u >= 0xD800 && u <= 0xDBFF && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
			b = utf8.AppendRune(b, 0x10000+(u-0xD800)<<10+(rune(units[i+1])-0xDC00))
			i++
			continue
		}
		b = appendPoint(b, u)
	}
	return string(b)
}

// Normalize brings s to the one canonical storage form of its
// code-unit sequence (only needed when s is not plain valid UTF-8).
func Normalize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return FromUnits(ToUnits(s))
}

// UnitLength is the length of s in UTF-16 code units.
func UnitLength(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := DecodePoint(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// CompareUnits orders two strings by their UTF-16 code units.
func CompareUnits(a, b string) int {
	i, j := 0, 0
	var pa, pb []uint16
	var bufA, bufB [2]uint16
	for {
		if len(pa) == 0 {
			if i >= len(a) {
				break
			}
			r, n := DecodePoint(a[i:])
			i += n
			pa = encodeUnits(bufA[:0], r)
		}
		if len(pb) == 0 {
			if j >= len(b) {
				return 1
			}
			r, n := DecodePoint(b[j:])
			j += n
			pb = encodeUnits(bufB[:0], r)
		}
		if pa[0] != pb[0] {
			if pa[0] < pb[0] {
				return -1
			}
			return 1
		}
		pa, pb = pa[1:], pb[1:]
	}
	if len(pb) > 0 || j < len(b) {
		return -1
	}
	return 0
}

func encodeUnits(dst []uint16, r rune) []uint16 {
	if r >= 0x10000 {
		r -= 0x10000
		return append(dst, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
	}
	return append(dst, uint16(r))
}

// EncodeUTF8 encodes s as JS TextEncoder does: a lone surrogate becomes
// U+FFFD (EF BF BD).
func EncodeUTF8(s string) []byte {
	if utf8.ValidString(s) {
		return []byte(s)
	}
	units := ToUnits(s)
	b := make([]byte, 0, len(s))
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case u >= 0xD800 && u <= 0xDBFF && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF:
			b = utf8.AppendRune(b, 0x10000+(u-0xD800)<<10+(rune(units[i+1])-0xDC00))
			i++
		case isSurrogate(u):
			b = utf8.AppendRune(b, replacementChar)
		default:
			b = utf8.AppendRune(b, u)
		}
	}
	return b
}

// SortUnits sorts strings by UTF-16 code units (stable, so equal strings
// keep their relative order).
func SortUnits(s []string) {
	slices.SortStableFunc(s, CompareUnits)
}
