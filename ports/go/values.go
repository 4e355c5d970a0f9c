package doomloop

import "doomloop.invalid/harness/jsvalue"

// The value model is the one of the conformance harness library
// (doomloop.invalid/harness/jsvalue), so that values travel between this
// package and the protocol without conversion.
type (
	// Undefined is JavaScript's undefined.
	Undefined = jsvalue.Undefined
	// BigInt is a JavaScript bigint.
	BigInt = jsvalue.BigInt
	// Function is a JavaScript function or symbol used as a value.
	Function = jsvalue.Function
	// ScriptedLoopKey is a loop-key function in data form.
	ScriptedLoopKey = jsvalue.ScriptedLoopKey
)

// MaxJSONDepth bounds the nesting ParseJSON accepts.
const MaxJSONDepth = jsvalue.MaxJSONDepth

// ErrNotJSON is returned by AppendJSON for a value JSON text cannot carry.
var ErrNotJSON = jsvalue.ErrNotJSON

// ParseJSON reads one JSON text with JS semantics (see jsvalue.ParseJSON).
func ParseJSON(data []byte) (any, error) { return jsvalue.ParseJSON(data) }

// AppendJSON appends the JSON text of v (see jsvalue.AppendJSON).
func AppendJSON(dst []byte, v any) ([]byte, error) { return jsvalue.AppendJSON(dst, v) }

// DecodeTagged turns tagged JSON into values (see jsvalue.DecodeTagged).
func DecodeTagged(v any) (any, error) { return jsvalue.DecodeTagged(v) }

// EncodeTagged turns values into tagged JSON (see jsvalue.EncodeTagged).
func EncodeTagged(v any) any { return jsvalue.EncodeTagged(v) }
