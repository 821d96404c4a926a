package gonum

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// pool is a fixed set of long-lived helper goroutines that run the tasks of parallel calls: no
// goroutine is started per call. A call offers its job to idle helpers only (an unbuffered send
// that does not wait), then takes tasks itself until none are left, and waits for the helpers that
// joined. Tasks are claimed from an atomic counter, so a helper that joins late finds nothing and
// leaves at once. Helpers never wait for each other, so nested calls cannot deadlock.
type pool struct {
	jobs    chan *job
	mu      sync.Mutex   // serialises grow
	helpers atomic.Int64 // started so far
}

// job is one parallel call: tasks [0, n) of fn.
type job struct {
	fn   func(i int)
	n    int64
	next atomic.Int64
	wg   sync.WaitGroup // the helpers that took the job
}

var thePool = &pool{jobs: make(chan *job)}

// work claims and runs tasks until there are none left.
func (j *job) work() {
	for {
		i := j.next.Add(1) - 1
		if i >= j.n {
			return
		}
		j.fn(int(i))
	}
}

// grow starts helpers up to want.
func (p *pool) grow(want int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.helpers.Load() < int64(want); p.helpers.Add(1) {
		go func() {
			for j := range p.jobs {
				j.work()
				j.wg.Done()
			}
		}()
	}
}

// run runs fn(0), …, fn(n−1), on at most GOMAXPROCS goroutines (the caller and idle helpers), and
// returns when all have finished.
func (p *pool) run(n int, fn func(i int)) {
	want := runtime.GOMAXPROCS(0) - 1
	if p.helpers.Load() < int64(want) {
		p.grow(want)
	}
	j := &job{fn: fn, n: int64(n)}
	for h := 0; h < min(n-1, want); h++ {
		j.wg.Add(1)
		select {
		case p.jobs <- j:
			continue
		default:
			j.wg.Done()
		}
		break // no idle helper
	}
	j.work()
	j.wg.Wait()
}
