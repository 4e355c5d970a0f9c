package engine

import (
	"errors"
	"fmt"
)

// ErrBadScenario is wrapped by the error ParseScenario and RunScenario
// return for a scenario that is not well formed (ENG-23); the conformance
// protocol answers it "bad-scenario" (PROT-32). The runs ENG-151 puts
// outside the engine level's domain are well formed: they run (see the
// package documentation), never returning it.
var ErrBadScenario = errors.New("bad scenario")

func badScenario(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadScenario, fmt.Sprintf(format, args...))
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
