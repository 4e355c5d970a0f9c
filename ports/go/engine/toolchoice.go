package engine

import (
	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// toolChoice offers the caller's tool choice to each dispatch and keeps its
// consumption (ENG-145). A choice is forced when it is "required", or an
// object other than an allowed_tools whose mode is not "required", or an
// array (JS typeof is object). It is consumed when a dispatch carried it
// unchanged and the response holds a function call; then the relaxed
// choice is offered. The state keeps the consumption as
// consumedForcedToolChoiceKey: the RFC 8785 canonical JSON of the choice.
type toolChoice struct {
	choice any     // jsvalue.Undefined: the caller gives none
	from   float64 // the first dispatch the caller's choice applies to
	forced bool
	key    string  // a forced choice's consumption key: its canonical JSON
	stored *string // the key the state holds, as loaded or last set
}

func newToolChoice(choice any, from float64, stored *string) *toolChoice {
	t := &toolChoice{choice: choice, from: from, stored: stored}
	switch c := choice.(type) {
	case string:
		t.forced = c == "required"
	case *Object:
		t.forced = c.Value("type") != "allowed_tools" || c.Value("mode") == "required"
	case []any:
		t.forced = true
	}
	if t.forced { // a well-formed scenario's choice has a canonical form (ENG-173)
		t.key, _ = doomloop.Canonicalize(jsvalue.Plain(choice))
	}
	return t
}

// consumed: the stored key matches only when spelled exactly as this
// choice's key.
func (t *toolChoice) consumed() bool {
	return t.stored != nil && *t.stored == t.key
}

// offer is the caller's choice for a dispatch (jsvalue.Undefined: none).
func (t *toolChoice) offer(dispatch int) any {
	switch {
	case !t.forced:
		return t.choice
	case float64(dispatch) < t.from:
		return jsvalue.Undefined{}
	case t.consumed():
		return relaxed(t.choice)
	}
	return t.choice
}

// relaxed is a consumed forced choice: "auto", or the allowed_tools in mode "auto".
func relaxed(choice any) any {
	if o := asObject(choice); o != nil && o.Value("type") == "allowed_tools" {
		copied := clone(o).(*Object)
		copied.Set("mode", "auto")
		return copied
	}
	return "auto"
}

// answered keeps the books when the response to a dispatch arrives
// (ENG-145): a dispatch the caller gave no forced choice clears a stored
// key; one whose choice reached the wire unchanged (not "none" on a final or
// retry dispatch, not replaced by the advisor) consumes a forced choice when
// the response holds a function call. (A consumed choice, relaxed on the
// wire, only consumes itself again.)
func (t *toolChoice) answered(dispatch int, onWire, hasCall bool) {
	if !t.forced || float64(dispatch) < t.from {
		t.stored = nil
	} else if onWire && hasCall {
		t.stored = &t.key
	}
}

// forget removes the key: the run completed, or a condemned decision
// resume halted.
func (t *toolChoice) forget() { t.stored = nil }
