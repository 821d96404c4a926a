package mcts

import (
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// A timed Gumbel search with a huge simulation cap (a purely timed search: callers pass
// selfplay.MaxSims) halves on time: each of its ceil(log2 16) = 4 phases gets a quarter of the move
// time. It once planned its halving for the cap: a 40 MB table of which a 400-simulation search used
// the first phase only, a round-robin over the 16 considered actions (25 visits each).
func TestTimedGumbelHalvesOnTime(t *testing.T) {
	s := midgame(t, 22, 14)
	clock := newFakeClock()
	cfg := DefaultConfig()
	cfg.Gumbel, cfg.LeavesInFlight, cfg.GumbelConsidered = true, 1, 16
	cfg.Simulations, cfg.MoveTime = 10_000_000, 400*time.Millisecond
	tr := timedTree(t, cfg, tickingEvaluator{Rollout{Playouts: 1, Seed: 2}, clock, time.Millisecond}, clock)
	tr.Reset(s)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := tr.Search(seeded(1))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimeUp || res.Simulations < 395 || res.Simulations > 401 {
		t.Fatalf("%d simulations (TimeUp %v), want the 400 that 400 ms at 1 ms each allow", res.Simulations, res.TimeUp)
	}
	counts := visitedCounts(res)
	t.Logf("visits per considered action: %v", counts)
	if len(counts) != 16 {
		t.Fatalf("%d actions visited, want the 16 considered", len(counts))
	}
	// phase 1 gives each of 16 actions 100/16 = 6 visits, phase 2 each of 8 another 12, phase 3
	// each of 4 another 25, phase 4 each of 2 another 50: 8 actions end with 6 visits, 4 with 18, 2
	// with 43 and the finalists with about 93 (the rounds that straddle a phase's end shift a few)
	if counts[0] < 85 || counts[1] < 85 || counts[2] > 50 || counts[4] > 25 || counts[8] > 8 {
		t.Errorf("visits %v: not halved at each quarter of the move time", counts)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("a 400-simulation search allocated %d bytes: its halving was planned for the cap", got)
	}
	if best := child(res, res.Action); best.Visits < counts[1] {
		t.Errorf("played %s with %d visits, not a finalist", res.Action, best.Visits)
	}
}

// With several leaves in flight the clock ticks once per batch of 8: 1,600 simulations in 200
// "ms", halved at each quarter as well.
func TestTimedGumbelHalvesWithLeavesInFlight(t *testing.T) {
	s := midgame(t, 22, 14)
	clock := newFakeClock()
	cfg := DefaultConfig()
	cfg.Gumbel, cfg.LeavesInFlight = true, 8
	cfg.Simulations, cfg.MoveTime = 10_000_000, 200*time.Millisecond
	tr := timedTree(t, cfg, tickingEvaluator{Rollout{Playouts: 1, Seed: 2}, clock, time.Millisecond}, clock)
	tr.Reset(s)
	res, err := tr.Search(seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	counts := visitedCounts(res)
	t.Logf("%d simulations, visits per considered action: %v", res.Simulations, counts)
	if len(counts) != 16 || res.Simulations < 1500 {
		t.Fatalf("%d actions visited in %d simulations, want 16 in about 1600", len(counts), res.Simulations)
	}
	// 400 simulations a phase: 25 each for 16, +50 for 8, +100 for 4, +200 for 2
	if counts[1] < 320 || counts[2] > 200 || counts[4] > 100 || counts[8] > 35 {
		t.Errorf("visits %v: not halved at each quarter of the move time", counts)
	}
}

// Where the time does not bind (the simulation cap ends the search first), a timed Gumbel search is
// the untimed one, bit for bit.
func TestTimedGumbelWithinTheCapIsTheUntimedSearch(t *testing.T) {
	s := midgame(t, 23, 12)
	for _, lif := range []int{1, 8} {
		cfg := DefaultConfig()
		cfg.Gumbel, cfg.LeavesInFlight, cfg.Simulations = true, lif, 300
		run := func(moveTime time.Duration) *Result {
			clock := newFakeClock()
			cfg.MoveTime = moveTime
			tr := timedTree(t, cfg, tickingEvaluator{Rollout{Playouts: 1, Seed: 2}, clock, time.Millisecond}, clock)
			tr.Reset(s)
			res, err := tr.Search(seeded(3))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		untimed, timed := run(0), run(time.Hour)
		if timed.TimeUp || !reflect.DeepEqual(untimed, timed) {
			t.Errorf("leaves %d: a timed search within its cap differs from the untimed one", lif)
		}
	}
}

// visitedCounts returns the visits of the root's visited children, most first.
func visitedCounts(res *Result) []int {
	var counts []int
	for _, c := range res.Children {
		if c.Visits > 0 {
			counts = append(counts, c.Visits)
		}
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	return counts
}
