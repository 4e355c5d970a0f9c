package engine

import (
	"slices"
	"strings"

	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// detection feeds the monitor (ENG-31..ENG-60, ENG-109..ENG-113): it opens
// and declares rounds, runs the per-call checkpoints and the response
// checkpoints, and keeps the round's decision table and identity cache. A
// run has one while detection is on (ENG-27). Its methods are never called
// concurrently: a concurrent batch passes its checkpoints one after another
// (ENG-51, ENG-138).
type detection struct {
	scenario  *Scenario
	monitor   *doomloop.Monitor
	actions   *actions
	resolver  *resolver
	rec       *recorder
	round     int                 // ENG-32: per run, not persisted
	decisions map[string]decision // ENG-53: per round
	cache     map[string]cached   // ENG-41, ENG-152: per round, by call id
}

// decision is the action applied to a recorded call and the verdict's
// message (ENG-53); the zero value is "proceed".
type decision struct {
	action  doomloop.Action
	message string
}

// blocks: block and stop both refuse the call at a client checkpoint
// (ENG-78, ENG-83).
func (d decision) blocks() bool {
	return d.action == doomloop.ActionBlock || d.action == doomloop.ActionStop
}

// cached is a resolution made while declaring; duplicate marks a call id
// that more than one resolved call of the round has (ENG-152).
type cached struct {
	identity
	duplicate bool
}

// openRound opens a round, clears its tables and declares its calls
// (ENG-32..ENG-43). Only the calls whose identity resolved take part in the
// duplicate-id step (ENG-152).
func (d *detection) openRound(batch []*call) {
	d.round++
	d.decisions = map[string]decision{}
	d.cache = map[string]cached{}
	var declared []doomloop.ToolCall
	for _, c := range batch {
		if !d.scenario.tool(c.name).executable() {
			continue // ENG-36
		}
		if c.malformed {
			declared = append(declared, doomloop.ToolCall{ToolName: c.name, KeyMaterial: c.raw}) // ENG-37
			continue
		}
		id, err := d.resolver.resolve(c)
		if err != nil { // ENG-40
			d.rec.warn(`[DoomLoop] could not resolve loop identity for "` + c.name +
				`" while declaring the round; excluding it from the round set: ` + err.Error())
			continue
		}
		if prior, seen := d.cache[c.id]; seen {
			prior.duplicate = true
			d.cache[c.id] = prior
		} else {
			d.cache[c.id] = cached{identity: id}
		}
		if id.Kind != doomloop.LoopKeyExempt { // ENG-39: key and fallback are declared
			declared = append(declared, doomloop.ToolCall{ToolName: c.name, KeyMaterial: id.KeyMaterial})
		}
	}
	d.monitor.DeclareRound(float64(d.round), declared) // ENG-43: the monitor drops what it cannot fingerprint
}

// record records a call through the fallback chain (ENG-50): with its key
// material, else with its retry identity when it has one; nil when
// detection is skipped for the call.
func (d *detection) record(toolName string, key any, retry any, hasRetry bool, opts doomloop.RecordOptions) *doomloop.CallRecord {
	record, err := d.monitor.RecordToolCall(toolName, key, float64(d.round), opts)
	switch {
	case err == nil:
		return &record
	case !hasRetry:
		d.rec.warn(`[DoomLoop] could not fingerprint call to "` + toolName +
			`"; skipping detection for this call: ` + err.Error())
		return nil
	}
	d.rec.warn(`[DoomLoop] could not fingerprint call to "` + toolName + `"; falling back to full arguments: ` +
		err.Error())
	if record, err = d.monitor.RecordToolCall(toolName, retry, float64(d.round), opts); err != nil {
		d.rec.warn(`[DoomLoop] fallback identity for "` + toolName +
			`" also unhashable; skipping detection for this call: ` + err.Error())
		return nil
	}
	return &record
}

// decide applies a record's verdict, or the decision stored for its
// duplicate (ENG-53, ENG-54, ENG-61); args is the toolInput (ENG-153). A
// call detection skipped proceeds.
func (d *detection) decide(toolName string, record *doomloop.CallRecord, args *Object) decision {
	if record == nil {
		return decision{}
	}
	key := toolName + "\n" + record.Fingerprint
	if record.DuplicateInRound {
		return d.decisions[key] // no second hook, no second side effect
	}
	var made decision
	if record.Verdict != nil {
		made = decision{action: d.actions.apply(record.Verdict, args), message: record.Verdict.Message}
	}
	d.decisions[key] = made
	return made
}

var clientRecord = doomloop.RecordOptions{Detector: doomloop.DetectorToolFingerprint} // allowBlock true (ENG-60)

// checkMalformed is the malformed path: the raw text recorded, no retry
// identity (ENG-45; a string always has a fingerprint). The call's output
// does not depend on the decision.
func (d *detection) checkMalformed(c *call) {
	record, _ := d.monitor.RecordToolCall(c.name, c.raw, float64(d.round), clientRecord)
	d.decide(c.name, &record, nil)
}

// checkCall is the per-call checkpoint of a parsed call (ENG-44, ENG-46..ENG-49).
func (d *detection) checkCall(c *call) decision {
	entry, ok := d.cache[c.id]
	id := entry.identity
	if !ok || entry.duplicate {
		var err error
		if id, err = d.resolver.resolve(c); err != nil { // ENG-46
			d.rec.warn(`[DoomLoop] could not resolve loop identity for "` + c.name +
				`"; skipping detection for this call: ` + err.Error())
			return decision{}
		}
	}
	switch id.Kind {
	case doomloop.LoopKeyExempt:
		return decision{} // ENG-47
	case doomloop.LoopKeyFallback:
		d.rec.warn(`[DoomLoop] tool "` + c.name + `": ` + id.Warning) // ENG-48, ENG-168
	}
	retry, hasRetry := id.retry()
	return d.decide(c.name, d.record(c.name, id.KeyMaterial, retry, hasRetry, clientRecord), asObject(c.args))
}

// The items that are not server-tool results (ENG-56), and the members a
// server item's identity leaves out (ENG-57).
var (
	notServerItems     = []string{"message", "reasoning", "function_call"}
	serverItemExcluded = []string{"id", "type", "status", "output", "result", "results", "error"}
)

// checkResponse is the response checkpoint: the text, then the server items
// in order (ENG-109, ENG-111, ENG-56..ENG-59).
func (d *detection) checkResponse(output []any) {
	verdict, err := d.monitor.RecordAssistantText(responseText(output))
	if err != nil {
		d.rec.warn("[DoomLoop] text checkpoint failed; skipping for this response: " + err.Error())
	} else if verdict != nil {
		d.actions.apply(verdict, nil) // ENG-112
	}
	for _, raw := range output {
		item := asObject(raw)
		kind, ok := item.Value("type").(string)
		if !ok || slices.Contains(notServerItems, kind) {
			continue
		}
		identity := map[string]any{}
		for _, name := range item.Names() {
			if !slices.Contains(serverItemExcluded, name) {
				identity[name] = jsvalue.Plain(item.Value(name)) // "__proto__" is data
			}
		}
		if len(identity) == 0 {
			continue
		}
		toolName := "server:" + kind
		d.decide(toolName, d.record(toolName, identity, nil, false,
			doomloop.RecordOptions{NoBlock: true, Detector: doomloop.DetectorServerToolFingerprint}), nil)
	}
}

// responseText is a response's text: the output_text parts, joined, of its
// first message item; "" when that item has none or there is no message item
// (ENG-157). The scenario reader made sure that a message's content is a list
// of objects and every output_text part's text a string (ENG-177).
func responseText(output []any) string {
	for _, raw := range output {
		item := asObject(raw)
		if item.Value("type") != "message" {
			continue
		}
		var text strings.Builder
		for _, part := range item.Value("content").([]any) {
			if p := asObject(part); p.Value("type") == "output_text" {
				text.WriteString(p.Value("text").(string))
			}
		}
		return text.String()
	}
	return ""
}
