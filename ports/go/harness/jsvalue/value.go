package jsvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
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

// IsUndefined reports whether v is JS undefined.
func IsUndefined(v any) bool {
	_, ok := v.(Undefined)
	return ok
}

// IsFunction reports whether v is a function or symbol value: a Function,
// a *ScriptedLoopKey, or any Go func.
func IsFunction(v any) bool {
	switch v.(type) {
	case Function, *Function, *ScriptedLoopKey:
		return true
	}
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Func
}

// Number returns the double a JSON number (or a Go numeric value) denotes,
// as JS JSON.parse would produce it. Booleans are not numbers.
func Number(v any) (float64, bool) {
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

// ContainerID identifies an array or object for cycle detection: maps by
// their header pointer, non-empty slices by their backing array and length.
type ContainerID struct {
	ptr uintptr
	n   int
}

func identityOf(v reflect.Value) ContainerID {
	if v.Kind() == reflect.Slice {
		return ContainerID{v.Pointer(), v.Len()}
	}
	return ContainerID{v.Pointer(), -1}
}

// Truthy is JavaScript's ToBoolean: false for undefined, null, false, 0,
// -0, NaN, "" and 0n; true for anything else (an object, an array).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil, Undefined:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case BigInt:
		return strings.TrimLeft(x.Digits, "-0") != "" // 0n, however written
	}
	if f, ok := Number(v); ok {
		return f != 0 && !math.IsNaN(f)
	}
	return true
}
