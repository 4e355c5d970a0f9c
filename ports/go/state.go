package doomloop

import (
	"math"
	"strconv"

	"doomloop.invalid/harness/jsvalue"
)

// MaxRestoredStreak caps a restored tool streak.
const MaxRestoredStreak = 1000000

// State returns a fresh plain-JSON snapshot of the persisted state
// (getState): "tools" always; "text" when a text streak exists;
// "escalationsUsed" when above zero. Nothing run-local is included.
func (m *Monitor) State() map[string]any {
	tools := make(map[string]any, len(m.tools))
	for name, e := range m.tools {
		entry := map[string]any{"fingerprint": e.fingerprint, "streak": e.streak}
		if len(e.roundSet) > 1 {
			set := make([]any, len(e.roundSet))
			for i, fp := range e.roundSet {
				set[i] = fp
			}
			entry["roundFingerprints"] = set
		}
		if !e.callStreaksImplied() {
			counts := make(map[string]any, e.callStreaks.len())
			e.callStreaks.each(func(fp string, n float64) { counts[fp] = n })
			entry["callStreaks"] = counts
		}
		tools[name] = entry
	}
	blob := map[string]any{"tools": tools}
	if m.text != nil {
		// + 0 turns a restored -0 into 0: the blob is plain JSON.
		blob["text"] = map[string]any{"fingerprint": m.text.fingerprint, "streak": m.text.streak + 0}
	}
	if m.escalationsUsed > 0 {
		blob["escalationsUsed"] = m.escalationsUsed
	}
	return blob
}

// callStreaksImplied: the per-call counts say nothing the round does not
// (as many counts as round-set members, each a member at the tool streak).
func (e *toolEntry) callStreaksImplied() bool {
	if e.callStreaks.len() != len(e.roundSet) {
		return false
	}
	members := make(map[string]struct{}, len(e.roundSet))
	for _, fp := range e.roundSet {
		members[fp] = struct{}{}
	}
	implied := true
	e.callStreaks.each(func(fp string, n float64) {
		if _, ok := members[fp]; !ok || n != e.streak {
			implied = false
		}
	})
	return implied
}

// entries lists the members of an object, or the elements of an array
// under their index names, as JS Object.entries would; nothing otherwise.
func entries(v any, visit func(name string, value any)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range jsvalue.SortedKeys(x) {
			visit(k, x[k])
		}
	case []any:
		for i, item := range x {
			visit(strconv.Itoa(i), item)
		}
	}
}

// streakRecord reads {fingerprint: string, streak: finite number}.
func streakRecord(v any) (map[string]any, string, float64, bool) {
	obj, ok := asObject(v)
	if !ok {
		return nil, "", 0, false
	}
	fp, ok := obj["fingerprint"].(string)
	streak, finite := finiteNumber(member(obj, "streak"))
	if !ok || !finite {
		return nil, "", 0, false
	}
	return obj, fp, streak, true
}

// Restore replaces the monitor's state from a persisted blob, as the SDK's
// restore(state): void does. It never panics and never fails: a blob that
// is not an object leaves the state exactly as it was (Restore logs it, see
// WithWarn); otherwise invalid parts are skipped. The round declaration is
// run-local and is kept.
func (m *Monitor) Restore(blob any) {
	defer func() { _ = recover() }() // fail-open, whatever a hand-made blob holds: the state is kept
	obj, ok := asObject(blob)
	if !ok {
		m.log(restoreLogMessage, nil)
		return
	}
	tools := map[string]*toolEntry{}
	entries(member(obj, "tools"), func(name string, value any) {
		record, fp, streak, ok := streakRecord(value)
		if !ok {
			return
		}
		tools[jsvalue.Normalize(name)] = restoredEntry(record, fp, streak)
	})
	var text *textStreak
	if _, fp, streak, ok := streakRecord(member(obj, "text")); ok {
		text = &textStreak{fingerprint: fp, streak: streak}
	}
	used := 0.0
	if f, ok := finiteNumber(member(obj, "escalationsUsed")); ok && f >= 0 {
		used = math.Floor(f)
	}
	m.tools, m.text, m.escalationsUsed = tools, text, used
}

func restoredEntry(record map[string]any, fp string, streak float64) *toolEntry {
	roundSet := []string{fp}
	if list, ok := record["roundFingerprints"].([]any); ok && len(list) > 1 {
		set := make([]string, 0, len(list))
		for _, item := range list {
			if s, ok := item.(string); ok {
				set = append(set, s)
			}
		}
		if len(set) == len(list) {
			jsvalue.SortUnits(set)
			roundSet = set
		}
	}
	clamped := math.Min(math.Max(math.Floor(streak), 1), MaxRestoredStreak)
	counts := map[string]float64{}
	entries(member(record, "callStreaks"), func(name string, value any) {
		if n, ok := finiteNumber(value); ok && n >= 1 {
			counts[name] = math.Floor(n)
		}
	})
	if len(counts) == 0 {
		for _, member := range roundSet {
			counts[member] = clamped
		}
	}
	return &toolEntry{fingerprint: fp, streak: clamped, roundSet: roundSet,
		callStreaks: &callCounts{extra: counts, size: len(counts)}}
}
