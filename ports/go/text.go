package doomloop

import (
	"encoding/json"
	"math"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

// CodeUnitsPerWindowToken: only the last maxWindowTokens*64 UTF-16 code
// units of a text are examined.
const CodeUnitsPerWindowToken = 64

// TextRepetition is a block of PeriodTokens tokens repeated Repeats times
// at the end of a text.
type TextRepetition struct {
	Repeats       int
	PeriodTokens  int
	CoveredTokens int
	Sample        string // the block's tokens joined by one space
}

// JSON returns the repetition's wire form.
func (t *TextRepetition) JSON() any {
	if t == nil {
		return nil
	}
	return map[string]any{
		"repeats":       float64(t.Repeats),
		"periodTokens":  float64(t.PeriodTokens),
		"coveredTokens": float64(t.CoveredTokens),
		"sample":        t.Sample,
	}
}

// jsNumber is a numeric text option as the SDK uses it: a double; for a
// bigint (big) its value, which compares exactly but throws in arithmetic,
// Math.min and Math.max; err is the TypeError that reading it as a number
// throws (a symbol, or an array holding one).
type jsNumber struct {
	f   float64
	big bool
	err error
}

// textNumber reads a numeric text option value as JS uses it (TXT-22): a
// BigInt keeps its value, any other value goes through ToNumber.
func textNumber(v any) jsNumber {
	if b, ok := v.(BigInt); ok {
		// The decoder admits only -?[0-9]+: f is the nearest double.
		f, _ := jsvalue.Number(json.Number(b.Digits))
		return jsNumber{f: f, big: true}
	}
	f, err := toNumber(v)
	return jsNumber{f: f, err: err}
}

// numbers reads the four numeric options (maxPeriodTokens, minRepeats,
// minCoveredTokens, maxWindowTokens), an absent one (nil or Undefined) at
// its default. Reading never fails: a value JS cannot make a number throws
// only where the detection uses it (TXT-21, TXT-23). A bigint's nearest
// double compares as its exact value does, since the counts compared with
// it are small integers (TXT-22); a bigint that is used in arithmetic
// throws instead (arithmetic). Every value is copied unchanged by
// resolution (CFG-45), so a configured monitor reads it here, once per text.
func (t TextOptions) numbers() (out [4]jsNumber) {
	given, defaults := t.fields(), DefaultTextOptions.fields()
	for i := range out {
		v := *given[i+1]
		if !present(v) {
			v = *defaults[i+1]
		}
		out[i] = textNumber(v)
	}
	return out
}

// arithmetic returns n as an operand of arithmetic or Math.min/Math.max,
// where the SDK throws a TypeError for a bigint (and a symbol).
func (n jsNumber) arithmetic() (float64, error) {
	if n.big {
		return 0, &typeError{"Cannot convert a BigInt value to a number"}
	}
	return n.f, n.err
}

// sliceStart is where JS s.slice(k) starts for a sequence of length n:
// k truncated toward zero (NaN counts as 0), a negative k counting from
// the end, clamped to [0, n].
func sliceStart(k float64, n int) int {
	if math.IsNaN(k) {
		return 0
	}
	k = math.Trunc(k)
	if k < 0 {
		k += float64(n)
		if k < 0 {
			return 0
		}
		return int(k)
	}
	if k > float64(n) {
		return n
	}
	return int(k)
}

// NormalizeText turns every run of ECMAScript whitespace into one space and
// trims the result.
func NormalizeText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	pendingSpace := false
	for i := 0; i < len(text); {
		r, n := jsvalue.DecodePoint(text[i:])
		if jsvalue.IsJSWhitespace(r) {
			pendingSpace = true
		} else {
			if pendingSpace && b.Len() > 0 {
				b.WriteByte(' ')
			}
			pendingSpace = false
			b.WriteString(text[i : i+n])
		}
		i += n
	}
	return b.String()
}

