// Command gomutate measures the Go port's mutation score against the
// committed conformance vectors alone (issue 14, item 4), and the Go
// engine's against the engine vectors alone (issue 26).
//
//	cd tests/mutation/gomutate && go run . [-files monitor.go,text.go] [-limit N] [-list]
//	go run . -package engine   # the Go engine (ports/go/engine), judged by the engine vectors
//	go run . -resume    # judge the mutants the results file does not hold yet
//	go run . -rejudge   # ... and judge its survivors again (after new vectors)
//	go run . -rejudge -match REGEXP  # ... only the survivors whose key matches
//	go run . -rejudge -again REGEXP  # ... and the mutants whose key matches
//
// Mutants are made by a small operator set of our own, named as Gremlins
// names them (ARITHMETIC_BASE, CONDITIONALS_BOUNDARY, CONDITIONALS_NEGATION,
// INCREMENT_DECREMENT, INVERT_NEGATIVES, INVERT_LOGICAL, INVERT_LOOPCTRL,
// INVERT_ASSIGNMENTS, REMOVE_SELF_ASSIGNMENTS, INVERT_BITWISE,
// INVERT_BWASSIGN) plus three of Cosmic Ray's, as for the reference
// (REPLACE_TRUE_FALSE, NUMBER_REPLACER: n+1 and n-1, REMOVE_NOT). Gremlins
// itself installs here but cannot judge by the vectors alone: it runs the
// package's whole test suite, and it refuses to start while any test fails.
//
// Every non-test file of the port's root package (the monitor) is mutated,
// or with -package engine every non-test file of the engine package; the
// harness module (ports/go/harness: protocol and JS-value glue) and the
// harness binary (cmd/) are not. Each mutant is compiled from an overlay
// (go test -overlay), so no file of the tree is rewritten, and judged by
// TestVectors of cmd/doomloop-harness alone (-run '^TestVectors$'; for the
// engine only its engine vectors, -run '^TestVectors$//engine-'). The
// unmutated port is replayed first: a mutant is killed when a vector the
// clean port passes does not pass (a failure, a crash or a timeout);
// vectors the clean port already fails judge nothing. A mutant that does
// not compile is "not viable" and leaves the score, as in Stryker.
//
// Writes tests/mutation/go/results.json (the engine's:
// tests/mutation/go-engine/results.json); tests/mutation/ports_report.py
// renders them with their triage.
//
// -rejudge serves new vectors: a mutant a vector killed stays killed when
// vectors are added (the vector still fails), so only the survivors (and
// the mutants not judged yet) are judged again, against the vectors the
// clean port passes now. Each such pass is recorded in the results file
// ("rejudged"), and a survivor it kills is marked "rejudged": true.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Mutant is one change of one token of one file.
type Mutant struct {
	File     string `json:"file"` // relative to the port, e.g. "monitor.go"
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Operator string `json:"operator"`
	Original string `json:"original"` // the replaced text
	Mutated  string `json:"mutated"`  // its replacement
	Code     string `json:"code"`     // the original line, trimmed
	offset   int
}

// Outcome is a mutant's verdict.
type Outcome struct {
	Mutant
	Status  string  `json:"status"` // killed | timeout | survived | not-viable
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
	// Rejudged marks a mutant that survived an earlier pass and was judged
	// again by -rejudge.
	Rejudged bool `json:"rejudged,omitempty"`
}

// Rejudge is one -rejudge pass: the vectors it judged by, how many earlier
// survivors it had to judge again, how many it did (fewer when it was
// stopped) and how many of them it killed.
type Rejudge struct {
	Before      int `json:"before"` // the vectors the clean port passed in the results judged again
	CleanPassed int `json:"clean_passed"`
	Survivors   int `json:"survivors"`
	Again       int `json:"again,omitempty"` // mutants judged again by -again, whatever their outcome
	Judged      int `json:"judged"`
	Killed      int `json:"killed"`
	// Changed marks a pass over vectors that were redrawn, not only added
	// (-changed-vectors): the mutants killed before it were killed by the
	// earlier vectors and are not judged again.
	Changed bool    `json:"changed_vectors,omitempty"`
	Seconds float64 `json:"seconds"`
}

