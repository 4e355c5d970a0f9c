package doomloop

import (
	"errors"
	"fmt"
	"math"

	"doomloop.invalid/harness/jsvalue"
)

// MaxCanonicalizeDepth is the deepest nesting canonicalization accepts; the
// value passed in is at depth 0 and every visited value, scalar or
// container, is checked.
const MaxCanonicalizeDepth = 64

// ErrCanonicalization is wrapped by every error of Canonicalize and the
// fingerprint functions.
var ErrCanonicalization = errors.New("cannot canonicalize key material")

// CanonicalizationError says why a value has no canonical form. Its Error
// text is the SDK's message, byte for byte (spec §9.3).
type CanonicalizationError struct {
	Kind   string // "depth", "circular", "non-finite", "bigint" or "unsupported"
	Detail string // for "unsupported" (a Go value of no JSON type)
}

// canonicalizationMessages are the SDK's messages by kind.
var canonicalizationMessages = map[string]string{
	"depth": "Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting",
	"non-finite": "Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: " +
		"RFC 8785 has no representation",
	"bigint": "Cannot canonicalize bigint for doom-loop fingerprinting: RFC 8785 has no representation " +
		"(convert to string or number in loopKey)",
	"circular": "Cannot canonicalize circular key material for doom-loop fingerprinting",
}

func (e *CanonicalizationError) Error() string {
	if msg, ok := canonicalizationMessages[e.Kind]; ok {
		return msg
	}
	return fmt.Sprintf("Cannot canonicalize %s for doom-loop fingerprinting", e.Detail)
}

// Unwrap lets errors.Is(err, ErrCanonicalization) succeed.
func (e *CanonicalizationError) Unwrap() error { return ErrCanonicalization }

// Canonicalize returns the RFC 8785 (JCS) canonical JSON text of v, exactly
// as JavaScript produces it: member names sorted by UTF-16 code units,
// numbers in ECMAScript form, lone surrogates escaped as \udxxx, Undefined
// and function members dropped (written null in arrays and at the top).
// It fails for nesting deeper than 64, cycles, NaN/±Inf and bigints.
func Canonicalize(v any) (string, error) {
	b, err := appendCanonical(nil, v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendCanonical appends the canonical form of v to dst; on failure the
// returned slice is nil.
func appendCanonical(dst []byte, v any) ([]byte, error) {
	c := canonicalizer{out: dst}
	if err := c.visit(v, 0); err != nil {
		return nil, err
	}
	return c.out, nil
}

type canonicalizer struct {
	out       []byte
	ancestors []jsvalue.ContainerID
}

func canonErr(kind, format string, args ...any) error {
	return &CanonicalizationError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

func (c *canonicalizer) visit(v any, depth int) error {
	if depth > MaxCanonicalizeDepth {
		return canonErr("depth", "")
	}
	switch x := v.(type) {
	case nil, Undefined:
		c.out = append(c.out, "null"...)
		return nil
	case bool:
		if x {
			c.out = append(c.out, "true"...)
		} else {
			c.out = append(c.out, "false"...)
		}
		return nil
	case string:
		c.out = jsvalue.AppendQuoted(c.out, x)
		return nil
	case BigInt:
		return canonErr("bigint", "")
	case []any:
		return c.container(x, depth)
	case map[string]any:
		return c.container(x, depth)
	}
	if f, ok := jsvalue.Number(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return canonErr("non-finite", "")
		}
		c.out = append(c.out, jsvalue.FormatNumber(f)...)
		return nil
	}
	if jsvalue.IsFunction(v) {
		c.out = append(c.out, "null"...)
		return nil
	}
	return canonErr("unsupported", "a Go %T", v)
}

func (c *canonicalizer) container(v any, depth int) error {
	id, tracked := jsvalue.Identity(v)
	if tracked {
		for _, a := range c.ancestors {
			if a == id {
				return canonErr("circular", "")
			}
		}
		c.ancestors = append(c.ancestors, id)
		defer func() { c.ancestors = c.ancestors[:len(c.ancestors)-1] }()
	}
	if items, ok := v.([]any); ok {
		c.out = append(c.out, '[')
		for i, item := range items {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			if err := c.visit(item, depth+1); err != nil {
				return err
			}
		}
		c.out = append(c.out, ']')
		return nil
	}
	m := v.(map[string]any)
	var small [8]string
	keys := small[:0]
	for k, member := range m {
		if !jsvalue.IsUndefined(member) && !jsvalue.IsFunction(member) {
			keys = append(keys, k)
		}
	}
	jsvalue.SortUnits(keys)
	c.out = append(c.out, '{')
	for i, k := range keys {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = jsvalue.AppendQuoted(c.out, k)
		c.out = append(c.out, ':')
		if err := c.visit(m[k], depth+1); err != nil {
			return err
		}
	}
	c.out = append(c.out, '}')
	return nil
}
