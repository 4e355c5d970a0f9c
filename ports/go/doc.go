// Package doomloop is a Go port of the doom-loop monitor: it notices an agent
// run that keeps issuing the same tool calls (or the same parallel fan-out of
// calls) round after round, or that keeps producing the same text, and answers
// with verdicts on a graduated ladder (observe, steer, escalate, block, stop).
//
// # Value model
//
// The monitor is specified over the JSON data model as a JavaScript program
// sees it. This package represents those values with ordinary Go types, the
// model of the kit's harness library (package doomloop.invalid/harness/jsvalue,
// whose types this package aliases, so values reach the conformance
// protocol without conversion):
//
//	JSON null        nil
//	boolean          bool
//	number           float64 (int, int64, json.Number and friends are accepted
//	                 on input and converted the way JSON.parse would)
//	string           string, holding UTF-8; a lone UTF-16 surrogate is held in
//	                 its three-byte generalized-UTF-8 form ("WTF-8"), which is
//	                 what [ParseJSON] produces for a "\udxxx" escape
//	array            []any
//	object           map[string]any
//
// Values only JavaScript has are modelled by [Undefined], [BigInt] and
// [Function] (a function or symbol used as a value). A loop-key declaration
// that is a function is a [LoopKeyFunc]. Strings are measured, cut, compared
// and escaped as sequences of UTF-16 code units, never as bytes or runes.
//
// [ParseJSON] reads JSON text without losing lone surrogates, [DecodeTagged]
// and [EncodeTagged] translate the tagged {"$js": ...} encoding that vector
// files and the conformance protocol use, and [AppendJSON] writes JSON text.
package doomloop
