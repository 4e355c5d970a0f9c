package doomloop

import (
	"math"

	"doomloop.invalid/harness/jsvalue"
)

// Action is a rung of the ladder; the empty Action means "no action".
type Action string

// The rungs, weakest first.
const (
	ActionObserve  Action = "observe"
	ActionSteer    Action = "steer"
	ActionEscalate Action = "escalate"
	ActionBlock    Action = "block"
	ActionStop     Action = "stop"
)

// Rungs lists the rungs from weakest to strongest.
var Rungs = [...]Action{ActionObserve, ActionSteer, ActionEscalate, ActionBlock, ActionStop}

// strength orders actions: observe < steer < escalate < block < stop.
func (a Action) strength() int {
	for i, r := range Rungs {
		if r == a {
			return i
		}
	}
	return -1
}

// Threshold is a rung's threshold: disabled, or a streak at which it fires.
type Threshold struct {
	Enabled bool
	At      float64
}

// Disabled is the threshold of a rung that never fires.
var Disabled = Threshold{}

// At makes an enabled threshold.
func At(n float64) Threshold { return Threshold{Enabled: true, At: n} }

func (t Threshold) json() any {
	if !t.Enabled {
		return false
	}
	return t.At
}

// Ladder holds the five thresholds.
type Ladder struct {
	Observe, Steer, Escalate, Block, Stop Threshold
}

// DefaultLadder is observe 2, steer off, escalate off, block 3, stop 6.
var DefaultLadder = Ladder{Observe: At(2), Steer: Disabled, Escalate: Disabled, Block: At(3), Stop: At(6)}

// Threshold returns the threshold of one rung.
func (l Ladder) Threshold(rung Action) Threshold {
	switch rung {
	case ActionObserve:
		return l.Observe
	case ActionSteer:
		return l.Steer
	case ActionEscalate:
		return l.Escalate
	case ActionBlock:
		return l.Block
	case ActionStop:
		return l.Stop
	}
	return Disabled
}

func (l *Ladder) set(rung Action, t Threshold) {
	switch rung {
	case ActionObserve:
		l.Observe = t
	case ActionSteer:
		l.Steer = t
	case ActionEscalate:
		l.Escalate = t
	case ActionBlock:
		l.Block = t
	case ActionStop:
		l.Stop = t
	}
}

// JSON returns the ladder's wire form.
func (l Ladder) JSON() map[string]any {
	out := make(map[string]any, 5)
	for _, r := range Rungs {
		out[string(r)] = l.Threshold(r).json()
	}
	return out
}

// TextOptions are the text-detection options, kept exactly as the option
// gave them, with no range checks (spec §10.3): Enabled a boolean, the four
// others numbers (float64: 0, negatives, fractions, NaN and ±Inf included,
// with JS slice and comparison semantics) or a BigInt. Nil or Undefined
// means the default.
type TextOptions struct {
	Enabled          any
	MaxPeriodTokens  any
	MinRepeats       any
	MinCoveredTokens any
	MaxWindowTokens  any
}

// DefaultTextOptions: enabled, 16, 4, 12, 400.
var DefaultTextOptions = TextOptions{true, 16.0, 4.0, 12.0, 400.0}

var textOptionNames = [...]string{"enabled", "maxPeriodTokens", "minRepeats", "minCoveredTokens", "maxWindowTokens"}

func (t *TextOptions) fields() [5]*any {
	return [5]*any{&t.Enabled, &t.MaxPeriodTokens, &t.MinRepeats, &t.MinCoveredTokens, &t.MaxWindowTokens}
}

// JSON returns the options' wire form.
func (t TextOptions) JSON() map[string]any {
	out := make(map[string]any, 5)
	for i, f := range t.fields() {
		out[textOptionNames[i]] = *f
	}
	return out
}

// Escalation is a configured escalation mechanism and its budget.
type Escalation struct {
	Model, Advisor       any // as given; meaningful only when Has... is set
	HasModel, HasAdvisor bool
	MaxEscalations       float64
}

