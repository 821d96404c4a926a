package mcts

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// winPosition is a blitz position, white to move, where exactly one move (d5-f5, flipping e5) completes
// a white row e3-e7; white then removes the row and a ring and wins.
func winPosition(tb testing.TB) *env.State {
	s := position(tb, env.Blitz, "e3:w e4:w e5:b e6:w e7:w d5:W b1:W a2:W k10:W j11:W h10:B i11:B g11:B k7:B c1:B", "w", "0-0")
	var wins []env.Action
	for _, a := range s.LegalActions(nil) {
		c := *s
		if err := c.ApplyAction(a); err != nil {
			tb.Fatal(err)
		}
		if c.CurrentPlayer() == env.White && c.Phase() == env.PhaseRemoveRow {
			wins = append(wins, a)
		}
	}
	if len(wins) != 1 || wins[0] != mustAction(tb, "d5-f5") {
		tb.Fatalf("winning moves %v, want [d5-f5]", wins)
	}
	return s
}

// losePosition is a blitz position, white to move, where f4-h6 and f5-h5 flip g5 and complete the
// black row g3-g7 (black then removes it and a ring and wins); the other 61 moves are safe.
func losePosition(tb testing.TB) (*env.State, []env.Action) {
	s := position(tb, env.Blitz, "g3:b g4:b g5:w g6:b g7:b f5:W f4:W a2:W b1:W c1:W h10:B i11:B j11:B k7:B k10:B", "w", "0-0")
	var bad []env.Action
	legal := s.LegalActions(nil)
	for _, a := range legal {
		c := *s
		if err := c.ApplyAction(a); err != nil {
			tb.Fatal(err)
		}
		if c.CurrentPlayer() == env.Black && c.Phase() == env.PhaseRemoveRow {
			bad = append(bad, a)
		}
	}
	want := []env.Action{mustAction(tb, "f4-h6"), mustAction(tb, "f5-h5")}
	if !slices.Equal(bad, want) || len(legal) != 63 {
		tb.Fatalf("losing moves %v of %d, want %v of 63", bad, len(legal), want)
	}
	return s, bad
}

func child(res *Result, a env.Action) ChildStats {
	for _, c := range res.Children {
		if c.Action == a {
			return c
		}
	}
	return ChildStats{Action: -1}
}

func TestFindsBlitzWin(t *testing.T) {
	s := winPosition(t)
	win := mustAction(t, "d5-f5")
	// 55 legal moves and a uniform prior: PUCT needs about 3 visits per move to reach the terminal
	// state under the win with the uniform evaluator (150 simulations suffice for 20 seeds of 20), and
	// about one per move with rollouts. Gumbel considers every move (with 16 of 55 sampled the win is
	// in the sample only about 30% of the time) and uses c_scale 1 (with 0.1 the Q term is as small as
	// the Gumbel noise at these visit counts).
	for _, tc := range []struct {
		name string
		sims int
		ev   Evaluator
		gum  bool
		lif  int
	}{
		{"puct-uniform", 300, Uniform{}, false, 1},
		{"puct-uniform-inflight8", 300, Uniform{}, false, 8},
		{"puct-rollout", 200, Rollout{Playouts: 8, Seed: 3}, false, 1},
		{"gumbel-rollout", 100, Rollout{Playouts: 8, Seed: 3}, true, 1},
		{"gumbel-rollout-inflight4", 100, Rollout{Playouts: 8, Seed: 3}, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.Gumbel, cfg.LeavesInFlight = tc.sims, tc.gum, tc.lif
			cfg.GumbelConsidered, cfg.GumbelCScale = 64, 1
			for seed := uint64(1); seed <= 5; seed++ {
				tr := newTree(t, cfg, tc.ev)
				tr.Reset(s)
				res, err := tr.Search(seeded(seed))
				if err != nil {
					t.Fatal(err)
				}
				if res.Action != win {
					c := child(res, win)
					t.Fatalf("seed %d: chose %s, want %s (win: visits %d, Q %.3f)", seed, res.Action, win, c.Visits, c.Q)
				}
				// The PV is the whole winning turn: move, row, ring (all by white, no sign flips).
				if len(res.PV) != 3 || res.PV[0] != win || res.PV[1] != mustAction(t, "xe3-e7") || res.PV[2].Kind() != env.KindRemoveRing {
					t.Errorf("seed %d: PV %v, want d5-f5 xe3-e7 x<ring>", seed, res.PV)
				}
				if c := child(res, win); c.Q < 0.5 {
					t.Errorf("seed %d: Q(win) = %.3f, want > 0.5", seed, c.Q)
				}
			}
		})
	}
}

