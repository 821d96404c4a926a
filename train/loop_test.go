package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

var gonumBackend = Backend{
	Name: "gonum",
	New:  func(cfg model.Config, seed uint64) (model.Net, error) { return gonum.New(cfg, seed) },
	Load: func(path string) (model.Net, error) { return gonum.Load(path) },
}

// tinyConfig is a run small enough for tests: a few blitz games per generation.
func tinyConfig(t testing.TB, generations int) Config {
	cfg, err := ParseConfig(nil, "test", []string{
		fmt.Sprint("generations=", generations), "variant=blitz", "net.channels=4", "net.policy_channels=1",
		"selfplay.games=4", "selfplay.parallel=4", "selfplay.simulations=8", "selfplay.gumbel_considered=4",
		"training.steps_per_generation=3", "training.batch_size=16", "training.min_positions=10",
		"evaluation.games=2", "evaluation.simulations=4", "evaluation.parallel=2", "evaluation.gate=score",
		"evaluation.baseline_games=2", "evaluation.baselines=[random]",
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkRun verifies every file of a run directory reads cleanly and returns its state.
func checkRun(t *testing.T, dir string) State {
	t.Helper()
	var st State
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state.json: %v", err)
	}
	for g := 0; g <= st.Generation; g++ {
		if _, err := gonum.Load(filepath.Join(dir, ckptPath(g))); err != nil {
			t.Fatalf("checkpoint of generation %d: %v", g, err)
		}
	}
	if _, err := gonum.Load(filepath.Join(dir, st.Best)); err != nil {
		t.Fatalf("best: %v", err)
	}
	if err := datasets.ScanDir(filepath.Join(dir, gamesDir), func(string, int, *datasets.Record) error { return nil }); err != nil {
		t.Fatalf("games: %v", err)
	}
	if st.Generation > 0 {
		ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
		if err != nil {
			t.Fatalf("metrics: %v", err)
		}
		for i, m := range ms {
			if m.Generation != i+1 {
				t.Fatalf("metrics line %d is generation %d", i+1, m.Generation)
			}
		}
		if len(ms) < st.Generation {
			t.Fatalf("%d metrics lines for %d generations", len(ms), st.Generation)
		}
		if _, err := os.Stat(filepath.Join(dir, ResultsFileName)); err == nil {
			if _, err := ReadResults(dir); err != nil {
				t.Fatalf("results: %v", err)
			}
		}
	}
	return st
}

func TestTrainRunAndResume(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	o := Options{Dir: dir, Config: tinyConfig(t, 1), Backend: gonumBackend, Out: &out}
	if err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	st := checkRun(t, dir)
	if st.Generation != 1 || st.Games != 4 || st.Step != 3 {
		t.Fatalf("state %+v", st)
	}
	if !strings.Contains(out.String(), "gen 1/1: self-play 4 games") {
		t.Fatalf("summary %q", out.String())
	}
	// the same directory without --resume is refused
	if err := Train(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("reuse without resume: %v", err)
	}
	o.Config = tinyConfig(t, 2)
	o.Resume = true
	if err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	st = checkRun(t, dir)
	if st.Generation != 2 || st.Games != 8 || st.Step != 6 {
		t.Fatalf("after resume: state %+v", st)
	}
	for _, p := range []string{"losses.png", "rating.png", "length.png"} {
		if fi, err := os.Stat(filepath.Join(dir, plotsDir, p)); err != nil || fi.Size() < 1000 {
			t.Fatalf("plot %s: %v", p, err)
		}
	}
	rs, _ := ReadResults(dir)
	// generation 1: vs the best (gen-0000), vs random; generation 2: vs the best, the ladder's other
	// one generation back (gen-0000 or gen-0001, whichever is not the best), vs random
	if len(rs) != 5 {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	opp := map[string]int{}
	for _, r := range rs {
		opp[r.A+" "+r.B]++
		if r.Pairs == nil || r.Pairs[0]+r.Pairs[1]+r.Pairs[2]+r.Pairs[3]+r.Pairs[4] != (r.Wins+r.Draws+r.Losses)/2 {
			t.Errorf("result %+v: pairs do not add up", r)
		}
	}
	if opp["gen-0002 gen-0001"] != 1 || opp["gen-0002 gen-0000"] != 1 || opp["gen-0001 gen-0000"] != 1 {
		t.Errorf("matches %v", opp)
	}
}

// A generation whose window is too small to train does not evaluate: the candidate is the network
// already evaluated, and the best stays the same.
func TestTrainSkipsEvaluationWithoutTraining(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := tinyConfig(t, 2)
	cfg.Training.MinPositions = 1_000_000
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	st := checkRun(t, dir)
	if st.Generation != 2 || st.Step != 0 || st.Best != ckptPath(0) {
		t.Fatalf("state %+v, want 2 generations, no steps, best %s", st, ckptPath(0))
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if !m.Eval.Skipped || m.Eval.Promoted || m.Train.Steps != 0 {
			t.Fatalf("generation %d: eval %+v, %d steps", m.Generation, m.Eval, m.Train.Steps)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFileName)); !os.IsNotExist(err) {
		t.Fatalf("results file: %v, want none", err)
	}
	if !strings.Contains(out.String(), "train skipped; evaluation skipped (no training)") {
		t.Fatalf("summary %q", out.String())
	}
}

func TestOpponentAssignment(t *testing.T) {
	cfg := tinyConfig(t, 1)
	if f, _, err := cfg.opponents(1); f != nil || err != nil {
		t.Fatalf("no opponents configured: %v, %v", f != nil, err)
	}
	cfg.SelfPlay.Opponents = []string{"random", "rollout:4"}
	cfg.SelfPlay.OpponentFraction = 0.25
	f, closer, err := cfg.opponents(1)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if false {
	}
	const n = 4000
	count := map[string]int{}
	colours := [2]int{}
	for i := 0; i < n; i++ {
		p, c, err := f(i)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			continue
		}
		count[p.Name()]++
		colours[c]++
		if q, c2, _ := f(i); q == nil || q.Name() != p.Name() || c2 != c {
			t.Fatalf("game %d: opponent not a function of the game number", i)
		}
	}
	total := count["random"] + count["rollout:4"]
	// 4000 games at 0.25: 1000 expected, sd ≈ 27
	if total < 900 || total > 1100 || count["random"] < total/3 || count["rollout:4"] < total/3 || colours[0] < total/3 || colours[1] < total/3 {
		t.Fatalf("opponents %v, colours %v of %d games", count, colours, n)
	}
}

func TestTrainWithOpponents(t *testing.T) {
	cfg := tinyConfig(t, 1)
	cfg.SelfPlay.Opponents = []string{"random"}
	cfg.SelfPlay.OpponentFraction = 0.5
	cfg.SelfPlay.Games = 8
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Train(context.Background(), Options{Config: cfg, Dir: dir, Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	sp := ms[0].SelfPlay
	if sp.OpponentGames == 0 || sp.OpponentGames == sp.Games || sp.Targets >= sp.Positions {
		t.Fatalf("self-play metrics %+v: want some (not all) games against the opponent, its actions not targets", sp)
	}
	if sp.OpponentScore < 0 || sp.OpponentScore > 1 {
		t.Fatalf("opponent score %v, want a share of points in [0, 1]", sp.OpponentScore)
	}
	if !strings.Contains(out.String(), "vs opponents scoring") {
		t.Fatalf("summary %q does not report the opponent games", out.String())
	}
}
