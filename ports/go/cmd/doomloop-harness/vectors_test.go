package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"doomloop.invalid/harness"
	doomloop "doomloop.invalid/ports/go"
)

// vectorRoot is the repository's vector directory, relative to this package.
var vectorRoot = filepath.Join("..", "..", "..", "..", "vectors")

func readJSON(t *testing.T, path string) (any, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	v, err := doomloop.ParseJSON(data)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	return v, data
}

// TestVectors replays every committed vector (vectors/manifest.json) through
// the same request dispatcher the harness binary uses, skipping visibly the
// vectors that need a feature this port does not declare.
func TestVectors(t *testing.T) {
	manifestPath := filepath.Join(vectorRoot, "manifest.json")
	if _, err := os.Stat(manifestPath); err != nil {
		t.Skipf("no vector manifest at %s: %v", manifestPath, err)
	}
	manifest, _ := readJSON(t, manifestPath)
	declared := map[string]bool{}
	for _, f := range (newPort()).Features() {
		declared[f] = true
	}
	files, _ := manifest.(map[string]any)["files"].([]any)
	if len(files) == 0 {
		t.Fatal("the manifest lists no files")
	}
	total := 0
	for _, raw := range files {
		entry := raw.(map[string]any)
		rel := entry["path"].(string)
		t.Run(rel, func(t *testing.T) {
			doc, data := readJSON(t, filepath.Join(vectorRoot, filepath.FromSlash(rel)))
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != entry["sha256"] {
				t.Errorf("sha256 %s does not match the manifest's %v", got, entry["sha256"])
			}
			vectors := doc.(map[string]any)["vectors"].([]any)
			scenarios := rawScenarios(t, data)
			if want, _ := entry["vectors"].(float64); int(want) != len(vectors) {
				t.Errorf("%d vectors, the manifest says %v", len(vectors), entry["vectors"])
			}
			total += len(vectors)
			for i, rv := range vectors {
				vector := rv.(map[string]any)
				t.Run(vector["id"].(string), func(t *testing.T) {
					var missing []string
					for _, f := range vector["features"].([]any) {
						if !declared[f.(string)] {
							missing = append(missing, f.(string))
						}
					}
					if len(missing) > 0 {
						t.Skipf("needs undeclared feature(s): %s", strings.Join(missing, ", "))
					}
					if _, engineVector := vector["scenario"]; engineVector {
						replayEngine(t, vector, scenarios[i])
						return
					}
					replay(t, vector)
				})
			}
		})
	}
	t.Logf("%d vectors in %d files", total, len(files))
}

func replay(t *testing.T, vector map[string]any) {
	server := harness.NewServer(newPort())
	steps := vector["steps"].([]any)
	session := ""
	needsMonitor := false
	for _, raw := range steps {
		op := raw.(map[string]any)["op"].(string)
		if op == "resume" || harness.IsMonitorOp(op) {
			needsMonitor = true
		}
	}
	create := func(state any, hasState bool) {
		req := map[string]any{"op": "create", "option": vector["option"]}
		if hasState {
			req["state"] = state
		}
		result, err := server.Dispatch("create", req)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		session = result.(map[string]any)["session"].(string)
	}
	if needsMonitor {
		state, has := vector["initialState"]
		create(state, has)
	}
	for i, raw := range steps {
		step := raw.(map[string]any)
		op := step["op"].(string)
		req := map[string]any{}
		for k, v := range step {
			if k != "op" && k != "expect" {
				req[k] = v
			}
		}
		sent := op
		if op == "resume" {
			sent = "getState"
		}
		if needsMonitor {
			req["session"] = session
		}
		result, opErr := server.Dispatch(sent, req)
		result = doomloop.EncodeTagged(result) // as HandleLine writes it
		expect := step["expect"].(map[string]any)
		where := fmt.Sprintf("step %d (%s)", i, op)
		if wantErr, ok := expect["error"]; ok {
			// {"error": CODE, "message"?: M}: a canonicalization message is
			// the SDK's text and is compared when the vector gives it (spec §9.3)
			message, hasMessage := expect["message"]
			if opErr == nil || opErr.Code != wantErr || (hasMessage && opErr.Message != message) {
				t.Fatalf("%s: want error %v %v, got result %v / error %v", where, wantErr, message, result, opErr)
			}
			continue
		}
		if opErr != nil {
			t.Fatalf("%s: unexpected error %v", where, opErr)
		}
		// every part is compared, warning messages and loop-key warnings
		// included: the texts are the SDK's (spec §9.1, §9.2)
		actual := roundTrip(t, result)
		if diff := compare(expect["result"], actual, "$"); diff != "" {
			t.Fatalf("%s: %s", where, diff)
		}
		if op == "resume" {
			old := session
			create(actual, true)
			if _, err := server.Dispatch("close", map[string]any{"session": old}); err != nil {
				t.Fatalf("close: %v", err)
			}
		}
	}
}

// roundTrip writes a result as JSON text and reads it back, as the
// protocol would carry it.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	text, err := doomloop.AppendJSON(nil, v)
	if err != nil {
		t.Fatalf("result has no JSON form: %v", err)
	}
	back, err := doomloop.ParseJSON(text)
	if err != nil {
		t.Fatalf("re-reading %s: %v", text, err)
	}
	return back
}

// compare applies the vector comparison rule: numbers as doubles, strings
// exactly, arrays in order, objects by member set. It returns "" when
// equal, else the JSON path of the first difference.
func compare(want, got any, path string) string {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		if !ok || !(g == w || (math.IsNaN(g) && math.IsNaN(w))) {
			return fmt.Sprintf("%s: want %v, got %v", path, w, got)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want array %v, got %v", path, w, got)
		}
		for i := range w {
			if d := compare(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want object, got %v", path, got)
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, dup := w[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			if inW != inG {
				return fmt.Sprintf("%s.%s: present in want %v, in got %v", path, k, inW, inG)
			}
			if d := compare(wv, gv, path+"."+k); d != "" {
				return d
			}
		}
	default:
		if want != got {
			return fmt.Sprintf("%s: want %#v, got %#v", path, want, got)
		}
	}
	return ""
}