func TestAvoidsHandingOpponentARow(t *testing.T) {
	s, bad := losePosition(t)
	for _, gum := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations, cfg.Gumbel, cfg.GumbelConsidered, cfg.GumbelCScale = 600, gum, 64, 1
		for seed := uint64(1); seed <= 3; seed++ {
			tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: seed})
			tr.Reset(s)
			res, err := tr.Search(seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(bad, res.Action) {
				t.Fatalf("gumbel=%v seed %d: chose %s, which hands black a row", gum, seed, res.Action)
			}
			for _, a := range bad {
				c := child(res, a)
				if c.Visits == 0 || c.Q > -0.5 {
					t.Errorf("gumbel=%v seed %d: %s visits %d Q %.3f, want visited with Q < -0.5", gum, seed, a, c.Visits, c.Q)
				}
				if gum && res.Policy[a] > 1.0/63 {
					t.Errorf("gumbel seed %d: improved policy of %s is %.4f, want below uniform", seed, a, res.Policy[a])
				}
			}
		}
	}
	// With the uniform evaluator only exact terminal values inform the search.
	cfg := DefaultConfig()
	cfg.Simulations, cfg.LeavesInFlight = 1000, 1
	tr := newTree(t, cfg, Uniform{})
	tr.Reset(s)
	res, err := tr.Search(seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range bad {
		if c := child(res, a); c.Visits == 0 || c.Q > -0.3 || c.Visits > res.Simulations/63 {
			t.Errorf("uniform: %s visits %d Q %.3f, want visited, Q < -0.3 and fewer visits than average", a, c.Visits, c.Q)
		}
	}
}

// TestBackupSigns checks node values along real multi-action turns: a white move that wins keeps white
// to act for three plies (no sign flip), a white move that makes a black row hands the turn to black
// (one flip), and terminal nodes hold the exact outcome.
func TestBackupSigns(t *testing.T) {
	s := winPosition(t)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.LeavesInFlight = 300, 1
	tr := newTree(t, cfg, Uniform{})
	tr.Reset(s)
	if _, err := tr.Search(seeded(1)); err != nil {
		t.Fatal(err)
	}
	a := &tr.a
	id, ok := a.childOf(rootIndex, mustAction(t, "d5-f5"))
	if !ok || id == unvisited {
		t.Fatal("winning move not expanded")
	}
	for depth := 1; ; depth++ {
		n := a.nodes[id]
		if n.toAct != env.White {
			t.Fatalf("depth %d: toAct %v, want white throughout the winning turn", depth, n.toAct)
		}
		if n.flags&flagTerminal != 0 {
			if n.raw != 1 || n.valueSum != float32(n.visits) {
				t.Fatalf("terminal: raw %v valueSum %v visits %d, want exact +1 per visit", n.raw, n.valueSum, n.visits)
			}
			if depth != 3 {
				t.Fatalf("terminal at depth %d, want 3", depth)
			}
			break
		}
		// every value below is >= 0 for white (uniform leaves are 0, terminals +1)
		if n.valueSum <= 0 {
			t.Fatalf("depth %d: valueSum %v, want > 0 from white's view", depth, n.valueSum)
		}
		best := int32(unvisited)
		for _, e := range a.edges[n.edges : n.edges+int32(n.numEdges)] {
			if e.child != unvisited && (best == unvisited || a.nodes[e.child].visits > a.nodes[best].visits) {
				best = e.child
			}
		}
		id = best
	}

	ls, _ := losePosition(t)
	tr.Reset(ls)
	cfg.Simulations = 1000
	if _, err := tr.Search(seeded(1)); err != nil {
		t.Fatal(err)
	}
	id, _ = a.childOf(rootIndex, mustAction(t, "f5-h5"))
	if id == unvisited {
		t.Fatal("losing move not visited")
	}
	n := a.nodes[id]
	if n.toAct != env.Black || n.valueSum <= 0 {
		t.Fatalf("after f5-h5: toAct %v valueSum %v, want black to act with a positive value for black", n.toAct, n.valueSum)
	}
	if q := a.q(id, env.White); q >= 0 {
		t.Fatalf("Q(f5-h5) for white = %v, want negative", q)
	}
}

