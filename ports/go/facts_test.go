package doomloop

import (
	"encoding/json"
	"fmt"
	"testing"
)

// cell is one call's observed outcome: reported streak and action ("" = none).
type cell struct {
	streak float64
	action Action
}

func (c cell) String() string {
	if c.action == "" {
		return fmt.Sprintf("%v-", c.streak)
	}
	return fmt.Sprintf("%v %s", c.streak, c.action)
}

func readCall(path string) map[string]any { return map[string]any{"path": path} }

// runRounds records read({path: X}) for every X of every round (round k has
// number k), declaring each round first unless undeclared.
func runRounds(t *testing.T, m *Monitor, rounds [][]string, declared bool) [][]cell {
	t.Helper()
	var out [][]cell
	for k, paths := range rounds {
		if declared {
			calls := make([]ToolCall, len(paths))
			for i, p := range paths {
				calls[i] = ToolCall{"read", readCall(p)}
			}
			m.DeclareRound(float64(k), calls)
		}
		var row []cell
		for _, p := range paths {
			rec, err := m.RecordToolCall("read", readCall(p), float64(k), RecordOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := cell{streak: rec.Streak}
			if rec.Verdict != nil {
				c.action = rec.Verdict.Action
			}
			row = append(row, c)
		}
		out = append(out, row)
	}
	return out
}

func c(streak float64, action Action) cell { return cell{streak, action} }

const (
	none    = Action("")
	observe = ActionObserve
	block   = ActionBlock
)

// The facts the upstream test-suite pins (brief §7, spec §9.8 E1-E10).
func TestUpstreamFacts(t *testing.T) {
	tests := []struct {
		name     string
		rounds   [][]string
		declared bool
		want     [][]cell
	}{
		{"E1 repeated fan-out", [][]string{{"a", "b", "c"}, {"a", "b", "c"}, {"a", "b", "c"}}, true,
			[][]cell{{c(1, none), c(1, none), c(1, none)}, {c(2, observe), c(2, observe), c(2, observe)}, {c(3, block), c(3, block), c(3, block)}}},
		{"E2 permuted fan-out", [][]string{{"a", "b", "c"}, {"c", "a", "b"}, {"b", "c", "a"}}, true,
			[][]cell{{c(1, none), c(1, none), c(1, none)}, {c(2, observe), c(2, observe), c(2, observe)}, {c(3, block), c(3, block), c(3, block)}}},
		{"E3 one member changes", [][]string{{"a", "b"}, {"a", "b"}, {"a", "z"}, {"a", "z"}}, true,
			[][]cell{{c(1, none), c(1, none)}, {c(2, observe), c(2, observe)}, {c(3, block), c(1, none)}, {c(4, block), c(2, observe)}}},
		{"E4 shrinking round", [][]string{{"a", "b", "c"}, {"a", "b"}}, true,
			[][]cell{{c(1, none), c(1, none), c(1, none)}, {c(2, observe), c(2, observe)}}},
		{"E5 growing round, new call last", [][]string{{"a", "b"}, {"a", "b"}, {"a", "b", "c"}}, true,
			[][]cell{{c(1, none), c(1, none)}, {c(2, observe), c(2, observe)}, {c(3, block), c(3, block), c(1, none)}}},
		{"E6 growing round, new call first", [][]string{{"a", "b"}, {"a", "b"}, {"c", "a", "b"}}, true,
			[][]cell{{c(1, none), c(1, none)}, {c(2, observe), c(2, observe)}, {c(1, none), c(3, block), c(3, block)}}},
		{"E7 one call recurring", [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "b", "c", "d"}}, true,
			[][]cell{{c(1, none)}, {c(2, observe), c(1, none)}, {c(3, block), c(2, observe), c(1, none)}, {c(4, block), c(3, block), c(2, observe), c(1, none)}}},
		{"E8 single call", [][]string{{"a"}, {"a"}, {"a"}, {"a"}}, true,
			[][]cell{{c(1, none)}, {c(2, observe)}, {c(3, block)}, {c(4, block)}}},
		{"E9 undeclared pair", [][]string{{"a", "b"}, {"a", "b"}}, false,
			[][]cell{{c(1, none), c(1, none)}, {c(2, observe), c(2, observe)}}},
		{"E10 undeclared recurring", [][]string{{"b", "a"}, {"b", "c"}, {"b", "d"}}, false,
			[][]cell{{c(1, none), c(1, none)}, {c(2, observe), c(1, none)}, {c(3, block), c(1, none)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runRounds(t, NewMonitor(nil), tt.rounds, tt.declared)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestDuplicateInRound(t *testing.T) {
	m := NewMonitor(nil)
	m.DeclareRound(1, []ToolCall{{"read", readCall("a")}})
	first, _ := m.RecordToolCall("read", readCall("a"), 1, RecordOptions{})
	second, _ := m.RecordToolCall("read", readCall("a"), 1, RecordOptions{})
	if first.DuplicateInRound || !second.DuplicateInRound || second.Streak != first.Streak {
		t.Fatalf("first %+v second %+v", first, second)
	}
}

func TestResumeKeepsStreak(t *testing.T) {
	m := NewMonitor(nil)
	runRounds(t, m, [][]string{{"a"}, {"a"}}, true)
	text, err := json.Marshal(m.State())
	if err != nil {
		t.Fatal(err)
	}
	blob, err := ParseJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	resumed := NewMonitorWithState(nil, blob)
	rec, _ := resumed.RecordToolCall("read", readCall("a"), 0, RecordOptions{})
	if rec.Streak != 3 || rec.Verdict == nil || rec.Verdict.Action != ActionBlock {
		t.Fatalf("after resume: %+v", rec)
	}
}

// E13: a declared round with an unhashable call; the fallback identity
// starts at 1 while the declared member keeps counting.
func TestUnhashableDeclaredCall(t *testing.T) {
	m := NewMonitor(nil)
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	fallbackKey := "raw arguments"
	var got []cell
	for round := 1; round <= 2; round++ {
		r := float64(round)
		m.DeclareRound(r, []ToolCall{{"read", readCall("a")}, {"read", cyclic}})
		if _, err := m.RecordToolCall("read", cyclic, r, RecordOptions{}); err == nil {
			t.Fatal("a cyclic key material must not canonicalize")
		}
		for _, key := range []any{readCall("a"), fallbackKey} {
			rec, err := m.RecordToolCall("read", key, r, RecordOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := cell{streak: rec.Streak}
			if rec.Verdict != nil {
				c.action = rec.Verdict.Action
			}
			got = append(got, c)
		}
	}
	want := []cell{c(1, none), c(1, none), c(2, observe), c(2, observe)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestMessages(t *testing.T) {
	m := NewMonitor(nil)
	runRounds(t, m, [][]string{{"a", "b", "c"}}, true)
	m.DeclareRound(1, []ToolCall{{"read", readCall("a")}, {"read", readCall("b")}, {"read", readCall("c")}})
	rec, _ := m.RecordToolCall("read", readCall("a"), 1, RecordOptions{})
	want := `Doom loop suspected: tool "read" was invoked in 2 consecutive rounds with the same set of 3 parallel calls (round identity 368f5e5a+e43d5976+ea865a94…). Reissuing the same fan-out will not change the results. Take a different approach, or explain why repetition is required.`
	if rec.Verdict == nil || rec.Verdict.Message != want {
		t.Fatalf("got %+v", rec.Verdict)
	}
	if s := roundIdentitySummary([]string{"11111111x", "22222222x", "33333333x", "4", "5"}); s != "11111111+22222222+33333333+2 more…" {
		t.Fatalf("summary %q", s)
	}

	m = NewMonitor(nil)
	var v *Verdict
	for i := 0; i < 3; i++ {
		v, _ = m.RecordAssistantText("  Retrying the\u3000same plan.\n")
	}
	if v == nil || v.Detector != DetectorTextStreak || v.Action != ActionObserve || v.HasToolName ||
		v.Message != "Doom loop suspected: the assistant produced identical text for 3 consecutive turns. Stop repeating and take a different approach." {
		t.Fatalf("text streak verdict %+v", v)
	}
}
