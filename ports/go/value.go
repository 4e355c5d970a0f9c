package doomloop

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
)

// Undefined is JavaScript's undefined. As the member value of an object it
// makes the member count as absent for canonicalization; as an array element
// or at the top level it is written null.
type Undefined struct{}

// BigInt is a JavaScript bigint (for example 10n). Canonicalization rejects
// it. Digits is its decimal form, with a leading '-' when negative.
type BigInt struct{ Digits string }

// Function is a JavaScript function or symbol used as a value. The canonical
// form treats it like Undefined.
type Function struct{ Symbol bool }

// isUndefined reports whether v is JS undefined.
func isUndefined(v any) bool {
	_, ok := v.(Undefined)
	return ok
}

// isFunctionValue reports whether v is a function or symbol value: a
// Function, a loop-key function, or any Go func.
func isFunctionValue(v any) bool {
	switch v.(type) {
	case Function, *Function, LoopKeyFunc, *ScriptedLoopKey:
		return true
	}
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Func
}

// present reports whether a member value counts as given: not absent
// (Undefined) and not null.
func present(v any) bool {
	return v != nil && !isUndefined(v)
}

// member returns m[name], or Undefined when m has no such own member.
func member(m map[string]any, name string) any {
	if v, ok := m[name]; ok {
		return v
	}
	return Undefined{}
}

// asObject returns v as an object (never an array), or nil.
func asObject(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok && m != nil
}

// toNumber returns the double a JSON number (or a Go numeric value) denotes,
// as JS JSON.parse would produce it. Booleans are not numbers.
func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		return parseNumberToken(string(n))
	case *big.Int:
		if n == nil {
			return 0, false
		}
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	}
	return 0, false
}

// parseNumberToken converts a JSON number token to the nearest double
// (ties to even); out-of-range magnitudes give ±Inf, underflow a signed 0.
func parseNumberToken(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// finiteNumber returns the double of a finite number, or false.
func finiteNumber(v any) (float64, bool) {
	f, ok := toNumber(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// truthy is JavaScript's ToBoolean.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil, Undefined:
		return false
	case bool:
		return x
	case string:
		return x != ""
	}
	if f, ok := toNumber(v); ok {
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// containerID identifies an array or object for cycle detection: maps by
// their header pointer, non-empty slices by their backing array and length.
type containerID struct {
	ptr uintptr
	n   int
}

func identityOf(v reflect.Value) containerID {
	if v.Kind() == reflect.Slice {
		return containerID{v.Pointer(), v.Len()}
	}
	return containerID{v.Pointer(), -1}
}
