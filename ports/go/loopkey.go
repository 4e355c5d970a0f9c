package doomloop

import (
	"fmt"
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
// "key" and "fallback"; Warning (informative text) only for "fallback".
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

func fallback(args map[string]any, format string, a ...any) LoopKeyResolution {
	return LoopKeyResolution{Kind: LoopKeyFallback, KeyMaterial: args, Warning: fmt.Sprintf(format, a...)}
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
	}
	return fallback(args, "unsupported loopKey declaration of type %T", loopKey)
}

func fieldList(names []any, args map[string]any) LoopKeyResolution {
	if len(names) == 0 {
		return fallback(args, "loopKey lists no fields: every call would share one identity")
	}
	subset := map[string]any{}
	for _, n := range names {
		if name, ok := n.(string); ok {
			if v, has := args[name]; has {
				subset[name] = v
			}
		}
	}
	if len(subset) == 0 {
		return fallback(args, "none of the loopKey fields is present in the arguments")
	}
	return LoopKeyResolution{Kind: LoopKeyKey, KeyMaterial: subset}
}

func callLoopKey(fn func(map[string]any) (any, error), args map[string]any) (res LoopKeyResolution) {
	defer func() {
		if p := recover(); p != nil {
			res = fallback(args, "loopKey function panicked: %v", p)
		}
	}()
	v, err := fn(args)
	switch {
	case err != nil:
		return fallback(args, "loopKey function raised: %v", err)
	case v == nil:
		return LoopKeyResolution{Kind: LoopKeyExempt}
	case isUndefined(v):
		return fallback(args, "loopKey function returned nothing")
	}
	return LoopKeyResolution{Kind: LoopKeyKey, KeyMaterial: v}
}
