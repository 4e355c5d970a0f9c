package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"doomloop.invalid/harness/jsvalue"
	doomloop "doomloop.invalid/ports/go"
)

// A scenario is data (spec §15.1.4, ENG-16): the doomLoop option, the tool
// declarations, DoomLoopDetected handlers with fixed outcomes, the caller's
// request, an initial state and the runs, each a fresh turn or a decision
// resume with its own scripted model. ParseScenario checks all of it before
// any run starts (ENG-23).

// ToolKind is what kind of tool a declaration is (ENG-16, ENG-18).
type ToolKind string

// The tool kinds.
const (
	Executable ToolKind = "executable" // a body
	Approval   ToolKind = "approval"   // a body that needs the caller's approval
	HITL       ToolKind = "hitl"       // a human-in-the-loop handler pauses the run
	Manual     ToolKind = "manual"     // no body: the caller runs it
)

// Tool is one declared tool.
type Tool struct {
	Name string
	Kind ToolKind
	// LoopKey is the loopKey declaration: jsvalue.Undefined when absent,
	// false, a field list ([]any), or a named function form (*LoopKeyForm).
	LoopKey any
	// Result is what the body returns (default {"ok": true}).
	Result any
	// Fails, when set, makes the body fail with that message (ENG-21).
	Fails *string
}

// executable: a body, an approval requirement or a HITL handler (ENG-18).
func (t *Tool) executable() bool { return t != nil && t.Kind != Manual }

// Handler is a DoomLoopDetected handler with a fixed outcome (ENG-91..ENG-97).
type Handler struct {
	Tool    *string // registered for this tool name only
	When    *Object // payload members that must be equal
	Returns any     // the raw result; jsvalue.Undefined: returns nothing
	Fails   *string // the handler fails with this message
}

// Request is the caller's request (ENG-16).
type Request struct {
	Model  string
	Models []string // nil: not given
	// ToolChoice is jsvalue.Undefined when not given (ENG-145).
	ToolChoice any
	// ToolChoiceFrom and StopWhenSteps are counts: JSON integers, held as
	// JS holds them (a double with no fraction, however large).
	ToolChoiceFrom float64
	// StopWhenSteps is nil without stopWhen (ENG-132).
	StopWhenSteps *float64
	// AllowFinalResponse as given; only false turns it off (ENG-23, ENG-147).
	AllowFinalResponse any
}

// Turn is one run of the session: a fresh turn (Input set) or a decision
// resume (non-empty Approve or Reject).
type Turn struct {
	DoomLoop any   // jsvalue.Undefined: the scenario's option applies
	Input    []any // the new input items; nil without input
	// EmptyText is an input that was the empty string: later dispatches may leave it out (ENG-174)
	EmptyText bool
	Approve   []string
	Reject    []string
	Model     [][]any // the scripted responses' output items
}

// decisionResume: a non-empty approval or rejection list (ENG-158).
func (t *Turn) decisionResume() bool { return len(t.Approve) > 0 || len(t.Reject) > 0 }

// Scenario is a whole engine scenario.
type Scenario struct {
	ID            string
	DoomLoop      any // jsvalue.Undefined: detection off unless a run gives its own
	Tools         []*Tool
	Handlers      []Handler
	Request       Request
	StateAccessor bool
	InitialState  *Object // nil: none
	Runs          []Turn
	byName        map[string]*Tool
}

// tool is the declared tool of that name, or nil: an unknown call (ENG-18).
func (s *Scenario) tool(name string) *Tool { return s.byName[name] }

// ParseScenario reads a scenario from its JSON text. Anything not well
// formed (ENG-23) is an error wrapping ErrBadScenario that names the part.
func ParseScenario(data []byte) (*Scenario, error) {
	parsed, err := jsvalue.ParseOrdered(data)
	if err != nil {
		return nil, badScenario("%v", err)
	}
	return readScenario(parsed)
}

// fields reads the members of one object of the format, refusing a member
// the format does not define, so that a typo is an error (ENG-23).
type fields struct {
	obj   *Object
	where string
	err   error
}

func object(v any, where string, allowed ...string) *fields {
	o := asObject(v)
	if o == nil {
		return &fields{where: where, err: badScenario("%s: expected an object, got %s", where, typeName(v))}
	}
	f := &fields{obj: o, where: where}
	var unknown []string
	for _, name := range o.Names() {
		if !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		f.err = badScenario("%s: unknown member(s) %s", where, strings.Join(unknown, ", "))
	}
	return f
}

func (f *fields) fail(format string, args ...any) {
	if f.err == nil {
		f.err = badScenario(f.where+"."+format, args...)
	}
}

func (f *fields) get(name string) (any, bool) { return f.obj.Get(name) }

