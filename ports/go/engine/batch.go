package engine

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"doomloop.invalid/harness/jsvalue"
)

// batchKind is one of the three kinds of round (ENG-31).
type batchKind int

const (
	normalRound   batchKind = iota // every call of a response
	approvalPause                  // the calls of a response that need no approval, before it pauses
	approvedBatch                  // the approved calls of a decision resume
)

// outcome is what became of one call of a batch: the body's result, or the
// error text of a blocked, malformed, failed or refused call; a call left
// without output (manual, unknown, or a HITL call now pending) is not
// answered.
type outcome struct {
	call     *call
	result   any
	err      string
	failed   bool
	answered bool
	hitl     bool
}

func answeredWith(c *call, result any) outcome {
	return outcome{call: c, result: result, answered: true}
}

func refused(c *call, text string) outcome {
	return outcome{call: c, err: text, failed: true, answered: true}
}

// value is what the model receives for the call: the result, or {"error": text}.
func (o outcome) value() any {
	if o.failed {
		return jsvalue.NewObject("error", o.err)
	}
	return o.result
}

// outputItem is the function_call_output item answering the call in a
// normal round: its value (ENG-105 encoding) is the body's result, or the
// error of a body that failed, of a blocked call (ENG-79) or of a malformed
// call (ENG-104).
func (o outcome) outputItem() *Object {
	return functionCallOutput(o.call.id, jsvalue.Stringify(o.value()))
}

// unsentResult is the call's unsent result in an approval batch (ENG-80).
func (o outcome) unsentResult() *Object {
	if o.failed {
		return jsvalue.NewObject("callId", o.call.id, "name", o.call.name, "output", nil, "error", o.err)
	}
	return jsvalue.NewObject("callId", o.call.id, "name", o.call.name, "output", clone(o.result))
}

// functionCallOutput is the output item shared by results, blocks and seals
// (ENG-79, ENG-85).
func functionCallOutput(callID, output string) *Object {
	return jsvalue.NewObject("type", "function_call_output", "id", "output_"+callID, "callId", callID, "output", output)
}

// batches runs the batches of one run: the checkpoint of each call, then
// its refusal or its hooks and body (ENG-44, ENG-78..ENG-80, ENG-138).
type batches struct {
	scenario  *Scenario
	detection *detection // nil while detection is off
	rec       *recorder
	// interleave, when set, is called before each step a call of a
	// concurrent batch takes on its own goroutine: a test may yield or sleep
	// there to try other interleavings.
	interleave func(callID string)
}

// open opens a round (while detection is on) and declares its calls
// (ENG-31..ENG-35); it returns the round number the executions carry.
func (b *batches) open(calls []*call) int {
	if b.detection == nil {
		return 0
	}
	b.detection.openRound(calls)
	return b.detection.round
}

// oneByOne runs the approved calls of a decision resume one after another,
// each to its end before the next checkpoint (ENG-138, ENG-52).
func (b *batches) oneByOne(calls []*call) []outcome {
	round := b.open(calls)
	outcomes := make([]outcome, len(calls))
	for i, c := range calls {
		o, tool, proceed := b.checkpoint(c, approvedBatch)
		if proceed {
			o = b.execute(c, tool, approvedBatch, round, nil)
		}
		outcomes[i] = o
	}
	return outcomes
}

// concurrently runs the calls of a normal round or an approval-pause batch
// each on its own goroutine (ENG-138). The checkpoints pass a turn along in
// emission order, so each runs to completion, its DoomLoopDetected handlers
// included, before the next begins, and no checkpoint waits for an earlier
// call's hooks or body. A call's PreToolUse, body and Post* hook follow its
// checkpoint on its own goroutine. The batch ends when every call has
// finished, Post* hook included; the outcomes are in the calls' order. A
// call that panics fails the batch with an error holding its stack.
func (b *batches) concurrently(calls []*call, kind batchKind) ([]outcome, error) {
	round := b.open(calls)
	outcomes := make([]outcome, len(calls))
	var wg sync.WaitGroup
	errs := make([]error, len(calls))
	turn := make(chan struct{})
	close(turn) // the first checkpoint may start at once
	for i, c := range calls {
		next := make(chan struct{})
		wg.Add(1)
		go func(mine <-chan struct{}, done chan<- struct{}) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil { // a crash is the run's, not the process's
					errs[i] = fmt.Errorf("engine: call %q panicked: %v\n%s", c.id, p, debug.Stack())
				}
			}()
			o, tool, proceed := func() (outcome, *Tool, bool) {
				defer close(done)
				<-mine
				return b.checkpoint(c, kind)
			}()
			if proceed {
				o = b.execute(c, tool, kind, round, b.interleave)
			}
			outcomes[i] = o
		}(turn, next)
		turn = next
	}
	wg.Wait()
	return outcomes, errors.Join(errs...)
}

// checkpoint is a call's serialised part: the checkpoint (ENG-44), and the
// outcome of a call that does not run. proceed is true when the call goes
// on to its hooks and body with tool.
func (b *batches) checkpoint(c *call, kind batchKind) (outcome, *Tool, bool) {
	tool := b.scenario.tool(c.name)
	if !tool.executable() {
		if kind == approvedBatch {
			return refused(c, notExecutable), nil, false // ENG-163 step 2
		}
		return outcome{call: c}, nil, false // ENG-44: no checkpoint, no output
	}
	if c.malformed {
		if b.detection != nil {
			b.detection.checkMalformed(c) // ENG-45
		}
		return refused(c, malformedArguments(c.name, c.raw)), nil, false
	}
	if b.detection != nil {
		if d := b.detection.checkCall(c); d.blocks() { // ENG-78, ENG-83
			message := d.message
			if message == "" {
				message = blockWithoutMessage(c.name) // ENG-107
			}
			return refused(c, message), nil, false
		}
	}
	return outcome{}, tool, true
}

// execute is a call's own part: PreToolUse, then the HITL pause or the body
// and its Post* hook (ENG-140, ENG-165, ENG-21). A call whose arguments are
// not an object or null gets no tool hook, but its body runs (ENG-140).
// yield, when set, is called before each step (WithInterleaving).
func (b *batches) execute(c *call, tool *Tool, kind batchKind, round int, yield func(callID string)) outcome {
	hooked := c.args == nil || asObject(c.args) != nil
	payload := func() *Object { return jsvalue.NewObject("toolName", c.name, "callId", c.id) }
	pause := func() {
		if yield != nil {
			yield(c.id)
		}
	}
	pause()
	if hooked {
		b.rec.emit("PreToolUse", payload())
	}
	if tool.Kind == HITL && kind == normalRound {
		return outcome{call: c, hitl: true} // ENG-165: the handler pauses the run
	}
	pause()
	b.rec.executed(Execution{CallID: c.id, Name: c.name, Arguments: clone(c.args), Round: round})
	pause()
	if tool.Fails != nil {
		if hooked {
			failure := payload()
			failure.Set("error", *tool.Fails)
			b.rec.emit("PostToolUseFailure", failure)
		}
		return refused(c, *tool.Fails)
	}
	if hooked {
		b.rec.emit("PostToolUse", payload())
	}
	return answeredWith(c, clone(tool.Result))
}