type run struct {
	passed  map[string]bool
	failed  []string
	ran     bool
	output  string
	logs    map[string]string // a vector's test output
	timeout bool
	err     error
}

var (
	portDir  = flag.String("port", filepath.Join("..", "..", "..", "ports", "go"), "the Go port's module directory")
	pkg      = flag.String("package", ".", "the package to mutate, a directory of the port: . (the monitor) or engine")
	out      = flag.String("out", "", "results file (none with -list or -files); default ../go/results.json, for -package engine ../go-engine/results.json")
	only     = flag.String("files", "", "comma-separated file names to mutate (a trial run: nothing is written)")
	limit    = flag.Int("limit", 0, "mutate only the first N mutants (a trial run: nothing is written)")
	list     = flag.Bool("list", false, "list the mutants and exit")
	timeout  = flag.Duration("timeout", 90*time.Second, "time limit of one mutant's build and replay")
	progress = flag.Int("progress", 25, "print a progress line every N mutants")
	resume   = flag.Bool("resume", false, "keep the outcomes already in the results file and judge only the others")
	rejudge  = flag.Bool("rejudge", false, "as -resume, but also judge again the mutants the results file says survived (after vectors were added)")
	changed  = flag.Bool("changed-vectors", false, "with -rejudge: accept a clean replay that passes fewer vectors (vectors were redrawn, not only added); the pass is marked, since its killed mutants are not judged again")
	again    = flag.String("again", "", "with -rejudge: also judge again the mutants whose key matches this regular expression, whatever their outcome (e.g. after the vector that killed them was replaced)")
	match    = flag.String("match", "", "with -rejudge: judge again only the survivors whose key (file:line:col OPERATOR mutated) matches this regular expression")
)

// judgedBy is the -run pattern of the replay: every vector, or the engine's.
var judgedBy = "^TestVectors$"

func main() {
	flag.Parse()
	if *out == "" {
		*out = filepath.Join("..", "go", "results.json")
		if *pkg == "engine" {
			*out = filepath.Join("..", "go-engine", "results.json")
		}
	}
	if *pkg == "engine" {
		judgedBy = "^TestVectors$//engine-"
	}
	port, err := filepath.Abs(*portDir)
	check(err)
	mutants, err := enumerate(port)
	check(err)
	if *list {
		for _, m := range mutants {
			fmt.Printf("%s:%d:%d %s %q -> %q\n", m.File, m.Line, m.Col, m.Operator, m.Original, m.Mutated)
		}
		fmt.Printf("%d mutants\n", len(mutants))
		return
	}
	trial := *only != "" || *limit > 0
	if *limit > 0 && *limit < len(mutants) {
		mutants = mutants[:*limit]
	}
	tmp, err := os.MkdirTemp("", "gomutate-")
	check(err)
	defer os.RemoveAll(tmp)

	started := time.Now()
	clean := replay(port, "", *timeout)
	if clean.err != nil || !clean.ran || len(clean.passed) == 0 {
		check(fmt.Errorf("the clean replay did not run: %v\n%s", clean.err, tail(clean.output)))
	}
	cleanSeconds := time.Since(started).Seconds()
	fmt.Printf("clean port: %d vectors pass, %d fail (they judge no mutant) in %.1f s; %d mutants\n",
		len(clean.passed), len(clean.failed), cleanSeconds, len(mutants))

	// Run in a fixed pseudo-random order, so that an interrupted job has judged a
	// uniform sample; -resume continues it from the results file.
	order := append([]Mutant{}, mutants...)
	sort.SliceStable(order, func(a, b int) bool { return keyHash(order[a]) < keyHash(order[b]) })
	done := map[string]Outcome{}
	spent := 0.0
	var history []Rejudge
	survivors := map[string]bool{} // the earlier survivors -rejudge judges again
	if (*resume || *rejudge) && !trial {
		var before int
		done, spent, history, before = previous(*out, len(clean.passed))
		if *rejudge {
			selected, err := regexp.Compile(*match)
			check(err)
			forced, err := regexp.Compile(*again)
			check(err)
			forcedCount := 0
			for k, o := range done {
				if (o.Status == "survived" && selected.MatchString(k)) || (*again != "" && forced.MatchString(k)) {
					survivors[k] = true // kept in the file until judged again
					if o.Status != "survived" {
						forcedCount++
					}
				}
			}
			history = append(history, Rejudge{Before: before, CleanPassed: len(clean.passed), Survivors: len(survivors) - forcedCount, Again: forcedCount, Changed: *changed})
			fmt.Printf("rejudging %d survivors\n", len(survivors))
		}
		fmt.Printf("resuming: %d mutants already judged\n", len(done)-len(survivors))
	}
	sources := map[string][]byte{}
	counts := map[string]int{}
	for k, o := range done {
		if !survivors[k] {
			counts[o.Status]++
		}
	}
	for i, m := range order {
		if _, ok := done[key(m)]; ok && !survivors[key(m)] {
			continue
		}
		src, ok := sources[m.File]
		if !ok {
			src, err = os.ReadFile(filepath.Join(port, m.File))
			check(err)
			sources[m.File] = src
		}
		o := judge(port, tmp, src, m, clean)
		if survivors[key(m)] {
			o.Rejudged = true
			pass := &history[len(history)-1]
			pass.Seconds = round(pass.Seconds + o.Seconds)
			pass.Judged++
			if o.Status == "killed" || o.Status == "timeout" {
				pass.Killed++
				fmt.Printf("  killed on rejudging %s:%d:%d %s %q -> %q by %s\n", m.File, m.Line, m.Col, m.Operator, m.Original, m.Mutated, o.Detail)
			}
		}
		done[key(m)] = o
		counts[o.Status]++
		if (i+1)%*progress == 0 || i+1 == len(order) {
			fmt.Printf("%d/%d %v %.0f s\n", i+1, len(order), counts, time.Since(started).Seconds())
		}
		if o.Status == "survived" {
			fmt.Printf("  survived %s:%d:%d %s %q -> %q: %s\n", m.File, m.Line, m.Col, m.Operator, m.Original, m.Mutated, m.Code)
		}
		if !trial {
			write(port, mutants, done, history, clean, cleanSeconds, spent+time.Since(started).Seconds())
		}
	}
	if !trial {
		fmt.Printf("wrote %s\n", *out)
	}
}

