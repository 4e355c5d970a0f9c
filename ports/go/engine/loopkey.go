package engine

import (
	"errors"
	"fmt"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

// A scenario cannot carry code, so a function-form loopKey is one of the
// named forms of §15.1.4, behaving as the equivalent JS function would:
//
//	{"function": "project", "fields": {"query": ["trim", "lower"], "cwd": []}}
//	{"function": "returns", "value": V}            (null exempts)
//	{"function": "returns-undefined"}
//	{"function": "throws", "message": M}
//	{"function": "resolution-fails", "message": M} (resolving fails, ENG-40)

// The named forms.
const (
	formProject          = "project"
	formReturns          = "returns"
	formReturnsUndefined = "returns-undefined"
	formThrows           = "throws"
	formResolutionFails  = "resolution-fails"
)

// LoopKeyForm is a function-form loopKey of a scenario.
type LoopKeyForm struct {
	Function string
	Fields   *Object // project: field name → its transforms ("trim", "lower"), in order
	Value    any     // returns
	Message  string  // throws, resolution-fails
}

var transforms = map[string]func(string) string{"trim": jsvalue.Trim, "lower": jsvalue.ToLowerCase} // JS trim and toLowerCase

// formMembers are the members each named form has, exactly (ENG-182).
var formMembers = map[string][]string{
	formProject:          {"function", "fields"},
	formReturns:          {"function", "value"},
	formReturnsUndefined: {"function"},
	formThrows:           {"function", "message"},
	formResolutionFails:  {"function", "message"},
}

// readLoopKey reads a tool's loopKey declaration (ENG-23): an object is a
// named form with exactly its members (ENG-182), anything else (false, a
// field list, another value) is passed to the resolver as it is. where
// names the declaration in the errors.
func readLoopKey(form any, where string) (any, error) {
	o := asObject(form)
	if o == nil {
		return clone(form), nil
	}
	f := &LoopKeyForm{Value: clone(o.Value("value"))}
	f.Function, _ = o.Value("function").(string)
	members, known := formMembers[f.Function]
	if !known {
		return nil, badScenario("%s: unknown loopKey function %s", where, jsvalue.Stringify(o.Value("function")))
	}
	if extra := unknownMembers(o, members); len(extra) > 0 {
		return nil, badScenario("%s: unknown member(s) %s of the %s form", where, strings.Join(extra, ", "), f.Function)
	}
	if message, given := o.Get("message"); given {
		text, isString := message.(string)
		if !isString {
			return nil, badScenario("%s.message: the %s form's message must be a string", where, f.Function)
		}
		f.Message = text // "" when left out
	}
	if jsvalue.IsUndefined(f.Value) {
		f.Value = nil // a "returns" form without a value returns null
	}
	if f.Function == formProject {
		f.Fields = asObject(o.Value("fields"))
		ok := f.Fields != nil
		for _, name := range f.Fields.Names() {
			steps, isList := f.Fields.Value(name).([]any)
			ok = ok && isList
			for _, step := range steps {
				name, isString := step.(string)
				ok = ok && isString && transforms[name] != nil
			}
		}
		if !ok {
			return nil, badScenario("%s.fields: project needs fields with known transforms", where)
		}
	}
	return f, nil
}

// call runs the form on the arguments as a JS function receives them (a
// value of the monitor's model); its error is what the function throws.
func (f *LoopKeyForm) call(args any) (any, error) {
	switch f.Function {
	case formProject:
		return f.project(args)
	case formReturns:
		return jsvalue.Plain(f.Value), nil
	case formThrows:
		return nil, errors.New(f.Message)
	}
	return jsvalue.Undefined{}, nil
}

// project builds an object of the listed fields, each transformed in order;
// a transform of a value that is not a string throws, as calling .trim() on
// it would, and an absent field stays undefined.
func (f *LoopKeyForm) project(args any) (any, error) {
	out := map[string]any{}
	for _, name := range f.Fields.Names() {
		value := jsMember(args, name)
		for _, step := range f.Fields.Value(name).([]any) {
			text, ok := value.(string)
			if !ok {
				return nil, fmt.Errorf("cannot %s field %s", step, jsvalue.Stringify(name))
			}
			value = transforms[step.(string)](text)
		}
		out[name] = value
	}
	return out, nil
}

// jsMember is args[name] as JS reads it: an object's own member, an array's
// element (canonical index names only) or its length, else undefined
// (ENG-154).
func jsMember(args any, name string) any {
	switch x := args.(type) {
	case map[string]any:
		if v, ok := x[name]; ok {
			return v
		}
	case []any:
		if name == "length" {
			return float64(len(x))
		}
		if i, isIndex := jsvalue.ArrayIndex(name); isIndex && int(i) < len(x) {
			return x[i]
		}
	}
	return jsvalue.Undefined{}
}

// jsString is a member read as a string: a string itself, "" when absent,
// the JSON text of any other value.
func jsString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case jsvalue.Undefined:
		return ""
	}
	return jsvalue.Stringify(v)
}
