package mcts

import (
	"math"
	"math/rand/v2"
	"time"
)

// Gumbel AlphaZero (Danihelka, Guez, Schrittwieser, Silver 2022), following mctx's
// gumbel_muzero_policy: at the root, Gumbel-top-k sampling and sequential halving, both expressed by a
// table of "considered visits" (the root child to visit next is the best by g + logit + σ(q̂) among
// those visited exactly that often); below the root, the deterministic selection
// argmax(π'(a) - N(a)/(1+ΣN)) with π' = softmax(logit + σ(q̂)); the improved policy π' at the root is the
// training target. Here q̂ is the completed Q: a visited child's mean value, otherwise the mixed value
// of the node's raw value and its visited children's Q, all rescaled to [0, 1] across the children,
// and σ(q̂) = (CVisit + max N)·CScale·q̂.

// gumbelRoot is the per-search state of the root.
type gumbelRoot struct {
	score []float32 // per root edge: GumbelScale·Gumbel noise + logit
	base  []int32   // per root edge: the child's visits when the search started (tree reuse)
	halve halving   // the visit count of the root child that each simulation must extend
}

// logit returns the log of a prior (floored, so that a zero prior is a very low finite logit).
func logit(p prior16) float32 { return float32(math.Log(float64(max(p.float(), 1e-30)))) }

// startGumbel draws the root's Gumbel noise and starts the sequential halving for budget
// simulations and, when the search is timed (deadline not zero), for the time from start to
// deadline.
func (t *Tree) startGumbel(rng *rand.Rand, budget int, start, deadline time.Time) {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	gr := &t.gumbel
	gr.score = grow(gr.score, len(edges))
	gr.base = grow(gr.base, len(edges))
	for i, e := range edges {
		var g float64
		if t.cfg.GumbelScale > 0 {
			u := rng.Float64()
			for u == 0 {
				u = rng.Float64()
			}
			g = -math.Log(-math.Log(u)) * t.cfg.GumbelScale
		}
		gr.score[i] = float32(g) + logit(e.prior)
		gr.base[i] = 0
		if e.child != unvisited {
			gr.base[i] = t.a.nodes[e.child].visits
		}
	}
	gr.halve.start(min(t.cfg.GumbelConsidered, len(edges)), budget, start, deadline)
}

// gumbelRootChild returns the root edge for the next simulation.
func (t *Tree) gumbelRootChild() int32 {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	gr := &t.gumbel
	sigma := t.completedQ(rootIndex, &t.scratch)
	cv := gr.halve.at(t.started, t.clock)
	best, bestScore := -1, float32(math.Inf(-1))
	fallback, fallbackScore := 0, float32(math.Inf(-1))
	for i, e := range edges {
		var n int32
		if e.child != unvisited {
			c := &t.a.nodes[e.child]
			n = c.visits + int32(c.inflight) - gr.base[i]
		}
		s := gr.score[i] + sigma[i]
		if s > fallbackScore {
			fallback, fallbackScore = i, s
		}
		if n == cv && s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		best = fallback // the table and the counts disagree (cannot happen); stay well defined
	}
	return nd.edges + int32(best)
}

// gumbelInteriorChild returns the edge of a non-root node chosen by argmax(π'(a) - N(a)/(1+ΣN)).
func (t *Tree) gumbelInteriorChild(id int32) int32 {
	nd := t.a.nodes[id]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	sigma := t.completedQ(id, &t.scratch)
	probs := t.improvedPolicy(id, sigma, &t.scratch2)
	var sumN float32
	for _, e := range edges {
		if e.child != unvisited {
			c := &t.a.nodes[e.child]
			sumN += float32(c.visits) + float32(c.inflight)
		}
	}
	best, bestScore := 0, float32(math.Inf(-1))
	for i, e := range edges {
		var n float32
		if e.child != unvisited {
			c := &t.a.nodes[e.child]
			n = float32(c.visits) + float32(c.inflight)
		}
		if s := probs[i] - n/(1+sumN); s > bestScore {
			best, bestScore = i, s
		}
	}
	return nd.edges + int32(best)
}

// completedQ writes σ(q̂) for each edge of node id into *buf (grown as needed) and returns it. Values
// are from the view of the player to act at id; only completed visits count. σ's visit scale is
// GumbelCVisit + max N, N a child's visits; at the root with GumbelSigmaNewVisits, N counts only the
// visits of the current search (not those kept by tree reuse).
func (t *Tree) completedQ(id int32, buf *[]float32) []float32 {
	out, maxN, lo, hi := t.completedValues(id, buf)
	if id == rootIndex && t.cfg.GumbelSigmaNewVisits {
		maxN = t.maxNewRootVisits()
	}
	scale := float32(t.cfg.GumbelCVisit+float64(maxN)) * float32(t.cfg.GumbelCScale)
	span := max(hi-lo, 1e-8)
	for i := range out {
		out[i] = scale * (out[i] - lo) / span
	}
	return out
}