// JSON returns the escalation's wire form.
func (e *Escalation) JSON() any {
	if e == nil {
		return nil
	}
	out := map[string]any{"maxEscalations": e.MaxEscalations}
	if e.HasModel {
		out["model"] = e.Model
	}
	if e.HasAdvisor {
		out["advisor"] = e.Advisor
	}
	return out
}

// DefaultMaxEscalations is the escalation budget when none valid is given.
const DefaultMaxEscalations = 2

// Config is a resolved doomLoop option.
type Config struct {
	Ladder     Ladder
	Text       TextOptions
	Escalation *Escalation // nil: no mechanism configured
}

// DefaultConfig is what the option true resolves to.
func DefaultConfig() *Config {
	return &Config{Ladder: DefaultLadder, Text: DefaultTextOptions}
}

// JSON returns the configuration's wire form.
func (c *Config) JSON() any {
	if c == nil {
		return nil
	}
	return map[string]any{"ladder": c.Ladder.JSON(), "text": c.Text.JSON(), "escalation": c.Escalation.JSON()}
}

// Warning codes of option resolution.
const (
	WarnBlockWithoutStop           = "block-without-stop"
	WarnDeadRung                   = "dead-rung"
	WarnEscalationRungUnconfigured = "escalation-rung-unconfigured"
	WarnEscalationUnused           = "escalation-unused"
)

// ConfigWarning is a resolution-time warning. Message is the SDK's exact
// text (spec §9.1), which the SDK passes alone to console.warn; Code (and
// Rung, ShadowedBy for a dead rung) are a kit convenience that follow from
// the message.
type ConfigWarning struct {
	Code       string
	Rung       Action // dead-rung only
	ShadowedBy Action // dead-rung only
	Message    string
}

// The four configuration warnings, byte for byte as the SDK writes them.
const (
	msgBlockWithoutStop = "[DoomLoop] ladder has block enabled with stop disabled: a model that keeps " +
		"re-issuing a blocked call loops indefinitely (each blocked round still costs a model request). " +
		"Bound the run with stopWhen, or enable the stop rung."
	msgEscalationUnused = "[DoomLoop] escalation config provided but the escalate ladder rung is disabled; " +
		"set ladder.escalate to a streak threshold for recovery to trigger."
	msgEscalationRungUnconfigured = "[DoomLoop] ladder.escalate is enabled but no escalation config " +
		"(model/advisor) was provided; the rung is skipped and verdicts fall through to weaker rungs."
)

func deadRungMessage(weak Action, weakAt float64, strong Action, strongAt float64) string {
	return `[DoomLoop] ladder rung "` + string(weak) + `" (` + jsvalue.FormatNumber(weakAt) +
		`) can never fire: stronger rung "` + string(strong) + `" (` + jsvalue.FormatNumber(strongAt) +
		") already wins at that streak (strongest crossed rung is applied)."
}

// ResolveOption resolves the doomLoop option: Undefined or false turn
// detection off (nil config); true means all defaults; any other value is
// read member by member (a value that is not an object has no members).
// Warnings are returned in the SDK's order; a caller that logs them passes
// each Message alone to its log, as the SDK does with console.warn.
//
// It fails with an error wrapping ErrTypeError where the SDK throws (spec
// §10.2): the option null, or an option whose text or escalation member is
// null. The ladder is read first, then escalation, then text (CFG-47): on a
// failure the warnings returned are those of what was read before it, which
// the SDK has printed by then. Text option values are copied unchanged,
// whatever their type (CFG-45): they are coerced where they are used
// (TXT-22, MON-59).
func ResolveOption(option any) (*Config, []ConfigWarning, error) {
	if jsvalue.IsUndefined(option) || option == false {
		return nil, nil, nil
	}
	if option == nil {
		return nil, nil, &typeError{"Cannot read properties of null (reading 'ladder')"}
	}
	members, _ := asObject(option)
	cfg := &Config{Ladder: resolveLadder(member(members, "ladder"))}
	warnings := ladderWarnings(cfg.Ladder)
	escalation := member(members, "escalation")
	if escalation == nil {
		return nil, warnings, &typeError{"Cannot read properties of null (reading 'model')"}
	}
	var escWarnings []ConfigWarning
	cfg.Escalation, escWarnings = resolveEscalation(escalation, cfg.Ladder)
	warnings = append(warnings, escWarnings...)
	text, err := resolveText(member(members, "text"))
	if err != nil {
		return nil, warnings, err
	}
	cfg.Text = text
	return cfg, warnings, nil
}

