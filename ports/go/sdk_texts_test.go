package doomloop

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The expected texts below are the SDK's, copied from the brief
// (monitor-behaviour.md §9, measured on @openrouter/agent 0.9.0), not from
// this package.

func TestConfigWarningTextsAndOrder(t *testing.T) {
	// block without stop, two dead rungs, then the escalation warning (§9.1 order)
	option := map[string]any{
		"ladder":     map[string]any{"observe": 3.0, "steer": 5.0, "escalate": 4.0, "stop": false},
		"escalation": map[string]any{},
	}
	_, warnings, err := ResolveOption(option)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[DoomLoop] ladder has block enabled with stop disabled: a model that keeps re-issuing a blocked call loops indefinitely (each blocked round still costs a model request). Bound the run with stopWhen, or enable the stop rung.",
		`[DoomLoop] ladder rung "observe" (3) can never fire: stronger rung "block" (3) already wins at that streak (strongest crossed rung is applied).`,
		`[DoomLoop] ladder rung "steer" (5) can never fire: stronger rung "escalate" (4) already wins at that streak (strongest crossed rung is applied).`,
		`[DoomLoop] ladder rung "escalate" (4) can never fire: stronger rung "block" (3) already wins at that streak (strongest crossed rung is applied).`,
		"[DoomLoop] ladder.escalate is enabled but no escalation config (model/advisor) was provided; the rung is skipped and verdicts fall through to weaker rungs.",
	}
	if len(warnings) != len(want) {
		t.Fatalf("%d warnings, want %d: %+v", len(warnings), len(want), warnings)
	}
	for i, w := range warnings {
		if w.Message != want[i] {
			t.Errorf("warning %d:\n got %q\nwant %q", i, w.Message, want[i])
		}
	}
	_, warnings, _ = ResolveOption(map[string]any{"escalation": map[string]any{"model": "m"}})
	if len(warnings) != 1 || warnings[0].Message != "[DoomLoop] escalation config provided but the escalate ladder rung is disabled; set ladder.escalate to a streak threshold for recovery to trigger." || warnings[0].Code != WarnEscalationUnused {
		t.Errorf("escalation unused: %+v", warnings)
	}
	// thresholds print as JS String(n)
	_, warnings, _ = ResolveOption(map[string]any{"ladder": map[string]any{"observe": 1e21}})
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, `"observe" (1e+21)`) {
		t.Errorf("1e21 threshold: %+v", warnings)
	}
}

