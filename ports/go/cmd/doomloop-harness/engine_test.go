package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"doomloop.invalid/harness"
	doomloop "doomloop.invalid/ports/go"
	"doomloop.invalid/ports/go/engine"
)

// rawScenarios returns each vector's scenario as the JSON text the file
// holds, so that member order reaches the engine as it would over the
// protocol (ENG-105 observes it).
func rawScenarios(t *testing.T, data []byte) []json.RawMessage {
	t.Helper()
	var file struct {
		Vectors []struct {
			Scenario json.RawMessage `json:"scenario"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("reading the scenarios: %v", err)
	}
	out := make([]json.RawMessage, len(file.Vectors))
	for i, v := range file.Vectors {
		out[i] = v.Scenario
	}
	return out
}

// replayEngine sends an engine vector's scenario through the harness as one
// runScenario line (PROT-31) and judges the answer as the runner does:
// bad-scenario by its code, a transcript by the vector's partial order.
func replayEngine(t *testing.T, vector map[string]any, scenario json.RawMessage) {
	server := harness.NewServer(newPort())
	line := append(append([]byte(`{"id":1,"op":"runScenario","scenario":`), scenario...), '}')
	answer, err := doomloop.ParseJSON(server.HandleLine(line))
	if err != nil {
		t.Fatalf("the answer is not JSON: %v", err)
	}
	judgeEngine(t, vector["expect"].(map[string]any), answer.(map[string]any))
}

func judgeEngine(t *testing.T, expect, answer map[string]any) {
	t.Helper()
	if want, ok := expect["error"]; ok {
		if got, _ := answer["error"].(map[string]any); got == nil || got["code"] != want {
			t.Fatalf("want error %v, got %v", want, answer)
		}
		return
	}
	result, ok := answer["result"]
	if !ok {
		t.Fatalf("want a transcript, got %v", answer)
	}
	order, _ := expect["order"].([]any)
	if diff := compareTranscript(expect["result"], result, order); diff != "" {
		t.Fatal(diff)
	}
}

// compareTranscript compares two transcripts as spec/vectors.md says: run by
// run, dispatches exactly, events and executions by their partial order
// (ENG-139), end without the error's message (ENG-141), warnings by the
// fallback texts an expected run holds (ENG-168), the rest exactly.
func compareTranscript(want, got any, order []any) string {
	w, g := want.(map[string]any), got.(map[string]any)
	wantRuns, _ := w["runs"].([]any)
	gotRuns, _ := g["runs"].([]any)
	if len(wantRuns) != len(gotRuns) || w["scenario"] != g["scenario"] {
		return fmt.Sprintf("want %d runs of %v, got %d of %v", len(wantRuns), w["scenario"], len(gotRuns), g["scenario"])
	}
	for i := range wantRuns {
		wr, gr := wantRuns[i].(map[string]any), gotRuns[i].(map[string]any)
		slots := map[string]any{}
		if i < len(order) {
			slots = order[i].(map[string]any)
		}
		where := fmt.Sprintf("run %d", i)
		for _, name := range []string{"events", "executions"} {
			if diff := orderedDiff(where+"."+name, list(wr[name]), list(gr[name]), list(slots[name]), name == "events"); diff != "" {
				return diff
			}
		}
		for _, text := range list(wr["warnings"]) {
			if s, _ := text.(string); strings.HasPrefix(s, `[DoomLoop] tool "`) && !slices.Contains(list(gr["warnings"]), any(s)) {
				return fmt.Sprintf("%s: the required warning %q is missing", where, s)
			}
		}
		rest := func(run map[string]any) map[string]any {
			out := map[string]any{}
			for k, v := range run {
				if k != "events" && k != "executions" && k != "warnings" {
					out[k] = v
				}
			}
			if end, ok := out["end"].(map[string]any); ok {
				if failure, ok := end["error"].(map[string]any); ok {
					kept := map[string]any{}
					for k, v := range failure {
						if k != "message" {
							kept[k] = v
						}
					}
					end = maps.Clone(end)
					end["error"] = kept
					out["end"] = end
				}
			}
			return out
		}
		if diff := compare(rest(wr), rest(gr), "$."+where); diff != "" {
			return diff
		}
	}
	return ""
}

