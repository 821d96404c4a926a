package mcts

import (
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

func TestMixBlendsValuesKeepsPriors(t *testing.T) {
	s := env.NewState(env.Blitz)
	legal := s.LegalActions(nil)
	net := EvaluatorFunc(func(reqs []Request, out []Evaluation) error {
		for i := range reqs {
			for j := range out[i].Priors {
				out[i].Priors[j] = float32(j + 1)
			}
			out[i].WDL = [3]float32{1, 0, 0}
		}
		return nil
	})
	roll := EvaluatorFunc(func(reqs []Request, out []Evaluation) error {
		for i := range reqs {
			fillUniform(out[i].Priors)
			out[i].WDL = [3]float32{0, 0, 1}
		}
		return nil
	})
	m := &Mix{Net: net, Rollout: roll, Lambda: 0.25}
	out := []Evaluation{{Priors: make([]float32, len(legal))}}
	if err := m.Evaluate([]Request{{State: s, Legal: legal}}, out); err != nil {
		t.Fatal(err)
	}
	if out[0].WDL != [3]float32{0.75, 0, 0.25} {
		t.Fatalf("wdl %v", out[0].WDL)
	}
	if out[0].Priors[3] != 4 {
		t.Fatal("priors must be the network's")
	}
	m.Lambda = 2
	if err := m.Evaluate([]Request{{State: s, Legal: legal}}, out); err == nil {
		t.Fatal("lambda 2 accepted")
	}
}