// str reads a string member; def when absent (required when def is nil).
func (f *fields) str(name string, def *string) string {
	v, ok := f.get(name)
	if !ok && def != nil {
		return *def
	}
	s, isString := v.(string)
	if !isString {
		f.fail("%s: expected a string, got %s", name, typeName(v))
	}
	return s
}

// optionalStr reads a member that is a string or null/absent (nil).
func (f *fields) optionalStr(name string) *string {
	if v, _ := f.get(name); v == nil {
		return nil
	}
	s := f.str(name, nil)
	return &s
}

// list reads an array member; def when absent (required when def is nil).
func (f *fields) list(name string, def []any) []any {
	v, ok := f.get(name)
	if !ok && def != nil {
		return def
	}
	items, isList := v.([]any)
	if !isList {
		f.fail("%s: expected a list, got %s", name, typeName(v))
	}
	return items
}

func (f *fields) strings(name string) []string {
	var out []string
	for i, item := range f.list(name, []any{}) {
		s, ok := item.(string)
		if !ok {
			f.fail("%s[%d]: expected a string, got %s", name, i, typeName(item))
		}
		out = append(out, s)
	}
	return out
}

// count reads a member that is an integer, as JS Number.isInteger reads it
// (null, true and false are not counts, ENG-23).
func (f *fields) count(name string) (float64, bool) {
	v, ok := f.get(name)
	if !ok {
		return 0, false
	}
	if n, isNumber := v.(float64); isNumber && math.Mod(n, 1) == 0 { // NaN for ±Inf
		return n, true
	}
	f.fail("%s: dispatch and step counts must be integers", name)
	return 0, false
}

// member returns a member's value, or jsvalue.Undefined when absent.
func (f *fields) member(name string) any { return f.obj.Value(name) }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case *Object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func readScenario(v any) (*Scenario, error) {
	f := object(v, "scenario", "id", "tools", "hooks", "request", "runs", "doomLoop", "stateAccessor", "initialState")
	if f.err != nil {
		return nil, f.err
	}
	s := &Scenario{ID: f.str("id", nil), DoomLoop: clone(f.member("doomLoop")), byName: map[string]*Tool{}}
	// ENG-23: only false turns the accessor off (JS value !== false)
	s.StateAccessor = f.member("stateAccessor") != false
	for i, raw := range f.list("tools", []any{}) {
		tool, err := readTool(raw, fmt.Sprintf("tools[%d]", i))
		if err != nil {
			return nil, err
		}
		if s.byName[tool.Name] != nil {
			return nil, badScenario("tools[%d].name: a second tool named %q", i, tool.Name)
		}
		s.byName[tool.Name] = tool
		s.Tools = append(s.Tools, tool)
	}
	for i, raw := range f.list("hooks", []any{}) {
		handler, err := readHandler(raw, fmt.Sprintf("hooks[%d]", i))
		if err != nil {
			return nil, err
		}
		s.Handlers = append(s.Handlers, handler)
	}
	request, err := readRequest(f.member("request"))
	if err != nil {
		return nil, err
	}
	s.Request = request
	if initial, _ := f.get("initialState"); initial != nil {
		if s.InitialState = asObject(initial); s.InitialState == nil {
			return nil, badScenario("initialState: expected an object, got %s", typeName(initial))
		}
		s.InitialState = clone(s.InitialState).(*Object)
	}
	for i, raw := range f.list("runs", nil) {
		turn, err := readTurn(raw, fmt.Sprintf("runs[%d]", i))
		if err != nil {
			return nil, err
		}
		s.Runs = append(s.Runs, turn)
	}
	return s, f.err
}

// option is a run's doomLoop option: its own, else the scenario's (ENG-24).
func (s *Scenario) option(t *Turn) any {
	if jsvalue.IsUndefined(t.DoomLoop) {
		return s.DoomLoop
	}
	return t.DoomLoop
}

var toolKinds = []ToolKind{Executable, Approval, HITL, Manual}

func readTool(v any, where string) (*Tool, error) {
	f := object(v, where, "name", "kind", "loopKey", "result", "fails")
	if f.err != nil {
		return nil, f.err
	}
	t := &Tool{Name: f.str("name", nil), Kind: Executable, LoopKey: jsvalue.Undefined{},
		Result: jsvalue.NewObject("ok", true), Fails: f.optionalStr("fails")}
	if kind, ok := f.get("kind"); ok {
		name, _ := kind.(string)
		if !slices.Contains(toolKinds, ToolKind(name)) {
			f.fail("kind: unknown tool kind %s", jsvalue.Stringify(kind))
		}
		t.Kind = ToolKind(name)
	}
	if result, ok := f.get("result"); ok {
		t.Result = clone(result)
	}
	if form, ok := f.get("loopKey"); ok {
		loopKey, err := readLoopKey(form, t.Name)
		if err != nil {
			return nil, err
		}
		t.LoopKey = loopKey
	}
	return t, f.err
}

