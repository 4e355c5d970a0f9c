package doomloop

import (
	"fmt"
	"strings"

	"doomloop.invalid/harness/jsvalue"
)

// LoopKeyFunc is a function-form loop-key declaration. It returns the key
// material for one call's arguments; returning nil (JS null) exempts the
// call, returning Undefined{} ("returned nothing") or an error falls back to
// the full arguments. A panic counts as an error.
type LoopKeyFunc func(args map[string]any) (any, error)

// LoopKeyKind is the outcome of loop-key resolution.
type LoopKeyKind string

// The three outcomes.
const (
	LoopKeyExempt   LoopKeyKind = "exempt"
	LoopKeyKey      LoopKeyKind = "key"
	LoopKeyFallback LoopKeyKind = "fallback"
)

// LoopKeyResolution is the result of ResolveLoopKey. KeyMaterial is set for
// "key" and "fallback"; Warning, the SDK's exact text (spec §9.2), only for
// "fallback".
type LoopKeyResolution struct {
	Kind        LoopKeyKind
	KeyMaterial any
	Warning     string
}

// JSON returns the resolution's wire form.
func (r LoopKeyResolution) JSON() map[string]any {
	out := map[string]any{"kind": string(r.Kind)}
	if r.Kind != LoopKeyExempt {
		out["keyMaterial"] = r.KeyMaterial
	}
	if r.Kind == LoopKeyFallback {
		out["warning"] = r.Warning
	}
	return out
}

func fallback(args map[string]any, warning string) LoopKeyResolution {
	return LoopKeyResolution{Kind: LoopKeyFallback, KeyMaterial: args, Warning: warning}
}

// The loop-key fallback warnings, byte for byte as the SDK writes them.
const (
	warnEmptyFieldList = "loopKey is an empty field list, which would give every call to this tool the same " +
		"identity; falling back to full arguments. Use `false` to exempt the tool."
	warnReturnedUndefined = "loopKey returned undefined; falling back to full arguments. " +
		"Return null to exempt a call, or a value to use as identity."
)

func warnFieldsAbsent(names []string) string {
	return "loopKey fields [" + strings.Join(names, ", ") + "] are all absent from the arguments, " +
		"which would give every call the same identity; falling back to full arguments."
}

func warnThrew(reason string) string {
	return "loopKey threw (" + reason + "); falling back to full arguments"
}

func warnUnsupportedShape(typeOf string) string {
	return "loopKey has unsupported shape (" + typeOf + "); falling back to full arguments"
}

// typeOf is JS typeof for a value of this package's model.
func typeOf(v any) string {
	switch x := v.(type) {
	case Undefined:
		return "undefined"
	case bool:
		return "boolean"
	case string:
		return "string"
	case BigInt:
		return "bigint"
	case Function:
		if x.Symbol {
			return "symbol"
		}
		return "function"
	}
	if _, ok := jsvalue.Number(v); ok {
		return "number"
	}
	if jsvalue.IsFunction(v) {
		return "function"
	}
	return "object"
}

// ResolveLoopKey applies a tool's loopKey declaration to one call's
// arguments. The declaration is Undefined{} when the tool declares none;
// false exempts the tool; a list of field names ([]any or []string)
// selects the present own members; a LoopKeyFunc, a func with the same
// signature or a *ScriptedLoopKey is called; anything else falls back.
// It never panics because of the declaration.
func ResolveLoopKey(loopKey any, args map[string]any) LoopKeyResolution {
	switch decl := loopKey.(type) {
	case Undefined:
		return LoopKeyResolution{Kind: LoopKeyKey, KeyMaterial: args}
	case bool:
		if !decl {
			return LoopKeyResolution{Kind: LoopKeyExempt}
		}
	case []string:
		names := make([]any, len(decl))
		for i, n := range decl {
			names[i] = n
		}
		return fieldList(names, args)
	case []any:
		return fieldList(decl, args)
	case LoopKeyFunc:
		return callLoopKey(decl, args)
	case func(map[string]any) (any, error):
		return callLoopKey(decl, args)
	case *ScriptedLoopKey:
		return callLoopKey(decl.Call, args)
	case Function:
		if !decl.Symbol { // a function value with no script returns nothing
			return fallback(args, warnReturnedUndefined)
		}
	}
	return fallback(args, warnUnsupportedShape(typeOf(loopKey)))
}

func fieldList(names []any, args map[string]any) LoopKeyResolution {
	if len(names) == 0 {
		return fallback(args, warnEmptyFieldList)
	}
	subset := map[string]any{}
	var listed []string
	for _, n := range names {
		if name, ok := n.(string); ok {
			listed = append(listed, name)
			if v, has := args[name]; has {
				subset[name] = v
			}
		}
	}
	if len(subset) == 0 {
		return fallback(args, warnFieldsAbsent(listed))
	}
	return LoopKeyResolution{Kind: LoopKeyKey, KeyMaterial: subset}
}

func callLoopKey(fn func(map[string]any) (any, error), args map[string]any) (res LoopKeyResolution) {
	defer func() {
		if p := recover(); p != nil {
			res = fallback(args, warnThrew(fmt.Sprint(p)))
		}
	}()
	v, err := fn(args)
	switch {
	case err != nil:
		return fallback(args, warnThrew(err.Error()))
	case v == nil:
		return LoopKeyResolution{Kind: LoopKeyExempt}
	case jsvalue.IsUndefined(v):
		return fallback(args, warnReturnedUndefined)
	}
	return LoopKeyResolution{Kind: LoopKeyKey, KeyMaterial: v}
}
