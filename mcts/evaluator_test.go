package mcts

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

func TestUniform(t *testing.T) {
	s := midgame(t, 1, 10)
	l := s.LegalActions(nil)
	out := []Evaluation{{Priors: make([]float32, len(l))}}
	if err := (Uniform{}).Evaluate([]Request{{s, l}}, out); err != nil {
		t.Fatal(err)
	}
	for _, p := range out[0].Priors {
		if p != 1/float32(len(l)) {
			t.Fatalf("prior %v, want 1/%d", p, len(l))
		}
	}
	if out[0].Value() != 0 {
		t.Fatalf("value %v", out[0].Value())
	}
}

func TestRollout(t *testing.T) {
	// After the winning move white must remove its row and then a ring: every playout wins for white.
	s := winPosition(t)
	if err := s.ApplyAction(mustAction(t, "d5-f5")); err != nil {
		t.Fatal(err)
	}
	eval := func(s *env.State, r Rollout) Evaluation {
		l := s.LegalActions(nil)
		out := []Evaluation{{Priors: make([]float32, len(l))}}
		if err := r.Evaluate([]Request{{s, l}}, out); err != nil {
			t.Fatal(err)
		}
		return out[0]
	}
	if e := eval(s, Rollout{Playouts: 10}); e.WDL != [3]float32{1, 0, 0} {
		t.Fatalf("WDL %v, want a sure win", e.WDL)
	}
	// After a move that gives black a row, black (to act) wins every playout.
	ls, bad := losePosition(t)
	if err := ls.ApplyAction(bad[0]); err != nil {
		t.Fatal(err)
	}
	if e := eval(ls, Rollout{Playouts: 10}); ls.CurrentPlayer() != env.Black || e.WDL != [3]float32{1, 0, 0} {
		t.Fatalf("WDL %v for %v, want a sure win for black", e.WDL, ls.CurrentPlayer())
	}
	// Deterministic per (seed, state); another seed gives other playouts.
	m := midgame(t, 4, 20)
	a, b, c := eval(m, Rollout{Playouts: 64, Seed: 1}), eval(m, Rollout{Playouts: 64, Seed: 1}), eval(m, Rollout{Playouts: 64, Seed: 2})
	if a.WDL != b.WDL {
		t.Fatal("same seed, different values")
	}
	if a.WDL == c.WDL {
		t.Log("seeds 1 and 2 gave the same WDL (possible but unlikely)")
	}
	if sum := a.WDL[0] + a.WDL[1] + a.WDL[2]; math.Abs(float64(sum)-1) > 1e-6 {
		t.Fatalf("WDL sums to %v", sum)
	}
	// A ply cap scores by rings removed: at 0-0 a capped playout is a draw.
	if e := eval(m, Rollout{Playouts: 4, MaxPlies: 1}); e.WDL[1] == 0 {
		t.Fatalf("capped playouts from 0-0 gave %v, want draws", e.WDL)
	}
}

func TestDenseAndGather(t *testing.T) {
	s := midgame(t, 2, 10)
	l := s.LegalActions(nil)
	priors := make([]float32, len(l))
	for j := range priors {
		priors[j] = float32(j + 1)
	}
	normalize(priors)
	dense := make([]float32, env.NumActions)
	for i := range dense {
		dense[i] = 7 // overwritten
	}
	Dense(l, priors, dense)
	var sum float32
	for _, p := range dense {
		sum += p
	}
	if math.Abs(float64(sum)-1) > 1e-5 || dense[l[len(l)-1]] != priors[len(l)-1] {
		t.Fatalf("dense sums to %v", sum)
	}
	// probabilities with mass on illegal actions: gathered and renormalised
	for i := range dense {
		dense[i] = 1
	}
	got := make([]float32, len(l))
	GatherPolicy(dense, l, false, got)
	for _, p := range got {
		if math.Abs(float64(p)-1/float64(len(l))) > 1e-6 {
			t.Fatalf("gathered %v, want uniform", p)
		}
	}
	// logits: softmax over the legal ones only
	for i := range dense {
		dense[i] = 100 // illegal actions would dominate if not masked
	}
	for j, a := range l {
		dense[a] = float32(j % 2)
	}
	GatherPolicy(dense, l, true, got)
	e := math.E
	z := float64(len(l)/2)*e + float64(len(l)-len(l)/2)
	if math.Abs(float64(got[1])-e/z) > 1e-5 || math.Abs(float64(got[0])-1/z) > 1e-5 {
		t.Fatalf("softmax %v %v, want %v %v", got[0], got[1], 1/z, e/z)
	}
}

