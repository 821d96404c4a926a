package train

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"
)

// plotFiles are the PNGs WritePlots renders from metrics.jsonl (rating.png and rating-time.png need
// results).
var plotFiles = []string{
	"losses.png", "length.png", "selfplay.png", "training.png",
	"losses-time.png", "length-time.png", "selfplay-time.png", "training-time.png",
}

func TestWritePlots(t *testing.T) {
	dir := t.TempDir()
	writePlotMetrics(t, dir, 6)
	start := time.Now()
	if err := WritePlots(dir); err != nil {
		t.Fatal(err)
	}
	t.Logf("WritePlots: %v", time.Since(start))
	for _, p := range plotFiles {
		f, err := os.Open(filepath.Join(dir, plotsDir, p))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 500 || cfg.Height < 200 {
			t.Errorf("%s: %v, %dx%d", p, err, cfg.Width, cfg.Height)
		}
	}
	// no results yet: no rating plots, and no error
	if _, err := os.Stat(filepath.Join(dir, plotsDir, "rating.png")); err == nil {
		t.Error("rating.png without results")
	}
}

// writePlotMetrics writes metrics.jsonl of gens generations into dir (and makes plots/):
// generation 1 did not train (no losses, no evaluation), the later ones did.
func writePlotMetrics(t testing.TB, dir string, gens int) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, plotsDir), 0o755)
	for g := 1; g <= gens; g++ {
		m := Metrics{Generation: g, Elapsed: 40 + float64(g),
			SelfPlay: SelfPlayMetrics{Games: 16, MeanLength: 60 + float64(g), White: 0.5, Black: 0.4, Draw: 0.1, GamesPerHour: 1200 + 10*float64(g)}}
		if g > 1 {
			m.Train = TrainMetrics{Steps: 10, LossPolicy: 5 - 0.2*float64(g), LossValue: 1 - 0.05*float64(g), LR: 0.02 / float64(g)}
			m.Eval = EvalMetrics{VsBest: 0.5 + 0.02*float64(g), BestGames: 20, Baselines: map[string]float64{"random": 0.8, "rollout:50": 0.3}}
		} else {
			m.Eval = EvalMetrics{Skipped: true}
		}
		if err := AppendMetrics(filepath.Join(dir, MetricsFile), m); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkWritePlots renders the 8 metric plots of a 6-generation run, as the loop does after
// every generation.
func BenchmarkWritePlots(b *testing.B) {
	dir := b.TempDir()
	writePlotMetrics(b, dir, 6)
	b.ReportAllocs()
	for b.Loop() {
		if err := WritePlots(dir); err != nil {
			b.Fatal(err)
		}
	}
	var size int64
	for _, p := range plotFiles {
		if fi, err := os.Stat(filepath.Join(dir, plotsDir, p)); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size), "png-bytes")
}

func TestWallTimes(t *testing.T) {
	ms := []Metrics{{Elapsed: 60}, {Elapsed: 120}, {Elapsed: 0}, {Elapsed: 180}}
	x, u := wallTimes(ms)
	if u.name != "minutes" || x[0] != 1 || x[1] != 3 || x[2] != 3 || x[3] != 6 {
		t.Fatalf("%v %v", x, u)
	}
	x, u = wallTimes([]Metrics{{Elapsed: 4 * 3600}, {Elapsed: 3600}})
	if u.name != "hours" || x[1] != 5 {
		t.Fatalf("%v %v", x, u)
	}
}

// TestWritePlotsOfRun renders the plots of a copy of a real run: YINSH_PLOT_RUN=DIR names the run,
// YINSH_PLOT_OUT the directory the copy goes to (default: a temporary one).
func TestWritePlotsOfRun(t *testing.T) {
	src := os.Getenv("YINSH_PLOT_RUN")
	if src == "" {
		t.Skip("YINSH_PLOT_RUN not set")
	}
	dst := os.Getenv("YINSH_PLOT_OUT")
	if dst == "" {
		dst = t.TempDir()
	}
	os.MkdirAll(filepath.Join(dst, plotsDir), 0o755)
	for _, f := range []string{MetricsFile, ResultsFileName, "results-arena.jsonl", StateFile} {
		if b, err := os.ReadFile(filepath.Join(src, f)); err == nil {
			if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	if err := WritePlots(dst); err != nil {
		t.Fatal(err)
	}
	t.Logf("WritePlots: %v", time.Since(start))
	out, _ := exec.Command("ls", "-l", filepath.Join(dst, plotsDir)).CombinedOutput()
	t.Logf("%s", out)
}

// TestPlotSkipsRecoveredGenerations: a generation whose games were all recovered from a killed run's
// shards has no self-play speed, so selfplay.png draws no games/hour point for it (it was drawn at 0).
func TestPlotSkipsRecoveredGenerations(t *testing.T) {
	ms := make([]Metrics, 3)
	for i := range ms {
		ms[i].Generation = i + 1
		ms[i].SelfPlay.Games, ms[i].SelfPlay.GamesPerHour = 8, 1000
	}
	ms[1].Recovered, ms[1].SelfPlay.Recovered, ms[1].SelfPlay.GamesPerHour = true, 8, 0
	var got plotter.XYs
	for _, f := range metricFigures(ms, func(i int) float64 { return float64(ms[i].Generation) }) {
		for _, p := range f.panels {
			for _, s := range p.series {
				if s.name == "games/hour" {
					got = s.xy
				}
			}
		}
	}
	if len(got) != 2 || got[0].X != 1 || got[1].X != 3 {
		t.Fatalf("games/hour points %v, want generations 1 and 3 only", got)
	}
}

// The rating plot says the search budget its ratings were measured at: a rating holds at that
// budget only (the quickstart's generations rate below heuristic at 32 simulations a move and beat
// it at 200).
func TestRatingTitleSaysBudget(t *testing.T) {
	for _, c := range []struct {
		rs   []Result
		want string
	}{
		{[]Result{{Sims: 32}, {Sims: 32}}, "\nevaluation: 32 simulations per move"},
		{[]Result{{Sims: 32, MoveTimeMS: 100}}, "\nevaluation: 32 simulations or 100 ms per move"},
		{[]Result{{Sims: 32}, {Sims: 200}, {Sims: 32}}, "\nevaluation: 32 simulations (2 matches), 200 simulations (1 match) per move"},
		{[]Result{{}}, ""},
	} {
		got := ratingTitle("gen-0000", c.rs)
		if want := "Rating of each generation (gen-0000 = 0), 95% intervals" + c.want; got != want {
			t.Errorf("%+v: title %q, want %q", c.rs, got, want)
		}
	}
}