func key(m Mutant) string {
	return fmt.Sprintf("%s:%d:%d %s %s", m.File, m.Line, m.Col, m.Operator, m.Mutated)
}

func keyHash(m Mutant) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key(m)))
	return h.Sum64()
}

// previous reads the outcomes of an earlier run of the same job (same clean
// replay; with -rejudge, a clean replay that passes at least as many vectors)
// from the results file.
func previous(path string, cleanPassed int) (map[string]Outcome, float64, []Rejudge, int) {
	done := map[string]Outcome{}
	data, err := os.ReadFile(path)
	if err != nil {
		return done, 0, nil, 0
	}
	var old struct {
		CleanPassed int       `json:"clean_passed"`
		Wall        float64   `json:"wall_seconds"`
		Rejudged    []Rejudge `json:"rejudged"`
		Outcomes    []Outcome `json:"outcomes"`
	}
	check(json.Unmarshal(data, &old))
	switch {
	case *rejudge && old.CleanPassed > cleanPassed && !*changed:
		check(fmt.Errorf("the clean port passes %d vectors, the earlier results %d: a killed mutant may no longer be killed; run the whole job", cleanPassed, old.CleanPassed))
	case !*rejudge && old.CleanPassed != cleanPassed:
		fmt.Println("the earlier results judged another clean replay: starting over (-rejudge keeps them)")
		return done, 0, nil, 0
	}
	for _, o := range old.Outcomes {
		done[key(o.Mutant)] = o
	}
	return done, old.Wall, old.Rejudged, old.CleanPassed
}

