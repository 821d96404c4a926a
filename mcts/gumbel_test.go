package mcts

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// The expected sequences are mctx's seq_halving_test.py cases.
func TestConsideredVisits(t *testing.T) {
	for _, tc := range []struct {
		m, n int
		want []int32
	}{
		{8, 24, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}},
		{8, 47, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
			4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17}},
		{8, 2, []int32{0, 0}},
		{8, 13, []int32{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2}},
		{7, 24, []int32{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8}},
		{0, 16, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{1, 16, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
	} {
		if got := consideredVisits(tc.m, tc.n, nil); !slices.Equal(got, tc.want) {
			t.Errorf("consideredVisits(%d, %d) = %v, want %v", tc.m, tc.n, got, tc.want)
		}
	}
}

// The generated schedule of an untimed search is mctx's table entry for entry (so untimed Gumbel
// searches are unchanged), for any number of considered actions and simulations.
func TestHalvingMatchesTheTable(t *testing.T) {
	for m := 1; m <= 20; m++ {
		for _, n := range []int{1, 2, 3, 7, 16, 24, 47, 64, 100, 128, 200, 333, 800, 1000} {
			want := consideredVisits(m, n, nil)
			var h halving
			h.start(m, n, time.Time{}, time.Time{})
			for i := range n {
				if got := h.at(i, nil); got != want[i] {
					t.Fatalf("m %d n %d: entry %d is %d, want %d", m, n, i, got, want[i])
				}
				if got := h.at(i, nil); got != want[i] { // asked again after a collision
					t.Fatalf("m %d n %d: entry %d asked twice gave %d, want %d", m, n, i, got, want[i])
				}
			}
		}
	}
}

// consideredVisits is mctx's table, the reference for halving: it appends the sequence of considered visit counts for m considered actions and n
// simulations (mctx get_sequence_of_considered_visits): sequential halving in ceil(log2 m) phases,
// each giving every remaining action about n/(log2(m)·remaining) visits, halving the remaining actions
// (down to 2) after each phase.
func consideredVisits(m, n int, dst []int32) []int32 {
	if m <= 1 {
		for i := range n {
			dst = append(dst, int32(i))
		}
		return dst
	}
	log2m := int(math.Ceil(math.Log2(float64(m))))
	visits := make([]int32, m)
	considered := m
	start := len(dst)
	for len(dst)-start < n {
		extra := max(1, n/(log2m*considered))
		for range extra {
			dst = append(dst, visits[:considered]...)
			for i := range considered {
				visits[i]++
			}
		}
		considered = max(2, considered/2)
	}
	return dst[:start+n]
}

// syntheticRoot builds a tree whose root (white to act, raw value raw) has the given priors and, per
// child, visits and mean value from white's view (children alternate the player to act, so both signs
// of backup are exercised).
func syntheticRoot(t *Tree, raw float32, priors []float32, visits []int32, q []float32) {
	t.a.reset()
	t.a.nodes = append(t.a.nodes, node{parent: -1, toAct: env.White, flags: flagExpanded, raw: raw, numEdges: uint16(len(priors))})
	var sumN int32
	for i, p := range priors {
		e := edge{child: unvisited, action: uint16(i), prior: encodePrior(p)}
		if visits[i] > 0 {
			who := env.Color(i % 2)
			v := q[i] * float32(visits[i])
			if who != env.White {
				v = -v
			}
			t.a.nodes = append(t.a.nodes, node{parent: 0, toAct: who, visits: visits[i], valueSum: v})
			e.child = int32(len(t.a.nodes) - 1)
			sumN += visits[i]
		}
		t.a.edges = append(t.a.edges, e)
	}
	t.a.nodes[0].visits = sumN + 1
}

