package doomloop

import (
	"fmt"
	"runtime"
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

// TestFanOutAllocationsDoNotGrow is the linear-cost guarantee as a
// deterministic test: it counts bytes allocated, never time (timing belongs
// in BenchmarkFanOut). Declaring and recording every call of a W-wide round
// must allocate about as many bytes per call at W=20000 as at W=100; a
// per-call copy of the round's set, seen list or counts would multiply that
// by ~200 (MON-55).
func TestFanOutAllocationsDoNotGrow(t *testing.T) {
	perCall := func(width int) float64 {
		calls := make([]ToolCall, width)
		for i := range calls {
			calls[i] = ToolCall{"read", map[string]any{"path": pathOf(i)}}
		}
		m := NewMonitor(nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for round := 0.0; round < 3; round++ {
			m.DeclareRound(round, calls)
			for _, call := range calls {
				if _, err := m.RecordToolCall("read", call.KeyMaterial, round, RecordOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(3*width)
	}
	small, large := perCall(100), perCall(20000)
	t.Logf("bytes allocated per call (declare + record): W=100 %.0f, W=20000 %.0f", small, large)
	if large > 2*small {
		t.Errorf("allocation per call grows with the fan-out width: %.0f B at W=20000 vs %.0f B at W=100", large, small)
	}
}
