package doomloop

import (
	"bytes"
	"encoding/hex"
	"slices"

	"doomloop.invalid/harness/jsvalue"
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
	warn            WarnFunc
}

// MonitorOption tunes a new monitor.
type MonitorOption func(*Monitor)

// WithWarn sends the monitor's logs to warn: exactly the texts the SDK
// passes to console.warn (spec §9.4), from DeclareRound (with the error
// that left a call out) and from Restore (with a nil error). Without it
// the monitor logs nothing.
func WithWarn(warn WarnFunc) MonitorOption {
	return func(m *Monitor) { m.warn = warn }
}

// NewMonitor builds a fresh monitor. A nil config means the defaults.
func NewMonitor(config *Config, opts ...MonitorOption) *Monitor {
	if config == nil {
		config = DefaultConfig()
	}
	m := &Monitor{config: config, tools: map[string]*toolEntry{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// NewMonitorWithState builds a monitor and restores state into it
// (construct, then Restore), unless state is Undefined (no initial state,
// as in the SDK's constructor). Like Restore it never fails.
func NewMonitorWithState(config *Config, state any, opts ...MonitorOption) *Monitor {
	m := NewMonitor(config, opts...)
	if !jsvalue.IsUndefined(state) {
		m.Restore(state)
	}
	return m
}

func (m *Monitor) log(message string, err error) {
	if m.warn != nil {
		m.warn(message, err)
	}
}

// Config returns the monitor's resolved configuration.
func (m *Monitor) Config() *Config { return m.config }

// DeclareRound declares the complete set of calls one round will make; it
// replaces any earlier declaration and speaks only for records made with
// the same round number. Calls whose key material cannot be canonicalized
// are left out, each with a log (see WithWarn).
func (m *Monitor) DeclareRound(round float64, calls []ToolCall) {
	grouped := map[string]map[digest]int32{} // tool -> distinct digests
	for _, call := range calls {
		name := jsvalue.Normalize(call.ToolName)
		sum, err := m.fp.toolCallDigest(name, call.KeyMaterial)
		if err != nil {
			m.log(declareLogMessage(call.ToolName, round), err)
			continue
		}
		group := grouped[name]
		if group == nil {
			group = map[digest]int32{}
			grouped[name] = group
		}
		group[sum] = 0
	}
	d := &declaredRound{round: round, sets: make(map[string]*fpSet, len(grouped))}
	for name, index := range grouped {
		sums := make([]digest, 0, len(index))
		for sum := range index {
			sums = append(sums, sum)
		}
		// Hex preserves byte order, and lowercase hex sorts by code units
		// as it sorts by bytes.
		slices.SortFunc(sums, func(a, b digest) int { return bytes.Compare(a[:], b[:]) })
		list := make([]string, len(sums))
		for i, sum := range sums {
			list[i] = hex.EncodeToString(sum[:])
			index[sum] = int32(i)
		}
		d.sets[name] = &fpSet{list: list, index: index}
	}
	m.declared = d
}

// sameSlice reports whether a and b are the very same list.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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
	toolName = jsvalue.Normalize(toolName)
	sum, err := m.fp.toolCallDigest(toolName, keyMaterial)
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
			var i int32
			i, member = declared.index[sum]
			if member {
				idx = int(i)
			}
		}
	}
	var fp string
	if member {
		fp = declared.list[idx] // the declared string: no new allocation
	} else {
		fp = hex.EncodeToString(sum[:])
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
		if e.callStreaks.alignWith(e.priorCalls) && sameSlice(e.priorSet, e.priorCalls.set.list) {
			// The prior round set is the list just found equal to the declared one.
			e.matchSet, e.matchEqual = declared, true
		}
	} else {
		e = &toolEntry{callStreaks: newCallCounts(declared)}
		m.tools[toolName] = e
	}
	e.hasRound, e.round = true, round

	// The prior count of fp: from its slot when the counts are aligned with
	// the prior round's, else by lookup.
	var prior float64
	if c := e.callStreaks; member && c.aligned && c.set == declared {
		prior = c.pairs[idx].prior
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
// stronger of the within-response and cross-step verdicts, or nil. It fails,
// leaving the state untouched, where DetectTextRepetition fails with the
// configured options.
func (m *Monitor) RecordAssistantText(text string) (*Verdict, error) {
	opts := m.config.Text
	if !jsvalue.Truthy(opts.Enabled) { // MON-59: JS ToBoolean
		return nil, nil
	}
	normalized := NormalizeText(text)
	if normalized == "" {
		return nil, nil
	}
	allowEscalate := m.CanEscalate()

	var within *Verdict
	found, err := DetectTextRepetition(normalized, opts)
	if err != nil {
		return nil, err
	}
	if found != nil {
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
		return across, nil
	}
	return within, nil
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
