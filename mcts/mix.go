package mcts

import (
	"fmt"
	"sync"
)

// Mix is AlphaGo's leaf evaluation: the priors of Net and a value mixed from Net's and random
// rollouts' (Rollout), WDL = (1-Lambda)·WDL_net + Lambda·WDL_rollout. Lambda 0 is plain AlphaZero; a
// small network early in training is far weaker at valuing positions than a few random playouts,
// and mixing lets search (and so self-play targets) see through tactics the network does not know
// yet. It is safe for concurrent use when both evaluators are: each call takes its scratch buffers
// from a pool. Use it by pointer (it holds the pool); do not copy it after first use.
type Mix struct {
	Net     Evaluator
	Rollout Evaluator
	Lambda  float32

	pool sync.Pool // *mixBuffers
}

// mixBuffers is one call's scratch: the network's WDLs and the rollout evaluator's outputs (it
// writes priors too, so it gets priors of its own, carved from one slice).
type mixBuffers struct {
	netWDL  [][3]float32
	scratch []Evaluation
	priors  []float32
}

// Evaluate implements Evaluator.
func (m *Mix) Evaluate(reqs []Request, out []Evaluation) error {
	if !(m.Lambda >= 0 && m.Lambda <= 1) {
		return fmt.Errorf("mcts: mix: lambda %v, want 0..1", m.Lambda)
	}
	if err := m.Net.Evaluate(reqs, out); err != nil {
		return err
	}
	if m.Lambda == 0 {
		return nil
	}
	b, _ := m.pool.Get().(*mixBuffers)
	if b == nil {
		b = &mixBuffers{}
	}
	defer m.pool.Put(b)
	b.netWDL = grow(b.netWDL, len(out))
	for i := range out {
		b.netWDL[i] = out[i].WDL
	}
	total := 0
	for i := range reqs {
		total += len(reqs[i].Legal)
	}
	b.priors = grow(b.priors, total)
	b.scratch = grow(b.scratch, len(reqs))
	off := 0
	for i := range reqs {
		n := len(reqs[i].Legal)
		b.scratch[i] = Evaluation{Priors: b.priors[off : off+n : off+n]}
		off += n
	}
	if err := m.Rollout.Evaluate(reqs, b.scratch); err != nil {
		return err
	}
	l := m.Lambda
	for i := range out {
		for k := 0; k < 3; k++ {
			out[i].WDL[k] = (1-l)*b.netWDL[i][k] + l*b.scratch[i].WDL[k]
		}
	}
	return nil
}