func sanitizeThreshold(given any, def Threshold) Threshold {
	if given == false {
		return Disabled
	}
	if f, ok := finiteNumber(given); ok && f >= 1 {
		return At(math.Floor(f))
	}
	return def
}

func resolveLadder(given any) Ladder {
	members, _ := asObject(given)
	var l Ladder
	for _, r := range Rungs {
		l.set(r, sanitizeThreshold(member(members, string(r)), DefaultLadder.Threshold(r)))
	}
	return l
}

func ladderWarnings(l Ladder) []ConfigWarning {
	var out []ConfigWarning
	if l.Block.Enabled && !l.Stop.Enabled {
		out = append(out, ConfigWarning{Code: WarnBlockWithoutStop, Message: msgBlockWithoutStop})
	}
	for i, r := range Rungs {
		own := l.Threshold(r)
		if !own.Enabled {
			continue
		}
		for _, s := range Rungs[i+1:] {
			theirs := l.Threshold(s)
			if theirs.Enabled && own.At >= theirs.At {
				out = append(out, ConfigWarning{Code: WarnDeadRung, Rung: r, ShadowedBy: s,
					Message: deadRungMessage(r, own.At, s, theirs.At)})
				break
			}
		}
	}
	return out
}

// resolveText reads the text options: false disables detection with the
// default values; absent, true or a non-object gives the defaults; in an
// object each member is taken as given, null and Undefined falling back to
// the default (JS "??"). null itself is a TypeError (spec §10.2).
func resolveText(given any) (TextOptions, error) {
	t := DefaultTextOptions
	if given == false {
		t.Enabled = false
		return t, nil
	}
	if given == nil {
		return t, &typeError{"Cannot read properties of null (reading 'enabled')"}
	}
	members, ok := asObject(given)
	if !ok {
		return t, nil
	}
	for i, f := range t.fields() {
		if v := member(members, textOptionNames[i]); present(v) {
			*f = v
		}
	}
	return t, nil
}

// resolveEscalation reads the escalation member (never null here). As in
// the SDK, model counts as given when it is not Undefined (null included)
// and advisor when it is neither Undefined nor false (spec §10.1).
func resolveEscalation(given any, l Ladder) (*Escalation, []ConfigWarning) {
	members, _ := asObject(given)
	model, advisor := member(members, "model"), member(members, "advisor")
	hasModel := !jsvalue.IsUndefined(model)
	hasAdvisor := !jsvalue.IsUndefined(advisor) && advisor != false
	if !hasModel && !hasAdvisor {
		if l.Escalate.Enabled {
			return nil, []ConfigWarning{{Code: WarnEscalationRungUnconfigured, Message: msgEscalationRungUnconfigured}}
		}
		return nil, nil
	}
	e := &Escalation{MaxEscalations: DefaultMaxEscalations, HasModel: hasModel, HasAdvisor: hasAdvisor}
	if hasModel {
		e.Model = model
	}
	if hasAdvisor {
		e.Advisor = advisor
	}
	if f, ok := finiteNumber(member(members, "maxEscalations")); ok && f >= 1 {
		e.MaxEscalations = math.Floor(f)
	}
	if !l.Escalate.Enabled {
		return e, []ConfigWarning{{Code: WarnEscalationUnused, Message: msgEscalationUnused}}
	}
	return e, nil
}
