package engine

import (
	"slices"

	"doomloop.invalid/harness/jsvalue"
)

// The statuses of the conversation state (ENG-159).
const (
	inProgress          = "in_progress"
	complete            = "complete"
	awaitingApproval    = "awaiting_approval"
	awaitingHITL        = "awaiting_hitl"
	awaitingClientTools = "awaiting_client_tools"
)

// knownMembers are the members of the state the engine reads and writes;
// any other member is kept as loaded (ENG-159).
var knownMembers = []string{"status", "messages", "pendingToolCalls", "unsentToolResults",
	"consumedForcedToolChoiceKey", "doomLoop"}

// conversation is the state the engine saves through the caller's state
// accessor (ENG-159): status, items, pending calls, unsent results, the
// forced tool choice consumed, the doom-loop blob, and the members it does
// not know.
type conversation struct {
	status      string
	messages    []any
	pending     []any
	unsent      []any
	consumedKey *string
	// doomLoop is the blob as loaded or last written; jsvalue.Undefined
	// when the state has none.
	doomLoop any
	other    *Object
}

// loadConversation reads a loaded state (nil: none). Entries of the lists
// that are not objects are dropped.
func loadConversation(state *Object) *conversation {
	c := &conversation{status: inProgress, doomLoop: jsvalue.Undefined{}, other: jsvalue.NewObject()}
	if state == nil {
		return c
	}
	if status, ok := state.Get("status"); ok {
		c.status = jsString(status)
	}
	c.messages = objects(state.Value("messages"))
	c.pending = objects(state.Value("pendingToolCalls"))
	c.unsent = objects(state.Value("unsentToolResults"))
	if key, ok := state.Value("consumedForcedToolChoiceKey").(string); ok {
		c.consumedKey = &key
	}
	c.doomLoop = clone(state.Value("doomLoop"))
	for _, name := range state.Names() {
		if !slices.Contains(knownMembers, name) {
			c.other.Set(name, clone(state.Value(name)))
		}
	}
	return c
}

func objects(v any) []any {
	list, _ := v.([]any)
	var out []any
	for _, item := range list {
		if asObject(item) != nil {
			out = append(out, clone(item))
		}
	}
	return out
}

// toJSON is the state as saved: a private copy, except that the messages
// share their items. Each item is a private copy when it joins the list, the
// list only grows, and nothing changes an item in place, so a save costs no
// copy of the whole history.
func (c *conversation) toJSON() *Object {
	s := clone(c.other).(*Object)
	s.Set("status", c.status)
	s.Set("messages", slices.Clip(orEmpty(c.messages)))
	if len(c.pending) > 0 {
		s.Set("pendingToolCalls", clone(c.pending))
	}
	if len(c.unsent) > 0 {
		s.Set("unsentToolResults", clone(c.unsent))
	}
	if c.consumedKey != nil {
		s.Set("consumedForcedToolChoiceKey", *c.consumedKey)
	}
	if !jsvalue.IsUndefined(c.doomLoop) {
		s.Set("doomLoop", clone(c.doomLoop))
	}
	return s
}

func orEmpty(items []any) []any {
	if items == nil {
		return []any{}
	}
	return items
}

// callIDOf is a persisted call's id, read as callOf reads it.
func callIDOf(item any) string { return jsString(asObject(item).Value("callId")) }
