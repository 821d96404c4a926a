package mcts

import "math"

// puctChild returns the edge of node id with the highest PUCT score. Unvisited children score
// FPU + c·P·sqrt(ΣN), so only the unvisited one of highest prior needs a score.
func (t *Tree) puctChild(id int32) int32 {
	nodes, nd := t.a.nodes, &t.a.nodes[id]
	sumN := float32(nd.visits-1) + float32(nd.inflight)
	cs := float32(t.cfg.CPUCT) * float32(math.Sqrt(float64(max(sumN, 1))))
	vl := float32(t.cfg.VirtualLoss)
	me := nd.toAct
	best, bestScore := int32(-1), float32(math.Inf(-1))
	bestUnv, maxUnvP := int32(-1), float32(-1)
	var visitedMass float32
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	for i := range edges {
		e := &edges[i]
		p := e.prior.float()
		if e.child == unvisited {
			if p > maxUnvP {
				maxUnvP, bestUnv = p, int32(i)
			}
			continue
		}
		c := &nodes[e.child]
		visitedMass += p
		inf := float32(c.inflight)
		n := float32(c.visits) + inf
		w := c.valueSum
		if c.toAct != me {
			w = -w
		}
		score := (w-vl*inf)/n + cs*p/(1+n)
		if score > bestScore {
			best, bestScore = int32(i), score
		}
	}
	if bestUnv >= 0 {
		red := t.cfg.FPUReduction
		if id == rootIndex {
			red = t.cfg.RootFPUReduction
		}
		parentQ := nd.valueSum / float32(nd.visits)
		fpu := parentQ - float32(red)*float32(math.Sqrt(float64(visitedMass)))
		if fpu+cs*maxUnvP > bestScore {
			best = bestUnv
		}
	}
	return nd.edges + best
}
