package doomloop

import (
	"strconv"
	"testing"
)

func BenchmarkExpFP(b *testing.B) {
	for _, width := range []int{100, 20000} {
		b.Run("W="+strconv.Itoa(width), func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				FingerprintToolCall("read", map[string]any{"path": "/src/file-" + strconv.Itoa(n%width)})
			}
		})
	}
}

func BenchmarkExpRec(b *testing.B) {
	for _, width := range []int{100, 20000} {
		b.Run("W="+strconv.Itoa(width), func(b *testing.B) {
			calls := make([]ToolCall, width)
			for i := range calls {
				calls[i] = ToolCall{"read", map[string]any{"path": "/src/file-" + strconv.Itoa(i)}}
			}
			m := NewMonitor(nil)
			round := 0.0
			b.ResetTimer()
			for done := 0; done < b.N; round++ {
				b.StopTimer()
				m.DeclareRound(round, calls)
				b.StartTimer()
				for i := 0; i < width && done < b.N; i, done = i+1, done+1 {
					m.RecordToolCall("read", map[string]any{"path": "/src/file-" + strconv.Itoa(i)}, round, RecordOptions{})
				}
			}
		})
	}
}