// write replaces the results file (atomically) with every outcome so far, in
// source order.
func write(port string, mutants []Mutant, done map[string]Outcome, history []Rejudge, clean run, cleanSeconds, wall float64) {
	var outcomes []Outcome
	for _, m := range mutants {
		if o, ok := done[key(m)]; ok {
			outcomes = append(outcomes, o)
		}
	}
	report := map[string]any{
		"tool":          "tests/mutation/gomutate (own operator set, Gremlins' operator names + 3 of Cosmic Ray's)",
		"go":            runtime.Version(),
		"command":       strings.TrimSpace("cd tests/mutation/gomutate && go run . " + packageFlag()),
		"package":       *pkg,
		"run":           judgedBy,
		"clean_passed":  len(clean.passed),
		"clean_failed":  clean.failed,
		"clean_seconds": round(cleanSeconds),
		"wall_seconds":  round(wall),
		"workers":       1,
		"mutated_files": mutatedFiles(port),
		"mutants":       len(mutants),
		"complete":      len(outcomes) == len(mutants),
		"rejudged":      history,
		"outcomes":      outcomes,
	}
	data, err := json.MarshalIndent(report, "", "  ")
	check(err)
	check(os.MkdirAll(filepath.Dir(*out), 0o755))
	part := *out + ".part"
	check(os.WriteFile(part, append(data, '\n'), 0o644))
	check(os.Rename(part, *out))
}

func round(x float64) float64 { return float64(int(x*10+0.5)) / 10 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gomutate:", err)
		os.Exit(2)
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

func packageFlag() string {
	if *pkg == "." {
		return ""
	}
	return "-package " + *pkg
}

// packageFiles lists the package's non-test Go files as paths relative to
// the port, sorted.
func packageFiles(port string) []string {
	names, err := filepath.Glob(filepath.Join(port, *pkg, "*.go"))
	check(err)
	var files []string
	for _, n := range names {
		if base := filepath.Base(n); !strings.HasSuffix(base, "_test.go") {
			files = append(files, filepath.Join(*pkg, base))
		}
	}
	sort.Strings(files)
	return files
}

// mutatedFiles lists the package's files, or those of -files.
func mutatedFiles(port string) []string {
	wanted := map[string]bool{}
	for _, f := range strings.Split(*only, ",") {
		if f != "" {
			wanted[f] = true
		}
	}
	var files []string
	for _, name := range packageFiles(port) {
		if len(wanted) == 0 || wanted[filepath.Base(name)] {
			files = append(files, name)
		}
	}
	return files
}

// typeInfo type-checks the mutated package (imports from compiled export data).
func typeInfo(port string, fset *token.FileSet, files []*ast.File) (*types.Info, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".")
	cmd.Dir = filepath.Join(port, *pkg)
	listing, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(listing)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	config := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	_, err = config.Check(files[0].Name.Name, fset, files, info)
	return info, err
}

var binary = map[token.Token][]struct {
	op   string
	to   token.Token
	kind string // "number", "integer", "bool" or "" (any operand)
}{
	token.ADD:  {{"ARITHMETIC_BASE", token.SUB, "number"}},
	token.SUB:  {{"ARITHMETIC_BASE", token.ADD, "number"}},
	token.MUL:  {{"ARITHMETIC_BASE", token.QUO, "number"}},
	token.QUO:  {{"ARITHMETIC_BASE", token.MUL, "number"}},
	token.REM:  {{"ARITHMETIC_BASE", token.MUL, "number"}},
	token.LSS:  {{"CONDITIONALS_BOUNDARY", token.LEQ, ""}, {"CONDITIONALS_NEGATION", token.GEQ, ""}},
	token.LEQ:  {{"CONDITIONALS_BOUNDARY", token.LSS, ""}, {"CONDITIONALS_NEGATION", token.GTR, ""}},
	token.GTR:  {{"CONDITIONALS_BOUNDARY", token.GEQ, ""}, {"CONDITIONALS_NEGATION", token.LEQ, ""}},
	token.GEQ:  {{"CONDITIONALS_BOUNDARY", token.GTR, ""}, {"CONDITIONALS_NEGATION", token.LSS, ""}},
	token.EQL:  {{"CONDITIONALS_NEGATION", token.NEQ, ""}},
	token.NEQ:  {{"CONDITIONALS_NEGATION", token.EQL, ""}},
	token.LAND: {{"INVERT_LOGICAL", token.LOR, ""}},
	token.LOR:  {{"INVERT_LOGICAL", token.LAND, ""}},
	token.AND:  {{"INVERT_BITWISE", token.OR, "integer"}},
	token.OR:   {{"INVERT_BITWISE", token.AND, "integer"}},
	token.XOR:  {{"INVERT_BITWISE", token.AND, "integer"}},
	token.SHL:  {{"INVERT_BITWISE", token.SHR, "integer"}},
	token.SHR:  {{"INVERT_BITWISE", token.SHL, "integer"}},
}

