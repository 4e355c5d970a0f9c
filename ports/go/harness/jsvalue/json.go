package jsvalue

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"
)

// MaxJSONDepth bounds the nesting ParseJSON accepts (and the effective
// nesting DecodeTagged builds), so that no input can exhaust the stack.
const MaxJSONDepth = 100000

// ParseJSON reads one JSON text. Numbers become float64 exactly as JS
// JSON.parse converts them (nearest double, ±Inf beyond the range, signed
// zero on underflow); a "\udxxx" escape that is not half of a pair is kept
// as a lone surrogate; when a name repeats in one object the last wins.
// Invalid UTF-8 bytes inside strings are read as U+FFFD.
func ParseJSON(data []byte) (any, error) {
	p := &parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) fail(msg string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.pos, msg)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if depth > MaxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.fail(fmt.Sprintf("unexpected character %q", p.data[p.pos]))
}

func (p *parser) literal(word string, v any) (any, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.fail("invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	m := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key.(string)] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated object")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == '}' {
			p.pos++
			return m, nil
		}
		return nil, p.fail("expected ',' or '}'")
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // '['
	items := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return items, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated array")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return items, nil
		}
		return nil, p.fail("expected ',' or ']'")
	}
}

func hexValue(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (p *parser) str() (any, error) {
	p.pos++ // opening quote
	var units []uint16
	plain := true // no escapes and valid UTF-8 so far: take the bytes as they are
	start := p.pos
	for {
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if plain {
				return string(p.data[start : p.pos-1]), nil
			}
			return FromUnits(units), nil
		case c < 0x20:
			return nil, p.fail("control character in string")
		case c == '\\':
			if plain {
				units = ToUnits(string(p.data[start:p.pos]))
				plain = false
			}
			if p.pos+1 >= len(p.data) {
				return nil, p.fail("unterminated escape")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				units = append(units, uint16(e))
			case 'b':
				units = append(units, '\b')
			case 'f':
				units = append(units, '\f')
			case 'n':
				units = append(units, '\n')
			case 'r':
				units = append(units, '\r')
			case 't':
				units = append(units, '\t')
			case 'u':
				if p.pos+4 > len(p.data) {
					return nil, p.fail("short \\u escape")
				}
				r, ok := hexValue(p.data[p.pos : p.pos+4])
				if !ok {
					return nil, p.fail("bad \\u escape")
				}
				p.pos += 4
				units = append(units, uint16(r))
			default:
				return nil, p.fail("unknown escape")
			}
		case c < utf8.RuneSelf:
			if !plain {
				units = append(units, uint16(c))
			}
			p.pos++
		default:
			// surrogate-aware: a lone surrogate's three bytes are one code
			// point; a surrogate (which may pair with the next) or a byte
			// that is not UTF-8 ends the take-the-bytes-as-they-are path
			r, n := DecodePoint(string(p.data[p.pos:min(p.pos+utf8.UTFMax, len(p.data))]))
			if plain && (isSurrogate(r) || r == utf8.RuneError && n == 1) {
				units = ToUnits(string(p.data[start:p.pos]))
				plain = false
			}
			if !plain {
				units = encodeUnits(units, r)
			}
			p.pos += n
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("bad number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("bad fraction")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("bad exponent")
		}
	}
	f, ok := parseNumberToken(string(p.data[start:p.pos]))
	if !ok {
		return nil, p.fail("bad number")
	}
	return f, nil
}

// ErrNotJSON is returned by AppendJSON for a value JSON text cannot carry
// untagged (run it through EncodeTagged first).
var ErrNotJSON = errors.New("value has no plain JSON form")

// AppendJSON appends the JSON text of v (nil, bool, numbers, strings,
// []any, map[string]any) to dst. Object members are written in UTF-16
// order of their names. Lone surrogates are written as "\udxxx" escapes.
// Non-finite numbers, negative zero, JS-only values and cycles are errors:
// encode them with EncodeTagged first.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	return appendJSON(dst, v, 0)
}

func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxJSONDepth {
		return nil, fmt.Errorf("%w: nesting too deep", ErrNotJSON)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return AppendQuoted(b, x), nil
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, item, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		for i, k := range SortedKeys(x) {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendQuoted(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendJSON(b, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	if f, ok := Number(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
			return nil, fmt.Errorf("%w: number %v", ErrNotJSON, f)
		}
		return append(b, FormatNumber(f)...), nil
	}
	return nil, fmt.Errorf("%w: %T", ErrNotJSON, v)
}

// SortedKeys returns the names of m in UTF-16 code-unit order.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return CompareUnits(keys[i], keys[j]) < 0 })
	return keys
}

const hexDigits = "0123456789abcdef"

// AppendQuoted writes s as a JSON string literal the way JS JSON.stringify
// does: the short escapes, \u00xx for other control characters, \udxxx for
// lone surrogates, everything else literal.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	valid := utf8.ValidString(s)
	if !valid {
		// Normalise first so that surrogate pairs stored as two
		// three-byte halves are written as one character.
		s = FromUnits(ToUnits(s))
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				if c < 0x20 {
					b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				} else {
					b = append(b, c)
				}
			}
			i++
			continue
		}
		if valid {
			_, n := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		r, n := DecodePoint(s[i:])
		i += n
		if isSurrogate(r) {
			b = append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// Identity returns the identity of an array or object for cycle detection
// (ok is false for other values, a nil map and an empty slice).
func Identity(v any) (ContainerID, bool) {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return ContainerID{}, false
		}
		return identityOf(reflect.ValueOf(x)), true
	case map[string]any:
		if x == nil {
			return ContainerID{}, false
		}
		return identityOf(reflect.ValueOf(x)), true
	}
	return ContainerID{}, false
}
