package gonum

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestPoolRunsEveryTaskOnce(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 64} {
		counts := make([]atomic.Int32, n)
		thePool.run(n, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("n=%d: task %d ran %d times", n, i, c)
			}
		}
	}
}

// Nested and concurrent calls (as concurrent Predict calls make) finish, run every task once, and
// start no goroutines beyond the pool's helpers.
func TestPoolNestedAndConcurrent(t *testing.T) {
	thePool.run(2, func(int) {}) // start the helpers
	before := runtime.NumGoroutine()
	var total atomic.Int64
	var wg sync.WaitGroup
	var peak atomic.Int64
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 50; r++ {
				parallel(16, func(w, lo, hi int) {
					parallel(hi-lo, func(_, a, b int) { total.Add(int64(b - a)) })
					if g := int64(runtime.NumGoroutine()); g > peak.Load() {
						peak.Store(g)
					}
				})
			}
		}()
	}
	wg.Wait()
	if want := int64(8 * 50 * 16); total.Load() != want {
		t.Fatalf("ran %d units, want %d", total.Load(), want)
	}
	// 8 callers + the helpers that existed before; nothing per call.
	if p := peak.Load(); p > int64(before+8) {
		t.Errorf("peak %d goroutines with %d before and 8 callers", p, before)
	}
}

func BenchmarkParallelOverhead(b *testing.B) {
	var sink atomic.Int64
	for i := 0; i < b.N; i++ {
		parallel(64, func(w, lo, hi int) { sink.Add(int64(hi - lo)) })
	}
}
