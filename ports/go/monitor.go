package doomloop

import (
	"fmt"
	"sort"
)

// ToolCall is one call of a declared round.
type ToolCall struct {
	ToolName    string
	KeyMaterial any
}

// RecordOptions tunes RecordToolCall. The zero value means the defaults:
// blocking allowed, detector "tool-fingerprint".
type RecordOptions struct {
	NoBlock  bool     // take the block rung out of consideration
	Detector Detector // "" means DetectorToolFingerprint
}

// fpSet is one tool's declared fingerprint set: distinct, sorted, with an
// index (fingerprint -> position). Its pointer identifies it for the
// per-round caches.
type fpSet struct {
	list    []string
	index   map[string]int
	summary string // round identity summary, computed on first use
}

type declaredRound struct {
	round float64
	sets  map[string]*fpSet
}

// toolEntry is one tool's evidence. The first four fields are persisted;
// the rest only mean something within one run.
type toolEntry struct {
	fingerprint string
	streak      float64
	roundSet    []string
	callStreaks *callCounts

	// callStreaks doubles as the seen set of the current round: within a
	// round both gain exactly the recorded fingerprints.
	hasRound    bool
	round       float64
	hasPrior    bool // priorSet is meaningful
	priorSet    []string
	priorStreak float64
	priorCalls  *callCounts
	// Cache of "priorSet equals this declared set", computed at most once
	// per round and set, so a W-wide round costs O(W) in total.
	matchSet   *fpSet
	matchEqual bool
	// Cache of "priorCalls is laid out on a list equal to this declared
	// set", which lets a member read its prior count by position.
	alignSet   *fpSet
	alignEqual bool
	// The last fan-out message, reused by the round's other members.
	msgSet    *fpSet
	msgStreak float64
	msg       string
}

type textStreak struct {
	fingerprint string
	streak      float64
}

// Monitor is the doom-loop state machine: round-scoped streaks per tool, the
// two text detectors and an escalation budget. It is not safe for
// concurrent use; operations take effect in call order.
type Monitor struct {
	config          *Config
	tools           map[string]*toolEntry
	text            *textStreak
	escalationsUsed float64
	declared        *declaredRound
	fp              fingerprinter // scratch buffers for fingerprinting
}

// NewMonitor builds a fresh monitor. A nil config means the defaults.
func NewMonitor(config *Config) *Monitor {
	if config == nil {
		config = DefaultConfig()
	}
	return &Monitor{config: config, tools: map[string]*toolEntry{}}
}

// NewMonitorWithState builds a monitor and restores state into it
// (construct, then Restore). Like Restore it never fails.
func NewMonitorWithState(config *Config, state any) *Monitor {
	m := NewMonitor(config)
	m.Restore(state)
	return m
}

// Config returns the monitor's resolved configuration.
func (m *Monitor) Config() *Config { return m.config }

// DeclareRound declares the complete set of calls one round will make; it
// replaces any earlier declaration and speaks only for records made with
// the same round number. Calls whose key material cannot be canonicalized
// are left out; the returned (informative) warnings say which.
func (m *Monitor) DeclareRound(round float64, calls []ToolCall) []string {
	grouped := map[string]map[string]int{} // tool -> fingerprint -> position
	var warnings []string
	for i, call := range calls {
		name := normalizeString(call.ToolName)
		h, err := m.fp.toolCall(name, call.KeyMaterial)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("call %d (%q) left out of the round: %v", i, name, err))
			continue
		}
		group := grouped[name]
		if group == nil {
			group = map[string]int{}
			grouped[name] = group
		}
		if _, seen := group[string(h[:])]; !seen {
			group[string(h[:])] = 0
		}
	}
	d := &declaredRound{round: round, sets: make(map[string]*fpSet, len(grouped))}
	for name, index := range grouped {
		list := make([]string, 0, len(index))
		for fp := range index {
			list = append(list, fp)
		}
		sort.Strings(list) // lowercase hex: byte order is code-unit order
		for i, fp := range list {
			index[fp] = i
		}
		d.sets[name] = &fpSet{list: list, index: index}
	}
	m.declared = d
	return warnings
}

