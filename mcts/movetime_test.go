package mcts

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// slowEvaluator is Uniform after a fixed delay per call (simulated work, for the wall-clock test).
type slowEvaluator struct{ delay time.Duration }

func (s slowEvaluator) Evaluate(reqs []Request, out []Evaluation) error {
	time.Sleep(s.delay)
	return Uniform{}.Evaluate(reqs, out)
}

// timingTests reports whether tests that measure the wall clock run (YINSH_TIMING_TESTS=1); they
// are skipped otherwise, so that a loaded machine cannot fail go test. The deterministic tests run
// the same searches under a fake clock.
func timingTests(t *testing.T) { t.Helper(); testenv.SkipUnlessTiming(t) }

// A timed search stops at the first batch that starts after MoveTime: with 2 ms a batch of 4 and the
// root's evaluation first, 14 batches fit in 30 ms (the 14th ends at exactly 30 ms).
func TestMoveTimeStopsTheSearch(t *testing.T) {
	s := midgame(t, 3, 6)
	cfg := DefaultConfig()
	cfg.Simulations = 1_000_000
	cfg.LeavesInFlight = 4
	cfg.MoveTime = 30 * time.Millisecond
	clock := newFakeClock()
	start := clock.Now()
	tr := timedTree(t, cfg, tickingEvaluator{Uniform{}, clock, 2 * time.Millisecond}, clock)
	tr.Reset(s)
	res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimeUp || res.Simulations != 14*4 {
		t.Errorf("%d simulations (TimeUp %v), want 14 batches of 4", res.Simulations, res.TimeUp)
	}
	if el := clock.Now().Sub(start); el != cfg.MoveTime {
		t.Errorf("search took %v of the clock for a move time of %v", el, cfg.MoveTime)
	}
}

// The same search on the wall clock, with a sleeping evaluator: it takes about the move time.
func TestMoveTimeWallClock(t *testing.T) {
	timingTests(t)
	s := midgame(t, 3, 6)
	cfg := DefaultConfig()
	cfg.Simulations = 1_000_000
	cfg.LeavesInFlight = 4
	cfg.MoveTime = 30 * time.Millisecond
	tr := newTree(t, cfg, slowEvaluator{2 * time.Millisecond})
	tr.Reset(s)
	start := time.Now()
	res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// 30 ms at ≥ 2 ms a batch of 4: at most 15 batches after the root (60 simulations), and the
	// search may overrun by one batch only (slack for a loaded machine's sleeps)
	if !res.TimeUp || res.Simulations < 4 || res.Simulations > 64 {
		t.Errorf("%d simulations (TimeUp %v) in %v, want 4..64", res.Simulations, res.TimeUp, el)
	}
	if el < cfg.MoveTime || el > cfg.MoveTime+40*time.Millisecond {
		t.Errorf("search took %v for a move time of %v", el, cfg.MoveTime)
	}
}

func TestMoveTimeKeepsTheSimulationCap(t *testing.T) {
	s := midgame(t, 4, 6)
	cfg := DefaultConfig()
	cfg.Simulations = 50
	cfg.MoveTime = time.Hour
	clock := newFakeClock()
	tr := timedTree(t, cfg, tickingEvaluator{Uniform{}, clock, time.Second}, clock)
	tr.Reset(s)
	res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Simulations != 50 || res.TimeUp {
		t.Errorf("simulations %d (TimeUp %v), want the cap of 50", res.Simulations, res.TimeUp)
	}
}

func TestMoveTimeRunsAtLeastOneBatch(t *testing.T) {
	s := midgame(t, 5, 6)
	cfg := DefaultConfig()
	cfg.Simulations = 1000
	cfg.LeavesInFlight = 1
	cfg.MoveTime = time.Nanosecond
	clock := newFakeClock()
	tr := timedTree(t, cfg, tickingEvaluator{Uniform{}, clock, time.Millisecond}, clock)
	tr.Reset(s)
	res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Simulations != 1 || !res.TimeUp {
		t.Errorf("simulations %d TimeUp %v, want exactly one batch of 1", res.Simulations, res.TimeUp)
	}
	cfg.MoveTime = -1
	if err := cfg.Validate(); err == nil {
		t.Error("negative MoveTime accepted")
	}
}

// A proven win draws most simulations to its terminal node, which needs no evaluation; a timed
// search with a huge cap must still read the clock (it once spun through millions of terminal
// visits, 1.6 s at a move time of 50 ms). Here every read of the clock moves it by 1 ms: a search
// that reads it at least every LeavesInFlight simulations stops after about 20·LeavesInFlight.
func TestMoveTimeWithTerminalVisits(t *testing.T) {
	s := lastMarker(t)
	for _, lif := range []int{1, 8} {
		cfg := DefaultConfig()
		cfg.Simulations = 50_000_000
		cfg.LeavesInFlight = lif
		cfg.MoveTime = 20 * time.Millisecond
		clock := newFakeClock()
		tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 3})
		reads := 0
		tr.now = func() time.Time {
			reads++
			clock.Advance(time.Millisecond)
			return clock.Now()
		}
		tr.Reset(s)
		res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimeUp || res.Simulations > 21*lif {
			t.Errorf("leaves %d: %d simulations and %d clock reads at a move time of %v (TimeUp %v), want at most %d", lif, res.Simulations, reads, cfg.MoveTime, res.TimeUp, 21*lif)
		}
	}
}

// lastMarker returns a state of a random game in which the side to move has the last marker of the
// pool and every move ends the game: the search tree is solved at depth one.
func lastMarker(t *testing.T) *env.State {
	t.Helper()
	var buf, legal []env.Action
	for seed := uint64(1); seed < 2000; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		s := env.NewState(env.Standard)
		for !s.IsTerminal() {
			if s.Phase() == env.PhaseMove && s.MarkersInPool() == 1 {
				legal = s.LegalActions(legal)
				all := len(legal) > 1
				for _, a := range legal {
					c := *s
					if c.ApplyAction(a) != nil || !c.IsTerminal() {
						all = false
						break
					}
				}
				if all {
					return s
				}
			}
			buf = s.LegalActions(buf)
			if err := s.ApplyAction(buf[rng.IntN(len(buf))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatal("no random game reached a last-marker position")
	return nil
}
