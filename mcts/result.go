package mcts

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/yinsh-zero/yinsh/env"
)

// ChildStats is the search's view of one root action.
type ChildStats struct {
	Action env.Action
	Visits int
	Prior  float32 // the evaluator's prior (before noise)
	Q      float32 // mean value for the player to act at the root (0 when unvisited)
	Policy float32 // the training target's probability for this action
}

// Result is the outcome of one search.
type Result struct {
	// Action is the chosen action: by visits and Temperature (PUCT), or the sequential-halving winner
	// (Gumbel).
	Action env.Action
	// Policy is the training target over the flat action space ([env.NumActions], zero on illegal
	// actions): the root visit distribution (PUCT) or the improved policy (Gumbel).
	Policy []float32
	// Children holds every legal root action, in the order of the root's children: increasing action
	// id, except with Config.ShuffleChildren, when it is the random order the root was given on
	// expansion (by this search or, with tree reuse, an earlier one), the order in which ties are
	// broken. SortedChildren returns them in action-id order whatever the configuration.
	Children []ChildStats
	// Value is the root's mean value for the player to act (win - loss); WDL its win, draw and loss.
	Value float32
	WDL   [3]float32
	// ImprovedValue is the Gumbel paper's estimate of the value of the improved policy π′ (Policy),
	// Σ_a π′(a)·q̂(a), with q̂ the completed Q that π′ itself was computed from (a visited child's
	// mean value, an unvisited one's the mixed value; mctx qtransform_completed_by_mix_value before
	// its rescaling): for the player to act, in Value's units (win - loss). Under Gumbel search
	// Value, the mean over the root's visits, leans towards the average considered action, since
	// sequential halving spreads visits evenly on purpose; ImprovedValue leans towards the actions
	// the search found best, as π′ does. ImprovedWDL is the same expectation of the children's
	// win/draw/loss: draws Σ_a π′(a)·d̂(a), d̂ completed as q̂ is (a visited child's mean draw, else
	// the same mix of the root's own draw and its visited children's), win and loss then from
	// ImprovedValue as WDL's are from Value, (1 - draw ± ImprovedValue)/2, so that win - loss is
	// ImprovedValue. (The root's own draw is not stored; it is its draw sum less its children's,
	// every root visit but its own evaluation having gone through a child.) Without Gumbel they are
	// Value and WDL: the visit distribution is the policy, and its value is the visits' mean.
	ImprovedValue float32
	ImprovedWDL   [3]float32
	// PV is the principal variation: Action, then the most visited child at each node below it.
	PV []env.Action
	// Simulations counts the simulations of this search; Visits the root's visits including those kept
	// from earlier searches by tree reuse.
	Simulations int
	Visits      int
	// Full is false for a fast search of playout-cap randomisation (do not record it as a target).
	Full bool
	// Collisions counts leaf selections abandoned because another in-flight simulation had reached
	// the same unevaluated node.
	Collisions int
	// TimeUp is set when Config.MoveTime stopped the search before its simulation budget.
	TimeUp bool
}

// SortedChildren returns a copy of Children in increasing action id.
func (r *Result) SortedChildren() []ChildStats {
	cs := slices.Clone(r.Children)
	slices.SortFunc(cs, func(a, b ChildStats) int { return cmp.Compare(a.Action, b.Action) })
	return cs
}