func TestTerminalLeavesUseExactOutcome(t *testing.T) {
	var a arena
	s := winPosition(t)
	for _, tok := range []string{"d5-f5", "xe3-e7", "xa2"} {
		if err := s.ApplyAction(mustAction(t, tok)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Outcome() != env.WhiteWins || s.CurrentPlayer() != env.White {
		t.Fatalf("outcome %v, to act %v", s.Outcome(), s.CurrentPlayer())
	}
	id := a.newNode(-1, s)
	if n := a.nodes[id]; n.flags&flagTerminal == 0 || n.raw != 1 {
		t.Fatalf("terminal node %+v, want flagTerminal and raw 1", n)
	}
	for _, tc := range []struct {
		rings, side, removed string
		v, d                 float32
	}{
		// games ended by a double pass (flag e), scored by rings removed
		{"b1:W c1:W d1:W e1:W k7:B k8:B k9:B k10:B j11:B", "b", "1-0", -1, 0},
		{"b1:W c1:W d1:W e1:W k7:B k8:B k9:B k10:B j11:B", "w", "1-0", 1, 0},
		{"a2:W b1:W c1:W d1:W e1:W k9:B k10:B j11:B", "w", "0-2", -1, 0},
		{"b1:W c1:W d1:W e1:W k8:B k9:B k10:B j11:B", "b", "1-1", 0, 1}, // a draw
	} {
		s, err := env.ParsePosition(boardText(t, tc.rings)+" "+tc.side+" "+tc.removed+" e", env.Standard)
		if err != nil {
			t.Fatal(err)
		}
		if v, d := terminalValue(s); !s.IsTerminal() || v != tc.v || d != tc.d {
			t.Errorf("%s %s: terminal %v, value %v draw %v, want %v %v", tc.side, tc.removed, s.IsTerminal(), v, d, tc.v, tc.d)
		}
	}
}

func TestDeterministic(t *testing.T) {
	s := midgame(t, 3, 16)
	for _, gum := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations, cfg.Gumbel = 400, gum
		cfg.DirichletFraction, cfg.Temperature = 0.25, 1
		cfg.FullFraction, cfg.FastSimulations = 0.5, 50
		run := func(seed uint64) *Result {
			tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 9})
			tr.Reset(s)
			var res *Result
			rng := seeded(seed)
			for range 3 {
				r, err := tr.Search(rng)
				if err != nil {
					t.Fatal(err)
				}
				if err := tr.Advance(r.Action); err != nil {
					t.Fatal(err)
				}
				res = r
			}
			return res
		}
		a, b, c := run(11), run(11), run(12)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("gumbel=%v: same seed gave different results", gum)
		}
		if reflect.DeepEqual(a, c) {
			t.Errorf("gumbel=%v: different seeds gave identical results (noise or sampling unused?)", gum)
		}
	}
}

