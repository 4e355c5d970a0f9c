package doomloop

import (
	"fmt"
	"math"
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

// TextOptions are the text-detection options. Values are kept exactly as
// the option gave them (no type or range checks); the monitor's behaviour
// is specified only for a boolean Enabled and integers >= 1 elsewhere.
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

// ConfigWarning is a resolution-time warning. Code, Rung and ShadowedBy are
// normative; Message is for humans.
type ConfigWarning struct {
	Code       string
	Rung       Action // dead-rung only
	ShadowedBy Action // dead-rung only
	Message    string
}

// JSON returns the warning's wire form.
func (w ConfigWarning) JSON() map[string]any {
	out := map[string]any{"code": w.Code, "message": w.Message}
	if w.Rung != "" {
		out["rung"] = string(w.Rung)
		out["shadowedBy"] = string(w.ShadowedBy)
	}
	return out
}

// ResolveOption resolves the doomLoop option: nil, Undefined or false turn
// detection off (nil config); true means all defaults; an object is read
// member by member; anything else reads as an empty object. It never fails.
func ResolveOption(option any) (*Config, []ConfigWarning) {
	if option == nil || isUndefined(option) || option == false {
		return nil, nil
	}
	members, _ := asObject(option)
	cfg := &Config{Ladder: resolveLadder(member(members, "ladder"))}
	cfg.Text = resolveText(member(members, "text"))
	var escWarnings []ConfigWarning
	cfg.Escalation, escWarnings = resolveEscalation(member(members, "escalation"), cfg.Ladder)
	return cfg, append(ladderWarnings(cfg.Ladder), escWarnings...)
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
		out = append(out, ConfigWarning{Code: WarnBlockWithoutStop,
			Message: "block is enabled while stop is disabled: a blocked call can be re-issued forever"})
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
					Message: fmt.Sprintf("rung %s (at %s) can never fire: %s fires at %s",
						r, numberToString(own.At), s, numberToString(theirs.At))})
				break
			}
		}
	}
	return out
}

func resolveText(given any) TextOptions {
	if given == false {
		t := DefaultTextOptions
		t.Enabled = false
		return t
	}
	members, ok := asObject(given)
	t := DefaultTextOptions
	if !ok {
		return t
	}
	for i, f := range t.fields() {
		if v := member(members, textOptionNames[i]); present(v) {
			*f = v
		}
	}
	return t
}

func resolveEscalation(given any, l Ladder) (*Escalation, []ConfigWarning) {
	members, ok := asObject(given)
	model, advisor := member(members, "model"), member(members, "advisor")
	hasAdvisor := present(advisor) && advisor != false
	if !ok || !(present(model) || hasAdvisor) {
		if l.Escalate.Enabled {
			return nil, []ConfigWarning{{Code: WarnEscalationRungUnconfigured,
				Message: "the escalate rung is enabled but no escalation model or advisor is configured"}}
		}
		return nil, nil
	}
	e := &Escalation{MaxEscalations: DefaultMaxEscalations, HasModel: present(model), HasAdvisor: hasAdvisor}
	if e.HasModel {
		e.Model = model
	}
	if hasAdvisor {
		e.Advisor = advisor
	}
	if f, ok := finiteNumber(member(members, "maxEscalations")); ok && f >= 1 {
		e.MaxEscalations = math.Floor(f)
	}
	if !l.Escalate.Enabled {
		return e, []ConfigWarning{{Code: WarnEscalationUnused,
			Message: "escalation is configured but the escalate rung is disabled"}}
	}
	return e, nil
}