// fillResult summarises the root.
func (t *Tree) fillResult(res *Result, rng *rand.Rand) {
	a := &t.a
	root := a.nodes[rootIndex]
	me := root.toAct
	edges := a.edges[root.edges : root.edges+int32(root.numEdges)]
	res.Visits = int(root.visits)
	res.Value = root.valueSum / float32(root.visits)
	d := root.drawSum / float32(root.visits)
	res.WDL = [3]float32{max(0, (1-d+res.Value)/2), d, max(0, (1-d-res.Value)/2)}
	res.Children = make([]ChildStats, len(edges))
	var total float32
	for i, e := range edges {
		cs := ChildStats{Action: env.Action(e.action), Prior: e.prior.float()}
		if e.child != unvisited {
			cs.Visits = int(a.nodes[e.child].visits)
			cs.Q = a.q(e.child, me)
		}
		total += float32(cs.Visits)
		res.Children[i] = cs
	}
	res.Policy = make([]float32, env.NumActions)
	if t.cfg.Gumbel {
		improved, act := t.gumbelFinal()
		res.ImprovedValue, res.ImprovedWDL = t.improvedValue(improved)
		for i := range res.Children {
			res.Children[i].Policy = improved[i]
		}
		if t.cfg.Temperature > 0 {
			// sample among the visited actions only: π′ of an unvisited one rests on its completed
			// (guessed) value, not on search
			w := func(i int) float64 {
				if res.Children[i].Visits == 0 {
					return 0
				}
				return float64(improved[i])
			}
			best := act // visited: the halving winner is among the most visited
			for i := range improved {
				if w(i) > w(best) {
					best = i
				}
			}
			act = samplePower(len(improved), w, best, t.cfg.Temperature, rng)
		}
		res.Action = res.Children[act].Action
	} else {
		res.ImprovedValue, res.ImprovedWDL = res.Value, res.WDL
		for i := range res.Children {
			c := &res.Children[i]
			if total > 0 {
				c.Policy = float32(c.Visits) / total
			} else {
				c.Policy = c.Prior
			}
		}
		res.Action = res.Children[chooseByVisits(res.Children, t.cfg.Temperature, rng)].Action
	}
	for _, c := range res.Children {
		res.Policy[c.Action] = c.Policy
	}
	res.PV = t.pv(res.Action)
}

// chooseByVisits picks a child: the most visited one (ties: higher Q, then higher prior, then lower
// action id) for temperature 0, else one sampled proportionally to visits^(1/T).
func chooseByVisits(cs []ChildStats, temp float64, rng *rand.Rand) int {
	best := 0
	for i := 1; i < len(cs); i++ {
		if better(&cs[i], &cs[best]) {
			best = i
		}
	}
	if temp == 0 {
		return best
	}
	return samplePower(len(cs), func(i int) float64 { return float64(cs[i].Visits) }, best, temp, rng)
}

// samplePower samples an index in [0, n) with probability ∝ x(i)^(1/temp), drawing one number from
// rng; best is an index of the largest x, returned when every x is 0 (no draw then). Weights are
// taken relative to x(best), to stay finite for small temperatures; an index with x(i) = 0 is
// never drawn.
func samplePower(n int, x func(i int) float64, best int, temp float64, rng *rand.Rand) int {
	xmax := x(best)
	if xmax <= 0 {
		return best
	}
	var sum float64
	for i := range n {
		sum += math.Pow(x(i)/xmax, 1/temp)
	}
	r := rng.Float64() * sum
	for i := range n {
		r -= math.Pow(x(i)/xmax, 1/temp)
		if r < 0 && x(i) > 0 {
			return i
		}
	}
	return best
}

func better(a, b *ChildStats) bool {
	if a.Visits != b.Visits {
		return a.Visits > b.Visits
	}
	if a.Visits > 0 && a.Q != b.Q {
		return a.Q > b.Q
	}
	return a.Prior > b.Prior
}

// pv returns first, then follows the most visited child (ties: higher Q) while there is a visited one.
func (t *Tree) pv(first env.Action) []env.Action {
	a := &t.a
	pv := []env.Action{first}
	id, _ := a.childOf(rootIndex, first)
	for id != unvisited {
		nd := &a.nodes[id]
		if nd.flags&flagExpanded == 0 {
			return pv
		}
		best, bestN, bestQ := int32(unvisited), int32(0), float32(0)
		var bestAct uint16
		for _, e := range a.edges[nd.edges : nd.edges+int32(nd.numEdges)] {
			if e.child == unvisited {
				continue
			}
			n := a.nodes[e.child].visits
			q := a.q(e.child, nd.toAct)
			if n > bestN || (n == bestN && n > 0 && q > bestQ) {
				best, bestN, bestQ, bestAct = e.child, n, q, e.action
			}
		}
		if best == unvisited {
			return pv
		}
		pv = append(pv, env.Action(bestAct))
		id = best
	}
	return pv
}