func TestTreeReuse(t *testing.T) {
	s := midgame(t, 5, 20)
	cfg := DefaultConfig()
	cfg.Simulations = 500
	tr := newTree(t, cfg, Uniform{})
	tr.Reset(s)
	res, err := tr.Search(seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	best := child(res, res.Action)
	// PV below the chosen action must survive the advance
	if err := tr.Advance(res.Action); err != nil {
		t.Fatal(err)
	}
	root := tr.a.nodes[rootIndex]
	if int(root.visits) != best.Visits || root.parent != -1 {
		t.Fatalf("reused root has %d visits (parent %d), want %d", root.visits, root.parent, best.Visits)
	}
	if tr.Nodes() > best.Visits+1 || tr.Nodes() < 2 {
		t.Fatalf("kept %d nodes for a subtree of %d visits", tr.Nodes(), best.Visits)
	}
	checkTree(t, &tr.a, tr.Root())
	want := *s
	if err := want.ApplyAction(res.Action); err != nil {
		t.Fatal(err)
	}
	if tr.Root().Hash() != want.Hash() {
		t.Fatal("root state not advanced")
	}
	res2, err := tr.Search(seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	if res2.Simulations != 500 || res2.Visits != best.Visits+500 {
		t.Fatalf("second search: %d sims, root visits %d, want 500 and %d", res2.Simulations, res2.Visits, best.Visits+500)
	}
	checkTree(t, &tr.a, tr.Root())
	// An action never searched resets the tree; an illegal one is refused and changes nothing.
	if err := tr.Advance(env.Action(0)); !errors.Is(err, env.ErrIllegal) {
		t.Fatalf("illegal advance: err %v, want ErrIllegal", err)
	}
	if tr.Root().Hash() != want.Hash() || tr.Nodes() == 0 {
		t.Fatal("illegal advance changed the tree")
	}
	var unseen env.Action = -1
	for _, c := range res2.Children {
		if c.Visits == 0 {
			unseen = c.Action
		}
	}
	if unseen >= 0 {
		if err := tr.Advance(unseen); err != nil {
			t.Fatal(err)
		}
		if tr.Nodes() != 0 {
			t.Fatalf("advance by an unvisited action kept %d nodes", tr.Nodes())
		}
	}
}

// checkTree verifies the tree invariants: parent links, visit sums, no virtual loss left, and that
// every edge's action is legal in the state reached.
func checkTree(t *testing.T, a *arena, root *env.State) {
	t.Helper()
	var walk func(id int32, s env.State)
	walk = func(id int32, s env.State) {
		n := a.nodes[id]
		if n.inflight != 0 {
			t.Fatalf("node %d: %d simulations still in flight", id, n.inflight)
		}
		if n.toAct != s.CurrentPlayer() {
			t.Fatalf("node %d: toAct %v, state says %v", id, n.toAct, s.CurrentPlayer())
		}
		if n.flags&flagExpanded == 0 {
			return
		}
		sum := int32(0)
		legal := s.LegalActions(nil)
		if len(legal) != int(n.numEdges) {
			t.Fatalf("node %d: %d edges, %d legal actions", id, n.numEdges, len(legal))
		}
		// the edges are the legal actions, in order unless ShuffleChildren permuted them
		edges := a.edges[n.edges : n.edges+int32(n.numEdges)]
		acts := make([]env.Action, len(edges))
		for i, e := range edges {
			acts[i] = env.Action(e.action)
		}
		sorted := slices.Sorted(slices.Values(acts))
		for i := range legal {
			if sorted[i] != legal[i] {
				t.Fatalf("node %d: edge actions %v are not the legal actions %v", id, acts, legal)
			}
		}
		for i, e := range edges {
			if e.child == unvisited {
				continue
			}
			if a.nodes[e.child].parent != id {
				t.Fatalf("node %d: parent %d, want %d", e.child, a.nodes[e.child].parent, id)
			}
			sum += a.nodes[e.child].visits
			c := s
			if err := c.ApplyAction(acts[i]); err != nil {
				t.Fatal(err)
			}
			walk(e.child, c)
		}
		if sum != n.visits-1 {
			t.Fatalf("node %d: %d visits, children sum %d (want visits-1)", id, n.visits, sum)
		}
		// the node's value sum is its own evaluation plus its children's, each turned to the view of
		// the node's player to act (a sign flip exactly when the player to act changes)
		want := float64(n.raw)
		for _, e := range a.edges[n.edges : n.edges+int32(n.numEdges)] {
			if e.child == unvisited {
				continue
			}
			c := a.nodes[e.child]
			if c.toAct == n.toAct {
				want += float64(c.valueSum)
			} else {
				want -= float64(c.valueSum)
			}
		}
		if math.Abs(want-float64(n.valueSum)) > 1e-3*float64(n.visits)+1e-3 {
			t.Fatalf("node %d: valueSum %v, want raw + signed children sums = %v", id, n.valueSum, want)
		}
	}
	walk(rootIndex, *root)
}

func TestInFlightLeavesAndInvariants(t *testing.T) {
	s := midgame(t, 8, 24)
	for _, lif := range []int{1, 4, 32} {
		for _, gum := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.LeavesInFlight, cfg.Gumbel = 700, lif, gum
			calls := 0
			ev := EvaluatorFunc(func(r []Request, o []Evaluation) error {
				calls++
				if len(r) > lif {
					t.Errorf("batch of %d leaves, LeavesInFlight %d", len(r), lif)
				}
				return Rollout{Playouts: 1}.Evaluate(r, o)
			})
			tr := newTree(t, cfg, ev)
			tr.Reset(s)
			res, err := tr.Search(seeded(4))
			if err != nil {
				t.Fatal(err)
			}
			if res.Simulations != 700 || res.Visits != 701 {
				t.Fatalf("lif %d gumbel %v: %d sims, %d root visits", lif, gum, res.Simulations, res.Visits)
			}
			checkTree(t, &tr.a, tr.Root())
			if lif > 1 && calls > 700/2 {
				t.Errorf("lif %d: %d evaluator calls for 700 simulations, want batching", lif, calls)
			}
			var sum float32
			for _, p := range res.Policy {
				sum += p
			}
			if math.Abs(float64(sum)-1) > 1e-4 {
				t.Errorf("policy sums to %v", sum)
			}
		}
	}
}

func TestPlayoutCap(t *testing.T) {
	s := midgame(t, 10, 12)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.FastSimulations, cfg.FullFraction = 64, 8, 0.25
	tr := newTree(t, cfg, Uniform{})
	rng := seeded(5)
	full := 0
	for range 200 {
		tr.Reset(s)
		res, err := tr.Search(rng)
		if err != nil {
			t.Fatal(err)
		}
		want := 8
		if res.Full {
			full++
			want = 64
		}
		if res.Simulations != want {
			t.Fatalf("full=%v search ran %d simulations, want %d", res.Full, res.Simulations, want)
		}
	}
	if full < 30 || full > 70 {
		t.Fatalf("%d of 200 searches full, want about 50", full)
	}
}

func TestEvaluatorErrorsAndBadOutput(t *testing.T) {
	s := midgame(t, 11, 10)
	cfg := DefaultConfig()
	cfg.Simulations = 50
	boom := errors.New("boom")
	fail := false
	ev := EvaluatorFunc(func(r []Request, o []Evaluation) error {
		if fail {
			return boom
		}
		return Uniform{}.Evaluate(r, o)
	})
	tr := newTree(t, cfg, ev)
	tr.Reset(s)
	if _, err := tr.Search(seeded(1)); err != nil {
		t.Fatal(err)
	}
	fail = true
	if _, err := tr.Search(seeded(1)); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	fail = false
	res, err := tr.Search(seeded(1))
	if err != nil || res.Simulations != 50 {
		t.Fatalf("search after a failure: %v, %+v", err, res)
	}
	checkTree(t, &tr.a, tr.Root())

	bad := EvaluatorFunc(func(r []Request, o []Evaluation) error {
		for i := range r {
			fillUniform(o[i].Priors)
			o[i].WDL = [3]float32{float32(math.NaN()), 0, 0}
		}
		return nil
	})
	tr = newTree(t, cfg, bad)
	tr.Reset(s)
	if _, err := tr.Search(seeded(1)); err == nil {
		t.Fatal("NaN WDL accepted")
	}
	// a terminal root is refused
	w := winPosition(t)
	for _, tok := range []string{"d5-f5", "xe3-e7", "xa2"} {
		if err := w.ApplyAction(mustAction(t, tok)); err != nil {
			t.Fatal(err)
		}
	}
	tr.Reset(w)
	if _, err := tr.Search(seeded(1)); err == nil {
		t.Fatal("search of a terminal root succeeded")
	}
}
