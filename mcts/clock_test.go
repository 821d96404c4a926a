package mcts

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told: a timed search under it is deterministic.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// tickingEvaluator is inner that advances the clock by per for every evaluator call: a search then
// "takes" per per batch of leaves, and its simulation count under a move time is exact.
type tickingEvaluator struct {
	inner Evaluator
	clock *fakeClock
	per   time.Duration
}

func (e tickingEvaluator) Evaluate(reqs []Request, out []Evaluation) error {
	e.clock.advance(e.per)
	return e.inner.Evaluate(reqs, out)
}

// timedTree returns a tree whose clock is c.
func timedTree(t *testing.T, cfg Config, ev Evaluator, c *fakeClock) *Tree {
	t.Helper()
	tr := newTree(t, cfg, ev)
	tr.now = c.now
	return tr
}