func equalLists(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// RecordToolCall records one tool call of round `round` and returns its
// streak record, with a verdict when a rung meets. It fails (with an error
// wrapping ErrCanonicalization) when the key material cannot be
// canonicalized; the caller then falls back to another identity.
func (m *Monitor) RecordToolCall(toolName string, keyMaterial any, round float64, opts RecordOptions) (CallRecord, error) {
	toolName = normalizeString(toolName)
	h, err := m.fp.toolCall(toolName, keyMaterial)
	if err != nil {
		return CallRecord{}, err
	}
	detector := opts.Detector
	if detector == "" {
		detector = DetectorToolFingerprint
	}
	e := m.tools[toolName] // updated in place: the entry of this call
	exists := e != nil
	sameRound := exists && e.hasRound && e.round == round

	var declared *fpSet
	member, idx := false, -1
	if m.declared != nil && m.declared.round == round {
		declared = m.declared.sets[toolName]
		if declared != nil {
			idx, member = declared.index[string(h[:])]
			if !member {
				idx = -1
			}
		}
	}
	var fp string
	if member {
		fp = declared.list[idx] // the declared string: no new allocation
	} else {
		fp = string(h[:])
	}

	duplicate := false
	if sameRound {
		// The baseline fixed by the round's first record stays.
		duplicate = e.callStreaks.has(fp, declared, idx)
	} else if exists {
		// A new round: the last round becomes the baseline.
		*e = toolEntry{
			fingerprint: e.fingerprint, hasPrior: true, priorSet: e.roundSet,
			priorStreak: e.streak, priorCalls: e.callStreaks,
			callStreaks: newCallCounts(declared),
		}
	} else {
		e = &toolEntry{callStreaks: newCallCounts(declared)}
		m.tools[toolName] = e
	}
	e.hasRound, e.round = true, round

	// The prior count of fp: by position when the prior counts are laid
	// out on a list equal to the declared one, else by lookup.
	var prior float64
	if pc := e.priorCalls; member && pc != nil && pc.set != nil {
		if e.alignSet != declared {
			e.alignSet, e.alignEqual = declared, pc.set == declared || equalLists(pc.set.list, declared.list)
		}
		if e.alignEqual {
			prior = pc.dense[idx] // a member of an equal list is never in extra
		} else {
			prior = pc.get(fp)
		}
	} else {
		prior = e.priorCalls.get(fp)
	}
	callStreak := prior + 1
	callSet := (*fpSet)(nil) // nil stands for [fp]
	if member {
		callSet = declared
	}
	roundStreak := e.score(callSet, fp)

	e.callStreaks.put(fp, declared, idx, callStreak)
	if declared == nil || member || !exists {
		// A call outside a declared round does not take the entry over.
		e.fingerprint = fp
	}
	if declared != nil {
		e.roundSet = declared.list
	} else {
		e.roundSet = []string{fp}
	}
	e.streak = e.score(declared, fp)

	streak := max(roundStreak, callStreak)
	record := CallRecord{Fingerprint: fp, Streak: streak, DuplicateInRound: duplicate}
	action := ResolveLadderAction(m.config.Ladder, streak, !opts.NoBlock, m.CanEscalate())
	if action == "" {
		return record, nil
	}
	var message string
	switch {
	case callStreak > roundStreak || !member:
		message = repeatedCallMessage(toolName)
	case len(callSet.list) > 1:
		if e.msgSet != callSet || e.msgStreak != roundStreak {
			if callSet.summary == "" {
				callSet.summary = roundIdentitySummary(callSet.list)
			}
			e.msgSet, e.msgStreak = callSet, roundStreak
			e.msg = repeatedFanOutMessage(toolName, roundStreak, len(callSet.list), callSet.summary)
		}
		message = e.msg
	default:
		message = repeatedArgumentsMessage(toolName, roundStreak, fp)
	}
	record.Verdict = &Verdict{Detector: detector, Action: action, Streak: streak, Fingerprint: fp,
		ToolName: toolName, HasToolName: true, Message: message}
	return record, nil
}

// score is the baseline streak plus one when the set (nil standing for
// [fp]) equals the baseline set, else 1. The comparison with a wide
// declared set is made once per round and set, then reused.
func (e *toolEntry) score(set *fpSet, fp string) float64 {
	if !e.hasPrior {
		return 1
	}
	var equal bool
	switch {
	case set == nil:
		equal = len(e.priorSet) == 1 && e.priorSet[0] == fp
	case len(set.list) == 1:
		equal = len(e.priorSet) == 1 && e.priorSet[0] == set.list[0]
	default:
		if e.matchSet != set {
			e.matchSet, e.matchEqual = set, equalLists(e.priorSet, set.list)
		}
		equal = e.matchEqual
	}
	if equal {
		return e.priorStreak + 1
	}
	return 1
}

// RecordAssistantText records one step's assistant text and returns the
// stronger of the within-response and cross-step verdicts, or nil.
func (m *Monitor) RecordAssistantText(text string) *Verdict {
	opts := m.config.Text
	if !truthy(opts.Enabled) {
		return nil
	}
	normalized := NormalizeText(text)
	if normalized == "" {
		return nil
	}
	allowEscalate := m.CanEscalate()

	var within *Verdict
	if found := DetectTextRepetition(normalized, opts); found != nil {
		repeats := float64(found.Repeats)
		if action := ResolveLadderAction(m.config.Ladder, repeats, false, allowEscalate); action != "" {
			sampleFP, _ := FingerprintKeyMaterial(found.Sample) // a string always canonicalizes
			within = &Verdict{Detector: DetectorTextRepetition, Action: action, Streak: repeats,
				Fingerprint: sampleFP, Message: repeatedBlockMessage(found.Sample, repeats)}
		}
	}

	fp, _ := FingerprintKeyMaterial(normalized)
	streak := 1.0
	if m.text != nil && m.text.fingerprint == fp {
		streak = m.text.streak + 1
	}
	m.text = &textStreak{fingerprint: fp, streak: streak}
	var across *Verdict
	if action := ResolveLadderAction(m.config.Ladder, streak, false, allowEscalate); action != "" {
		across = &Verdict{Detector: DetectorTextStreak, Action: action, Streak: streak,
			Fingerprint: fp, Message: repeatedTextMessage(streak)}
	}
	if within == nil || (across != nil && across.Action.strength() > within.Action.strength()) {
		return across
	}
	return within
}

// ResetTextStreak forgets the cross-step text streak; tool streaks stay.
func (m *Monitor) ResetTextStreak() { m.text = nil }

// CanEscalate reports whether an escalation mechanism is configured and its
// budget is not spent.
func (m *Monitor) CanEscalate() bool {
	e := m.config.Escalation
	return e != nil && m.escalationsUsed < e.MaxEscalations
}

// ConsumeEscalation spends one escalation, unconditionally.
func (m *Monitor) ConsumeEscalation() { m.escalationsUsed++ }
