package gonum

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// start no goroutines: the pool keeps its GOMAXPROCS−1 helpers and nothing is left behind.
// (runtime.NumGoroutine is process-wide, so the test checks what the pool started, not a peak.)
func TestPoolNestedAndConcurrent(t *testing.T) {
	thePool.run(2, func(int) {}) // start the helpers
	want := int64(runtime.GOMAXPROCS(0) - 1)
	helpers := thePool.helpers.Load()
	if helpers < want {
		t.Fatalf("%d helpers for GOMAXPROCS %d", helpers, runtime.GOMAXPROCS(0))
	}
	before := runtime.NumGoroutine()
	created := func() uint64 {
		m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(m)
		return m[0].Value.Uint64()
	}
	created0 := created()
	var total atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 50; r++ {
				parallel(16, func(w, lo, hi int) {
					parallel(hi-lo, func(_, a, b int) { total.Add(int64(b - a)) })
				})
			}
		}()
	}
	wg.Wait()
	if want := int64(8 * 50 * 16); total.Load() != want {
		t.Fatalf("ran %d units, want %d", total.Load(), want)
	}
	// 8 callers; a goroutine per parallel call would be 8·50·(1+16) more. The slack is for goroutines
	// the runtime or the test framework may start meanwhile.
	if n := created() - created0; n > 8+16 {
		t.Errorf("%d goroutines created for 8 callers making 8·50 nested parallel calls", n)
	}
	if h := thePool.helpers.Load(); h != helpers {
		t.Errorf("the pool started helpers during the calls: %d → %d", helpers, h)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the calls, %d before", n, before)
	}
}

func BenchmarkParallelOverhead(b *testing.B) {
	var sink atomic.Int64
	for i := 0; i < b.N; i++ {
		parallel(64, func(w, lo, hi int) { sink.Add(int64(hi - lo)) })
	}
}
