package doomloop

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

// The numeric literals JS StringToNumber accepts once trimmed: a decimal
// (sign, digits with an optional fraction, exponent) or Infinity with an
// optional sign, and the unsigned 0x, 0o and 0b integers (TXT-22).
var (
	decimalLiteral = regexp.MustCompile(`^[+-]?(?:Infinity|[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)$`)
	radixLiteral   = regexp.MustCompile(`^0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)$`)
)

// toNumber is JS ToNumber of a text option value that is given and not a
// bigint (TXT-22): a boolean is 1 or 0, a string its StringToNumber, an
// array the StringToNumber of its join, a plain object or a function NaN.
// A symbol, or an array holding one, gives the TypeError JS throws (TXT-23).
func toNumber(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case string:
		return stringToNumber(x), nil
	case []any:
		s, err := joinArray(x, map[jsvalue.ContainerID]bool{})
		return stringToNumber(s), err
	}
	if isSymbol(v) {
		return math.NaN(), &typeError{"Cannot convert a Symbol value to a number"}
	}
	if f, ok := jsvalue.Number(v); ok {
		return f, nil
	}
	return math.NaN(), nil
}

// stringToNumber is JS StringToNumber: the text trimmed of JS whitespace;
// empty is 0; a decimal or Infinity literal, or a 0x/0o/0b integer, is its
// value (rounded to the nearest double); anything else is NaN.
func stringToNumber(s string) float64 {
	s = jsvalue.Trim(s)
	switch {
	case s == "":
		return 0
	case radixLiteral.MatchString(s):
		n, _ := new(big.Int).SetString(s, 0) // base 0 reads the prefix
		f, _ := new(big.Float).SetInt(n).Float64()
		return f
	case decimalLiteral.MatchString(s):
		f, _ := jsvalue.Number(json.Number(s)) // ±Infinity too; overflow is ±Inf
		return f
	}
	return math.NaN()
}

// joinArray is JS Array.prototype.join(","), the primitive JS takes of an
// array: null and undefined elements are empty, an array met again inside
// itself (a cycle) is empty, a symbol element throws a TypeError.
func joinArray(a []any, seen map[jsvalue.ContainerID]bool) (string, error) {
	if id, ok := jsvalue.Identity(a); ok {
		if seen[id] {
			return "", nil
		}
		seen[id] = true
		defer delete(seen, id)
	}
	parts := make([]string, len(a))
	for i, item := range a {
		var err error
		if parts[i], err = elementString(item, seen); err != nil {
			return "", err
		}
	}
	return strings.Join(parts, ","), nil
}

// elementString is JS String(item) for an array element as join writes it.
func elementString(item any, seen map[jsvalue.ContainerID]bool) (string, error) {
	switch x := item.(type) {
	case nil, Undefined:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case BigInt:
		return x.Digits, nil
	case []any:
		return joinArray(x, seen)
	case map[string]any:
		return "[object Object]", nil
	}
	if isSymbol(item) {
		return "", &typeError{"Cannot convert a Symbol value to a string"}
	}
	if f, ok := jsvalue.Number(item); ok {
		return jsvalue.FormatNumber(f), nil // NaN and ±Infinity too
	}
	return "function () {}", nil // a function's source text: never numeric
}

// isSymbol reports whether v is a JS symbol (a Function value marked so).
func isSymbol(v any) bool {
	f, ok := v.(Function)
	return ok && f.Symbol
}
