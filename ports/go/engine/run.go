package engine

import (
	"errors"
	"fmt"
	"slices"

	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// The kinds of dispatch (ENG-19).
const (
	initialDispatch  = "initial"
	followUpDispatch = "follow-up"
	resumeDispatch   = "resume"
	finalDispatch    = "final"
	retryDispatch    = "retry"
)

// response is a scripted response once it has its id (ENG-17). calls are
// its function_call items, read once: nothing changes a call once read.
type response struct {
	id     string
	output []any
	calls  []*call
}

// items are private copies of the output items.
func (r *response) items() []any {
	out := make([]any, len(r.output))
	for i, item := range r.output {
		out[i] = clone(item)
	}
	return out
}

// run is the engine for one invocation (a fresh turn or a decision resume)
// over the state the previous run left; execute runs it once, in the order
// of spec §15.6.
type run struct {
	scenario       *Scenario
	turn           *Turn
	index          int
	rec            *recorder
	config         *doomloop.Config // nil while detection is off (ENG-27)
	configWarnings []string
	resolver       *resolver
	actions        *actions   // nil while detection is off
	detection      *detection // nil while detection is off
	batches        *batches
	state          *conversation
	choice         *toolChoice
	dispatches     []Dispatch
	answered       int   // scripted responses consumed (ENG-17)
	input          []any // the input of the last dispatch built
	fresh          []any // a fresh turn's new input: saved with the first response (ENG-146)
	started        bool  // SessionStart fired
	steps          int   // normal rounds run (ENG-132, ENG-142)
	reason         string
	saved          *Object // the state saved last (ENG-156)
	done           bool    // the run paused or ended
	loadedStatus   any
	unbuilt        *runFailure // the option's resolution failed: the run is never built (ENG-176)
	end            RunEnd
}

// newRun builds the run: its option resolved once, and a monitor built
// from it while detection is on (ENG-24, ENG-30); loaded is the state the
// accessor hands back, nil for none.
func newRun(s *Scenario, turn *Turn, index int, loaded *Object, opts *options) *run {
	r := &run{scenario: s, turn: turn, index: index, rec: &recorder{}, reason: complete,
		resolver: &resolver{scenario: s, invocations: map[string]int{}}, state: loadConversation(loaded)}
	config, warnings, err := doomloop.ResolveOption(jsvalue.Plain(s.option(turn))) // ENG-24
	r.config = config
	for _, w := range warnings { // on a failure, those printed before it (CFG-47)
		r.configWarnings = append(r.configWarnings, w.Code)
		r.rec.warn(w.Message)
	}
	if err != nil { // the run is never built (ENG-176)
		r.unbuilt = &runFailure{kind: errTypeError, message: err.Error(), unbuilt: true}
	}
	if config != nil {
		monitor := doomloop.NewMonitor(config, doomloop.WithWarn(r.rec.monitorLog)) // ENG-30: starts empty
		r.actions = &actions{monitor: monitor, handlers: s.Handlers, rec: r.rec}
		r.detection = &detection{scenario: s, monitor: monitor, actions: r.actions, resolver: r.resolver, rec: r.rec,
			decisions: map[string]decision{}, cache: map[string]cached{}}
	}
	r.batches = &batches{scenario: s, detection: r.detection, rec: r.rec, interleave: opts.interleave}
	r.choice = newToolChoice(s.Request.ToolChoice, s.Request.ToolChoiceFrom, r.state.consumedKey)
	r.loadedStatus = loaded.Value("status") // none without a store, or when it holds no status
	return r
}

// execute runs to a pause or an end. A failed run ends with its error
// (ENG-20, ENG-141); a run outside the domain (ENG-151) is an error.
func (r *run) execute() (*RunTranscript, error) {
	err := r.initialise()
	var failure *runFailure
	if errors.As(err, &failure) {
		if r.started {
			r.rec.emit("SessionEnd", jsvalue.NewObject("reason", "error"))
		}
		reason := "error"
		if failure.unbuilt {
			reason = "" // the run fails before it exists
		}
		r.end = RunEnd{Status: r.savedStatus(), Reason: reason, Error: failure.kind, ErrorDispatch: failure.dispatch,
			ErrorMessage: failure.message}
	} else if err != nil {
		return nil, err
	}
	t := &RunTranscript{Index: r.index, DecisionResume: r.turn.decisionResume(), ConfigWarnings: r.configWarnings,
		Dispatches: r.dispatches, Events: r.rec.events, Executions: r.rec.executions, Warnings: r.rec.warnings,
		LoopKeyInvocations: r.resolver.invocations, End: r.end, State: r.saved}
	if failure == nil || !failure.unbuilt {
		t.Config = wireValue(r.config.JSON()) // nil while detection is off
	}
	return t, nil
}

// -- helpers ---------------------------------------------------------------------

func (r *run) stopArmed() bool { return r.actions != nil && r.actions.stopArmed() }

// flush empties the steer queue into one message (ENG-66); with detection
// off nothing is ever queued (ENG-27).
func (r *run) flush() (string, bool) {
	if r.actions == nil {
		return "", false
	}
	return r.actions.steer.flush()
}

// stopVerdict is what the stop verdict accessor gives (ENG-29, ENG-101).
func (r *run) stopVerdict() any {
	if r.actions == nil {
		return nil
	}
	return r.actions.stopVerdict
}

// blob is the state's doomLoop member: the monitor's state, then
// stopVerdict, then pendingSteer (ENG-114).
func (r *run) blob() *Object {
	state := r.detection.monitor.State()
	blob := jsvalue.NewObject()
	for _, name := range jsvalue.SortedKeys(state) {
		blob.Set(name, state[name])
	}
	if r.actions.stopArmed() {
		blob.Set("stopVerdict", clone(r.actions.stopVerdict))
	}
	if pending := r.actions.steer.persisted(); pending != nil {
		blob.Set("pendingSteer", pending)
	}
	return blob
}

// save writes the state; the blob is rebuilt only while detection is on
// (ENG-115, ENG-28).
func (r *run) save() {
	if r.detection != nil {
		r.state.doomLoop = r.blob()
	}
	r.state.consumedKey = r.choice.stored
	if r.scenario.StateAccessor {
		r.saved = r.state.toJSON()
	}
}

// savedStatus is the status the accessor holds: the last save's, else the
// loaded state's (ENG-141).
func (r *run) savedStatus() any {
	if r.saved != nil {
		return r.saved.Value("status")
	}
	return r.loadedStatus
}

func (r *run) executable(c *call) bool { return r.scenario.tool(c.name).executable() }

func (r *run) kind(c *call) ToolKind {
	if tool := r.scenario.tool(c.name); tool != nil {
		return tool.Kind
	}
	return ""
}

func (r *run) anyExecutable(cs []*call) bool { return slices.ContainsFunc(cs, r.executable) }

// dispatch builds and sends one request; only a follow-up takes the
// escalation latch (ENG-71, ENG-75), and final and retry dispatches carry
// the tool choice "none" (ENG-145).
func (r *run) dispatch(kind string, items []any) (*response, error) {
	index := len(r.dispatches)
	request := jsvalue.NewObject("model", r.scenario.Request.Model)
	if models := r.scenario.Request.Models; models != nil {
		request.Set("models", stringList(models))
	}
	if len(r.scenario.Tools) > 0 {
		var tools []any
		for _, t := range r.scenario.Tools {
			tools = append(tools, jsvalue.NewObject("type", "function", "name", t.Name))
		}
		request.Set("tools", tools)
	}
	onWire := kind != finalDispatch && kind != retryDispatch // they carry "none" (ENG-145)
	var choice any = "none"
	if onWire {
		choice = r.choice.offer(index)
	}
	if !jsvalue.IsUndefined(choice) {
		request.Set("toolChoice", clone(choice))
	}
	if kind == followUpDispatch && r.actions != nil { // ENG-75
		pending := r.actions.takeLatch()
		escalation := r.config.Escalation
		if pending != nil && escalation != nil && r.detection.monitor.CanEscalate() {
			r.detection.monitor.ConsumeEscalation() // ENG-77: spent before the dispatch is sent
			if applyOverrides(request, escalation, pending) {
				onWire = false // ENG-74: the advisor replaced the caller's choice
			}
		}
	}
	request.Set("input", clone(items))
	if r.answered >= len(r.turn.Model) {
		r.dispatches = append(r.dispatches, Dispatch{Index: index, Kind: kind, Request: request})
		return nil, &runFailure{kind: errScriptExhausted, dispatch: index,
			message: fmt.Sprintf("the scripted model has no response for dispatch %d", index)}
	}
	r.answered++
	output := r.turn.Model[r.answered-1]
	resp := &response{id: fmt.Sprintf("resp_%d", r.answered), output: output, calls: calls(output)}
	r.dispatches = append(r.dispatches, Dispatch{Index: index, Kind: kind, Request: request, ResponseID: resp.id})
	r.choice.answered(index, onWire, len(resp.calls) > 0) // ENG-145
	return resp, nil
}

// applyOverrides merges the model and advisor overrides into one dispatch
// (ENG-72, ENG-73); it reports whether the advisor replaced the tool choice.
func applyOverrides(request *Object, e *doomloop.Escalation, v *doomloop.Verdict) bool {
	if e.HasModel {
		request.Set("model", clone(e.Model))
		request.Delete("models")
	}
	if !e.HasAdvisor {
		return false
	}
	parameters := jsvalue.NewObject("forwardTranscript", true, "instructions", advisorInstructions(v.Message))
	if members, ok := e.Advisor.(map[string]any); ok {
		for _, name := range jsvalue.SortedKeys(members) {
			parameters.Set(name, clone(members[name]))
		}
	}
	tools, _ := request.Value("tools").([]any)
	request.Set("tools", append(slices.Clone(tools), jsvalue.NewObject("type", advisorTool, "parameters", parameters)))
	request.Set("toolChoice", jsvalue.NewObject("type", "allowed_tools", "mode", "required",
		"tools", []any{jsvalue.NewObject("type", advisorTool)}))
	return true
}

const advisorTool = "openrouter:advisor"

// takeResponse saves the response (a fresh turn's input first), then
// checks it (ENG-109, ENG-146, ENG-148).
func (r *run) takeResponse(resp *response, checked bool) {
	r.state.messages = append(r.state.messages, r.fresh...)
	r.fresh = nil
	if r.state.status == awaitingClientTools {
		r.state.pending = nil // ENG-148: the client tools were answered
		r.state.status = inProgress
	}
	r.state.messages = append(r.state.messages, resp.items()...)
	r.save()
	if checked && r.detection != nil {
		r.detection.checkResponse(resp.output)
	}
}

// finish ends (or pauses) the run; SessionEnd fires last, once (ENG-99, ENG-130).
func (r *run) finish(resp *response, reason, status string) {
	if r.actions != nil {
		r.actions.latch = nil // ENG-76
	}
	r.state.status = status
	if status == complete {
		r.choice.forget() // ENG-145
	}
	r.save()
	if r.started {
		r.rec.emit("SessionEnd", jsvalue.NewObject("reason", reason))
	}
	r.done = true
	text := responseText(resp.output)
	r.end = RunEnd{Status: r.savedStatus(), Reason: reason, FinalResponseID: resp.id, FinalText: &text,
		StopVerdict: clone(r.stopVerdict())}
}

// complete is a normal end: the final response is validated first (ENG-142).
func (r *run) complete(resp *response, reason string) error {
	if len(resp.output) == 0 {
		if r.steps == 0 {
			return &runFailure{kind: errInvalidFinalResponse, message: "the final response " + resp.id + " has no output item"}
		}
		retried, err := r.dispatch(retryDispatch, r.input)
		if err != nil {
			return err
		}
		r.takeResponse(retried, false) // neither checked nor run
		resp = retried
	}
	r.finish(resp, reason, complete)
	return nil
}

// seal gives every call whose id no output answers the halt output (ENG-85,
// ENG-106, ENG-150).
func (r *run) seal(resp *response, outputs []any) {
	halt := jsvalue.Stringify(jsvalue.NewObject("error", haltText(r.stopVerdict())))
	for _, c := range unanswered(resp.calls, outputs) {
		r.state.messages = append(r.state.messages, functionCallOutput(c.id, halt))
	}
}

// halt leaves through a stop gate (ENG-85, ENG-86, ENG-166); outputs are
// the round's output items. The seals are saved with the end.
func (r *run) halt(resp *response, outputs []any) {
	r.seal(resp, outputs)
	r.finish(resp, "doom_loop", complete)
}

// unanswered are the calls whose call id none of the round's output items
// carries (ENG-150: a call sharing its id with an answered call counts as
// answered).
func unanswered(cs []*call, outputs []any) []*call {
	answered := map[string]bool{}
	for _, item := range outputs {
		answered[callIDOf(item)] = true
	}
	var out []*call
	for _, c := range cs {
		if !answered[c.id] {
			out = append(out, c)
		}
	}
	return out
}

// -- the run -----------------------------------------------------------------------

// restore restores the monitor, re-queues the steer messages and, on a
// decision resume, re-arms a truthy stop verdict (ENG-171, ENG-144, ENG-158).
func (r *run) restore() error {
	blob := r.state.doomLoop
	if r.detection == nil || jsvalue.IsUndefined(blob) {
		return nil // ENG-28: with detection off the blob rides along untouched
	}
	if blob == nil { // ENG-144: JS reads a member of null
		return &runFailure{kind: errTypeError, message: "the persisted doomLoop member is null"}
	}
	r.detection.monitor.Restore(jsvalue.Plain(blob)) // a blob that is not an object is ignored, with a log
	if o := asObject(blob); o != nil {
		r.actions.steer.requeue(o.Value("pendingSteer"))
		if verdict := o.Value("stopVerdict"); r.turn.decisionResume() && jsvalue.Truthy(verdict) {
			r.actions.stopVerdict = clone(verdict)
		}
	}
	return nil
}

// initialise is ENG-160.
func (r *run) initialise() error {
	if r.unbuilt != nil {
		return r.unbuilt
	}
	if r.turn.decisionResume() && !r.scenario.StateAccessor { // ENG-143
		return &runFailure{kind: errDecisionsNeedState, message: "a decision resume needs a state accessor", unbuilt: true}
	}
	if err := r.restore(); err != nil {
		return err
	}
	if r.turn.decisionResume() && (r.state.status == awaitingApproval || r.state.status == awaitingHITL) {
		return r.decisionResume()
	}
	if r.turn.Input != nil {
		r.fresh = clone(r.turn.Input).([]any)
	}
	if r.state.status != awaitingClientTools {
		r.state.status = inProgress
		r.save() // ENG-119, ENG-146: without a stale stopVerdict, without the new input
	}
	r.rec.emit("SessionStart", jsvalue.NewObject())
	r.started = true
	r.input = append(clone(orEmpty(r.state.messages)).([]any), clone(orEmpty(r.fresh)).([]any)...)
	resp, err := r.dispatch(initialDispatch, r.input)
	if err != nil {
		return err
	}
	if r.turn.EmptyText && len(r.state.messages) == 0 {
		r.input = []any{} // ENG-174: the empty text reaches the first dispatch only
	}
	return r.firstResponse(resp)
}

// firstResponse is ENG-161 (the stop verdict is consulted late here: EQ-01).
func (r *run) firstResponse(resp *response) error {
	r.takeResponse(resp, true)
	cs := resp.calls
	if len(r.scenario.Tools) == 0 || len(cs) == 0 {
		reason := complete
		if r.stopArmed() {
			reason = "doom_loop"
		}
		return r.complete(resp, reason)
	}
	if r.needsApproval(cs) { // before any stop gate (EQ-01)
		return r.approvalPause(resp, cs)
	}
	if !r.anyExecutable(cs) {
		r.clientToolsPause(resp, cs) // ENG-148
		return nil
	}
	return r.mainLoop(resp)
}

// mainLoop is ENG-162. On the first response the approval and client-tools
// checks repeat the ones ENG-161 made, with the same outcome.
func (r *run) mainLoop(resp *response) error {
	for {
		cs := resp.calls
		if r.stopArmed() { // gate A
			r.halt(resp, nil)
			return nil
		}
		if steps := r.scenario.Request.StopWhenSteps; steps != nil && float64(r.steps) >= *steps { // ENG-132
			return r.stopWhen(resp)
		}
		if len(cs) == 0 {
			return r.complete(resp, complete)
		}
		if r.needsApproval(cs) {
			return r.approvalPause(resp, cs)
		}
		if !r.anyExecutable(cs) {
			r.clientToolsPause(resp, cs)
			return nil
		}
		outputs, err := r.roundThenGate(resp, cs, true) // gate B
		if err != nil || r.done {
			return err
		}
		if text, ok := r.flush(); ok { // ENG-65..ENG-67
			message := jsvalue.NewObject("role", "user", "content", text)
			r.state.messages = append(r.state.messages, message)
			r.save()
			r.input = append(r.input, clone(message))
		}
		r.input = append(append(r.input, resp.items()...), clone(outputs).([]any)...)
		if resp, err = r.dispatch(followUpDispatch, r.input); err != nil {
			return err
		}
		r.takeResponse(resp, true)
	}
}

// roundThenGate runs a normal round and saves its outputs in call order,
// then pauses for HITL, then for client tools, both before the stop gate
// that follows (ENG-162 steps 6-9, EQ-02); the stopWhen round pauses for
// HITL only (ENG-147 steps 1-3). outputs are the round's output items; the
// run is done when it paused or halted.
func (r *run) roundThenGate(resp *response, cs []*call, clientTools bool) (outputs []any, err error) {
	outcomes, err := r.batches.concurrently(cs, normalRound)
	if err != nil {
		return nil, err
	}
	r.steps++
	outputs = []any{}
	var hitl []any
	for _, o := range outcomes {
		if o.answered {
			outputs = append(outputs, o.outputItem())
		}
		if o.hitl {
			hitl = append(hitl, clone(o.call.item))
		}
	}
	r.state.messages = append(r.state.messages, clone(outputs).([]any)...)
	r.save()
	switch left := unanswered(cs, outputs); {
	case len(hitl) > 0:
		r.state.pending = hitl
		r.finish(resp, r.reason, awaitingHITL) // ENG-165, ENG-167
	case len(left) > 0 && clientTools:
		r.clientToolsPause(resp, left) // ENG-148
	case r.stopArmed():
		r.halt(resp, outputs)
	}
	return outputs, nil
}

// clientToolsPause pauses for the caller's own tools; their calls are
// persisted as pending (ENG-148).
func (r *run) clientToolsPause(resp *response, cs []*call) {
	r.state.pending = nil
	for _, c := range cs {
		r.state.pending = append(r.state.pending, clone(c.item))
	}
	r.finish(resp, r.reason, awaitingClientTools)
}

// stopWhen is the Stop hook, then the last round and the final dispatch (ENG-147).
func (r *run) stopWhen(resp *response) error {
	r.rec.emit("Stop", jsvalue.NewObject("reason", "max_turns"))
	r.reason = "max_turns"
	cs := resp.calls
	allow := r.scenario.Request.AllowFinalResponse
	if allow == false || !r.anyExecutable(cs) {
		return r.complete(resp, r.reason)
	}
	outputs, err := r.roundThenGate(resp, cs, false) // gate C
	if err != nil || r.done {
		return err
	}
	r.input = append(append(r.input, resp.items()...), clone(outputs).([]any)...)
	final := clone(r.input).([]any)
	for _, c := range unanswered(cs, outputs) { // sent, never persisted
		final = append(final, jsvalue.NewObject("type", "function_call_output", "callId", c.id, "output", skippedOutput))
	}
	if text := directive(allow); text != "" {
		final = append(final, jsvalue.NewObject("role", "user", "content", text))
	}
	answer, err := r.dispatch(finalDispatch, final)
	if err != nil {
		return err
	}
	r.input = final
	r.takeResponse(answer, false) // ENG-109: not checked
	return r.complete(answer, r.reason)
}

// needsApproval: some call of the response belongs to an approval tool (ENG-164).
func (r *run) needsApproval(cs []*call) bool {
	return slices.ContainsFunc(cs, func(c *call) bool { return r.kind(c) == Approval })
}

// approvalPause is round (b) and the approval pause (ENG-164, ENG-143).
func (r *run) approvalPause(resp *response, cs []*call) error {
	if !r.scenario.StateAccessor {
		return &runFailure{kind: errApprovalNeedsState, message: "tool calls need approval but there is no state accessor"}
	}
	var gated, auto []*call
	for _, c := range cs {
		switch r.kind(c) {
		case Approval, HITL: // a HITL call beside them stays pending too (ENG-151 (b), recommended)
			gated = append(gated, c)
		case Executable:
			auto = append(auto, c)
		}
	}
	outcomes, err := r.batches.concurrently(auto, approvalPause)
	if err != nil {
		return err
	}
	if len(outcomes) > 0 { // ENG-155: a new batch's results replace the stored ones
		r.state.unsent = nil
		for _, o := range outcomes {
			r.state.unsent = append(r.state.unsent, o.unsentResult())
		}
	}
	r.state.pending = nil
	for _, c := range gated {
		r.state.pending = append(r.state.pending, clone(c.item))
	}
	r.finish(resp, r.reason, awaitingApproval)
	return nil
}

// decisionResume is ENG-163, ENG-22.
func (r *run) decisionResume() error {
	pending := map[string]*Object{}
	for _, item := range r.state.pending {
		if id := callIDOf(item); pending[id] == nil {
			pending[id] = asObject(item)
		}
	}
	decided := map[string]bool{} // a call decided twice is decided once (ENG-151 (a), recommended)
	var approved []*call
	for _, id := range r.turn.Approve {
		if pending[id] != nil && !decided[id] {
			decided[id] = true
			approved = append(approved, callOf(pending[id]))
		}
	}
	for _, o := range r.batches.oneByOne(approved) {
		r.state.unsent = append(r.state.unsent, o.unsentResult())
	}
	for _, id := range r.turn.Reject {
		if pending[id] != nil && !decided[id] {
			decided[id] = true
			name, _ := pending[id].Get("name")
			r.state.unsent = append(r.state.unsent,
				jsvalue.NewObject("callId", id, "name", name, "output", nil, "error", rejectedByUser))
		}
	}
	r.state.pending = slices.DeleteFunc(r.state.pending, func(item any) bool { return decided[callIDOf(item)] })
	if len(r.state.pending) > 0 { // ENG-163 step 5, ENG-149
		r.state.status = awaitingApproval
		r.save()
		r.end = RunEnd{Status: r.savedStatus(), Reason: complete, StopVerdict: clone(r.stopVerdict())}
		return nil
	}
	r.state.status = inProgress
	if r.stopArmed() { // gate D
		r.choice.forget() // ENG-145
		r.save()
		r.end = RunEnd{Status: r.savedStatus(), Reason: "doom_loop", StopVerdict: clone(r.stopVerdict())}
		return nil
	}
	for _, result := range r.state.unsent { // ENG-155: folded in before the resume dispatch
		r.state.messages = append(r.state.messages, unsentOutputItem(asObject(result)))
	}
	r.state.unsent = nil
	r.save()
	r.input = clone(orEmpty(r.state.messages)).([]any)
	resp, err := r.dispatch(resumeDispatch, r.input)
	if err != nil {
		return err
	}
	return r.firstResponse(resp)
}

// unsentOutputItem is an unsent result as the model receives it when it is
// folded (ENG-155, ENG-175): {"error": E} when its error is truthy in JS, else
// its output, encoded; without an output member the item has none either
// (JSON.stringify of undefined gives nothing).
func unsentOutputItem(result *Object) *Object {
	callID := jsString(result.Value("callId"))
	if failure := result.Value("error"); jsvalue.Truthy(failure) {
		return functionCallOutput(callID, jsvalue.Stringify(jsvalue.NewObject("error", failure)))
	}
	if output, ok := result.Get("output"); ok {
		return functionCallOutput(callID, jsvalue.Stringify(output))
	}
	return jsvalue.NewObject("type", "function_call_output", "id", "output_"+callID, "callId", callID)
}
