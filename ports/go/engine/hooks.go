package engine

import (
	"slices"
	"sync"

	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// Event is one hook emission. AppliedAction is set for DoomLoopDetected:
// the action applied after the handlers' overrides (ENG-98).
type Event struct {
	Hook          string
	Payload       *Object
	AppliedAction string
}

// Execution is a tool body that ran, with the arguments the model issued
// and the round it ran in (ENG-140).
type Execution struct {
	CallID    string
	Name      string
	Arguments any
	Round     int
}

// recorder keeps what a run makes observable as it happens. The calls of a
// concurrent batch emit from their own goroutines (ENG-138), so every
// record is taken under one lock, in the order the emissions happen.
type recorder struct {
	mu         sync.Mutex
	events     []Event
	executions []Execution
	warnings   []string
}

func (r *recorder) emit(hook string, payload *Object) {
	r.event(Event{Hook: hook, Payload: payload})
}

func (r *recorder) event(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) executed(e Execution) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.executions = append(r.executions, e)
}

// warn records a console warning (informative, ENG-108; the loop-key
// fallback text is the one a statement requires, ENG-168).
func (r *recorder) warn(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

// monitorLog receives the monitor's own logs (a round declaration that
// leaves a call out, a restore it ignores).
func (r *recorder) monitorLog(message string, err error) {
	if err != nil {
		message += " " + err.Error()
	}
	r.warn(message)
}

// verdictJSON is a verdict as the engine stores and shows it (ENG-82, ENG-89).
func verdictJSON(v *doomloop.Verdict) *Object {
	o := jsvalue.NewObject("detector", string(v.Detector), "action", string(v.Action), "streak", v.Streak,
		"fingerprint", v.Fingerprint)
	if v.HasToolName {
		o.Set("toolName", v.ToolName)
	}
	o.Set("message", v.Message)
	return o
}

// detectedPayload is the DoomLoopDetected payload (ENG-89, ENG-153): the
// verdict's members, and toolInput for a client call whose arguments are an
// object: a copy made member by member as JS assignment makes it, so a
// top-level "__proto__" member is not copied.
func detectedPayload(v *doomloop.Verdict, args *Object) *Object {
	payload := verdictJSON(v)
	if args != nil {
		input := jsvalue.NewObject()
		for _, name := range args.Names() {
			if name != "__proto__" {
				input.Set(name, clone(args.Value(name)))
			}
		}
		payload.Set("toolInput", input)
	}
	return payload
}

// override runs every matching handler, in registration order, and returns
// the last valid override (ENG-91, ENG-93, ENG-97), or "".
func override(handlers []Handler, payload *Object, rec *recorder) doomloop.Action {
	var chosen doomloop.Action
	toolName := payload.Value("toolName") // undefined for a text verdict
	for _, h := range handlers {
		if h.Tool != nil && toolName != *h.Tool {
			continue // a handler for one tool never sees a text verdict (ENG-91)
		}
		if !matches(h.When, payload) {
			continue
		}
		if h.Fails != nil {
			rec.warn("[hooks] DoomLoopDetected handler failed: " + *h.Fails)
			continue
		}
		name, _ := asObject(h.Returns).Value("overrideAction").(string)
		switch action := doomloop.Action(name); {
		case slices.Contains(doomloop.Rungs[:], action):
			chosen = action
		case !jsvalue.IsUndefined(h.Returns): // returning nothing overrides nothing, silently
			rec.warn("[hooks] DoomLoopDetected result dropped: " + jsvalue.Stringify(h.Returns))
		}
	}
	return chosen
}

// matches: every member of when is equal to the payload's member.
func matches(when *Object, payload *Object) bool {
	for _, name := range when.Names() {
		if !sameJSON(payload.Value(name), when.Value(name)) {
			return false
		}
	}
	return true
}
