package harness

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"doomloop.invalid/harness/jsvalue"
)

// bare implements only the handshake.
type bare struct{ features []string }

func (bare) Implementation() Implementation {
	return Implementation{Name: "bare", Language: "go", Version: "0"}
}
func (b bare) Features() []string { return b.features }

// ladderPort adds resolveLadderAction, echoing allowEscalate.
type ladderPort struct {
	bare
	Codes
}

var errBoom = errors.New("boom")

func (ladderPort) ResolveLadderAction(_ Ladder, streak float64, _, allowEscalate bool) (string, error) {
	if streak < 0 {
		return "", errBoom
	}
	if allowEscalate {
		return "escalate", nil
	}
	return "", nil
}

func answers(t *testing.T, p Port, lines ...string) []map[string]any {
	t.Helper()
	var out, errs bytes.Buffer
	if code := Run(p, strings.NewReader(strings.Join(lines, "\n")), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		v, err := jsvalue.ParseJSON([]byte(line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, v.(map[string]any))
	}
	return got
}

func codeOf(r map[string]any) any {
	e, _ := r["error"].(map[string]any)
	return e["code"]
}

func TestUnimplementedOperationsAreUnknown(t *testing.T) {
	r := answers(t, bare{},
		`{"id":0,"op":"hello","protocol":1}`,
		`{"id":1,"op":"canonicalize","value":1}`,
		`{"id":2,"op":"create","option":true}`,
		`{"id":3,"op":"getState","session":"s1"}`,
		`{"id":4,"op":"resolveOption"}`)
	if f := r[0]["result"].(map[string]any)["features"]; len(f.([]any)) != 0 {
		t.Errorf("features %v", f)
	}
	for _, resp := range r[1:] {
		if codeOf(resp) != CodeUnknownOp {
			t.Errorf("%v: want unknown-op", resp)
		}
	}
}

const ladder = `"ladder":{"observe":2,"steer":3,"escalate":4,"block":5,"stop":6},"allowBlock":true`

func TestFlagsAndCodes(t *testing.T) {
	lines := []string{
		`{"id":1,"op":"resolveLadderAction",` + ladder + `,"streak":4,"allowEscalate":{"$js":"number","value":"NaN"}}`,
		`{"id":2,"op":"resolveLadderAction",` + ladder + `,"streak":4,"allowEscalate":[]}`,
		`{"id":3,"op":"resolveLadderAction",` + ladder + `,"streak":4}`,
		`{"id":4,"op":"resolveLadderAction",` + ladder + `,"streak":-1}`,
	}
	// without js-coercion a non-boolean flag is outside the domain
	plain := answers(t, ladderPort{Codes: Codes{errBoom: CodeTypeError}}, lines...)
	// with it, JS ToBoolean: NaN is false, [] is true
	coercing := answers(t, ladderPort{bare{[]string{"js-coercion"}}, nil}, lines...)
	want := [][2]any{{CodeBadRequest, nil}, {CodeBadRequest, "escalate"}, {"escalate", "escalate"}, {CodeTypeError, CodeInternal}}
	for i, w := range want {
		for j, r := range []map[string]any{plain[i], coercing[i]} {
			got := r["result"]
			if c := codeOf(r); c != nil {
				got = c
			}
			if got != w[j] {
				t.Errorf("line %d, port %d: %v, want %v", i+1, j, r, w[j])
			}
		}
	}
}

// TestHostileLines pins PROT-44: a line that is not UTF-8 is not JSON
// (never read with U+FFFD), and only JSON whitespace makes a blank line.
func TestHostileLines(t *testing.T) {
	r := answers(t, bare{},
		`{"id":1,"op":"canonicalize","value":"a`+"\xff"+`"}`,
		`{"id":2,"op":"canonicalize","value":"`+"\xed\xa0\x80"+`"}`,
		" \t\r",
		"\u00a0",
		"\u2028",
		`{"id":3,"op":"canonicalize","value":1}`)
	if len(r) != 5 {
		t.Fatalf("%d answers, want 5 (the blank line gets none): %v", len(r), r)
	}
	for i, resp := range r[:4] {
		if resp["id"] != nil || codeOf(resp) != CodeBadRequest {
			t.Errorf("line %d: %v, want id null and bad-request", i+1, resp)
		}
	}
}

// TestExternalModule builds, outside the checkout, a module that imports
// this package through a replace directive, as a port author's module
// would, and checks that its binary passes the handshake.
func TestExternalModule(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goMod := "module example.invalid/myport\n\ngo 1.22\n\nrequire doomloop.invalid/harness v0.0.0\n\n" +
		"replace doomloop.invalid/harness => " + here + "\n"
	mainGo := `package main

import (
	"os"

	"doomloop.invalid/harness"
)

type port struct{}

func (port) Implementation() harness.Implementation {
	return harness.Implementation{Name: "my-port", Language: "go", Version: "0.0.1"}
}

func (port) Features() []string { return nil }

func main() { os.Exit(harness.Serve(port{})) }
`
	for name, text := range map[string]string{"go.mod": goMod, "main.go": mainGo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// go test puts its own GOROOT/bin first on the PATH of tests
	build := exec.Command("go", "build", "-o", "myport", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(dir, "myport"))
	run.Stdin = strings.NewReader(`{"id":0,"op":"hello","protocol":1}` + "\n")
	out, err := run.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":0,"result":{"features":[],"implementation":{"language":"go","name":"my-port","version":"0.0.1"},"protocol":1}}` + "\n"
	if string(out) != want {
		t.Fatalf("hello answered %q", out)
	}
}

// scenarioPort answers runScenario with the scenario's text, as it arrived.
type scenarioPort struct {
	bare
	Codes
}

var errBadScenario = errors.New("no such scenario")

func (scenarioPort) RunScenario(scenario []byte) (any, error) {
	if string(scenario) == `"bad"` {
		return nil, errBadScenario
	}
	return string(scenario), nil
}

func TestRunScenarioGetsTheScenarioAsSent(t *testing.T) {
	port := scenarioPort{Codes: Codes{errBadScenario: CodeBadScenario}}
	r := answers(t, port,
		`{"id":1,"op":"runScenario","scenario":{"z":1,"a":{"y":[1,2.50,"\ud800"],"b":null}}}`,
		`{"id":2,"scenario":"first","op":"runScenario","scenario" : "bad"}`,
		`{"id":3,"op":"runScenario"}`)
	// member order, spacing and escapes reach the port untouched (ENG-105)
	if got := r[0]["result"]; got != `{"z":1,"a":{"y":[1,2.50,"\ud800"],"b":null}}` {
		t.Errorf("scenario text %q", got)
	}
	if codeOf(r[1]) != CodeBadScenario { // the last member of a repeated name, as JSON.parse keeps it
		t.Errorf("%v: want bad-scenario", r[1])
	}
	if codeOf(r[2]) != CodeBadRequest {
		t.Errorf("%v: want bad-request", r[2])
	}
	if codeOf(answers(t, bare{}, `{"id":4,"op":"runScenario","scenario":{}}`)[0]) != CodeUnknownOp {
		t.Error("a port without ScenarioRunner must answer unknown-op")
	}
	// Dispatch has no request text: the scenario is written again, members in code-unit order
	result, err := NewServer(port).Dispatch("runScenario", map[string]any{"scenario": map[string]any{"z": 1.0, "a": 2.0}})
	if err != nil || result != `{"a":2,"z":1}` {
		t.Errorf("Dispatch: %v %v", result, err)
	}
}

// A scenario as deep as a request line may nest (PROT-45: 10,000 levels, the
// request and the scenario object among them) reaches the port as sent, its
// member order kept (ENG-105): never written again with members sorted. One
// level deeper, the line is answered bad-request with id null, unparsed.
func TestRunScenarioGetsADeepScenarioAsSent(t *testing.T) {
	for depth, within := range map[int]bool{MaxLineDepth - 2: true, MaxLineDepth - 1: false} {
		scenario := `{"z":1,"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
		r := answers(t, scenarioPort{}, `{"id":1,"op":"runScenario","scenario":`+scenario+`}`)
		got, _ := r[0]["result"].(string)
		if within && got != scenario {
			t.Errorf("depth %d: answer %.80v…", depth, r[0])
		}
		if !within && (codeOf(r[0]) != CodeBadRequest || r[0]["id"] != nil) {
			t.Errorf("depth %d: want bad-request with id null, got %.80v…", depth, r[0])
		}
	}
}

// The bounds of a line (PROT-45): a line longer than MaxLineBytes is read to
// its end without being held and answered bad-request with id null; the next
// line is answered as usual. A line that long exactly is read.
func TestALineLongerThanTheBoundIsBadRequest(t *testing.T) {
	padded := func(id string, size int) string {
		head := `{"id":` + id + `,"op":"no-such-op","pad":"`
		return head + strings.Repeat("x", size-len(head)-2) + `"}`
	}
	input := padded("1", MaxLineBytes) + "\n" + padded("2", MaxLineBytes+1) + "\n" +
		`{"id":3,"op":"no-such-op"}` + "\n"
	var out, errs strings.Builder
	if status := Run(bare{}, strings.NewReader(input), &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{`"id":1`, `"id":null`, `"id":3`}
	if len(lines) != len(want) {
		t.Fatalf("%d answers, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		if !strings.Contains(line, want[i]) {
			t.Errorf("answer %d: %.120s, want %s", i, line, want[i])
		}
	}
	if !strings.Contains(lines[1], CodeBadRequest) {
		t.Errorf("the long line: %.120s, want bad-request", lines[1])
	}
}

// deeperThan counts the brackets outside strings, escapes included.
func TestDeeperThanSkipsStrings(t *testing.T) {
	for text, want := range map[string]bool{
		`[[1]]`:                false,
		`[[[1]]]`:              true,
		`["[[[[",{"a":"]]]"}]`: false,
		`["\"[[[["]`:           false,
		`[[{"a\\":[]}]]`:       true,
	} {
		if got := deeperThan([]byte(text), 2); got != want {
			t.Errorf("deeperThan(%s, 2) = %v, want %v", text, got, want)
		}
	}
}

func TestRawMemberReadsTheTextAsSent(t *testing.T) {
	for line, want := range map[string]string{
		`{"a":1, "scenario" :  {"b":[1, {}]} ,"c":2}`: `{"b":[1, {}]}`,
		`{"scenario":"x","scenario":[]}`:              `[]`,
		`{"scenario":{"b":`:                           "",
		`{"other":1}`:                                 "",
		`[]`:                                          "",
	} {
		text, found := rawMember([]byte(line), "scenario")
		if string(text) != want || found != (want != "") {
			t.Errorf("%s: %q %v", line, text, found)
		}
	}
}
