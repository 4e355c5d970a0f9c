package engine

import (
	"slices"
	"strings"

	doomloop "doomloop.invalid/ports/go"
)

// actions turns each verdict into its applied action and side effect
// (ENG-61..ENG-98) and holds what those effects leave: the steer queue, the
// escalation latch and the armed stop verdict. Verdicts are applied one at
// a time: at checkpoints, which run one after another (ENG-51, ENG-138),
// and at response checkpoints, outside batches.
type actions struct {
	monitor  *doomloop.Monitor
	handlers []Handler
	rec      *recorder
	steer    steerQueue
	// latch is the pending escalation (ENG-70); never persisted (ENG-76).
	latch *doomloop.Verdict
	// stopVerdict is the armed stop verdict as JSON, nil when none is armed
	// (ENG-82); a restored one may be any truthy value (ENG-158).
	stopVerdict any
}

func (a *actions) stopArmed() bool { return a.stopVerdict != nil }

// apply fires DoomLoopDetected for a verdict that is not an in-round
// duplicate, resolves the applied action and applies its side effect, and
// returns the applied action (ENG-61, ENG-92..ENG-98). args are the call's
// parsed arguments when they are an object (toolInput, ENG-153), else nil.
func (a *actions) apply(v *doomloop.Verdict, args *Object) doomloop.Action {
	payload := detectedPayload(v, args)
	action := override(a.handlers, payload, a.rec)
	if action == "" {
		action = v.Action
	}
	if v.Detector != doomloop.DetectorToolFingerprint && action == doomloop.ActionBlock {
		action = doomloop.ActionObserve // ENG-94
	}
	if action == doomloop.ActionEscalate && !a.monitor.CanEscalate() {
		action = doomloop.ActionObserve // ENG-95
	}
	a.rec.event(Event{Hook: "DoomLoopDetected", Payload: payload, AppliedAction: string(action)})
	switch action {
	case doomloop.ActionSteer:
		a.steer.add(v.Message) // ENG-63
	case doomloop.ActionEscalate:
		if a.latch == nil { // ENG-70: one latch, one notice
			a.latch = v
			a.steer.add(escalationNotice(v.Message))
		}
	case doomloop.ActionStop:
		a.stopVerdict = verdictJSON(v) // ENG-82: the monitor's verdict, unchanged
	}
	return action
}

// takeLatch clears the latch and returns what was pending (ENG-71).
func (a *actions) takeLatch() *doomloop.Verdict {
	v := a.latch
	a.latch = nil
	return v
}

// steerQueue holds the messages waiting for the next follow-up dispatch
// (ENG-63..ENG-68).
type steerQueue struct{ messages []string }

// add queues a message unless an equal string is queued (ENG-64).
func (q *steerQueue) add(message string) {
	if !slices.Contains(q.messages, message) {
		q.messages = append(q.messages, message)
	}
}

// requeue re-queues a restored pendingSteer: its strings, in order (ENG-171).
func (q *steerQueue) requeue(pending any) {
	list, _ := pending.([]any)
	for _, item := range list {
		if message, ok := item.(string); ok {
			q.add(message)
		}
	}
}

// flush empties the queue into one text, joined by "\n" (ENG-66).
func (q *steerQueue) flush() (string, bool) {
	if len(q.messages) == 0 {
		return "", false
	}
	joined := strings.Join(q.messages, "\n")
	q.messages = nil
	return joined, true
}

// persisted is the pendingSteer copy, nil when the queue is empty (ENG-68, ENG-114).
func (q *steerQueue) persisted() []any {
	if len(q.messages) == 0 {
		return nil
	}
	out := make([]any, len(q.messages))
	for i, m := range q.messages {
		out[i] = m
	}
	return out
}