func list(v any) []any { l, _ := v.([]any); return l }

// batchOf is an order entry's batch: -1 for a fence (null).
func batchOf(slot any) int {
	switch s := slot.(type) {
	case []any:
		return int(s[0].(float64))
	case float64:
		return int(s)
	}
	return -1
}

// orderedDiff judges actual entries against the expected ones and their
// order (ENG-139): fences keep their places, a batch's entries fill the
// places between its fences in any order that keeps the batch's
// DoomLoopDetected events in order (checkpoint order) and each call's
// events in order (per-call order).
func orderedDiff(path string, want, got, order []any, events bool) string {
	if len(order) != len(want) {
		return fmt.Sprintf("%s: %d order entries for %d entries", path, len(order), len(want))
	}
	cursor := 0
	for start := 0; start < len(want); {
		end := start + 1
		batch := batchOf(order[start])
		for batch >= 0 && end < len(want) && batchOf(order[end]) == batch {
			end++
		}
		if cursor+end-start > len(got) {
			break
		}
		window := got[cursor : cursor+end-start]
		if batch < 0 {
			if diff := compare(want[start], window[0], fmt.Sprintf("%s[%d]", path, cursor)); diff != "" {
				return "fence order broken: " + diff
			}
		} else if diff := matchBatch(want[start:end], order[start:end], window, events); diff != "" {
			return fmt.Sprintf("%s, batch %d at %d: %s", path, batch, cursor, diff)
		}
		cursor += end - start
		start = end
	}
	if cursor != len(got) || len(want) != len(got) {
		return fmt.Sprintf("%s: %d entries, want %d", path, len(got), len(want))
	}
	return ""
}

func isDetection(entry any) bool {
	e, _ := entry.(map[string]any)
	return e["hook"] == "DoomLoopDetected"
}

func matchBatch(want, order, got []any, events bool) string {
	matched := make([]int, len(want))
	previous := make([]int, len(want)) // the expected entry before it in its call
	last := map[int]int{}
	var detections []int
	for i := range want {
		matched[i], previous[i] = -1, -1
		if !events {
			continue
		}
		if isDetection(want[i]) {
			detections = append(detections, i)
		}
		call := int(order[i].([]any)[1].(float64))
		if p, ok := last[call]; ok {
			previous[i] = p
		}
		last[call] = i
	}
	for k, entry := range got {
		if events && isDetection(entry) {
			if len(detections) == 0 || compare(want[detections[0]], entry, "") != "" {
				return fmt.Sprintf("checkpoint order broken: entry %d is %v", k, entry)
			}
			matched[detections[0]], detections = k, detections[1:]
			continue
		}
		chosen := -1
		for i := range want {
			if matched[i] >= 0 || (events && isDetection(want[i])) || compare(want[i], entry, "") != "" {
				continue
			}
			if previous[i] < 0 || matched[previous[i]] >= 0 {
				chosen = i // calls may share an id: prefer one whose earlier events are in
				break
			}
			if chosen < 0 {
				chosen = i
			}
		}
		if chosen < 0 {
			return fmt.Sprintf("batch boundary broken: entry %d (%v) is none of the batch's", k, entry)
		}
		matched[chosen] = k
	}
	for i, p := range previous {
		if p >= 0 && matched[p] > matched[i] {
			return fmt.Sprintf("per-call order broken: %v comes before %v", want[i], want[p])
		}
	}
	return ""
}

// engineVectors are the committed engine vectors: each with its scenario's text.
type engineVector struct {
	id       string
	vector   map[string]any
	scenario json.RawMessage
}

