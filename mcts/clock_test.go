package mcts

import (
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// newFakeClock is a clock that moves only when told: a timed search under it is deterministic.
func newFakeClock() *testenv.FakeClock {
	return testenv.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// tickingEvaluator is inner that advances the clock by per for every evaluator call: a search then
// "takes" per per batch of leaves, and its simulation count under a move time is exact.
type tickingEvaluator struct {
	inner Evaluator
	clock *testenv.FakeClock
	per   time.Duration
}

func (e tickingEvaluator) Evaluate(reqs []Request, out []Evaluation) error {
	e.clock.Advance(e.per)
	return e.inner.Evaluate(reqs, out)
}

// timedTree returns a tree whose clock is c.
func timedTree(t *testing.T, cfg Config, ev Evaluator, c *testenv.FakeClock) *Tree {
	t.Helper()
	tr := newTree(t, cfg, ev)
	tr.now = c.Now
	return tr
}
