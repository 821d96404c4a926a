package mcts

import "fmt"

// Mix is AlphaGo's leaf evaluation: the priors of Net and a value mixed from Net's and random
// rollouts' (Rollout), WDL = (1-Lambda)·WDL_net + Lambda·WDL_rollout. Lambda 0 is plain AlphaZero; a
// small network early in training is far weaker at valuing positions than a few random playouts,
// and mixing lets search (and so self-play targets) see through tactics the network does not know
// yet. It is safe for concurrent use when both evaluators are.
type Mix struct {
	Net     Evaluator
	Rollout Evaluator
	Lambda  float32
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
	netWDL := make([][3]float32, len(out))
	for i := range out {
		netWDL[i] = out[i].WDL
	}
	// the rollout evaluator writes priors too: give it scratch ones
	scratch := make([]Evaluation, len(reqs))
	for i := range scratch {
		scratch[i].Priors = make([]float32, len(reqs[i].Legal))
	}
	if err := m.Rollout.Evaluate(reqs, scratch); err != nil {
		return err
	}
	l := m.Lambda
	for i := range out {
		for k := 0; k < 3; k++ {
			out[i].WDL[k] = (1-l)*netWDL[i][k] + l*scratch[i].WDL[k]
		}
	}
	return nil
}
