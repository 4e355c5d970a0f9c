package doomloop

import (
	"math"

	"doomloop.invalid/harness/jsvalue"
)

// present reports whether a member value counts as given: not absent
// (Undefined) and not null.
func present(v any) bool {
	return v != nil && !jsvalue.IsUndefined(v)
}

// member returns m[name], or Undefined when m has no such own member.
func member(m map[string]any, name string) any {
	if v, ok := m[name]; ok {
		return v
	}
	return Undefined{}
}

// asObject returns v as an object (never an array), or nil.
func asObject(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok && m != nil
}

// finiteNumber returns the double of a finite number, or false.
func finiteNumber(v any) (float64, bool) {
	f, ok := jsvalue.Number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
