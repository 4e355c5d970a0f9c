package engine

import (
	"fmt"
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
	if name == "" || len(name) > 10 || (name[0] == '0' && len(name) > 1) {
		return false
	}
	n, err := strconv.ParseUint(name, 10, 64)
	return err == nil && n < 1<<32-1
}

// indexLess orders two array-index names numerically.
func indexLess(a, b string) bool {
	return len(a) < len(b) || (len(a) == len(b) && a < b)
}

// parseJSON reads one JSON text as JS JSON.parse does: objects become
// *Object in property order, a repeated name keeps its first place and its
// last value, and the values themselves (strings with lone surrogates,
// numbers rounded to the nearest double) are read by the harness library's
// parser, which has JS semantics.
func parseJSON(data []byte) (any, error) {
	r := &reader{data: data}
	r.space()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if r.space(); r.pos != len(r.data) {
		return nil, r.fail("unexpected data after the JSON value")
	}
	return v, nil
}

type reader struct {
	data []byte
	pos  int
}

func (r *reader) fail(what string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", r.pos, what)
}

func (r *reader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// expect consumes one byte of punctuation.
func (r *reader) expect(c byte) bool {
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

func (r *reader) value(depth int) (any, error) {
	if depth > jsvalue.MaxJSONDepth {
		return nil, r.fail("nesting too deep")
	}
	if r.pos >= len(r.data) {
		return nil, r.fail("unexpected end of input")
	}
	switch r.data[r.pos] {
	case '{':
		return r.object(depth)
	case '[':
		return r.array(depth)
	case '"':
		return r.leaf(r.stringEnd())
	}
	end := r.pos
	for end < len(r.data) && (isNumberByte(r.data[end]) || (r.data[end] >= 'a' && r.data[end] <= 'z')) {
		end++
	}
	return r.leaf(end)
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'E'
}

// stringEnd finds the end of the string token at r.pos (after its closing
// quote; the whole input when it is unterminated).
func (r *reader) stringEnd() int {
	for i := r.pos + 1; i < len(r.data); i++ {
		switch r.data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(r.data)
}

// leaf reads the string, number or literal token r.data[r.pos:end].
func (r *reader) leaf(end int) (any, error) {
	v, err := jsvalue.ParseJSON(r.data[r.pos:end])
	if err != nil {
		return nil, fmt.Errorf("invalid JSON at byte %d: %w", r.pos, err)
	}
	r.pos = end
	return v, nil
}

func (r *reader) object(depth int) (any, error) {
	r.pos++
	o := newObject()
	if r.expect('}') {
		return o, nil
	}
	for {
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, r.fail("expected a member name")
		}
		name, err := r.leaf(r.stringEnd())
		if err != nil {
			return nil, err
		}
		if !r.expect(':') {
			return nil, r.fail("expected ':'")
		}
		r.space()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.Set(name.(string), v)
		if r.expect('}') {
			return o, nil
		}
		if !r.expect(',') {
			return nil, r.fail("expected ',' or '}'")
		}
	}
}

func (r *reader) array(depth int) (any, error) {
	r.pos++
	items := []any{}
	if r.expect(']') {
		return items, nil
	}
	for {
		r.space()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if r.expect(']') {
			return items, nil
		}
		if !r.expect(',') {
			return nil, r.fail("expected ',' or ']'")
		}
	}
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
