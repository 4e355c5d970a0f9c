package doomloop

// callCounts is one round's per-call counts (fingerprint -> consecutive
// rounds that exact call was issued in). When the round was declared, the
// counts of declared members live in a dense slice aligned with the
// declared list, so the hot path of a wide fan-out touches one hash map
// (the declaration's index) per call; other fingerprints live in a map.
// A count is always >= 1, so 0 in the dense slice means "no key".
type callCounts struct {
	set   *fpSet             // nil: everything is in extra
	dense []float64          // aligned with set.list
	extra map[string]float64 // keys outside set
	size  int                // number of keys
}

func newCallCounts(set *fpSet) *callCounts {
	c := &callCounts{set: set}
	if set != nil {
		c.dense = make([]float64, len(set.list))
	}
	return c
}

// get returns the count of fp (0 when absent).
func (c *callCounts) get(fp string) float64 {
	if c == nil {
		return 0
	}
	if c.set != nil {
		if i, ok := c.set.index[fp]; ok {
			return c.dense[i]
		}
	}
	return c.extra[fp]
}

// has reports whether fp is a key; idx is fp's index in set when the caller
// already knows it (-1 otherwise).
func (c *callCounts) has(fp string, set *fpSet, idx int) bool {
	if set != nil && set == c.set && idx >= 0 {
		return c.dense[idx] != 0
	}
	if c.set != nil {
		if i, ok := c.set.index[fp]; ok {
			return c.dense[i] != 0
		}
	}
	_, ok := c.extra[fp]
	return ok
}

// put sets the count of fp, with the same idx convention as has.
func (c *callCounts) put(fp string, set *fpSet, idx int, n float64) {
	if !(set != nil && set == c.set && idx >= 0) {
		idx = -1
		if c.set != nil {
			if i, ok := c.set.index[fp]; ok {
				idx = i
			}
		}
	}
	if idx >= 0 {
		if c.dense[idx] == 0 {
			c.size++
		}
		c.dense[idx] = n
		return
	}
	if c.extra == nil {
		c.extra = map[string]float64{}
	}
	if _, ok := c.extra[fp]; !ok {
		c.size++
	}
	c.extra[fp] = n
}

// each visits every key and count.
func (c *callCounts) each(visit func(fp string, n float64)) {
	if c == nil {
		return
	}
	for i, n := range c.dense {
		if n != 0 {
			visit(c.set.list[i], n)
		}
	}
	for fp, n := range c.extra {
		visit(fp, n)
	}
}

func (c *callCounts) len() int {
	if c == nil {
		return 0
	}
	return c.size
}
