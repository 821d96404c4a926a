package mcts

import (
	"math"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// TestPUCTSelection compares puctChild with a direct two-pass implementation of the PUCT rule
// (score = Q + c·P·sqrt(ΣN)/(1+N), Q with virtual loss, FPU = parent Q - reduction·sqrt(visited prior
// mass) for unvisited children) on random node statistics.
func TestPUCTSelection(t *testing.T) {
	rng := seeded(3)
	for trial := range 2000 {
		cfg := DefaultConfig()
		cfg.CPUCT = []float64{0.5, 1.25, 4}[trial%3]
		cfg.FPUReduction = []float64{0, 0.25, 1}[trial%3]
		cfg.RootFPUReduction = 0.1
		cfg.VirtualLoss = []float64{1, 3}[trial%2]
		tr := newTree(t, cfg, Uniform{})
		a := &tr.a
		k := 1 + rng.IntN(40)
		me := env.Color(rng.IntN(2))
		a.nodes = append(a.nodes, node{parent: -1, toAct: env.White}) // a root above, so id 1 is interior
		a.nodes = append(a.nodes, node{parent: 0, toAct: me, flags: flagExpanded, edges: 0, numEdges: uint16(k)})
		priors := make([]float32, k)
		for i := range priors {
			priors[i] = float32(rng.ExpFloat64())
		}
		normalize(priors)
		var sumN, inflight int32
		for i := range k {
			e := edge{child: unvisited, action: uint16(i), prior: encodePrior(priors[i])}
			if rng.IntN(3) > 0 {
				c := node{parent: 1, toAct: env.Color(rng.IntN(2)), visits: int32(rng.IntN(30))}
				if rng.IntN(4) == 0 || c.visits == 0 {
					c.inflight = uint16(1 + rng.IntN(3))
				}
				c.valueSum = float32(2*rng.Float64()-1) * float32(c.visits)
				a.nodes = append(a.nodes, c)
				e.child = int32(len(a.nodes) - 1)
				sumN += c.visits
				inflight += int32(c.inflight)
			}
			a.edges = append(a.edges, e)
		}
		a.nodes[1].visits = sumN + 1
		a.nodes[1].inflight = uint16(inflight)
		a.nodes[1].valueSum = float32(2*rng.Float64()-1) * float32(sumN+1)

		// reference
		nd := a.nodes[1]
		parentQ := float64(nd.valueSum) / float64(nd.visits)
		var mass float64
		for _, e := range a.edges {
			if e.child != unvisited {
				mass += float64(e.prior.float())
			}
		}
		fpu := parentQ - cfg.FPUReduction*math.Sqrt(mass)
		sq := math.Sqrt(math.Max(float64(sumN+inflight), 1))
		best, bestScore := -1, math.Inf(-1)
		scores := make([]float64, k)
		for i, e := range a.edges {
			p := float64(e.prior.float())
			q, n := fpu, 0.0
			if e.child != unvisited {
				c := a.nodes[e.child]
				n = float64(c.visits) + float64(c.inflight)
				w := float64(c.valueSum)
				if c.toAct != me {
					w = -w
				}
				q = (w - cfg.VirtualLoss*float64(c.inflight)) / n
			}
			scores[i] = q + cfg.CPUCT*p*sq/(1+n)
			if scores[i] > bestScore {
				best, bestScore = i, scores[i]
			}
		}
		got := int(tr.puctChild(1))
		if got != best && math.Abs(scores[got]-bestScore) > 1e-4 {
			t.Fatalf("trial %d: chose edge %d (score %v), want %d (score %v)", trial, got, scores[got], best, bestScore)
		}
	}
}
