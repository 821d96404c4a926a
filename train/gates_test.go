package train

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// gateRun writes a run's metrics.jsonl and results.jsonl with gate matches into dir:
//
//	gen 1 vs gen-0000: pairs 4×(1-1), 16×(2-0): 0.9, H1, promoted
//	gen 2 vs gen-0001: all pairs split: 0.5, continue, kept out; its match was repeated by a
//	                   resumed run, and the last line is the one that counts
//	gen 3 vs gen-0001: pairs 16×(0-2), 4×(1-1): 0.1, H0, kept out
//	gen 4 vs gen-0001: its results line is missing (left out)
//	gen 5: skipped (no training step, no match)
func gateRun(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, plotsDir), 0o755)
	metrics := []Metrics{
		{Generation: 1, Eval: EvalMetrics{VsBest: 0.9, BestGames: 40, Best: "gen-0000", Verdict: "H1", Promoted: true}},
		{Generation: 2, Eval: EvalMetrics{VsBest: 0.5, BestGames: 40, Best: "gen-0001", Verdict: "continue"}},
		{Generation: 3, Eval: EvalMetrics{VsBest: 0.1, BestGames: 40, Best: "gen-0001", Verdict: "H0"}},
		{Generation: 4, Eval: EvalMetrics{VsBest: 0.5, BestGames: 40, Best: "gen-0001", Verdict: "continue"}},
		{Generation: 5, Eval: EvalMetrics{Skipped: true}},
	}
	for i := range metrics {
		metrics[i].Elapsed = 60
		metrics[i].SelfPlay = SelfPlayMetrics{Games: 32, MeanLength: 70}
		if err := AppendMetrics(filepath.Join(dir, MetricsFile), metrics[i]); err != nil {
			t.Fatal(err)
		}
	}
	results := []Result{
		{A: "gen-0001", B: "gen-0000", Wins: 36, Losses: 4, Pairs: &[5]int{0, 0, 4, 0, 16}},
		{A: "gen-0002", B: "gen-0001", Wins: 30, Losses: 10, Pairs: &[5]int{0, 0, 20, 0, 0}}, // the killed try
		{A: "gen-0002", B: "gen-0001", Wins: 20, Losses: 20, Pairs: &[5]int{0, 0, 20, 0, 0}},
		{A: "gen-0003", B: "gen-0001", Wins: 4, Losses: 36, Pairs: &[5]int{16, 0, 4, 0, 0}},
	}
	for _, r := range results {
		if err := AppendResult(filepath.Join(dir, ResultsFileName), r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGateMatches(t *testing.T) {
	dir := t.TempDir()
	gateRun(t, dir)
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	gs := GateMatches(ms, rs)
	if len(gs) != 3 {
		t.Fatalf("%d gate matches, want 3 (generations 1-3): %+v", len(gs), gs)
	}
	// independently: a score s is 400·log10(s/(1-s)) Elo
	for i, c := range []struct {
		gen      int
		best     string
		verdict  string
		promoted bool
		elo      float64
		improved int
	}{
		{1, "gen-0000", "H1", true, 400 * math.Log10(0.9/0.1), 1},
		{2, "gen-0001", "continue", false, 0, 0},
		{3, "gen-0001", "H0", false, -400 * math.Log10(0.9/0.1), -1},
	} {
		g := gs[i]
		if g.Gen != c.gen || g.Best != c.best || g.Verdict != c.verdict || g.Promoted != c.promoted || g.Games != 40 {
			t.Errorf("match %d: %+v, want generation %d vs %s, %s, promoted %v, 40 games", i, g, c.gen, c.best, c.verdict, c.promoted)
		}
		if math.Abs(g.Elo.Value-c.elo) > 1e-6 {
			t.Errorf("generation %d: Elo %.3f, want %.3f", g.Gen, g.Elo.Value, c.elo)
		}
		if !(g.Elo.Low < g.Elo.Value && g.Elo.Value < g.Elo.High) {
			t.Errorf("generation %d: interval %+v does not hold its value", g.Gen, g.Elo)
		}
		if g.Improved() != c.improved {
			t.Errorf("generation %d: Improved %d, want %d (interval %+v)", g.Gen, g.Improved(), c.improved, g.Elo)
		}
	}
	// the split pairs of generation 2: a symmetric interval about 0
	if e := gs[1].Elo; math.Abs(e.Low+e.High) > 1e-6 {
		t.Errorf("generation 2: interval %+v not symmetric about 0", e)
	}
}

// With gate matches, rating.png gains its lower panel (taller: 8 inches against 4.5); without
// them it is the single panel it was.
func TestRatingPlotGatePanel(t *testing.T) {
	height := func(dir string) int {
		t.Helper()
		if err := WritePlots(dir); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, plotsDir, "rating.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Height
	}
	gated := t.TempDir()
	gateRun(t, gated)
	plain := t.TempDir()
	gateRun(t, plain)
	// the same matches, recorded as a run without a gate would (no best, no verdict)
	ms, _ := ReadMetrics(filepath.Join(plain, MetricsFile))
	os.Remove(filepath.Join(plain, MetricsFile))
	for _, m := range ms {
		m.Eval.Best, m.Eval.Verdict = "", ""
		if err := AppendMetrics(filepath.Join(plain, MetricsFile), m); err != nil {
			t.Fatal(err)
		}
	}
	hg, hp := height(gated), height(plain)
	if hg <= hp*3/2 {
		t.Errorf("rating.png %d px high with gate matches, %d without: want the lower panel", hg, hp)
	}
	if _, err := os.Stat(filepath.Join(gated, plotsDir, "rating-time.png")); err != nil {
		t.Error(err)
	}
}
