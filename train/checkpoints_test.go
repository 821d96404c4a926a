package train

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
)

func TestBestRated(t *testing.T) {
	for _, c := range []struct {
		ratings map[string]float64
		want    int
		ok      bool
	}{
		{map[string]float64{"gen-0000": 0, "gen-0001": 120, "gen-0002": 80, "heuristic": 300}, 1, true},
		{map[string]float64{"gen-0000": 0, "gen-0003": 50, "gen-0002": 50}, 3, true},
		{map[string]float64{"gen-0000": 0, "gen-0001": -40}, 0, true},
		{map[string]float64{"random": 0}, 0, false},
		{nil, 0, false},
	} {
		if g, ok := bestRated(c.ratings); g != c.want || ok != c.ok {
			t.Errorf("%v: %d %v, want %d %v", c.ratings, g, ok, c.want, c.ok)
		}
	}
}

// hasOptimizer reports whether a checkpoint holds optimiser state.
func hasOptimizer(t *testing.T, path string) bool {
	t.Helper()
	h, err := model.ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	return h.Meta.Optimizer != nil
}

// After every generation RUN/best.ckpt is the best-rated generation's network (its metadata names
// the generation), and with keep_optimizer latest_and_best only the latest's and the best's (the
// gate's) checkpoints keep optimiser state; a resumed run trains on from the latest's.
// With keep_optimizer all, every checkpoint keeps it.
func TestCheckpointRetention(t *testing.T) {
	run := func(keep string, gens int, dir string, resume bool) State {
		cfg := tinyConfig(t, gens)
		cfg.Evaluation.Gate = "score" // the best (the gate's) may be another generation than the latest
		cfg.Evaluation.AnchorGames = 2
		cfg.Checkpoints.KeepOptimizer = keep
		if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Resume: resume}); err != nil {
			t.Fatal(err)
		}
		return checkRun(t, dir)
	}
	check := func(dir string, st State) {
		t.Helper()
		ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		rated, ok := bestRated(ms[len(ms)-1].Ratings)
		if !ok {
			t.Fatalf("no generation rated: %v", ms[len(ms)-1].Ratings)
		}
		h, err := model.ReadMetadata(filepath.Join(dir, BestFile))
		if err != nil {
			t.Fatal(err)
		}
		if h.Meta.Run == nil || h.Meta.Run.Generation != rated || h.Meta.Optimizer != nil {
			t.Errorf("best.ckpt: run %+v, optimiser %v; want generation %d (ratings %v), weights only", h.Meta.Run, h.Meta.Optimizer != nil, rated, ms[len(ms)-1].Ratings)
		}
		want, err := model.ReadCheckpoint(filepath.Join(dir, ckptPath(rated)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := model.ReadCheckpoint(filepath.Join(dir, BestFile))
		if err != nil {
			t.Fatal(err)
		}
		for n, w := range want.Tensors {
			if g := got.Tensors[n]; !strings.HasPrefix(n, "optim.") && (g == nil || !slices.Equal(g.Data, w.Data)) {
				t.Fatalf("best.ckpt's %s is not generation %d's", n, rated)
			}
		}
		for g := 0; g <= st.Generation; g++ {
			keep := g == st.Generation || g == bestGen(st.Best)
			if has := hasOptimizer(t, filepath.Join(dir, ckptPath(g))); has != keep {
				t.Errorf("gen-%04d: optimiser state %v, want %v (latest %d, best %s)", g, has, keep, st.Generation, st.Best)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "run")
	st := run(KeepLatestAndBest, 3, dir, false)
	check(dir, st)
	st = run(KeepLatestAndBest, 4, dir, true)
	if st.Generation != 4 || st.Step != 12 {
		t.Fatalf("resumed: state %+v, want 4 generations, 12 steps", st)
	}
	check(dir, st)
	h, err := model.ReadMetadata(filepath.Join(dir, ckptPath(4)))
	if err != nil || h.Meta.Step != 12 || h.Meta.Optimizer == nil {
		t.Fatalf("gen-0004 after the resume: %+v, %v", h.Meta, err)
	}

	all := filepath.Join(t.TempDir(), "run")
	st = run(KeepAll, 3, all, false)
	for g := 0; g <= st.Generation; g++ {
		if !hasOptimizer(t, filepath.Join(all, ckptPath(g))) {
			t.Errorf("keep_optimizer all: gen-%04d has no optimiser state", g)
		}
	}
}

// A finished run ends with a summary for a person: the best network by rating with its Elo, where
// it and the plots are, and the next commands.
func TestClosingSummary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	var out strings.Builder
	if err := Train(context.Background(), Options{Dir: dir, Config: tinyConfig(t, 2), Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	h, err := model.ReadMetadata(filepath.Join(dir, BestFile))
	if err != nil {
		t.Fatal(err)
	}
	best := filepath.Join(dir, BestFile)
	text := out.String()
	tail := text[strings.LastIndex(text, "gen 2/2"):]
	for _, want := range []string{
		"run done: 2 generations in " + dir,
		"best network by rating: " + GenName(h.Meta.Run.Generation) + ", Elo ",
		"(evaluation: 4 simulations per move)",
		"network: " + best,
		"plots:   " + filepath.Join(dir, plotsDir),
		"rating.png",
		"yinsh play --checkpoint " + best + " --variant blitz",
		"yinsh arena --a " + best + " --b rollout:200",
		"yinsh ratings " + dir,
	} {
		if !strings.Contains(tail, want) {
			t.Errorf("closing summary lacks %q:\n%s", want, tail)
		}
	}
}

// TestManifestAcceptsRetainedCheckpoints: a committed checkpoint rewritten as weights only (what
// retention does after the commit, or a retention cut short by a kill) is still the checkpoint
// state.json records; the current one, which resume trains on, must keep its optimiser state; any
// other content is refused.
func TestManifestAcceptsRetainedCheckpoints(t *testing.T) {
	dir := t.TempDir()
	cfg := resumeTestConfig(t, 2)
	cfg.Checkpoints.KeepOptimizer = KeepAll
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Log: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	if err := VerifyRun(dir).Err(); err != nil {
		t.Fatalf("untouched run: %v", err)
	}
	retain := func(g int) []byte {
		p := filepath.Join(dir, ckptPath(g))
		before, _ := os.ReadFile(p)
		b, err := weightsOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return before
	}
	retain(1)
	if err := VerifyRun(dir).Err(); err != nil {
		t.Fatalf("gen-0001 as weights only: %v", err)
	}
	before := retain(2) // the current checkpoint
	if err := VerifyRun(dir).Err(); err == nil || !strings.Contains(err.Error(), "gen-0002.ckpt: sha256") {
		t.Fatalf("the current checkpoint as weights only: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ckptPath(2)), before, 0o644)
	other := filepath.Join(dir, ckptPath(0))
	b, _ := os.ReadFile(filepath.Join(dir, ckptPath(1)))
	os.WriteFile(other, b, 0o644)
	if err := VerifyRun(dir).Err(); err == nil || !strings.Contains(err.Error(), "gen-0000.ckpt") {
		t.Fatalf("gen-0000 replaced by gen-0001: %v", err)
	}
}
