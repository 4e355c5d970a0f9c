package doomloop

import "encoding/hex"

// digest is a raw SHA-256 fingerprint: the key of a declaration's index
// (held inline in the map, so a lookup follows no pointer).
type digest [32]byte

// digestOf parses a lowercase hex fingerprint; other strings have none.
func digestOf(fp string) (digest, bool) {
	var d digest
	if len(fp) != 64 {
		return d, false
	}
	for i := 0; i < 64; i++ {
		if c := fp[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return d, false
		}
	}
	_, err := hex.Decode(d[:], []byte(fp))
	return d, err == nil
}

// fpSet is one tool's declared fingerprint set: distinct, sorted, with an
// index (digest -> position). Its pointer identifies it for the per-round
// caches.
type fpSet struct {
	list    []string
	index   map[digest]int32
	summary string // round identity summary, computed on first use
}

// position returns the index of fp in the set, or -1.
func (s *fpSet) position(fp string) int {
	if d, ok := digestOf(fp); ok {
		if i, ok := s.index[d]; ok {
			return int(i)
		}
	}
	return -1
}

// countPair holds, for one member of a declared set, the current round's
// count (0: no key) and, when the counts are aligned, the prior round's.
type countPair struct {
	cur, prior float64
}

// callCounts is one round's per-call counts (fingerprint -> consecutive
// rounds that exact call was issued in). When the round was declared, the
// counts of declared members live in a slice aligned with the declared
// list, next to the prior round's count of the same member when the prior
// round was declared with an equal list; so the hot path of a wide fan-out
// touches one index lookup and one slot per call. Other fingerprints live
// in a map. A count is always >= 1.
type callCounts struct {
	set     *fpSet
	pairs   []countPair // aligned with set.list
	aligned bool        // pairs[i].prior is the prior count of set.list[i]
	extra   map[string]float64
	size    int // number of keys
}

func newCallCounts(set *fpSet) *callCounts {
	c := &callCounts{set: set}
	if set != nil {
		c.pairs = make([]countPair, len(set.list))
	}
	return c
}

// alignWith copies the counts of prior into the prior slots when prior was
// laid out on a list equal to c's; it reports whether it did. O(W), once
// per round.
func (c *callCounts) alignWith(prior *callCounts) bool {
	if c.set == nil || prior == nil || prior.set == nil ||
		(prior.set != c.set && !equalLists(prior.set.list, c.set.list)) {
		return false
	}
	for i := range c.pairs {
		c.pairs[i].prior = prior.pairs[i].cur
	}
	c.aligned = true
	return true
}

// slot returns the pair of fp when it is a member of c's set, given fp's
// position in set (or -1 when unknown).
func (c *callCounts) slot(fp string, set *fpSet, idx int) *countPair {
	if c == nil || c.set == nil {
		return nil
	}
	if set != c.set || idx < 0 {
		idx = c.set.position(fp)
	}
	if idx < 0 {
		return nil
	}
	return &c.pairs[idx]
}

// get returns the count of fp (0 when absent).
func (c *callCounts) get(fp string) float64 {
	if c == nil {
		return 0
	}
	if p := c.slot(fp, nil, -1); p != nil {
		return p.cur
	}
	return c.extra[fp]
}

// has reports whether fp is a key.
func (c *callCounts) has(fp string, set *fpSet, idx int) bool {
	if p := c.slot(fp, set, idx); p != nil {
		return p.cur != 0
	}
	_, ok := c.extra[fp]
	return ok
}

// put sets the count of fp.
func (c *callCounts) put(fp string, set *fpSet, idx int, n float64) {
	if p := c.slot(fp, set, idx); p != nil {
		if p.cur == 0 {
			c.size++
		}
		p.cur = n
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
	for i, p := range c.pairs {
		if p.cur != 0 {
			visit(c.set.list[i], p.cur)
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