func TestCompletedQMatchesMctx(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GumbelCVisit, cfg.GumbelCScale = 50, 0.1
	tr := newTree(t, cfg, Uniform{})
	// priors .5 .25 .125 .125; visits 3 1 0 0; q .6 -.2; raw .1
	syntheticRoot(tr, 0.1, []float32{0.5, 0.25, 0.125, 0.125}, []int32{3, 1, 0, 0}, []float32{0.6, -0.2, 0, 0})
	// mixed = (raw + sumN·Σp·q/Σp) / (sumN+1) = (0.1 + 4·(0.5·0.6 + 0.25·-0.2)/0.75) / 5
	mixed := (0.1 + 4*(0.5*0.6+0.25*-0.2)/0.75) / 5
	completed := []float64{0.6, -0.2, mixed, mixed}
	lo, hi := -0.2, 0.6
	scale := (50 + 3) * 0.1
	got := tr.completedQ(rootIndex, &tr.scratch)
	for i, c := range completed {
		want := scale * (c - lo) / (hi - lo)
		if math.Abs(float64(got[i])-want) > 1e-4 {
			t.Errorf("σ(q̂)[%d] = %v, want %v", i, got[i], want)
		}
	}
	pol := tr.improvedPolicy(rootIndex, got, &tr.scratch2)
	var z float64
	w := make([]float64, 4)
	for i, p := range []float64{0.5, 0.25, 0.125, 0.125} {
		w[i] = p * math.Exp(scale*(completed[i]-lo)/(hi-lo))
		z += w[i]
	}
	for i := range w {
		if math.Abs(float64(pol[i])-w[i]/z) > 1e-4 {
			t.Errorf("π'[%d] = %v, want %v", i, pol[i], w[i]/z)
		}
	}
}

// TestImprovedPolicyImproves checks, over random root statistics, the guarantees of the improved
// policy π' = softmax(logit + σ(q̂)): the action with the best completed Q gets at least its prior
// probability, the probability ratio π'/π is monotone in q̂, and π' has an expected q̂ at least that
// of the prior.
func TestImprovedPolicyImproves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := DefaultConfig()
	for trial := range 500 {
		cfg.GumbelCScale = []float64{0.1, 1}[trial%2]
		tr := newTree(t, cfg, Uniform{})
		k := 2 + rng.IntN(60)
		priors := make([]float32, k)
		visits := make([]int32, k)
		q := make([]float32, k)
		for i := range k {
			priors[i] = float32(rng.ExpFloat64())
			if rng.IntN(3) > 0 {
				visits[i] = int32(1 + rng.IntN(50))
				q[i] = float32(2*rng.Float64() - 1)
			}
		}
		normalize(priors)
		syntheticRoot(tr, float32(2*rng.Float64()-1), priors, visits, q)
		sigma := slices.Clone(tr.completedQ(rootIndex, &tr.scratch))
		pol := tr.improvedPolicy(rootIndex, sigma, &tr.scratch2)
		best := 0
		var eImproved, ePrior float64
		for i := range k {
			p := float64(tr.a.edges[i].prior.float())
			if sigma[i] > sigma[best] {
				best = i
			}
			eImproved += float64(pol[i]) * float64(sigma[i])
			ePrior += p * float64(sigma[i])
		}
		if p := tr.a.edges[best].prior.float(); pol[best] < p*(1-1e-4) {
			t.Fatalf("trial %d: best-valued action has π' %v < prior %v", trial, pol[best], p)
		}
		if eImproved < ePrior-1e-4 {
			t.Fatalf("trial %d: E_π'[σ] = %v < E_π[σ] = %v", trial, eImproved, ePrior)
		}
		for i := range k {
			for j := range k {
				pi, pj := float64(tr.a.edges[i].prior.float()), float64(tr.a.edges[j].prior.float())
				if pol[i] < 1e-30 || pol[j] < 1e-30 {
					continue // float32 underflow
				}
				if sigma[i] > sigma[j] && float64(pol[i])/pi < float64(pol[j])/pj*(1-1e-3) {
					t.Fatalf("trial %d: q̂ %v > %v but π'/π %v < %v", trial, sigma[i], sigma[j], float64(pol[i])/pi, float64(pol[j])/pj)
				}
			}
		}
	}
}