// TestNetEvaluator plugs a fake network with the model package's layout into the search.
func TestNetEvaluator(t *testing.T) {
	pool := statePool(t, 5)
	var calls atomic.Int64
	net := func(n int, planes []float32, masks []bool, policy, wdl []float32) error {
		calls.Add(1)
		if len(planes) < n*env.ObservationSize || len(masks) < n*env.NumActions || len(policy) < n*env.NumActions || len(wdl) < n*3 {
			t.Fatalf("buffers too small for %d: %d %d %d %d", n, len(planes), len(masks), len(policy), len(wdl))
		}
		for i := range n {
			obs := planes[i*env.ObservationSize : (i+1)*env.ObservationSize]
			// logits: action id / 1000 on legal actions, -Inf elsewhere (as model.Net.Predict)
			for a := range env.NumActions {
				policy[i*env.NumActions+a] = float32(math.Inf(-1))
				if masks[i*env.NumActions+a] {
					policy[i*env.NumActions+a] = float32(a) / 1000
				}
			}
			// WDL logits: win from the valid-point plane (85 ones), draw 0, loss 0
			var valid float32
			for c := range env.NumCells {
				valid += obs[env.PlaneValid*env.NumCells+c]
			}
			wdl[3*i], wdl[3*i+1], wdl[3*i+2] = float32(math.Log(float64(valid))), 0, 0
		}
		return nil
	}
	ev := &NetEvaluator{Net: net, PolicyLogits: true, WDLLogits: true}
	reqs := make([]Request, len(pool))
	out := make([]Evaluation, len(pool))
	for i, s := range pool {
		l := s.LegalActions(nil)
		reqs[i] = Request{s, l}
		out[i].Priors = make([]float32, len(l))
	}
	if err := ev.Evaluate(reqs, out); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d network calls for one batch", calls.Load())
	}
	for i, r := range reqs {
		var z float64
		for _, a := range r.Legal {
			z += math.Exp(float64(a) / 1000)
		}
		for j, a := range r.Legal {
			if want := math.Exp(float64(a)/1000) / z; math.Abs(float64(out[i].Priors[j])-want) > 1e-5 {
				t.Fatalf("state %d action %s: prior %v, want %v", i, a, out[i].Priors[j], want)
			}
		}
		if w := out[i].WDL; math.Abs(float64(w[0])-85.0/87) > 1e-5 || math.Abs(float64(w[1])-1.0/87) > 1e-5 {
			t.Fatalf("WDL %v, want softmax(log 85, 0, 0)", w)
		}
	}
	// in a search
	cfg := DefaultConfig()
	cfg.Simulations = 64
	tr := newTree(t, cfg, ev)
	tr.Reset(pool[4])
	res, err := tr.Search(seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	// The fake says the side to act always wins (value 83/87); every root move hands the turn to the
	// opponent, so from the root's view the search's value is about -83/87.
	if res.Simulations != 64 || res.Value > -0.9 {
		t.Fatalf("search through the adapter: %d sims, value %v, want about -0.95", res.Simulations, res.Value)
	}
	// concurrent calls (each takes its own buffers)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := pool[g%len(pool)]
			l := s.LegalActions(nil)
			for range 20 {
				o := []Evaluation{{Priors: make([]float32, len(l))}}
				if err := ev.Evaluate([]Request{{s, l}}, o); err != nil {
					t.Error(err)
					return
				}
				if o[0].Priors[0] != out[g%len(pool)].Priors[0] || o[0].WDL != out[g%len(pool)].WDL {
					t.Errorf("goroutine %d: concurrent evaluation differs", g)
					return
				}
			}
		}()
	}
	wg.Wait()
	boom := errors.New("cuda out of memory")
	bad := &NetEvaluator{Net: func(int, []float32, []bool, []float32, []float32) error { return boom }}
	if err := bad.Evaluate(reqs, out); !errors.Is(err, boom) {
		t.Fatalf("err %v, want the network's", err)
	}
}

// predictor has the shape of model.Net's Predict; its method value must be a Net.
type predictor interface {
	Predict(n int, planes []float32, mask []bool, policy, wdl []float32) error
}

var _ = func(p predictor) Net { return p.Predict }