func engineVectors(t *testing.T) []engineVector {
	t.Helper()
	manifest, _ := readJSON(t, filepath.Join(vectorRoot, "manifest.json"))
	var out []engineVector
	for _, raw := range manifest.(map[string]any)["files"].([]any) {
		rel := raw.(map[string]any)["path"].(string)
		if !strings.Contains(rel, "/engine-") {
			continue
		}
		doc, data := readJSON(t, filepath.Join(vectorRoot, filepath.FromSlash(rel)))
		scenarios := rawScenarios(t, data)
		for i, v := range doc.(map[string]any)["vectors"].([]any) {
			vector := v.(map[string]any)
			out = append(out, engineVector{vector["id"].(string), vector, scenarios[i]})
		}
	}
	if len(out) == 0 {
		t.Fatal("no engine vector")
	}
	return out
}

// shakes counts the runs of TestEngineInterleavings in this process.
var shakes int64

// shaker makes each step a call of a concurrent batch takes on its
// goroutine (ENG-138) yield or sleep, drawn from a seeded source: other
// interleavings than the scheduler's usual one.
func shaker(seed int64) engine.Option {
	var mu sync.Mutex
	source := rand.New(rand.NewSource(seed))
	return engine.WithInterleaving(func(string) {
		mu.Lock()
		n := source.Intn(4)
		mu.Unlock()
		switch n {
		case 0:
			runtime.Gosched()
		case 1:
			time.Sleep(50 * time.Microsecond)
		}
	})
}

// shakenPort is the harness with its goroutines shaken.
type shakenPort struct {
	port
	shake engine.Option
}

func (p shakenPort) RunScenario(scenario []byte) (any, error) {
	s, err := engine.ParseScenario(scenario)
	if err != nil {
		return nil, err
	}
	transcript, err := s.Run(p.shake)
	if err != nil {
		return nil, err
	}
	return transcript.JSON(), nil
}

// TestMain serves the shaken harness, instead of testing, when
// DOOMLOOP_SHAKEN_HARNESS holds a seed: the test binary
// (go test -c ./cmd/doomloop-harness) is then a harness whose interleavings
// the kit's own runner judges (tests/test_go_engine_interleavings.py).
func TestMain(m *testing.M) {
	if given := os.Getenv("DOOMLOOP_SHAKEN_HARNESS"); given != "" {
		seed, err := strconv.ParseInt(given, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "DOOMLOOP_SHAKEN_HARNESS: not a seed:", given)
			os.Exit(2)
		}
		os.Exit(harness.Serve(shakenPort{newPort(), shaker(seed)}))
	}
	os.Exit(m.Run())
}

// TestEngineInterleavings runs every engine vector with goroutines shaken
// at each step of a concurrent call (a sleep or a yield drawn from a seeded
// source, per call): any interleaving the goroutines take must keep the
// partial order (ENG-138, ENG-139), and the outcome must not change. The
// shaking must show more than one order: at least one vector's events come
// out in an order other than the vector's own sequence.
func TestEngineInterleavings(t *testing.T) {
	shakes++ // each run of the test (go test -count N) draws from the next seed
	seed := shakes
	if s := os.Getenv("DOOMLOOP_SHAKE_SEED"); s != "" {
		given, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DOOMLOOP_SHAKE_SEED: not a seed: %q", s)
		}
		seed = given
	}
	// the seed draws the shakes, but the goroutines draw in the order the
	// scheduler runs them: a seed does not replay an interleaving
	t.Logf("shake seed %d (DOOMLOOP_SHAKE_SEED; it seeds the shakes, not the scheduler)", seed)
	shake := shaker(seed)
	reordered := 0
	for _, v := range engineVectors(t) {
		expect := v.vector["expect"].(map[string]any)
		if _, bad := expect["error"]; bad {
			continue
		}
		transcript, err := func() (*engine.Transcript, error) {
			s, err := engine.ParseScenario(v.scenario)
			if err != nil {
				return nil, err
			}
			return s.Run(shake)
		}()
		if err != nil {
			t.Fatalf("%s: %v", v.id, err)
		}
		got := roundTrip(t, doomloop.EncodeTagged(transcript.JSON()))
		order, _ := expect["order"].([]any)
		if diff := compareTranscript(expect["result"], got, order); diff != "" {
			t.Fatalf("%s (seed %d): %s", v.id, seed, diff)
		}
		if reorderedRuns(expect["result"], got) {
			reordered++
		}
	}
	t.Logf("%d vectors came out in another order than the expected sequence", reordered)
	if reordered == 0 {
		t.Error("no vector's events were reordered: the calls of a batch did not run concurrently")
	}
}

