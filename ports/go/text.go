package doomloop

import (
	"math"
	"strings"
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

// optionInt reads a numeric text option; absent, null or non-numeric
// values take the default. (Only integers >= 1 are specified.)
func optionInt(v any, def int) int {
	f, ok := toNumber(v)
	if !ok || math.IsNaN(f) {
		return def
	}
	const limit = 1 << 40
	f = math.Floor(f)
	if f > limit {
		return limit
	}
	if f < -limit {
		return -limit
	}
	return int(f)
}

// NormalizeText turns every run of ECMAScript whitespace into one space and
// trims the result.
func NormalizeText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	pendingSpace := false
	for i := 0; i < len(text); {
		r, n := decodePoint(text[i:])
		if isJSWhitespace(r) {
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
		r, n := decodePoint(text[i:])
		if isJSWhitespace(r) {
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
// ones take their defaults.
func DetectTextRepetition(text string, opts TextOptions) *TextRepetition {
	maxPeriod := optionInt(opts.MaxPeriodTokens, 16)
	minRepeats := optionInt(opts.MinRepeats, 4)
	minCovered := optionInt(opts.MinCoveredTokens, 12)
	maxWindow := optionInt(opts.MaxWindowTokens, 400)

	budget := maxWindow * CodeUnitsPerWindowToken
	if len(text) > budget || unitLength(text) > budget {
		// len in bytes is never less than the length in code units.
		if budget <= 0 {
			text = ""
		} else if units := toUnits(text); len(units) > budget {
			text = fromUnits(units[len(units)-budget:])
		}
	}
	words := tokens(text)
	if maxWindow > 0 && len(words) > maxWindow {
		words = words[len(words)-maxWindow:]
	}
	count := len(words)
	if count < max(minCovered, 2) {
		return nil
	}
	var best *TextRepetition
	for period := 1; period <= min(maxPeriod, count/2); period++ {
		repeats := repeatsAtTail(words, period)
		covered := repeats * period
		if repeats >= minRepeats && covered >= minCovered && (best == nil || covered > best.CoveredTokens) {
			best = &TextRepetition{Repeats: repeats, PeriodTokens: period, CoveredTokens: covered,
				Sample: strings.Join(words[count-period:], " ")}
		}
	}
	return best
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
