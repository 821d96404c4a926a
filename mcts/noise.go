package mcts

import (
	"math"
	"math/rand/v2"
)

// addNoise mixes Dirichlet noise into the root priors, keeping the clean ones for removeNoise.
func (t *Tree) addNoise(rng *rand.Rand) {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	t.cleanPrior = t.cleanPrior[:0]
	t.scratch = grow(t.scratch, len(edges))
	var sum float64
	for i := range edges {
		t.cleanPrior = append(t.cleanPrior, edges[i].prior)
		g := gammaSample(rng, t.cfg.DirichletAlpha)
		t.scratch[i] = float32(g)
		sum += g
	}
	if !(sum > 0) {
		return // every sample underflowed: no noise this time
	}
	f := float32(t.cfg.DirichletFraction)
	for i := range edges {
		p := (1-f)*edges[i].prior.float() + f*t.scratch[i]/float32(sum)
		edges[i].prior = encodePrior(p)
	}
}

func (t *Tree) removeNoise() {
	if len(t.a.nodes) == 0 {
		return // discarded after an evaluator error
	}
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	for i := range edges {
		edges[i].prior = t.cleanPrior[i]
	}
}

// gammaSample draws from Gamma(alpha, 1) (Marsaglia–Tsang; alpha < 1 by the boost U^(1/alpha)).
func gammaSample(rng *rand.Rand, alpha float64) float64 {
	boost := 1.0
	if alpha < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		boost = math.Pow(u, 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}