// reorderedRuns reports whether some run's events or executions, as exact
// sequences, differ from the expected ones (warnings and the rest aside:
// only the calls of a batch running concurrently can reorder these two).
func reorderedRuns(want, got any) bool {
	wantRuns, _ := want.(map[string]any)["runs"].([]any)
	gotRuns, _ := got.(map[string]any)["runs"].([]any)
	for i := range min(len(wantRuns), len(gotRuns)) {
		w, _ := wantRuns[i].(map[string]any)
		g, _ := gotRuns[i].(map[string]any)
		for _, member := range []string{"events", "executions"} {
			if compare(w[member], g[member], "$") != "" {
				return true
			}
		}
	}
	return false
}

// The partial-order comparison passes what ENG-139 allows and names the
// relation another order breaks.
func TestThePartialOrderComparisonCanFail(t *testing.T) {
	ev := func(hook, id string) any {
		return map[string]any{"hook": hook, "payload": map[string]any{"callId": id}}
	}
	slot := func(batch, call float64) any { return []any{batch, call} }
	start, end := ev("SessionStart", ""), ev("SessionEnd", "")
	da, db := ev("DoomLoopDetected", "a"), ev("DoomLoopDetected", "b")
	pa, qa, pb, qb := ev("PreToolUse", "a"), ev("PostToolUse", "a"), ev("PreToolUse", "b"), ev("PostToolUse", "b")
	want := []any{start, da, pa, qa, db, pb, qb, end}
	order := []any{nil, slot(1, 0), slot(1, 0), slot(1, 0), slot(1, 1), slot(1, 1), slot(1, 1), nil}
	for name, c := range map[string]struct {
		got  []any
		fail string
	}{
		"the reference's order":        {want, ""},
		"b before a's hooks":           {[]any{start, da, db, pb, pa, qb, qa, end}, ""},
		"per-call order":               {[]any{start, da, qa, pa, db, pb, qb, end}, "per-call order broken"},
		"a hook before its checkpoint": {[]any{start, pb, da, pa, qa, db, qb, end}, "per-call order broken"},
		"checkpoint order":             {[]any{start, db, da, pa, qa, pb, qb, end}, "checkpoint order broken"},
		"batch boundary":               {[]any{start, da, pa, qa, db, pb, end, qb}, "batch boundary broken"},
		"a fence moved":                {[]any{da, start, pa, qa, db, pb, qb, end}, "fence order broken"},
		"an event missing":             {[]any{start, da, pa, qa, db, pb, end}, "batch boundary broken"},
		"an event too many":            {append(slices.Clone(want), end), "entries, want"},
	} {
		diff := orderedDiff("events", want, c.got, order, true)
		if (c.fail == "") != (diff == "") || !strings.Contains(diff, c.fail) {
			t.Errorf("%s: got %q, want %q", name, diff, c.fail)
		}
	}
	x := func(id string) any { return map[string]any{"callId": id} }
	batches := []any{1.0, 1.0, 2.0}
	if diff := orderedDiff("executions", []any{x("a"), x("b"), x("c")}, []any{x("b"), x("a"), x("c")}, batches, false); diff != "" {
		t.Errorf("executions of one batch in another order: %s", diff)
	}
	if diff := orderedDiff("executions", []any{x("a"), x("b"), x("c")}, []any{x("c"), x("a"), x("b")}, batches, false); diff == "" {
		t.Error("an execution of batch 2 before batch 1 passed")
	}
}
