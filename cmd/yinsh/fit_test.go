package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitCommand fits a tiny network to self-play shards, refuses to overwrite the result, and starts
// a training run from it with --init.
func TestFitCommand(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "g0.ckpt", "blitz")
	cfg := filepath.Join(dir, "sp.yaml")
	os.WriteFile(cfg, []byte("variant: blitz\nselfplay:\n  simulations: 8\n  parallel: 4\n"), 0o644)
	shards := filepath.Join(dir, "sp")
	if _, errs, code := runCLI(t, "", "selfplay", "--config", cfg, "--checkpoint", ck, "--games", "12", "--out", shards); code != 0 {
		t.Fatalf("selfplay: %s", errs)
	}
	out := filepath.Join(dir, "fit.ckpt")
	args := []string{"fit", "--data", shards, "--net", "tiny", "--variant", "blitz", "--epochs", "2", "--batch-size", "32", "--holdout", "0.3", "--out", out}
	stdout, errs, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("fit: %s", errs)
	}
	for _, want := range []string{"epoch 1: ", "held-out policy ", "top-1 ", "best epoch ", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("fit output lacks %q:\n%s", want, stdout)
		}
	}
	if _, errs, code := runCLI(t, "", args...); code == 0 || !strings.Contains(errs, "--force") {
		t.Fatalf("second fit over %s: code %d %s", out, code, errs)
	}
	if _, errs, code := runCLI(t, "", "fit", "--data", shards, "--net", "tiny", "--out", filepath.Join(dir, "std.ckpt")); code == 0 || !strings.Contains(errs, "blitz") {
		t.Fatalf("blitz games fitted as standard: %d %s", code, errs)
	}
	run := filepath.Join(dir, "run")
	tc := filepath.Join(dir, "train.yaml")
	os.WriteFile(tc, []byte("variant: blitz\ngenerations: 1\nselfplay: {games: 2, simulations: 4, gumbel_considered: 4}\ntraining: {steps_per_generation: 1, batch_size: 8, min_positions: 10}\nevaluation: {games: 0, baseline_games: 0, ladder_games: 0}\n"), 0o644)
	if _, errs, code := runCLI(t, "", "train", "--config", tc, "--run", run, "--init", out); code != 0 {
		t.Fatalf("train --init: %s", errs)
	}
	if _, errs, code := runCLI(t, "", "train", "--run", run, "--resume", "--init", out); code == 0 || !strings.Contains(errs, "--init starts a new run") {
		t.Fatalf("--init with --resume: %d %s", code, errs)
	}
}
