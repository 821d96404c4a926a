package mcts

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

func TestTemperature(t *testing.T) {
	cs := []ChildStats{{Action: 1, Visits: 10}, {Action: 2, Visits: 30}, {Action: 3, Visits: 0}, {Action: 4, Visits: 60}}
	if i := chooseByVisits(cs, 0, seeded(1)); i != 3 {
		t.Fatalf("T=0 chose %d, want the most visited (3)", i)
	}
	rng := seeded(2)
	var count [4]int
	const n = 20000
	for range n {
		count[chooseByVisits(cs, 1, rng)]++
	}
	for i, want := range []float64{0.1, 0.3, 0, 0.6} {
		if got := float64(count[i]) / n; math.Abs(got-want) > 0.02 {
			t.Errorf("T=1: child %d chosen %.3f of the time, want %.2f", i, got, want)
		}
	}
	count = [4]int{}
	for range 2000 {
		count[chooseByVisits(cs, 0.01, rng)]++
	}
	if count[3] != 2000 {
		t.Errorf("T=0.01 chose %v, want always the most visited", count)
	}
}

// With equal priors and equal values every child ties: without ShuffleChildren the search always
// plays the lowest action id (move-generation order decides); with it the choice is spread over the
// legal actions, and the tree is still a valid tree.
func TestShuffleChildrenBreaksTiesAtRandom(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.LeavesInFlight, cfg.DirichletFraction = 16, 1, 0
	s := env.NewState(env.Blitz)
	legal := s.LegalActions(nil)
	for _, shuffle := range []bool{false, true} {
		cfg.ShuffleChildren = shuffle
		chosen := map[env.Action]int{}
		for seed := uint64(0); seed < 40; seed++ {
			tr := newTree(t, cfg, Uniform{})
			tr.Reset(s)
			res, err := tr.Search(seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, &tr.a, tr.Root())
			chosen[res.Action]++
		}
		if !shuffle && (len(chosen) != 1 || chosen[legal[0]] != 40) {
			t.Fatalf("without shuffling: chose %v, want always %s", chosen, legal[0])
		}
		if shuffle && len(chosen) < 20 {
			t.Fatalf("with shuffling: only %d different actions in 40 searches: %v", len(chosen), chosen)
		}
	}
}

// samplePower draws ∝ x^(1/T): a Gumbel search's improved policy at the temperature of self-play's
// first actions, and visit counts for PUCT.
func TestSamplePowerFollowsTheTemperature(t *testing.T) {
	policy := []float64{0.5, 0.3, 0.2, 0}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		temp float64
		want []float64
	}{
		{1, []float64{0.5, 0.3, 0.2, 0}},
		{0.5, []float64{0.25 / 0.38, 0.09 / 0.38, 0.04 / 0.38, 0}},
	} {
		counts := make([]int, len(policy))
		const n = 20000
		for range n {
			counts[samplePower(len(policy), func(i int) float64 { return policy[i] }, 0, c.temp, rng)]++
		}
		for i, w := range c.want {
			if got := float64(counts[i]) / n; math.Abs(got-w) > 0.015 {
				t.Errorf("τ %g: action %d drawn %.3f, want %.3f", c.temp, i, got, w)
			}
		}
	}
}

// A Gumbel search with a temperature samples its action from the improved policy; at 0 it plays
// the sequential-halving winner.
func TestGumbelTemperatureSamplesTheImprovedPolicy(t *testing.T) {
	s := midgame(t, 7, 6)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Gumbel, cfg.GumbelScale = 64, true, 0
	seen := map[env.Action]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 3})
		tr.Reset(s)
		res, err := tr.Search(seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Action] = true
	}
	if len(seen) != 1 {
		t.Fatalf("deterministic Gumbel at temperature 0 chose %d actions", len(seen))
	}
	cfg.Temperature = 1
	clear(seen)
	for seed := uint64(1); seed <= 20; seed++ {
		tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 3})
		tr.Reset(s)
		res, err := tr.Search(seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if c := child(res, res.Action); c.Policy <= 0 {
			t.Fatalf("sampled %s outside the improved policy", res.Action)
		}
		seen[res.Action] = true
	}
	if len(seen) < 2 {
		t.Fatalf("temperature 1 chose the same action in 20 searches")
	}
}

// Result.Children follows the root's child order: action-id order without ShuffleChildren, the
// shuffled order with it; SortedChildren is action-id order in both cases.
func TestChildrenOrder(t *testing.T) {
	s := midgame(t, 8, 10)
	for _, shuffle := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations, cfg.ShuffleChildren = 50, shuffle
		tr := newTree(t, cfg, Uniform{})
		tr.Reset(s)
		res, err := tr.Search(seeded(4))
		if err != nil {
			t.Fatal(err)
		}
		root := tr.a.nodes[rootIndex]
		for i, e := range tr.a.edges[root.edges : root.edges+int32(root.numEdges)] {
			if res.Children[i].Action != env.Action(e.action) {
				t.Fatalf("shuffle=%v: child %d is %s, the root's edge %d is %s", shuffle, i, res.Children[i].Action, i, env.Action(e.action))
			}
		}
		byID := func(cs []ChildStats) bool {
			return slices.IsSortedFunc(cs, func(a, b ChildStats) int { return int(a.Action) - int(b.Action) })
		}
		if got := byID(res.Children); got == shuffle {
			t.Errorf("shuffle=%v: Children in action-id order %v", shuffle, got)
		}
		sorted := res.SortedChildren()
		if !byID(sorted) || len(sorted) != len(res.Children) {
			t.Fatalf("shuffle=%v: SortedChildren not in action-id order", shuffle)
		}
		for _, c := range res.Children {
			if i, ok := slices.BinarySearchFunc(sorted, c.Action, func(x ChildStats, a env.Action) int { return int(x.Action) - int(a) }); !ok || sorted[i] != c {
				t.Fatalf("shuffle=%v: SortedChildren lost or changed %s", shuffle, c.Action)
			}
		}
		if !shuffle && !slices.Equal(sorted, res.Children) {
			t.Fatal("without shuffling SortedChildren differs from Children")
		}
	}
}

// A Gumbel search with a temperature samples only among the actions it visited: the improved
// policy gives every legal action some mass, but an unvisited action's share rests on the guessed
// (completed) value, not on search. With 4 simulations for about 50 legal actions most of π′'s mass
// is on unvisited actions, so sampling from all of π′ plays one of them most of the time.
func TestGumbelTemperatureSamplesVisitedActions(t *testing.T) {
	s := midgame(t, 7, 6)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Gumbel, cfg.Temperature, cfg.LeavesInFlight = 4, true, 1, 1
	seen := map[env.Action]bool{}
	for seed := uint64(1); seed <= 60; seed++ {
		tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 3})
		tr.Reset(s)
		res, err := tr.Search(seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Children) < 20 {
			t.Fatalf("%d legal actions, want a position with many", len(res.Children))
		}
		if c := child(res, res.Action); c.Visits == 0 {
			t.Fatalf("seed %d: played %s, which the search never visited (π′ %.4f)", seed, res.Action, c.Policy)
		}
		seen[res.Action] = true
	}
	if len(seen) < 2 {
		t.Fatal("temperature 1 always played the same action")
	}
}
