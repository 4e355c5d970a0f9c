package doomloop

// ResolveLadderAction returns the strongest rung the streak meets, checking
// stop, block (only when allowBlock), escalate (only when allowEscalate),
// steer, observe in that order; "" when none meets. A rung meets when it is
// enabled and streak >= its threshold.
func ResolveLadderAction(l Ladder, streak float64, allowBlock, allowEscalate bool) Action {
	order := [...]struct {
		rung    Action
		allowed bool
	}{
		{ActionStop, true},
		{ActionBlock, allowBlock},
		{ActionEscalate, allowEscalate},
		{ActionSteer, true},
		{ActionObserve, true},
	}
	for _, o := range order {
		if t := l.Threshold(o.rung); o.allowed && t.Enabled && streak >= t.At {
			return o.rung
		}
	}
	return ""
}
