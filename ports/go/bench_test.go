package doomloop

import (
	"fmt"
	"strconv"
	"testing"
)

// BenchmarkFanOut measures the cost of one recordToolCall inside a declared
// round of width W, the same fan-out re-issued round after round (so the
// round-set comparison, the membership tests and the verdicts all run).
// ns/op is per recorded call; declaring the round is excluded. Each call's
// key material is built fresh, as an engine decoding the call's arguments
// would hand it over, rather than read back from a W-sized table (which
// would measure the benchmark's own cache misses). MON-55 requires the
// per-call cost not to grow with W.
func BenchmarkFanOut(b *testing.B) {
	for _, width := range []int{10, 100, 1000, 10000, 20000} {
		b.Run("W="+strconv.Itoa(width), func(b *testing.B) {
			calls := make([]ToolCall, width)
			for i := range calls {
				calls[i] = ToolCall{"read", map[string]any{"path": pathOf(i)}}
			}
			m := NewMonitor(nil)
			b.ReportAllocs()
			b.ResetTimer()
			round := 0.0
			for done := 0; done < b.N; round++ {
				b.StopTimer()
				m.DeclareRound(round, calls)
				b.StartTimer()
				for i := 0; i < width && done < b.N; i, done = i+1, done+1 {
					key := map[string]any{"path": pathOf(i)}
					if _, err := m.RecordToolCall("read", key, round, RecordOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func pathOf(i int) string { return fmt.Sprintf("/src/file-%06d.go", i) }

// The linear-cost guarantee as a test: recording a W-wide round must not
// cost more per call at W=20000 than at W=100 by more than a wide margin.
// (The benchmark gives the precise figures; this guards against a
// quadratic regression, which would be ~200x.)
func TestFanOutIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	perCall := func(width int) float64 {
		r := testing.Benchmark(func(b *testing.B) {
			calls := make([]ToolCall, width)
			for i := range calls {
				calls[i] = ToolCall{"read", map[string]any{"path": strconv.Itoa(i)}}
			}
			m := NewMonitor(nil)
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				b.StopTimer()
				m.DeclareRound(float64(n), calls)
				b.StartTimer()
				for _, call := range calls {
					m.RecordToolCall("read", call.KeyMaterial, float64(n), RecordOptions{})
				}
			}
		})
		return float64(r.NsPerOp()) / float64(width)
	}
	small, large := perCall(100), perCall(20000)
	t.Logf("per call: W=100 %.0f ns, W=20000 %.0f ns (ratio %.2f)", small, large, large/small)
	if large > 5*small {
		t.Errorf("per-call cost grows with the fan-out width: %.0f ns vs %.0f ns", large, small)
	}
}