// completedValues writes q̂, the completed Q of each edge of node id (mctx
// qtransform_completed_by_mix_value before its rescaling and σ), into *buf (grown as needed) and
// returns it with the largest child visit count and the range [lo, hi] that σ rescales to [0, 1].
// q̂ is a visited child's mean value, otherwise the mixed value (raw + ΣN·Σ_visited p·q/Σ_visited p) /
// (ΣN + 1), in the units of Q (win - loss, from the view of the player to act at id).
func (t *Tree) completedValues(id int32, buf *[]float32) (q []float32, maxN, lo, hi float32) {
	nd := t.a.nodes[id]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	out := grow(*buf, len(edges))
	*buf = out
	var sumN, sumP, sumPQ float32
	for i, e := range edges {
		if e.child == unvisited || t.a.nodes[e.child].visits == 0 {
			continue
		}
		q := t.a.q(e.child, nd.toAct)
		n := float32(t.a.nodes[e.child].visits)
		p := max(e.prior.float(), 1e-30)
		out[i] = q
		sumN += n
		maxN = max(maxN, n)
		sumP += p
		sumPQ += p * q
	}
	mixed := nd.raw
	if sumN > 0 {
		mixed = (nd.raw + sumN*sumPQ/sumP) / (sumN + 1)
	}
	// mctx completes the illegal actions with the mixed value too, so it always takes part in the
	// rescaling; so it does here.
	lo, hi = mixed, mixed
	for i, e := range edges {
		if e.child == unvisited || t.a.nodes[e.child].visits == 0 {
			out[i] = mixed
		}
		lo, hi = min(lo, out[i]), max(hi, out[i])
	}
	return out, maxN, lo, hi
}

// maxNewRootVisits returns the largest number of visits a root child has had in the current search
// (its visits less those it had when the search started).
func (t *Tree) maxNewRootVisits() float32 {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	var maxN int32
	for i, e := range edges {
		if e.child == unvisited {
			continue
		}
		n := t.a.nodes[e.child].visits
		if i < len(t.gumbel.base) {
			n -= t.gumbel.base[i]
		}
		maxN = max(maxN, n)
	}
	return float32(maxN)
}

// improvedPolicy writes softmax(logit + sigma) over the edges of node id into *buf and returns it.
func (t *Tree) improvedPolicy(id int32, sigma []float32, buf *[]float32) []float32 {
	nd := t.a.nodes[id]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	out := grow(*buf, len(edges))
	*buf = out
	m := float32(math.Inf(-1))
	for i, e := range edges {
		out[i] = logit(e.prior) + sigma[i]
		m = max(m, out[i])
	}
	var sum float32
	for i := range out {
		out[i] = float32(math.Exp(float64(out[i] - m)))
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// gumbelFinal returns the improved policy over the root edges (a new slice) and the chosen root edge:
// among the children visited most in this search, the best by g + logit + σ(q̂).
func (t *Tree) gumbelFinal() ([]float32, int) {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	gr := &t.gumbel
	sigma := t.completedQ(rootIndex, &t.scratch)
	var improved []float32
	improved = t.improvedPolicy(rootIndex, sigma, &improved)
	newVisits := func(i int) int32 {
		if c := edges[i].child; c != unvisited {
			return t.a.nodes[c].visits - gr.base[i]
		}
		return 0
	}
	var maxN int32
	for i := range edges {
		maxN = max(maxN, newVisits(i))
	}
	best, bestScore := 0, float32(math.Inf(-1))
	for i := range edges {
		if s := gr.score[i] + sigma[i]; newVisits(i) == maxN && s > bestScore {
			best, bestScore = i, s
		}
	}
	return improved, best
}

// improvedValue returns the value of the improved policy at the root, Σ_a π′(a)·q̂(a), for the
// improved policy over the root edges (gumbelFinal's), and the matching win/draw/loss (see
// Result.ImprovedValue). The sums are in float64; q̂ is completedValues' float32, as π′ saw it.
func (t *Tree) improvedValue(improved []float32) (float32, [3]float32) {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	qhat, _, _, _ := t.completedValues(rootIndex, &t.scratch)
	// the draw's completion, as completedValues completes the value
	var sumN, sumP, sumPD, childDraws float64
	for _, e := range edges {
		if e.child == unvisited || t.a.nodes[e.child].visits == 0 {
			continue
		}
		c := &t.a.nodes[e.child]
		n := float64(c.visits)
		p := float64(max(e.prior.float(), 1e-30))
		sumN += n
		sumP += p
		sumPD += p * float64(c.drawSum) / n
		childDraws += float64(c.drawSum)
	}
	mixedDraw := min(max(float64(nd.drawSum)-childDraws, 0), 1) // the root's own evaluation's draw
	if sumN > 0 {
		mixedDraw = (mixedDraw + sumN*sumPD/sumP) / (sumN + 1)
	}
	var v, d, z float64
	for i, e := range edges {
		p := float64(improved[i])
		di := mixedDraw
		if e.child != unvisited && t.a.nodes[e.child].visits > 0 {
			c := &t.a.nodes[e.child]
			di = float64(c.drawSum) / float64(c.visits)
		}
		v += p * float64(qhat[i])
		d += p * di
		z += p
	}
	v, d = v/z, min(max(d/z, 0), 1)
	return float32(v), [3]float32{float32(max(0, (1-d+v)/2)), float32(d), float32(max(0, (1-d-v)/2))}
}