// TestImprovedPolicyVersusVisits compares, in searches of the known-answer positions, the Gumbel
// training target with the plain visit distribution of the same search: the best-valued root action
// never gets less from the improved policy than from visits, and the losing moves never get more.
func TestImprovedPolicyVersusVisits(t *testing.T) {
	lose, bad := losePosition(t)
	for _, tc := range []struct {
		name string
		s    *env.State
		best env.Action
	}{
		{"win", winPosition(t), mustAction(t, "d5-f5")},
		{"lose", lose, -1},
	} {
		compared, strict := 0, 0
		for _, cscale := range []float64{0.1, 1} {
			for seed := uint64(1); seed <= 8; seed++ {
				cfg := DefaultConfig()
				cfg.Simulations, cfg.Gumbel, cfg.GumbelConsidered, cfg.GumbelCScale = 200, true, 64, cscale
				tr := newTree(t, cfg, Rollout{Playouts: 4, Seed: seed})
				tr.Reset(tc.s)
				res, err := tr.Search(seeded(seed))
				if err != nil {
					t.Fatal(err)
				}
				var total float32
				best := res.Children[0]
				for _, c := range res.Children {
					total += float32(c.Visits)
					if c.Visits > 0 && (best.Visits == 0 || c.Q > best.Q) {
						best = c
					}
				}
				if tc.best >= 0 && best.Action != tc.best {
					continue // the search did not visit the win: nothing to compare
				}
				compared++
				visits := float32(best.Visits) / total
				if best.Policy < visits {
					t.Errorf("%s cscale %v seed %d: best-valued %s has π' %.4f < visit share %.4f", tc.name, cscale, seed, best.Action, best.Policy, visits)
				}
				if best.Policy > visits {
					strict++
				}
				for _, a := range bad {
					if c := child(res, a); tc.s == lose && c.Policy > float32(c.Visits)/total {
						t.Errorf("%s cscale %v seed %d: losing %s has π' %.4f > visit share %.4f", tc.name, cscale, seed, a, c.Policy, float32(c.Visits)/total)
					}
				}
			}
		}
		// the improved policy is not the visit distribution: it concentrates on the best action
		if compared < 12 || strict < compared*3/4 {
			t.Errorf("%s: %d searches compared, π' above the visit share in %d", tc.name, compared, strict)
		}
	}
}

func TestGumbelDeterministicWithoutNoise(t *testing.T) {
	s := midgame(t, 21, 14)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Gumbel, cfg.GumbelScale = 200, true, 0
	var first *Result
	for seed := uint64(1); seed <= 3; seed++ {
		tr := newTree(t, cfg, Rollout{Playouts: 2, Seed: 5})
		tr.Reset(s)
		res, err := tr.Search(seeded(seed))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
		} else if res.Action != first.Action || !slices.Equal(res.Policy, first.Policy) {
			t.Fatalf("GumbelScale 0: seed %d gave a different search", seed)
		}
	}
}

// TestGumbelVisitBudget checks the sequential-halving shape at the root: the first m simulations go
// to m distinct actions, and every later visit goes to an action that survived the halvings.
func TestGumbelVisitBudget(t *testing.T) {
	s := midgame(t, 22, 14)
	for _, reuse := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Simulations, cfg.Gumbel, cfg.GumbelConsidered, cfg.LeavesInFlight = 64, true, 8, 1
		tr := newTree(t, cfg, Rollout{Playouts: 1})
		tr.Reset(s)
		if reuse { // give the root children visits from an earlier search first
			if _, err := tr.Search(seeded(1)); err != nil {
				t.Fatal(err)
			}
		}
		before := map[env.Action]int{}
		if reuse {
			for _, e := range tr.a.edges[tr.a.nodes[0].edges : tr.a.nodes[0].edges+int32(tr.a.nodes[0].numEdges)] {
				if e.child != unvisited {
					before[env.Action(e.action)] = int(tr.a.nodes[e.child].visits)
				}
			}
		}
		res, err := tr.Search(seeded(2))
		if err != nil {
			t.Fatal(err)
		}
		// 8 considered, 64 simulations, 3 phases: 8 actions × 64/(3·8)=2 visits, then 4 × 64/(3·4)=5
		// more, then 2 × 64/(3·2)=10 more, and the last 8 simulations to the finalists by turns: the
		// eliminated get 2 and 7 visits, the finalists 21 each.
		var counts []int
		for _, c := range res.Children {
			if n := c.Visits - before[c.Action]; n > 0 {
				counts = append(counts, n)
			}
		}
		slices.Sort(counts)
		if want := []int{2, 2, 2, 2, 7, 7, 21, 21}; !slices.Equal(counts, want) {
			t.Errorf("reuse=%v: new visits per considered action %v, want %v", reuse, counts, want)
		}
	}
}
