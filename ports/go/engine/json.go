package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"

	"doomloop.invalid/harness/jsvalue"
)

// The engine holds JSON the way a JS program holds it: nil, bool, float64,
// string, []any and *Object, whose members keep JS property order. The
// order is observable: a tool's result is sent as JS JSON.stringify writes
// it (ENG-105), members in property order. The monitor takes the harness
// library's model (map[string]any), which monitorValue converts to.

// Object is a JSON object with its members in JS property order
// (ECMA-262 OrdinaryOwnPropertyKeys): names that are array indices
// ("0", "1", … up to 2^32-2, canonical only) first in ascending order, then
// the other names in the order they were first set. JSON.parse and a JS
// object literal give that order; a name set again keeps its place.
type Object struct {
	names  []string
	values map[string]any
}

// newObject builds an object from name, value pairs, in that order.
func newObject(pairs ...any) *Object {
	o := &Object{values: make(map[string]any, len(pairs)/2)}
	for i := 0; i < len(pairs); i += 2 {
		o.Set(pairs[i].(string), pairs[i+1])
	}
	return o
}

// Get returns the member's value and whether the object has it. The
// reading methods accept a nil *Object, which has no members.
func (o *Object) Get(name string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.values[name]
	return v, ok
}

// Value returns the member's value, or jsvalue.Undefined when absent.
func (o *Object) Value(name string) any {
	if v, ok := o.Get(name); ok {
		return v
	}
	return jsvalue.Undefined{}
}

// Has reports whether the object has the member.
func (o *Object) Has(name string) bool {
	_, ok := o.Get(name)
	return ok
}

// Set creates or replaces a member (a JS data property: "__proto__" is an
// ordinary name).
func (o *Object) Set(name string, v any) {
	if _, ok := o.values[name]; !ok {
		at := len(o.names)
		if arrayIndex(name) { // after the index names that are smaller, before the others
			at = sort.Search(len(o.names), func(i int) bool {
				return !arrayIndex(o.names[i]) || indexLess(name, o.names[i])
			})
		}
		o.names = slices.Insert(o.names, at, name)
	}
	o.values[name] = v
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.Names()) }

// Delete removes a member, if the object has it.
func (o *Object) Delete(name string) {
	delete(o.values, name)
	o.names = slices.DeleteFunc(o.names, func(n string) bool { return n == name })
}

// Names returns the member names in property order.
func (o *Object) Names() []string {
	if o == nil {
		return nil
	}
	return o.names
}

// arrayIndex reports whether a property name is an array index: the
// canonical decimal form of an integer from 0 to 2^32-2.
func arrayIndex(name string) bool {
	n, err := strconv.ParseUint(name, 10, 32)
	return err == nil && n < 1<<32-1 && strconv.FormatUint(n, 10) == name
}

// indexLess orders two array-index names numerically.
func indexLess(a, b string) bool {
	return len(a) < len(b) || (len(a) == len(b) && a < b)
}

