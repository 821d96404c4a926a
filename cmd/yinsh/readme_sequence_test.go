package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/train"
)

// TestReadmeSequence runs README's first-hour sequence at a small scale: train a run, play its best
// network (RUN/best.ckpt, which the run's closing summary names) against rollout:N with arena (which appends to RUN/results-arena.jsonl), then rate the
// run with ratings. arena once named the checkpoint by its path and training by gen-NNNN, so the
// same network was two players and ratings failed with "no chain of games links ... to the anchor".
func TestReadmeSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a small run")
	}
	run := filepath.Join(t.TempDir(), "quickstart")
	trainOut, errs, code := runCLI(t, "", "train", "--config", "../../configs/quickstart.yaml", "--run", run,
		"--set", "generations=2", "--set", "threads=1", "--set", "selfplay.games=4", "--set", "selfplay.parallel=4",
		"--set", "selfplay.simulations=8", "--set", "training.min_positions=20", "--set", "training.steps_per_generation=4",
		"--set", "training.batch_size=16", "--set", "evaluation.simulations=4", "--set", "evaluation.baseline_games=2",
		"--set", "evaluation.ladder_games=2", "--set", "evaluation.anchor_games=2")
	if code != 0 {
		t.Fatalf("train: code %d: %s", code, errs)
	}
	// the run ends naming its best network, RUN/best.ckpt, and the README's next commands
	best := filepath.Join(run, "best.ckpt")
	h, err := model.ReadMetadata(best)
	if err != nil || h.Meta.Run == nil {
		t.Fatalf("best.ckpt: %v", err)
	}
	gen := train.GenName(h.Meta.Run.Generation)
	for _, want := range []string{"best network by rating: " + gen, "network: " + best,
		"yinsh play --checkpoint " + best, "yinsh arena --a " + best, "yinsh ratings " + run} {
		if !strings.Contains(trainOut, want) {
			t.Errorf("train's closing summary lacks %q:\n%s", want, trainOut)
		}
	}
	out, errs, code := runCLI(t, "", "arena", "--a", best, "--b", "rollout:20", "--sims", "8", "--games", "2",
		"--variant", "blitz", "--rollout-mix", "0.5", "--leaves-in-flight", "1")
	if code != 0 {
		t.Fatalf("arena: code %d: %s", code, errs)
	}
	if !strings.Contains(out, "results: appended to "+filepath.Join(run, "results-arena.jsonl")) {
		t.Errorf("arena did not append to the run's results-arena.jsonl:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(run, "results-arena.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"`+gen+`"`) || strings.Contains(string(data), best) {
		t.Errorf("arena's result names best.ckpt by its path, not %s:\n%s", gen, data)
	}
	out, errs, code = runCLI(t, "", "ratings", run)
	if code != 0 {
		t.Fatalf("ratings: code %d: %s", code, errs)
	}
	for _, want := range []string{gen, "rollout:20", "anchor: gen-0000 = 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("ratings lacks %q:\n%s", want, out)
		}
	}
}
