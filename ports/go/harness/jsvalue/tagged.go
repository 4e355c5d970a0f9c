package jsvalue

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// The tagged encoding: JSON objects with a "$js" member carry the values
// plain JSON cannot (see the package documentation of the conformance kit):
//
//	{"$js":"undefined"}                       Undefined{}
//	{"$js":"number","value":"NaN"|"Infinity"|"-Infinity"|"-0"}
//	{"$js":"bigint","value":"12"}             BigInt{"12"}
//	{"$js":"function"} / {"$js":"symbol"}     Function{}
//	{"$js":"function","returns":V}            *ScriptedLoopKey returning V
//	{"$js":"function","throws":"msg"}         *ScriptedLoopKey that throws
//	{"$js":"ref","up":k}                      the k-th enclosing container
//	{"$js":"nest","depth":d,"value":V}        V inside d one-element arrays
//	{"$js":"anchor","name":L,"value":V}       V (a map or slice), named L
//	{"$js":"alias","name":L}                  the very map or slice anchor L gave
//	{"$js":"object","value":{...}}            that object, literally
//
// Anchors name a container within one DecodeTagged call; an alias shares the
// map (or the slice's backing array) of its anchor, so canonicalization sees
// one container at two places, not a cycle (PROT-33, PROT-34).
const tagName = "$js"

// DecodeDepthLimit: a tagged value inside this many enclosing arrays and
// objects is undecodable (PROT-41); an "object" tag's literal counts as one
// object, other tags do not count. Plain JSON that deep decodes as it is.
const DecodeDepthLimit = 100

// ScriptedLoopKey is a loop-key function in data form: it returns Returns
// (Undefined meaning "returns nothing", nil meaning null), or, when Throws
// is set, it fails with that message.
type ScriptedLoopKey struct {
	Returns any
	Throws  *string
}

// Call runs the scripted function.
func (s *ScriptedLoopKey) Call(map[string]any) (any, error) {
	if s.Throws != nil {
		return nil, fmt.Errorf("%s", *s.Throws)
	}
	return s.Returns, nil
}

// DecodeTagged turns tagged JSON (as read by ParseJSON) into values of this
// package's model. A ref builds a real cycle.
func DecodeTagged(v any) (any, error) {
	d := &tagDecoder{anchors: map[string]any{}, open: map[string]bool{}}
	out, err := d.decode(v, 0)
	if err != nil || d.pending == 0 {
		return out, err
	}
	return d.resolve(out, map[ContainerID]bool{})
}

type tagDecoder struct {
	stack   []any
	anchors map[string]any  // complete anchors
	open    map[string]bool // anchors still being decoded
	pending int             // aliases met before their anchor
}

// pendingAlias stands for an alias whose anchor had not been decoded yet.
// A Go map forgets the order of the JSON text, so an anchor that comes
// first in the text may be decoded after its alias; resolve replaces the
// placeholder once every anchor is known (PROT-34).
type pendingAlias struct{ name string }

// resolve replaces every pendingAlias in v by its anchor's container.
func (d *tagDecoder) resolve(v any, seen map[ContainerID]bool) (any, error) {
	switch x := v.(type) {
	case *pendingAlias:
		found, ok := d.anchors[x.name]
		if !ok {
			return nil, fmt.Errorf("alias %q names no anchor", x.name)
		}
		return found, nil
	case *ScriptedLoopKey:
		returns, err := d.resolve(x.Returns, seen)
		x.Returns = returns
		return x, err
	case []any, map[string]any:
		id, tracked := Identity(x)
		if tracked {
			if seen[id] {
				return x, nil
			}
			seen[id] = true
		}
		if items, ok := x.([]any); ok {
			for i, item := range items {
				resolved, err := d.resolve(item, seen)
				if err != nil {
					return nil, err
				}
				items[i] = resolved
			}
			return items, nil
		}
		m := x.(map[string]any)
		for k, item := range m {
			resolved, err := d.resolve(item, seen)
			if err != nil {
				return nil, err
			}
			m[k] = resolved
		}
		return m, nil
	}
	return v, nil
}

