package engine

import "doomloop.invalid/harness/jsvalue"

// The engine holds JSON the way a JS program holds it: nil, bool, float64,
// string, []any and *Object, whose members keep JS property order (the
// harness library's ordered JSON, jsvalue.ParseOrdered). The order is
// observable: a tool's result is sent as JS JSON.stringify writes it
// (ENG-105). The monitor takes the library's map model: jsvalue.Plain
// converts to it.

// Object is a JSON object in JS property order.
type Object = jsvalue.Object

// asObject returns v as an *Object, or nil.
func asObject(v any) *Object {
	o, _ := v.(*Object)
	return o
}

// clone is a private deep copy: values the engine keeps are never shared
// with a caller or between runs.
func clone(v any) any {
	switch x := v.(type) {
	case *Object:
		c := jsvalue.NewObject()
		for _, name := range x.Names() {
			c.Set(name, clone(x.Value(name)))
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

// roundTrip is JSON.parse(JSON.stringify(v)): what a state store that
// keeps JSON text hands back (ENG-121).
func roundTrip(v any) any {
	back, err := jsvalue.ParseOrdered([]byte(jsvalue.Stringify(v)))
	if err != nil {
		panic("engine: Stringify wrote unreadable JSON: " + err.Error()) // cannot happen
	}
	return back
}

// wireValue is a value as the transcript carries it: plain JSON in the
// library's map model, as JS JSON.stringify and JSON.parse give it (-0 is
// 0, a non-finite number null, PROT-31).
func wireValue(v any) any {
	return jsvalue.Plain(roundTrip(v))
}

// sameJSON compares two JSON values as values: numbers by value, arrays in
// order, objects by their members whatever their order; an absent member
// (undefined) equals only another absent one.
func sameJSON(a, b any) bool {
	return jsvalue.IsUndefined(a) == jsvalue.IsUndefined(b) &&
		jsvalue.Stringify(jsvalue.Plain(a)) == jsvalue.Stringify(jsvalue.Plain(b))
}
