package mcts

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// slowEvaluator is Uniform after a fixed delay per call: a clock-bound search's simulation count is
// then predictable.
type slowEvaluator struct{ delay time.Duration }

func (s slowEvaluator) Evaluate(reqs []Request, out []Evaluation) error {
	time.Sleep(s.delay)
	return Uniform{}.Evaluate(reqs, out)
}

func TestMoveTimeStopsTheSearch(t *testing.T) {
	s := midgame(t, 3, 6)
	cfg := DefaultConfig()
	cfg.Simulations = 1_000_000
	cfg.LeavesInFlight = 4
	cfg.MoveTime = 30 * time.Millisecond
	tr, err := NewTree(cfg, slowEvaluator{2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tr.Reset(s)
	start := time.Now()
	res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimeUp {
		t.Errorf("TimeUp not set after %d simulations", res.Simulations)
	}
	// 30 ms at ≥ 2 ms a batch of 4: at most 15 batches after the root (60 simulations), and the
	// search may overrun by one batch only (generous slack for a loaded machine's sleeps)
	if res.Simulations < 4 || res.Simulations > 64 {
		t.Errorf("%d simulations in %v, want 4..64", res.Simulations, el)
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
	tr, err := NewTree(cfg, Uniform{})
	if err != nil {
		t.Fatal(err)
	}
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
	tr, err := NewTree(cfg, slowEvaluator{time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
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
// visits, 1.6 s at a move time of 50 ms).
func TestMoveTimeWithTerminalVisits(t *testing.T) {
	s := lastMarker(t)
	for _, lif := range []int{1, 8} {
		cfg := DefaultConfig()
		cfg.Simulations = 50_000_000
		cfg.LeavesInFlight = lif
		cfg.MoveTime = 20 * time.Millisecond
		tr, err := NewTree(cfg, Rollout{Playouts: 1, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		tr.Reset(s)
		start := time.Now()
		res, err := tr.Search(rand.New(rand.NewPCG(1, 2)))
		el := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if !res.TimeUp || el > 200*time.Millisecond {
			t.Errorf("leaves %d: %d simulations took %v at a move time of %v (TimeUp %v)", lif, res.Simulations, el, cfg.MoveTime, res.TimeUp)
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
