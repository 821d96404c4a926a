package selfplay

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// hashEvaluator is a deterministic evaluator with knowledge that depends on the position: priors and
// value drawn from the state's hash and salt, so two salts are two different "networks".
func hashEvaluator(salt uint64) mcts.Evaluator {
	return mcts.EvaluatorFunc(func(reqs []mcts.Request, out []mcts.Evaluation) error {
		for i, r := range reqs {
			h := mix(r.State.Hash() ^ salt)
			var sum float32
			for j, a := range r.Legal {
				p := float32(1 + mix(h^uint64(a))%9)
				out[i].Priors[j] = p
				sum += p
			}
			for j := range out[i].Priors {
				out[i].Priors[j] /= sum
			}
			w := float32(h%1000) / 1000
			out[i].WDL = [3]float32{w, 0, 1 - w}
		}
		return nil
	})
}

func mix(x uint64) uint64 {
	x ^= x >> 31
	x *= 0x9e3779b97f4a7c15
	x ^= x >> 29
	return x
}

// recordOf is the dataset record of a self-play game (train.RecordOf's conversion).
func recordOf(g Game) *datasets.Record {
	r := &datasets.Record{ID: g.Seed, Variant: g.Variant, Generator: g.Generator, Outcome: g.Outcome, Actions: g.Actions}
	r.Targets = make([]datasets.Target, len(g.Positions))
	for i, p := range g.Positions {
		r.Targets[i].RootWDL = p.WDL
		if p.Full {
			r.Targets[i].Policy = p.Policy
		}
	}
	return r
}

func playRecords(t *testing.T, cfg Config, ev mcts.Evaluator, games int) []*datasets.Record {
	t.Helper()
	recs := make([]*datasets.Record, games)
	_, err := Run(context.Background(), cfg, ev, RunOptions{Games: games, Parallel: 2, Seed: 7, OnGame: func(g Game) error {
		recs[g.Index] = recordOf(g)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func reanalyse(t *testing.T, cfg Config, ev mcts.Evaluator, recs []*datasets.Record, parallel int) ([]*datasets.Record, ReanalyseStats) {
	t.Helper()
	out := make([]*datasets.Record, len(recs))
	var mu sync.Mutex
	st, err := Reanalyse(context.Background(), cfg, ev, recs, ReanalyseOptions{Parallel: parallel, Seed: 3, OnGame: func(k int, r *datasets.Record) error {
		mu.Lock()
		defer mu.Unlock()
		if out[k] != nil {
			t.Errorf("game %d handed on twice", k)
		}
		out[k] = r
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

// With the network that played the games and a deterministic search (PUCT without root noise, greedy),
// reanalysis reproduces every recorded target exactly; with another network it keeps the games
// (actions, outcome, which positions are targets) and replaces the targets.
func TestReanalyseSameNetworkReproducesTargets(t *testing.T) {
	cfg := testConfig(24)
	cfg.Search.Gumbel = false
	cfg.Search.DirichletFraction = 0
	cfg.TemperatureActions = 0
	cfg.Variant = env.Blitz
	same := hashEvaluator(1)
	recs := playRecords(t, cfg, same, 4)

	out, st := reanalyse(t, cfg, same, recs, 3)
	targets := 0
	for _, r := range recs {
		targets += r.TrainingTargets()
	}
	if st.Games != 4 || st.Searches != targets || targets == 0 || st.Simulations < targets*24 {
		t.Fatalf("stats %+v, %d targets", st, targets)
	}
	if st.PolicyChange > 1e-6 || st.ValueChange > 1e-6 {
		t.Fatalf("same network, deterministic search: policy change %v, value change %v, want 0", st.PolicyChange, st.ValueChange)
	}
	for k, r := range out {
		for i := range r.Targets {
			a, b := recs[k].Targets[i], r.Targets[i]
			if a.RootWDL != b.RootWDL || len(a.Policy) != len(b.Policy) {
				t.Fatalf("game %d ply %d: target %+v, reanalysed %+v", k, i+1, a, b)
			}
			for j := range a.Policy {
				if a.Policy[j] != b.Policy[j] {
					t.Fatalf("game %d ply %d: policy %v, reanalysed %v", k, i+1, a.Policy, b.Policy)
				}
			}
		}
	}

	other, st2 := reanalyse(t, cfg, hashEvaluator(2), recs, 1)
	if st2.Searches != targets || st2.PolicyChange/float64(targets) < 0.05 || st2.ValueChange/float64(targets) < 0.01 {
		t.Fatalf("another network: %+v over %d targets, want changed targets", st2, targets)
	}
	for k, r := range other {
		old := recs[k]
		if r.ID != old.ID || r.Outcome != old.Outcome || r.Generator != old.Generator || len(r.Actions) != len(old.Actions) {
			t.Fatalf("game %d: the record changed beyond its targets: %+v", k, r)
		}
		s := env.NewState(r.Variant)
		for i, a := range r.Actions {
			if a != old.Actions[i] || r.Targets[i].IsTarget() != old.Targets[i].IsTarget() {
				t.Fatalf("game %d ply %d: action or target presence changed", k, i+1)
			}
			if r.Targets[i].IsTarget() {
				sum := 0.0
				for _, e := range r.Targets[i].Policy {
					if !s.IsLegal(env.Action(e.Action)) {
						t.Fatalf("game %d ply %d: policy on illegal %s", k, i+1, env.Action(e.Action))
					}
					sum += float64(e.Prob)
				}
				if math.Abs(sum-1) > 1e-3 {
					t.Fatalf("game %d ply %d: policy sums to %v", k, i+1, sum)
				}
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("game %d: %v", k, err)
		}
	}
}

// Under Gumbel (every shipped config) a reanalysed game's targets depend on its record ID and the
// seed, not on which worker searched it or in which order.
func TestReanalyseDeterministicPerSeed(t *testing.T) {
	cfg := testConfig(16)
	cfg.Search.Gumbel = true
	cfg.Search.DirichletFraction = 0
	recs := playRecords(t, cfg, hashEvaluator(1), 3)
	a, _ := reanalyse(t, cfg, hashEvaluator(4), recs, 1)
	b, _ := reanalyse(t, cfg, hashEvaluator(4), recs, 3)
	for k := range a {
		for i := range a[k].Targets {
			x, y := a[k].Targets[i], b[k].Targets[i]
			if x.RootWDL != y.RootWDL || len(x.Policy) != len(y.Policy) {
				t.Fatalf("game %d ply %d differs between 1 and 3 workers", k, i+1)
			}
		}
	}
}

func TestReanalyseBadRecord(t *testing.T) {
	cfg := testConfig(8)
	recs := playRecords(t, cfg, mcts.Uniform{}, 1)
	bad := *recs[0]
	bad.Actions = append([]env.Action(nil), bad.Actions...)
	bad.Actions[3] = bad.Actions[1] // a point already taken
	_, err := Reanalyse(context.Background(), cfg, mcts.Uniform{}, []*datasets.Record{&bad}, ReanalyseOptions{Parallel: 1})
	if err == nil || !strings.Contains(err.Error(), "ply 4") {
		t.Fatalf("illegal action: err %v, want one naming ply 4", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Reanalyse(ctx, cfg, mcts.Uniform{}, recs, ReanalyseOptions{Parallel: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err %v", err)
	}
	if _, err := Reanalyse(context.Background(), cfg, mcts.Uniform{}, recs, ReanalyseOptions{}); err == nil {
		t.Fatal("parallel 0 accepted")
	}
}
