package jsvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
)

// JSON as a JS program holds it, member order included: a port's engine
// needs it, because the engine level observes the order of an object's
// members (a tool's result reaches the model as JSON.stringify writes it,
// ENG-105). ParseOrdered reads objects as *Object; Stringify writes them in
// their order; Plain converts to this package's map model.

// Object is a JSON object with its members in JS property order (ECMA-262
// OrdinaryOwnPropertyKeys): the names that are array indices ("0", "1", …
// up to 2^32-2, canonical only) first in ascending order, then the other
// names in the order they were first set. JSON.parse and an object literal
// give that order; a name set again keeps its place. The reading methods
// accept a nil *Object, which has no members.
type Object struct {
	names  []string
	values map[string]any
}

// NewObject builds an object from name, value pairs, in that order.
func NewObject(pairs ...any) *Object {
	o := &Object{values: map[string]any{}}
	for i := 0; i < len(pairs); i += 2 {
		o.Set(pairs[i].(string), pairs[i+1])
	}
	return o
}

// Get returns the member's value and whether the object has it.
func (o *Object) Get(name string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.values[name]
	return v, ok
}

// Value returns the member's value, or Undefined when absent.
func (o *Object) Value(name string) any {
	if v, ok := o.Get(name); ok {
		return v
	}
	return Undefined{}
}

// Has reports whether the object has the member.
func (o *Object) Has(name string) bool {
	_, ok := o.Get(name)
	return ok
}

// Names returns the member names in property order.
func (o *Object) Names() []string {
	if o == nil {
		return nil
	}
	return o.names
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.Names()) }

// Set creates or replaces a member, as a JS data property ("__proto__" is
// an ordinary name).
func (o *Object) Set(name string, v any) {
	if _, ok := o.values[name]; !ok {
		at := len(o.names)
		if _, isIndex := ArrayIndex(name); isIndex { // after the smaller index names, before the others
			at = sort.Search(len(o.names), func(i int) bool {
				_, other := ArrayIndex(o.names[i])
				return !other || indexBefore(name, o.names[i])
			})
		}
		o.names = slices.Insert(o.names, at, name)
	}
	o.values[name] = v
}

// Delete removes a member, if the object has it.
func (o *Object) Delete(name string) {
	delete(o.values, name)
	o.names = slices.DeleteFunc(o.names, func(n string) bool { return n == name })
}

// ArrayIndex returns the array index a property name denotes, if it is
// one: the canonical decimal form of an integer from 0 to 2^32-2 ("7", not
// "07", "-0" or "+7"). JS finds an array's elements, and orders an object's
// members, by such names.
func ArrayIndex(name string) (uint32, bool) {
	n, err := strconv.ParseUint(name, 10, 32)
	return uint32(n), err == nil && n < math.MaxUint32 && strconv.FormatUint(n, 10) == name
}

// indexBefore orders two array-index names numerically.
func indexBefore(a, b string) bool {
	return len(a) < len(b) || (len(a) == len(b) && a < b)
}

// ParseOrdered reads one JSON text as JS JSON.parse does, objects as
// *Object: a repeated name keeps its first place and its last value;
// strings and numbers are read as ParseJSON reads them. It does not
// recurse, so no nesting exhausts the stack.
func ParseOrdered(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	type open struct {
		object *Object // nil for an array
		items  []any
		name   *string // the member name read, waiting for its value
	}
	var stack []*open
	for {
		from := decoder.InputOffset()
		token, err := decoder.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		var value any
		switch t := token.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &open{object: NewObject()})
				continue
			case '[':
				stack = append(stack, &open{items: []any{}})
				continue
			}
			done := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			value = done.items
			if done.object != nil {
				value = done.object
			}
		case string:
			// the token's own text, from its opening quote: lone surrogates survive
			text := data[from:decoder.InputOffset()]
			if value, err = ParseJSON(text[bytes.IndexByte(text, '"'):]); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
		case json.Number:
			value, _ = Number(t)
		default:
			value = token // true, false, null
		}
		if len(stack) == 0 {
			if _, err := decoder.Token(); err != io.EOF {
				return nil, fmt.Errorf("invalid JSON: unexpected data after the JSON value")
			}
			return value, nil
		}
		switch top := stack[len(stack)-1]; {
		case top.object == nil:
			top.items = append(top.items, value)
		case top.name == nil:
			name := value.(string)
			top.name = &name
		default:
			top.object.Set(*top.name, value)
			top.name = nil
		}
	}
}

// Stringify writes a value as JS JSON.stringify does: no whitespace, an
// *Object's members in its order (a map's in UTF-16 order of their names),
// strings escaped as AppendQuoted escapes them, numbers in ECMAScript form,
// a non-finite number as null; an undefined member is left out, an
// undefined element is null, as is any other value JSON cannot hold.
func Stringify(v any) string {
	return string(appendJS(nil, v))
}

func appendJS(b []byte, v any) []byte {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return AppendQuoted(b, x)
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
		return appendMembers(b, x.Names(), x.Value)
	case map[string]any:
		return appendMembers(b, SortedKeys(x), func(name string) any { return x[name] })
	}
	if f, ok := Number(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return append(b, FormatNumber(f)...)
	}
	return append(b, "null"...)
}

func appendMembers(b []byte, names []string, value func(string) any) []byte {
	b = append(b, '{')
	first := true
	for _, name := range names {
		member := value(name)
		if IsUndefined(member) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendQuoted(b, name)
		b = append(b, ':')
		b = appendJS(b, member)
	}
	return append(b, '}')
}

// Plain converts a value to this package's map model: every *Object, at
// any depth, becomes a map[string]any; other values are unchanged.
func Plain(v any) any {
	switch x := v.(type) {
	case *Object:
		m := make(map[string]any, x.Len())
		for _, name := range x.Names() {
			m[name] = Plain(x.values[name])
		}
		return m
	case []any:
		c := make([]any, len(x))
		for i, item := range x {
			c[i] = Plain(item)
		}
		return c
	}
	return v
}