var assign = map[token.Token][]struct {
	op string
	to token.Token
}{
	token.ADD_ASSIGN: {{"INVERT_ASSIGNMENTS", token.SUB_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.SUB_ASSIGN: {{"INVERT_ASSIGNMENTS", token.ADD_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.MUL_ASSIGN: {{"INVERT_ASSIGNMENTS", token.QUO_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.QUO_ASSIGN: {{"INVERT_ASSIGNMENTS", token.MUL_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.REM_ASSIGN: {{"INVERT_ASSIGNMENTS", token.MUL_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.AND_ASSIGN: {{"INVERT_BWASSIGN", token.OR_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.OR_ASSIGN:  {{"INVERT_BWASSIGN", token.AND_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.XOR_ASSIGN: {{"INVERT_BWASSIGN", token.AND_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.SHL_ASSIGN: {{"INVERT_BWASSIGN", token.SHR_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
	token.SHR_ASSIGN: {{"INVERT_BWASSIGN", token.SHL_ASSIGN}, {"REMOVE_SELF_ASSIGNMENTS", token.ASSIGN}},
}

func operandKind(info *types.Info, e ast.Expr) string {
	t := info.TypeOf(e)
	if t == nil {
		return ""
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	switch {
	case b.Info()&types.IsInteger != 0:
		return "integer"
	case b.Info()&types.IsNumeric != 0:
		return "number"
	case b.Info()&types.IsBoolean != 0:
		return "bool"
	}
	return ""
}

// enumerate lists every mutant of the root package, in file and position order.
func enumerate(port string) ([]Mutant, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	var names []string
	for _, name := range mutatedFiles(port) {
		f, err := parser.ParseFile(fset, filepath.Join(port, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files, names = append(files, f), append(names, name)
	}
	if *only != "" { // type-check the whole package even for a trial
		fset = token.NewFileSet()
		files, names = nil, nil
		for _, name := range packageFiles(port) {
			f, err := parser.ParseFile(fset, filepath.Join(port, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files, names = append(files, f), append(names, name)
		}
	}
	info, err := typeInfo(port, fset, files)
	if err != nil {
		return nil, fmt.Errorf("type-checking the port: %w", err)
	}
	wanted := map[string]bool{}
	for _, n := range mutatedFiles(port) {
		wanted[n] = true
	}
	var mutants []Mutant
	for i, f := range files {
		name := names[i]
		if !wanted[name] {
			continue
		}
		src, err := os.ReadFile(filepath.Join(port, name))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		add := func(pos token.Pos, operator, original, mutated string) {
			p := fset.Position(pos)
			mutants = append(mutants, Mutant{name, p.Line, p.Column, operator, original, mutated, strings.TrimSpace(lines[p.Line-1]), p.Offset})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok == token.IMPORT {
					return false
				}
			case *ast.ArrayType: // a length is part of a type
				return false
			case *ast.BinaryExpr:
				kind := operandKind(info, n.X)
				for _, c := range binary[n.Op] {
					if c.kind == "" || c.kind == kind || (c.kind == "number" && kind == "integer") {
						add(n.OpPos, c.op, n.Op.String(), c.to.String())
					}
				}
			case *ast.UnaryExpr:
				switch n.Op {
				case token.SUB:
					add(n.OpPos, "INVERT_NEGATIVES", "-", "")
				case token.NOT:
					add(n.OpPos, "REMOVE_NOT", "!", "")
				}
			case *ast.IncDecStmt:
				to := token.DEC
				if n.Tok == token.DEC {
					to = token.INC
				}
				add(n.TokPos, "INCREMENT_DECREMENT", n.Tok.String(), to.String())
			case *ast.AssignStmt:
				for _, c := range assign[n.Tok] {
					add(n.TokPos, c.op, n.Tok.String(), c.to.String())
				}
			case *ast.BranchStmt:
				switch n.Tok {
				case token.BREAK:
					add(n.TokPos, "INVERT_LOOPCTRL", "break", "continue")
				case token.CONTINUE:
					add(n.TokPos, "INVERT_LOOPCTRL", "continue", "break")
				}
			case *ast.Ident:
				if obj, ok := info.Uses[n]; ok && obj.Parent() == types.Universe {
					switch n.Name {
					case "true":
						add(n.NamePos, "REPLACE_TRUE_FALSE", "true", "false")
					case "false":
						add(n.NamePos, "REPLACE_TRUE_FALSE", "false", "true")
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.INT || n.Kind == token.FLOAT {
					add(n.ValuePos, "NUMBER_REPLACER", n.Value, "("+n.Value+" + 1)")
					add(n.ValuePos, "NUMBER_REPLACER", n.Value, "("+n.Value+" - 1)")
				}
			}
			return true
		})
	}
	sort.SliceStable(mutants, func(a, b int) bool {
		if mutants[a].File != mutants[b].File {
			return mutants[a].File < mutants[b].File
		}
		return mutants[a].offset < mutants[b].offset
	})
	return mutants, nil
}

// judge builds and replays one mutant through an overlay.
func judge(port, tmp string, src []byte, m Mutant, clean run) Outcome {
	started := time.Now()
	mutated := append(append(append([]byte{}, src[:m.offset]...), m.Mutated...), src[m.offset+len(m.Original):]...)
	file := filepath.Join(tmp, filepath.Base(m.File))
	check(os.WriteFile(file, mutated, 0o644))
	overlay := filepath.Join(tmp, "overlay.json")
	spec, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(port, m.File): file}})
	check(os.WriteFile(overlay, spec, 0o644))
	r := replay(port, overlay, *timeout)
	o := Outcome{Mutant: m, Seconds: round(time.Since(started).Seconds())}
	switch {
	case r.timeout:
		o.Status, o.Detail = "timeout", fmt.Sprintf("no result within %s", *timeout)
	case !r.ran:
		o.Status, o.Detail = "not-viable", firstLine(r.output)
	default:
		o.Status = "survived"
		// Name a vector that failed (in run order) before one that merely did
		// not pass: after a panic, the vectors that never ran pass no more.
		for _, name := range r.failed {
			if full := "TestVectors/" + name; clean.passed[full] {
				o.Status, o.Detail = "killed", name+": "+failureOf(r.logs[full]+r.output)
				break
			}
		}
		for _, name := range sortedKeys(clean.passed) {
			if o.Status == "killed" {
				break
			}
			if !r.passed[name] {
				o.Status, o.Detail = "killed", strings.TrimPrefix(name, "TestVectors/")+": "+failureOf(r.logs[name]+r.output)
				break
			}
		}
	}
	return o
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "FAIL") {
			return line
		}
	}
	return strings.TrimSpace(s)
}

// failureOf finds the message a failed vector logged (or the panic), for the report.
func failureOf(output string) string {
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "vectors_test.go:") || strings.HasPrefix(line, "panic:") {
			if len(line) > 300 {
				line = line[:300]
			}
			return line
		}
	}
	return "did not pass (the replay stopped)"
}

type event struct {
	Action string
	Test   string
	Output string
}

// replay runs TestVectors once (with the overlay, if any) and collects the
// vectors that passed.
func replay(port, overlay string, limit time.Duration) run {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	// -timeout makes the test binary itself stop: killing `go test` on the
	// deadline would leave a looping test binary running.
	args := []string{"test", "-count=1", "-vet=off", "-json", "-run", judgedBy, "-timeout", limit.String()}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/doomloop-harness")...)
	cmd.Dir = port
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{passed: map[string]bool{}, logs: map[string]string{}}
	if ctx.Err() != nil {
		r.timeout = true
		return r
	}
	var text strings.Builder
	scanner := bufio.NewScanner(&stdout)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		var e event
		if json.Unmarshal(scanner.Bytes(), &e) != nil {
			continue
		}
		leaf := strings.Contains(e.Test, ".json/")
		switch e.Action {
		case "run":
			r.ran = true
		case "pass":
			if leaf {
				r.passed[e.Test] = true
			}
		case "fail":
			if leaf {
				r.failed = append(r.failed, strings.TrimPrefix(e.Test, "TestVectors/"))
			}
		case "output", "build-output":
			text.WriteString(e.Output)
			if leaf {
				r.logs[e.Test] += e.Output
			}
		}
	}
	text.WriteString(stderr.String())
	r.output = text.String()
	if !r.ran {
		r.err = err
	}
	return r
}
