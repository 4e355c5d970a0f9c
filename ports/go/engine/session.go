package engine

// RunScenario reads a scenario from its JSON text (§15.1.4) and runs it:
// the entry point of the conformance harness (PROT-31). A scenario that is
// not well formed, or a run outside the engine level's domain, is an error
// wrapping ErrBadScenario; a run that fails (an exhausted scripted model,
// ENG-20) is not an error: its transcript says how it ended.
func RunScenario(data []byte, opts ...Option) (*Transcript, error) {
	s, err := ParseScenario(data)
	if err != nil {
		return nil, err
	}
	return s.Run(opts...)
}

// Option tunes Run.
type Option func(*options)

type options struct {
	interleave func(callID string)
}

// WithInterleaving calls yield, on the call's own goroutine, before each
// step a call of a concurrent batch takes after its checkpoint (PreToolUse,
// the body, its Post* hook). A test may sleep or yield there to explore
// other interleavings of the batch (ENG-138); the run's outcome must not
// change, only the order of its events within the batch.
func WithInterleaving(yield func(callID string)) Option {
	return func(o *options) { o.interleave = yield }
}

// Run runs every run of the scenario in order, each over the state the
// previous one saved, kept by one in-memory state store (ENG-16, ENG-121:
// the store hands back JSON.parse(JSON.stringify(state))).
func (s *Scenario) Run(opts ...Option) (*Transcript, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var stored *Object
	if s.StateAccessor {
		stored = s.InitialState
	}
	t := &Transcript{Scenario: s.ID}
	for i := range s.Runs {
		var loaded *Object
		if stored != nil {
			loaded = roundTrip(stored).(*Object)
		}
		r, err := newRun(s, &s.Runs[i], i, loaded, &o).execute()
		if err != nil {
			return nil, err
		}
		if s.StateAccessor && r.State != nil {
			stored = r.State
		}
		t.Runs = append(t.Runs, r)
	}
	return t, nil
}