// tokens splits text on runs of ECMAScript whitespace, dropping empty tokens.
func tokens(text string) []string {
	var out []string
	start := -1
	for i := 0; i < len(text); {
		r, n := jsvalue.DecodePoint(text[i:])
		if jsvalue.IsJSWhitespace(r) {
			if start >= 0 {
				out = append(out, text[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += n
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// DetectTextRepetition finds the block of tokens repeated back to back at
// the end of text that covers the most tokens (ties keep the shorter
// block), or returns nil. Only the numeric fields of opts are used; absent
// ones take their defaults. The options are used as the SDK uses them, with
// no sanitising (spec §10.3): the window cuts follow JS slice (a count
// truncated toward zero, negative counting from the end, NaN as 0), and
// the thresholds compare as doubles (NaN fails every comparison).
//
// A value that is not a number is coerced as JS does (TXT-22). It fails
// with an error wrapping ErrTypeError where the SDK throws (TXT-23): a
// bigint maxWindowTokens, minCoveredTokens or (when evaluation reaches it)
// maxPeriodTokens, and a symbol as any option when evaluation reaches it.
func DetectTextRepetition(text string, opts TextOptions) (*TextRepetition, error) {
	numbers := opts.numbers()
	// Evaluation order (TXT-21): maxWindowTokens, then minCoveredTokens in
	// Math.max, then maxPeriodTokens in Math.min and, once a period is tried,
	// minRepeats; an option that throws does so only when reached.
	maxPeriodOpt, minRepeats, minCoveredOpt, windowOpt := numbers[0], numbers[1], numbers[2], numbers[3]

	window, err := windowOpt.arithmetic()
	if err != nil {
		return nil, err
	}
	budget := window * CodeUnitsPerWindowToken
	if float64(len(text)) > budget { // bytes >= code units: a cheap first test
		if length := jsvalue.UnitLength(text); float64(length) > budget {
			units := jsvalue.ToUnits(text)
			text = jsvalue.FromUnits(units[sliceStart(-budget, length):])
		}
	}
	words := tokens(text)
	words = words[sliceStart(-window, len(words)):]
	count := len(words)

	minCovered, err := minCoveredOpt.arithmetic()
	if err != nil {
		return nil, err
	}
	if float64(count) < math.Max(minCovered, 2) {
		return nil, nil
	}
	maxPeriod, err := longestPeriod(maxPeriodOpt, minRepeats, count)
	if err != nil {
		return nil, err
	}
	// (minRepeats is compared below as a double, TXT-20.)
	var best *TextRepetition
	for period := 1; float64(period) <= maxPeriod; period++ {
		repeats := repeatsAtTail(words, period)
		covered := repeats * period
		if float64(repeats) >= minRepeats.f && float64(covered) >= minCovered &&
			(best == nil || covered > best.CoveredTokens) {
			best = &TextRepetition{Repeats: repeats, PeriodTokens: period, CoveredTokens: covered,
				Sample: strings.Join(words[count-period:], " ")}
		}
	}
	return best, nil
}

func repeatsAtTail(words []string, period int) int {
	count := len(words)
	block := words[count-period:]
	repeats := 1
	for start := count - 2*period; start >= 0; start -= period {
		for i := 0; i < period; i++ {
			if words[start+i] != block[i] {
				return repeats
			}
		}
		repeats++
	}
	return repeats
}

// longestPeriod is Math.min(maxPeriodTokens, floor(count/2)), the last
// period the search tries (TXT-09, TXT-20). minRepeats is first read when
// the first period is tried, so a symbol there throws only then (TXT-21).
func longestPeriod(maxPeriodOpt, minRepeats jsNumber, count int) (float64, error) {
	maxPeriodTokens, err := maxPeriodOpt.arithmetic()
	longest := math.Min(maxPeriodTokens, float64(count/2))
	if err == nil && longest >= 1 {
		err = minRepeats.err
	}
	return longest, err
}