// parseJSON reads one JSON text as JS JSON.parse does: objects become
// *Object in property order, a repeated name keeps its first place and its
// last value. The syntax is checked by encoding/json's tokenizer; each
// string and number is read from its own text by the harness library's
// parser, which has JS semantics (lone surrogates kept, numbers rounded to
// the nearest double, ±Inf beyond the range).
func parseJSON(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	v, err := readValue(decoder, data, 0)
	if err == nil {
		if _, more := decoder.Token(); more != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return v, nil
}

func readValue(decoder *json.Decoder, data []byte, depth int) (any, error) {
	if depth > jsvalue.MaxJSONDepth {
		return nil, errors.New("nesting too deep")
	}
	from := decoder.InputOffset()
	token, err := decoder.Token()
	if err != nil {
		return nil, err
	}
	switch t := token.(type) {
	case string:
		return leaf(data[from:decoder.InputOffset()])
	case json.Number:
		return leaf([]byte(t))
	case json.Delim:
		if t == '[' {
			items := []any{}
			for decoder.More() {
				v, err := readValue(decoder, data, depth+1)
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
			_, err = decoder.Token() // ']'
			return items, err
		}
		o := newObject()
		for decoder.More() {
			from = decoder.InputOffset()
			if _, err := decoder.Token(); err != nil {
				return nil, err
			}
			name, err := leaf(data[from:decoder.InputOffset()])
			if err != nil {
				return nil, err
			}
			v, err := readValue(decoder, data, depth+1)
			if err != nil {
				return nil, err
			}
			o.Set(name.(string), v)
		}
		_, err = decoder.Token() // '}'
		return o, err
	}
	return token, nil // true, false, null
}

// leaf reads one string or number token: text may start with the
// separators and spaces before it.
func leaf(text []byte) (any, error) {
	return jsvalue.ParseJSON(bytes.TrimLeft(text, " \t\r\n,:"))
}

// stringify writes a value as JS JSON.stringify does (ENG-105): no
// whitespace, members in property order, strings escaped as JS escapes them
// (lone surrogates as \uXXXX), numbers in ECMAScript form, a non-finite
// number as null; an undefined member is left out, an undefined element is
// null. A map[string]any (a monitor value) is written in code-unit order.
func stringify(v any) string {
	return string(appendJS(nil, v))
}

func appendJS(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil, jsvalue.Undefined:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return jsvalue.AppendQuoted(b, x)
	case []any:
		b = append(b, '[')
		for i, item := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJS(b, item)
		}
		return append(b, ']')
	case *Object:
		return appendMembers(b, x.names, x.Value)
	case map[string]any:
		return appendMembers(b, jsvalue.SortedKeys(x), func(name string) any { return x[name] })
	}
	if f, ok := jsvalue.Number(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return append(b, jsvalue.FormatNumber(f)...)
	}
	return append(b, "null"...) // non-finite, or a JS-only value JSON cannot hold
}

func appendMembers(b []byte, names []string, value func(string) any) []byte {
	b = append(b, '{')
	first := true
	for _, name := range names {
		member := value(name)
		if jsvalue.IsUndefined(member) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsvalue.AppendQuoted(b, name)
		b = append(b, ':')
		b = appendJS(b, member)
	}
	return append(b, '}')
}

// roundTrip is JSON.parse(JSON.stringify(v)): what a state store that keeps
// JSON text hands back (ENG-121), and the plain JSON a transcript holds.
func roundTrip(v any) any {
	back, err := parseJSON([]byte(stringify(v)))
	if err != nil {
		panic(fmt.Sprintf("engine: stringify wrote unreadable JSON: %v", err)) // cannot happen
	}
	return back
}

// clone is a private deep copy: values the engine keeps are never shared
// with a caller or between runs.
func clone(v any) any {
	switch x := v.(type) {
	case *Object:
		c := &Object{names: slices.Clone(x.names), values: make(map[string]any, len(x.values))}
		for name, member := range x.values {
			c.values[name] = clone(member)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, item := range x {
			c[i] = clone(item)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(x))
		for name, member := range x {
			c[name] = clone(member)
		}
		return c
	}
	return v
}

// monitorValue converts a value to the monitor's model (map[string]any for
// objects), unchanged otherwise, so that the monitor canonicalizes exactly
// what the engine holds.
func monitorValue(v any) any {
	switch x := v.(type) {
	case *Object:
		m := make(map[string]any, len(x.names))
		for _, name := range x.names {
			m[name] = monitorValue(x.values[name])
		}
		return m
	case []any:
		c := make([]any, len(x))
		for i, item := range x {
			c[i] = monitorValue(item)
		}
		return c
	}
	return v
}

// wireValue is a value as the transcript carries it: plain JSON in the
// monitor's model, as JS JSON.stringify and JSON.parse give it (-0 is 0, a
// non-finite number null, PROT-31).
func wireValue(v any) any {
	return monitorValue(roundTrip(v))
}

// equalJSON compares two JSON values: numbers by value, arrays in order,
// objects by their member sets.
func equalJSON(a, b any) bool {
	a, b = monitorValue(a), monitorValue(b)
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for name, member := range x {
			other, has := y[name]
			if !has || !equalJSON(member, other) {
				return false
			}
		}
		return true
	}
	if f, ok := jsvalue.Number(a); ok {
		g, isNumber := jsvalue.Number(b)
		return isNumber && f == g
	}
	return a == b
}

// asObject returns v as an *Object, or nil.
func asObject(v any) *Object {
	o, _ := v.(*Object)
	return o
}
