package doomloop

import (
	"strconv"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

const (
	closingAdvice = "Take a different approach, or explain why repetition is required."
	textClosing   = "Stop repeating and take a different approach."
	ellipsis      = "\u2026"
)

func repeatedCallMessage(tool string) string {
	return `Doom loop suspected: this exact "` + tool + `" call has been repeated across consecutive rounds. ` +
		"Repeating it will not change the result. " + closingAdvice
}

func roundIdentitySummary(set []string) string {
	n := len(set)
	if n > 3 {
		n = 3
	}
	heads := make([]string, n)
	for i, fp := range set[:n] {
		heads[i] = prefixUnits(fp, 8)
	}
	head := strings.Join(heads, "+")
	if rest := len(set) - 3; rest > 0 {
		return head + "+" + strconv.Itoa(rest) + " more" + ellipsis
	}
	return head + ellipsis
}

func repeatedFanOutMessage(tool string, rounds float64, width int, summary string) string {
	return `Doom loop suspected: tool "` + tool + `" was invoked in ` + jsvalue.FormatNumber(rounds) +
		" consecutive rounds with the same set of " + strconv.Itoa(width) +
		" parallel calls (round identity " + summary +
		"). Reissuing the same fan-out will not change the results. " + closingAdvice
}

func repeatedArgumentsMessage(tool string, rounds float64, fp string) string {
	return `Doom loop suspected: tool "` + tool + `" was invoked in ` + jsvalue.FormatNumber(rounds) +
		" consecutive rounds with identical arguments (fingerprint " + prefixUnits(fp, 16) + ellipsis +
		"). Repeating the call will not change the result. " + closingAdvice
}

func repeatedBlockMessage(sample string, repeats float64) string {
	return `Doom loop suspected: the response repeats "` + sample + `" ` + jsvalue.FormatNumber(repeats) +
		" times in a row. " + textClosing
}

func repeatedTextMessage(streak float64) string {
	return "Doom loop suspected: the assistant produced identical text for " + jsvalue.FormatNumber(streak) +
		" consecutive turns. " + textClosing
}

// prefixUnits returns the first n code units of s (fingerprints are ASCII,
// so this is a byte prefix in practice).
func prefixUnits(s string, n int) string {
	if len(s) <= n {
		if isASCII(s) {
			return s
		}
	} else if isASCII(s[:n]) {
		return s[:n]
	}
	units := jsvalue.ToUnits(s)
	if len(units) <= n {
		return s
	}
	return jsvalue.FromUnits(units[:n])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// declareLogMessage is the text DeclareRound logs, with the error, for a
// call it leaves out (spec §9.4).
func declareLogMessage(tool string, round float64) string {
	return `[DoomLoop] could not fingerprint a "` + tool + `" call while declaring round ` +
		jsvalue.FormatNumber(round) + "; excluding it from the round set:"
}

// restoreLogMessage is the text Restore logs for a blob that is not a plain
// object (spec §9.4).
const restoreLogMessage = "[DoomLoop] Ignoring invalid persisted doom-loop state"
