package engine

import (
	"strconv"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

// The texts the engine itself writes to the model (spec §15.4.1), code unit
// for code unit. Verdict messages are the monitor's; these wrap them.

const (
	escalationNoticeSuffix = "An escalated turn follows: use the additional guidance to change course."
	haltPrefix             = "Run halted by doom-loop detection: "
	// finalDirective closes the input of the stopWhen final dispatch (ENG-169).
	finalDirective = "You have reached the tool-use limit, and tools are no longer available. " +
		"Do not attempt to call any more tools. Using the information you already have, write your final answer now."
	// skippedOutput answers, on the stopWhen final dispatch only, a call the
	// last round left unanswered (ENG-170).
	skippedOutput = "Tool execution skipped: step limit reached."
	// rejectedByUser answers a rejected pending call (ENG-163).
	rejectedByUser = "Rejected by user"
	// notExecutable answers an approved call of a manual or unknown tool (ENG-163).
	notExecutable = "Tool not found or not executable"
)

// escalationNotice is the verdict's message, one space, the fixed sentence (ENG-102).
func escalationNotice(message string) string {
	return message + " " + escalationNoticeSuffix
}

// advisorInstructions are the advisor's default instructions (ENG-103).
func advisorInstructions(message string) string {
	return "You are an escalation advisor. The executing model appears stuck in a loop: " + message +
		" Diagnose why its approach is failing and give concrete, specific instructions for a DIFFERENT" +
		" approach. Do not restate the problem."
}

// malformedArguments is the output text of a call whose arguments do not
// parse; raw is inserted as it is (ENG-104).
func malformedArguments(toolName, raw string) string {
	return `Failed to parse tool call arguments for "` + toolName + `": The model provided invalid JSON.` +
		` Raw arguments received: "` + raw + `". Please provide valid JSON arguments for this tool call.`
}

// haltText is the output text of a call sealed at a stop gate (ENG-106): the
// prefix, then JS String(verdict.message), which a verdict that is not an
// object, or has no message, makes "undefined".
func haltText(verdict any) string {
	message := any(jsvalue.Undefined{})
	if o := asObject(verdict); o != nil {
		message = o.Value("message")
	}
	return haltPrefix + jsToString(message)
}

// jsToString is JS String(v) for a JSON value the engine holds: an array is its
// elements joined by commas (null elements empty), an object "[object Object]".
func jsToString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case jsvalue.Undefined:
		return "undefined"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			if item != nil && !jsvalue.IsUndefined(item) {
				parts[i] = jsToString(item)
			}
		}
		return strings.Join(parts, ",")
	}
	if f, ok := jsvalue.Number(v); ok {
		return jsvalue.FormatNumber(f)
	}
	return "[object Object]"
}

// blockWithoutMessage answers a blocked call whose verdict has no message (ENG-107).
func blockWithoutMessage(toolName string) string {
	return `Doom loop suspected: tool "` + toolName + `" is repeating identical calls. ` +
		"Repeating the call will not change the result. Take a different approach."
}

// directive is the user message closing the stopWhen final dispatch, or ""
// for none (ENG-147): true (or absent) gives the fixed text, a string is
// the directive itself, any other value gives none.
func directive(allowFinalResponse any) string {
	switch x := allowFinalResponse.(type) {
	case bool:
		if x {
			return finalDirective
		}
	case string:
		return x
	}
	return ""
}
