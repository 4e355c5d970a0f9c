package engine

import (
	"errors"
	"fmt"

	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// call is one function_call item with its arguments parsed.
type call struct {
	item *Object // the function_call item as the model emitted it (or as persisted)
	id   string
	name string
	// args are the parsed arguments (any JSON value) when the call is not
	// malformed; raw is the identity of a malformed call.
	args      any
	malformed bool
	raw       string
}

// callOf reads a function_call item. Scripted calls are checked by
// ParseScenario; a persisted pending call missing a member reads it as "".
func callOf(item *Object) *call {
	c := &call{item: item, id: jsString(item.Value("callId")), name: jsString(item.Value("name"))}
	c.args, c.malformed, c.raw = parseArguments(jsString(item.Value("arguments")))
	return c
}

// calls are the function_call items of a response's output, in order.
func calls(output []any) []*call {
	var out []*call
	for _, raw := range output {
		if item := asObject(raw); item != nil && item.Value("type") == "function_call" {
			out = append(out, callOf(item))
		}
	}
	return out
}

// parseArguments parses a raw argument string (ENG-37, ENG-38, ENG-137):
// trimmed as JS trim trims, then JSON.parse. Blank text parses as {}. Text
// that does not parse is malformed with its raw text, untrimmed, as
// identity; text that parses to a string is malformed with the parsed
// string as identity, never parsed a second time.
func parseArguments(raw string) (args any, malformed bool, identity string) {
	text := jsvalue.Trim(raw)
	if text == "" {
		return jsvalue.NewObject(), false, ""
	}
	parsed, err := jsvalue.ParseOrdered([]byte(text))
	if err != nil {
		return nil, true, raw
	}
	if s, ok := parsed.(string); ok {
		return nil, true, s
	}
	return parsed, false, ""
}

// errResolution: resolving a call's loop identity failed (ENG-40, ENG-46).
var errResolution = errors.New("could not resolve the loop identity")

// identity is a resolved loop identity: the monitor's resolution, and
// whether its key material is the full arguments (then there is no retry
// identity, ENG-49).
type identity struct {
	doomloop.LoopKeyResolution
	args     any // the arguments handed to the resolver, in the monitor's model
	fullArgs bool
}

// retry is the retry identity: the full arguments, unless the key material
// already is them (ENG-49).
func (id identity) retry() (any, bool) {
	return id.args, !id.fullArgs
}

// resolver resolves loopKey declarations with the monitor's resolver and
// counts the invocations of function forms, per tool (ENG-39, ENG-41). It
// resolves while a round is declared and at a checkpoint; a batch's
// checkpoints run one at a time, each handing the turn to the next
// (ENG-138), so it is never used by two goroutines at once and needs no
// lock.
type resolver struct {
	scenario    *Scenario
	invocations map[string]int
}

func (r *resolver) count(tool string) {
	r.invocations[tool]++
}

// resolve gives a parsed call's identity, or an error wrapping
// errResolution (ENG-40). The arguments are read as {} when they parse to
// null (ENG-39); a field list on arguments that are not an object is read
// as JS `in` reads it (ENG-154); a function form receives them as they are.
func (r *resolver) resolve(c *call) (identity, error) {
	declaration := r.scenario.tool(c.name).LoopKey
	args := c.args
	if args == nil {
		args = jsvalue.NewObject()
	}
	value := jsvalue.Plain(args)
	object, _ := value.(map[string]any)
	switch form := declaration.(type) {
	case *LoopKeyForm:
		if form.Function == formResolutionFails {
			return identity{}, fmt.Errorf("%w: %s", errResolution, form.Message)
		}
		declaration = doomloop.LoopKeyFunc(func(map[string]any) (any, error) {
			r.count(c.name)
			return form.call(value)
		})
	case []any:
		if len(form) > 0 && object == nil {
			var err error
			if object, err = inMembers(value); err != nil {
				return identity{}, err
			}
		}
	}
	resolution := doomloop.ResolveLoopKey(declaration, object)
	full := resolution.Kind == doomloop.LoopKeyFallback ||
		(resolution.Kind == doomloop.LoopKeyKey && jsvalue.IsUndefined(declaration))
	if full {
		resolution.KeyMaterial = value // the arguments as they are, whatever their type
	}
	return identity{LoopKeyResolution: resolution, args: value, fullArgs: full}, nil
}

// inMembers are the members JS `in` finds when a non-empty field list is
// looked up on arguments that are not an object (ENG-154): on an array, the
// index names and length (the fallback then keys on the array itself); on a
// number or a boolean, `in` throws, so resolving fails (ENG-40).
func inMembers(args any) (map[string]any, error) {
	list, ok := args.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: cannot use 'in' to look up loopKey fields in a primitive", errResolution)
	}
	members := map[string]any{"length": float64(len(list))}
	for i, item := range list {
		members[jsvalue.FormatNumber(float64(i))] = item
	}
	return members, nil
}
