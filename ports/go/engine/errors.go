package engine

import (
	"errors"
	"fmt"
)

// ErrBadScenario is wrapped by every error RunScenario returns: the
// scenario is not well formed (ENG-23), or one of its runs leaves the engine
// level's domain (ErrOutsideDomain). The conformance protocol answers it
// "bad-scenario" (PROT-32, PROT-43).
var ErrBadScenario = errors.New("bad scenario")

// ErrOutsideDomain is wrapped by the error of a run outside the engine
// level's domain (ENG-151): a decision resume naming a pending call twice,
// an approval pause beside a call of a HITL tool, or an approved HITL call
// whose body returns null. It wraps ErrBadScenario.
var ErrOutsideDomain = fmt.Errorf("%w: outside the engine level's domain (ENG-151)", ErrBadScenario)

func badScenario(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadScenario, fmt.Sprintf(format, args...))
}

func outsideDomain(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrOutsideDomain, fmt.Sprintf(format, args...))
}

// The kinds of a failed run (ENG-141).
const (
	errScriptExhausted      = "script-exhausted"
	errInvalidFinalResponse = "invalid-final-response"
	errApprovalNeedsState   = "approval-needs-state-accessor"
	errDecisionsNeedState   = "decisions-need-state-accessor"
	errTypeError            = "type-error"
)

// runFailure ends a run: its end names the kind, and the dispatch for
// script-exhausted (ENG-20, ENG-141). The message is informative.
type runFailure struct {
	kind     string
	message  string
	dispatch int  // the failed dispatch, for script-exhausted
	unbuilt  bool // the run failed before it was built: no reason, no config (ENG-143)
}

func (f *runFailure) Error() string { return f.kind + ": " + f.message }