func TestLoopKeyWarningTexts(t *testing.T) {
	args := map[string]any{"path": "a"}
	cases := []struct {
		loopKey any
		want    string
	}{
		{[]any{}, "loopKey is an empty field list, which would give every call to this tool the same identity; falling back to full arguments. Use `false` to exempt the tool."},
		// non-string entries are not shown (§9.2)
		{[]any{"cwd", 7.0, "env"}, "loopKey fields [cwd, env] are all absent from the arguments, which would give every call the same identity; falling back to full arguments."},
		{&ScriptedLoopKey{Throws: ptr("boom")}, "loopKey threw (boom); falling back to full arguments"},
		{LoopKeyFunc(func(map[string]any) (any, error) { panic("bad") }), "loopKey threw (bad); falling back to full arguments"},
		{&ScriptedLoopKey{Returns: Undefined{}}, "loopKey returned undefined; falling back to full arguments. Return null to exempt a call, or a value to use as identity."},
		{"path", "loopKey has unsupported shape (string); falling back to full arguments"},
		{3.0, "loopKey has unsupported shape (number); falling back to full arguments"},
		{true, "loopKey has unsupported shape (boolean); falling back to full arguments"},
		{nil, "loopKey has unsupported shape (object); falling back to full arguments"},
		{map[string]any{}, "loopKey has unsupported shape (object); falling back to full arguments"},
		{BigInt{Digits: "1"}, "loopKey has unsupported shape (bigint); falling back to full arguments"},
		{Function{Symbol: true}, "loopKey has unsupported shape (symbol); falling back to full arguments"},
	}
	for _, c := range cases {
		r := ResolveLoopKey(c.loopKey, args)
		if r.Kind != LoopKeyFallback || r.Warning != c.want {
			t.Errorf("loopKey %#v: %s %q, want fallback %q", c.loopKey, r.Kind, r.Warning, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

func TestCanonicalizationMessages(t *testing.T) {
	cycle := map[string]any{}
	cycle["self"] = cycle
	deep := any(0.0)
	for i := 0; i < 65; i++ {
		deep = []any{deep}
	}
	cases := []struct {
		value any
		want  string
	}{
		{deep, "Cannot canonicalize key material nested deeper than 64 levels for doom-loop fingerprinting"},
		{math.NaN(), "Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation"},
		{math.Inf(-1), "Cannot canonicalize non-finite number (NaN/Infinity) for doom-loop fingerprinting: RFC 8785 has no representation"},
		{BigInt{Digits: "10"}, "Cannot canonicalize bigint for doom-loop fingerprinting: RFC 8785 has no representation (convert to string or number in loopKey)"},
		{cycle, "Cannot canonicalize circular key material for doom-loop fingerprinting"},
	}
	for _, c := range cases {
		_, err := Canonicalize(c.value)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrCanonicalization) {
			t.Errorf("%v: error %v, want %q", c.value, err, c.want)
		}
	}
}

type logLine struct {
	message string
	err     error
}

func TestMonitorLogs(t *testing.T) {
	var logs []logLine
	warn := WithWarn(func(message string, err error) { logs = append(logs, logLine{message, err}) })
	m := NewMonitor(nil, warn)
	m.DeclareRound(2.5, []ToolCall{{"read", map[string]any{"n": math.NaN()}}, {"read", "ok"}})
	if len(logs) != 1 || logs[0].message != `[DoomLoop] could not fingerprint a "read" call while declaring round 2.5; excluding it from the round set:` ||
		logs[0].err == nil || !errors.Is(logs[0].err, ErrCanonicalization) {
		t.Fatalf("declareRound log: %+v", logs)
	}
	logs = nil
	for _, blob := range []any{nil, []any{}, "s", 1.0, true} {
		m.Restore(blob)
	}
	m.Restore(map[string]any{"tools": "garbage"}) // a plain object never warns
	if len(logs) != 5 {
		t.Fatalf("restore logs: %+v", logs)
	}
	for _, l := range logs {
		if l.message != "[DoomLoop] Ignoring invalid persisted doom-loop state" || l.err != nil {
			t.Errorf("restore log %+v", l)
		}
	}
	logs = nil
	NewMonitorWithState(nil, "not a blob", warn)
	if len(logs) != 1 {
		t.Errorf("construct-then-restore logs: %+v", logs)
	}
}

// §10.1: null members of escalation are present; §10.2: null option, text
// and escalation throw a TypeError in the SDK.
func TestNullOptionMembers(t *testing.T) {
	cfg, warnings, err := ResolveOption(map[string]any{
		"ladder":     map[string]any{"escalate": 1.0, "observe": false, "block": false, "stop": false},
		"escalation": map[string]any{"model": nil, "advisor": false}})
	if err != nil || cfg.Escalation == nil || !cfg.Escalation.HasModel || cfg.Escalation.HasAdvisor || len(warnings) != 0 {
		t.Fatalf("model null: %+v %+v %v", cfg.Escalation, warnings, err)
	}
	if !NewMonitor(cfg).CanEscalate() {
		t.Error("a null model is a mechanism: the monitor can escalate")
	}
	cfg, _, _ = ResolveOption(map[string]any{"ladder": nil, "text": map[string]any{"minRepeats": nil}})
	if cfg.Ladder != DefaultLadder || cfg.Text.MinRepeats != 4.0 {
		t.Errorf("ladder null / text member null fall back: %+v", cfg)
	}
	for _, option := range []any{nil, map[string]any{"text": nil}, map[string]any{"escalation": nil}} {
		if _, _, err := ResolveOption(option); !errors.Is(err, ErrTypeError) {
			t.Errorf("%v: error %v, want a TypeError", option, err)
		}
	}
	// CFG-45: text option values are copied unchanged, whatever their type
	cfg, _, err = ResolveOption(map[string]any{"text": map[string]any{"minRepeats": "4", "enabled": 1.0}})
	if err != nil || cfg.Text.MinRepeats != "4" || cfg.Text.Enabled != 1.0 {
		t.Errorf("non-number text options: %+v %v", cfg, err)
	}
}

// §10.3, with the SDK's recorded answers (sdk-0.9.0-observations.jsonl, C3-C5).
func TestTextOptionsAsJSNumbers(t *testing.T) {
	text := strings.TrimSpace(strings.Repeat("foo bar baz ", 10))
	cases := []struct {
		name    string
		opts    TextOptions
		repeats int // 0: no result
	}{
		{"window 0 keeps everything", TextOptions{MaxWindowTokens: 0.0}, 10},
		{"window -0 keeps everything", TextOptions{MaxWindowTokens: math.Copysign(0, -1)}, 10},
		{"window -1 drops 64 units, then 1 token", TextOptions{MaxWindowTokens: -1.0}, 4},
		{"window 5e-324 keeps everything", TextOptions{MaxWindowTokens: 5e-324}, 10},
		{"window just below 1 keeps 63 units", TextOptions{MaxWindowTokens: 0.9999999999999999}, 5},
		{"window NaN slices as 0", TextOptions{MaxWindowTokens: math.NaN()}, 10},
		{"maxPeriod 2.5 allows periods 1 and 2", TextOptions{MaxPeriodTokens: 2.5}, 0},
		{"maxPeriod NaN fails", TextOptions{MaxPeriodTokens: math.NaN()}, 0},
		{"minRepeats NaN fails", TextOptions{MinRepeats: math.NaN()}, 0},
		{"minRepeats +Inf fails", TextOptions{MinRepeats: math.Inf(1)}, 0},
		{"minCovered NaN fails", TextOptions{MinCoveredTokens: math.NaN()}, 0},
		{"minRepeats 1.5 compares as a double", TextOptions{MinRepeats: 1.5}, 10},
		{"minRepeats bigint compares as its number", TextOptions{MinRepeats: BigInt{Digits: "4"}}, 10},
		{"negative thresholds compare", TextOptions{MinRepeats: -3.0, MinCoveredTokens: -1.0}, 10},
	}
	for _, c := range cases {
		r, err := DetectTextRepetition(text, c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := 0; r != nil && r.Repeats != c.repeats || r == nil && c.repeats != 0 {
			if r != nil {
				got = r.Repeats
			}
			t.Errorf("%s: repeats %d, want %d", c.name, got, c.repeats)
		}
	}
	// the fractional window cuts 2.5*64 = 160 code units, then the last 2 tokens
	long := strings.Repeat("x ", 100)
	if r, _ := DetectTextRepetition(long, TextOptions{MaxWindowTokens: 2.5, MinCoveredTokens: 2.0, MinRepeats: 2.0}); r == nil || r.Repeats != 2 {
		t.Errorf("window 2.5: %+v", r)
	}
	// a bigint in arithmetic or Math.min/Math.max is a TypeError
	for _, opts := range []TextOptions{{MaxWindowTokens: BigInt{Digits: "400"}}, {MinCoveredTokens: BigInt{Digits: "12"}}, {MaxPeriodTokens: BigInt{Digits: "3"}}} {
		if _, err := DetectTextRepetition(text, opts); !errors.Is(err, ErrTypeError) {
			t.Errorf("%+v: %v, want a TypeError", opts, err)
		}
	}
	// ... but maxPeriodTokens is only reached with enough tokens
	if r, err := DetectTextRepetition("a b", TextOptions{MaxPeriodTokens: BigInt{Digits: "3"}}); r != nil || err != nil {
		t.Errorf("short text, bigint maxPeriod: %+v %v", r, err)
	}
	// TXT-22: "4" is 4 (met by ten repeats), "abc" is NaN (never met)
	if r, err := DetectTextRepetition(text, TextOptions{MinRepeats: "4"}); r == nil || err != nil {
		t.Errorf("minRepeats \"4\": %+v %v", r, err)
	}
	if r, err := DetectTextRepetition(text, TextOptions{MinRepeats: "abc"}); r != nil || err != nil {
		t.Errorf("minRepeats \"abc\": %+v %v", r, err)
	}
	// TXT-23, TXT-21: a symbol throws when reached, and only then
	symbol := Function{Symbol: true}
	if _, err := DetectTextRepetition(text, TextOptions{MinRepeats: symbol}); !errors.Is(err, ErrTypeError) {
		t.Errorf("symbol minRepeats: %v, want a TypeError", err)
	}
	if r, err := DetectTextRepetition(text, TextOptions{MinRepeats: symbol, MaxPeriodTokens: 0.5}); r != nil || err != nil {
		t.Errorf("symbol minRepeats, no period tried: %+v %v", r, err)
	}
	if _, err := DetectTextRepetition(text, TextOptions{MinCoveredTokens: []any{"1", symbol}}); !errors.Is(err, ErrTypeError) {
		t.Errorf("array holding a symbol: %v, want a TypeError", err)
	}
}

// ECMAScript ToNumber (TXT-22), the values of the language definition.
func TestToNumber(t *testing.T) {
	cycle := []any{nil}
	cycle[0] = cycle
	for _, c := range []struct {
		in   any
		want float64
	}{
		{true, 1}, {false, 0}, {"", 0}, {" \t\n\u00a0\ufeff ", 0}, {" 3 ", 3}, {"\u20283\u3000", 3},
		{"0x10", 16}, {"0X1f", 31}, {"0o17", 15}, {"0b101", 5}, {"1e3", 1000}, {"-2.5E-1", -0.25},
		{".5", 0.5}, {"5.", 5}, {"+7", 7}, {"007", 7}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
		{"+Infinity", math.Inf(1)}, {"1e400", math.Inf(1)},
		{[]any{}, 0}, {[]any{5.0}, 5}, {[]any{"0x10"}, 16}, {[]any{nil}, 0}, {[]any{[]any{[]any{2.0}}}, 2},
		{[]any{BigInt{Digits: "12"}}, 12}, {[]any{math.Inf(-1)}, math.Inf(-1)}, {[]any{1e21}, 1e21}, {cycle, 0},
	} {
		if got, err := toNumber(c.in); err != nil || got != c.want {
			t.Errorf("ToNumber(%#v) = %v %v, want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []any{"abc", "0x", "0x1g", "-0x10", "0b2", "0o8", "1e", "e3", ".", "infinity", "--1", "1_000",
		"+-Infinity", "0x1p4", "NaN", map[string]any{}, []any{1.0, 2.0}, []any{true}, []any{map[string]any{}},
		Function{}, []any{Function{}}, Undefined{}} {
		if got, err := toNumber(in); err != nil || !math.IsNaN(got) {
			t.Errorf("ToNumber(%#v) = %v %v, want NaN", in, got, err)
		}
	}
	if got, _ := toNumber("-0"); got != 0 || !math.Signbit(got) {
		t.Errorf(`ToNumber("-0") = %v, want -0`, got)
	}
}

// §10.5: counters are doubles; +1 past 2^53 does not change them, and
// messages print them as JS String(n).
func TestCountersAreDoubles(t *testing.T) {
	const big = 9007199254740992.0 // 2^53
	cfg, _, _ := ResolveOption(map[string]any{"ladder": map[string]any{"observe": 1.0}})
	m := NewMonitorWithState(cfg, map[string]any{"text": map[string]any{"fingerprint": textFP(t, "hello"), "streak": big}})
	for i := 0; i < 2; i++ {
		v, err := m.RecordAssistantText("hello")
		if err != nil || v == nil || v.Streak != big ||
			v.Message != "Doom loop suspected: the assistant produced identical text for 9007199254740992 consecutive turns. Stop repeating and take a different approach." {
			t.Fatalf("text streak at 2^53: %+v %v", v, err)
		}
	}
	m = NewMonitorWithState(cfg, map[string]any{"text": map[string]any{"fingerprint": textFP(t, "hello"), "streak": 1e21}})
	if v, _ := m.RecordAssistantText("hello"); v == nil || !strings.Contains(v.Message, " 1e+21 consecutive") {
		t.Fatalf("text streak 1e21: %+v", v)
	}

	m = NewMonitorWithState(cfg, map[string]any{"escalationsUsed": big})
	m.ConsumeEscalation()
	m.ConsumeEscalation()
	if got := m.State()["escalationsUsed"]; got != big {
		t.Errorf("escalationsUsed: %v", got)
	}

	fp, _ := FingerprintToolCall("t", "k")
	m = NewMonitorWithState(cfg, map[string]any{"tools": map[string]any{"t": map[string]any{
		"fingerprint": fp, "streak": 2.0, "callStreaks": map[string]any{fp: big}}}})
	for round := 0.0; round < 2; round++ {
		r, err := m.RecordToolCall("t", "k", round, RecordOptions{})
		if err != nil || r.Streak != big || r.Verdict == nil || r.Verdict.Action != ActionStop {
			t.Fatalf("per-call count at 2^53, round %v: %+v %v", round, r, err)
		}
	}
}

func textFP(t *testing.T, s string) string {
	t.Helper()
	fp, err := FingerprintKeyMaterial(s)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}