func readHandler(v any, where string) (Handler, error) {
	f := object(v, where, "tool", "when", "returns", "fails")
	if f.err != nil {
		return Handler{}, f.err
	}
	h := Handler{Tool: f.optionalStr("tool"), Fails: f.optionalStr("fails"), Returns: clone(f.member("returns")),
		When: jsvalue.NewObject()}
	if when, ok := f.get("when"); ok {
		if h.When = asObject(when); h.When == nil {
			f.fail("when: expected an object, got %s", typeName(when))
		}
	}
	return h, f.err
}

func readRequest(v any) (Request, error) {
	if jsvalue.IsUndefined(v) {
		v = jsvalue.NewObject()
	}
	f := object(v, "request", "model", "models", "toolChoice", "toolChoiceFromDispatch", "stopWhenSteps",
		"allowFinalResponse")
	if f.err != nil {
		return Request{}, f.err
	}
	model := "cheap-model"
	r := Request{Model: f.str("model", &model), ToolChoice: clone(f.member("toolChoice")),
		AllowFinalResponse: clone(f.member("allowFinalResponse"))}
	if !jsvalue.IsUndefined(r.ToolChoice) { // ENG-172, ENG-173: not null, and it has a canonical form
		if _, err := doomloop.Canonicalize(jsvalue.Plain(r.ToolChoice)); r.ToolChoice == nil || err != nil {
			f.fail("toolChoice: null, or no canonical JSON form, is not a tool choice")
		}
	}
	if jsvalue.IsUndefined(r.AllowFinalResponse) {
		r.AllowFinalResponse = true
	}
	if models, _ := f.get("models"); models != nil {
		r.Models = f.strings("models")
		if r.Models == nil {
			r.Models = []string{}
		}
	}
	r.ToolChoiceFrom, _ = f.count("toolChoiceFromDispatch")
	if steps, ok := f.count("stopWhenSteps"); ok {
		r.StopWhenSteps = &steps
	}
	return r, f.err
}

func readTurn(v any, where string) (Turn, error) {
	f := object(v, where, "doomLoop", "input", "approve", "reject", "model")
	if f.err != nil {
		return Turn{}, f.err
	}
	t := Turn{DoomLoop: clone(f.member("doomLoop")), Approve: f.strings("approve"), Reject: f.strings("reject")}
	switch input := f.member("input").(type) {
	case string:
		t.Input = []any{jsvalue.NewObject("role", "user", "content", input)}
		t.EmptyText = input == ""
	case nil, jsvalue.Undefined:
	default:
		t.Input = []any{}
		for i, item := range f.list("input", nil) {
			if asObject(item) == nil {
				f.fail("input[%d]: expected an object, got %s", i, typeName(item))
			}
			t.Input = append(t.Input, clone(item))
		}
	}
	for i, raw := range f.list("model", []any{}) {
		output, err := readResponse(raw, fmt.Sprintf("%s.model[%d]", where, i))
		if err != nil {
			return Turn{}, err
		}
		t.Model = append(t.Model, output)
	}
	if t.Input == nil && !t.decisionResume() && f.err == nil {
		return t, badScenario("%s: a run needs input (fresh turn) or decisions", where)
	}
	return t, f.err
}

// readResponse checks one scripted response: every item has a string type,
// a function call its name, raw arguments and call id, and every
// output_text part of a message its text (ENG-23).
func readResponse(v any, where string) ([]any, error) {
	f := object(v, where, "output")
	if f.err != nil {
		return nil, f.err
	}
	var output []any
	for i, raw := range f.list("output", nil) {
		at := fmt.Sprintf("%s.output[%d]", where, i)
		item := asObject(raw)
		if item == nil {
			return nil, badScenario("%s: expected an object, got %s", at, typeName(raw))
		}
		kind, ok := item.Value("type").(string)
		if !ok {
			return nil, badScenario("%s.type: expected a string", at)
		}
		if kind == "function_call" {
			for _, name := range []string{"name", "arguments", "callId"} {
				if _, ok := item.Value(name).(string); !ok {
					return nil, badScenario("%s.%s: expected a string", at, name)
				}
			}
		}
		if kind == "message" { // ENG-177: the content is a list of objects
			content, ok := item.Value("content").([]any)
			if !ok {
				return nil, badScenario("%s.content: expected a list, got %s", at, typeName(item.Value("content")))
			}
			for j, part := range content {
				p := asObject(part)
				if p == nil {
					return nil, badScenario("%s.content[%d]: expected an object, got %s", at, j, typeName(part))
				}
				if p.Value("type") == "output_text" {
					if _, ok := p.Value("text").(string); !ok {
						return nil, badScenario("%s.content[%d].text: expected a string", at, j)
					}
				}
			}
		}
		output = append(output, clone(raw))
	}
	return output, f.err
}
