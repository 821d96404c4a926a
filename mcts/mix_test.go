package mcts

import (
	"math"
	"math/rand/v2"
	"sync"
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

// BenchmarkMix measures Mix's own cost (run with -benchmem): a batch of 8 positions, network and
// rollout both trivial.
func BenchmarkMix(b *testing.B) {
	ps := benchPositions(b, 8)
	reqs := make([]Request, len(ps))
	out := make([]Evaluation, len(ps))
	for i, s := range ps {
		reqs[i] = Request{State: s, Legal: s.LegalActions(nil)}
		out[i].Priors = make([]float32, len(reqs[i].Legal))
	}
	roll := EvaluatorFunc(func(reqs []Request, out []Evaluation) error {
		for i := range reqs {
			fillUniform(out[i].Priors)
			out[i].WDL = [3]float32{0, 0, 1}
		}
		return nil
	})
	m := &Mix{Net: Uniform{}, Rollout: roll, Lambda: 0.5}
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Evaluate(reqs, out); err != nil {
			b.Fatal(err)
		}
	}
}

// One Mix shared by concurrent callers (as a Batcher's workers may share one) gives each its own
// answer: the pooled scratch buffers are never shared between calls (run with -race).
func TestMixConcurrent(t *testing.T) {
	pool := statePool(t, 64)
	roll := Rollout{Playouts: 1, Seed: 5}
	m := &Mix{Net: EvaluatorFunc(func(reqs []Request, out []Evaluation) error {
		for i, r := range reqs {
			for j := range out[i].Priors {
				out[i].Priors[j] = signature(r.State, j)
			}
			out[i].WDL = signatureWDL(r.State)
		}
		return nil
	}), Rollout: roll, Lambda: 0.5}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for range 50 {
				n := 1 + rng.IntN(12)
				reqs := make([]Request, n)
				out := make([]Evaluation, n)
				for i := range reqs {
					s := pool[rng.IntN(len(pool))]
					reqs[i] = Request{State: s, Legal: s.LegalActions(nil)}
					out[i].Priors = make([]float32, len(reqs[i].Legal))
				}
				if err := m.Evaluate(reqs, out); err != nil {
					t.Error(err)
					return
				}
				for i, r := range reqs {
					ro := []Evaluation{{Priors: make([]float32, len(r.Legal))}}
					roll.Evaluate(reqs[i:i+1], ro)
					net := signatureWDL(r.State)
					for k := range 3 {
						if want := 0.5*net[k] + 0.5*ro[0].WDL[k]; math.Abs(float64(out[i].WDL[k]-want)) > 1e-6 {
							t.Errorf("goroutine %d: WDL %v, want the mix of %v and %v", g, out[i].WDL, net, ro[0].WDL)
							return
						}
					}
					if out[i].Priors[0] != signature(r.State, 0) {
						t.Errorf("goroutine %d: priors not the network's", g)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