func (d *tagDecoder) decode(v any, depth int) (any, error) {
	if depth > MaxJSONDepth+DecodeDepthLimit {
		return nil, fmt.Errorf("tagged value nested deeper than %d", MaxJSONDepth+DecodeDepthLimit)
	}
	switch x := v.(type) {
	case []any:
		items := make([]any, len(x))
		d.stack = append(d.stack, items)
		for i, item := range x {
			decoded, err := d.decode(item, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = decoded
		}
		d.stack = d.stack[:len(d.stack)-1]
		return items, nil
	case map[string]any:
		if _, tagged := x[tagName]; !tagged {
			return d.members(x, depth)
		}
		if len(d.stack) >= DecodeDepthLimit {
			return nil, fmt.Errorf("a tagged value inside %d or more containers (PROT-41)", DecodeDepthLimit)
		}
		return d.tag(x, depth)
	}
	return v, nil
}

func (d *tagDecoder) members(x map[string]any, depth int) (any, error) {
	out := make(map[string]any, len(x))
	d.stack = append(d.stack, out)
	for k, item := range x {
		decoded, err := d.decode(item, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = decoded
	}
	d.stack = d.stack[:len(d.stack)-1]
	return out, nil
}

// wholeNumber reads a JSON number that is an exact integer.
func wholeNumber(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func (d *tagDecoder) tag(x map[string]any, depth int) (any, error) {
	kind, _ := x[tagName].(string)
	value, hasValue := x["value"]
	switch kind {
	case "undefined":
		return Undefined{}, nil
	case "number":
		switch value {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		case "-0":
			return math.Copysign(0, -1), nil
		}
	case "bigint":
		if s, ok := value.(string); ok {
			if !isBigIntDigits(s) {
				return nil, fmt.Errorf("bad bigint %q (digits must match -?[0-9]+)", s)
			}
			n, _ := new(big.Int).SetString(s, 10)
			return BigInt{Digits: n.String()}, nil
		}
	case "symbol":
		return Function{Symbol: true}, nil
	case "function":
		if returns, ok := x["returns"]; ok {
			decoded, err := d.decode(returns, depth)
			if err != nil {
				return nil, err
			}
			return &ScriptedLoopKey{Returns: decoded}, nil
		}
		if msg, ok := x["throws"].(string); ok {
			return &ScriptedLoopKey{Throws: &msg}, nil
		}
		return Function{}, nil
	case "ref":
		up, ok := wholeNumber(x["up"])
		if _, isBool := x["up"].(bool); isBool || !ok || up < 1 || up > len(d.stack) {
			return nil, fmt.Errorf("ref up=%v names no enclosing container", x["up"])
		}
		return d.stack[len(d.stack)-up], nil
	case "nest":
		n, ok := wholeNumber(x["depth"])
		if !ok || n < 0 {
			return nil, fmt.Errorf("nest depth=%v is not a non-negative integer", x["depth"])
		}
		// PROT-42: one nest tag up to MaxJSONDepth levels, wherever it stands (tags
		// stand inside fewer than DecodeDepthLimit containers); nest tags inside one
		// another may add up past that, and are refused then.
		if n > MaxJSONDepth || depth+n > MaxJSONDepth+DecodeDepthLimit {
			return nil, fmt.Errorf("nest depth %d exceeds this port's limit of %d", n, MaxJSONDepth)
		}
		inner, err := d.decode(x["value"], depth+n)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			inner = []any{inner}
		}
		return inner, nil
	case "anchor":
		return d.anchor(x, depth)
	case "alias":
		name, ok := x["name"].(string)
		switch {
		case !ok || name == "":
			return nil, fmt.Errorf("alias name=%v is not a non-empty string", x["name"])
		case d.open[name]:
			return nil, fmt.Errorf("alias %q inside its own anchor: a cycle is written ref", name)
		case d.anchors[name] == nil:
			d.pending++
			return &pendingAlias{name}, nil
		}
		return d.anchors[name], nil
	case "object":
		if literal, ok := value.(map[string]any); ok && hasValue {
			return d.members(literal, depth)
		}
	}
	return nil, fmt.Errorf("unknown or malformed tagged value (%s=%v)", tagName, x[tagName])
}

// anchor decodes the value of an anchor tag and names it (PROT-33).
func (d *tagDecoder) anchor(x map[string]any, depth int) (any, error) {
	name, ok := x["name"].(string)
	if !ok || name == "" {
		return nil, fmt.Errorf("anchor name=%v is not a non-empty string", x["name"])
	}
	if d.open[name] || d.anchors[name] != nil {
		return nil, fmt.Errorf("anchor %q is defined twice", name)
	}
	d.open[name] = true
	decoded, err := d.decode(x["value"], depth)
	delete(d.open, name)
	if err != nil {
		return nil, err
	}
	switch decoded.(type) {
	case []any, map[string]any:
	default:
		return nil, fmt.Errorf("anchor %q holds no array or object", name)
	}
	d.anchors[name] = decoded
	return decoded, nil
}

// isBigIntDigits reports whether s matches -?[0-9]+.
func isBigIntDigits(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// EncodeTagged turns a value of this package's model into tagged JSON that
// AppendJSON can write: JS-only values become tags, cycles become refs.
func EncodeTagged(v any) any {
	e := &tagEncoder{open: map[ContainerID]int{}}
	return e.encode(v)
}

// tagEncoder holds the containers enclosing the value being encoded, each
// with its depth: finding a cycle is one lookup whatever the depth, so a
// value 100,000 levels deep is encoded in linear time.
type tagEncoder struct {
	open map[ContainerID]int
}

func (e *tagEncoder) encode(v any) any {
	switch x := v.(type) {
	case nil, bool, string:
		return v
	case Undefined:
		return map[string]any{tagName: "undefined"}
	case BigInt:
		return map[string]any{tagName: "bigint", "value": x.Digits}
	case Function:
		if x.Symbol {
			return map[string]any{tagName: "symbol"}
		}
		return map[string]any{tagName: "function"}
	case *ScriptedLoopKey:
		if x.Throws != nil {
			return map[string]any{tagName: "function", "throws": *x.Throws}
		}
		return map[string]any{tagName: "function", "returns": e.encode(x.Returns)}
	case []any, map[string]any:
		id, tracked := Identity(x)
		if tracked {
			if at, open := e.open[id]; open {
				return map[string]any{tagName: "ref", "up": float64(len(e.open) - at)}
			}
			e.open[id] = len(e.open)
			defer delete(e.open, id)
		}
		if items, ok := x.([]any); ok {
			out := make([]any, len(items))
			for i, item := range items {
				out[i] = e.encode(item)
			}
			return out
		}
		m := x.(map[string]any)
		out := make(map[string]any, len(m))
		for k, item := range m {
			out[k] = e.encode(item)
		}
		if _, clash := out[tagName]; clash {
			return map[string]any{tagName: "object", "value": out}
		}
		return out
	}
	if f, ok := Number(v); ok {
		switch {
		case math.IsNaN(f):
			return map[string]any{tagName: "number", "value": "NaN"}
		case math.IsInf(f, 1):
			return map[string]any{tagName: "number", "value": "Infinity"}
		case math.IsInf(f, -1):
			return map[string]any{tagName: "number", "value": "-Infinity"}
		case f == 0 && math.Signbit(f):
			return map[string]any{tagName: "number", "value": "-0"}
		}
		return f
	}
	if IsFunction(v) {
		return map[string]any{tagName: "function"}
	}
	return fmt.Sprintf("<unsupported %T>", v)
}
