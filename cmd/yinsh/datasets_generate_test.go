package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// readGenerated reads a generate directory's records and checks them: valid, distinct, of the run.
func readGenerated(t *testing.T, dir string) []*datasets.Record {
	t.Helper()
	recs, err := datasets.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint64]bool{}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		if ids[r.ID] || r.Variant != env.Blitz || r.Generator != "expert:rollout:8-vs-rollout:8" || r.TrainingTargets() == 0 {
			t.Fatalf("record %d: duplicate %v variant %s generator %q targets %d", r.ID, ids[r.ID], r.Variant, r.Generator, r.TrainingTargets())
		}
		ids[r.ID] = true
	}
	return recs
}

func TestGenerateResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "expert")
	args := []string{"datasets", "generate", "--player", "rollout:8", "--variant", "blitz", "--parallel", "2", "--out", dir, "--games-per-shard", "3"}
	out, errs, code := runCLI(t, "", append(args, "--games", "4")...)
	if code != 0 || !strings.Contains(out, "generated 4 games") || !strings.Contains(out, "policy targets: ") ||
		!strings.Contains(out, "results: white ") || !strings.Contains(out, "shards written: 2 (shard-000000.yz, shard-000001.yz)") {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	if !strings.Contains(errs, "generate: 4/4") {
		t.Errorf("no progress lines: %q", errs)
	}
	first := readGenerated(t, dir)
	if len(first) != 4 {
		t.Fatalf("%d games", len(first))
	}

	// a killed run: its games sit in a temporary shard (here: the second shard's game, not finalised)
	last, _ := datasets.ListShards(dir)
	if err := os.Remove(last[1]); err != nil {
		t.Fatal(err)
	}
	w, err := datasets.NewWriter(dir, datasets.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(first[3]); err != nil {
		t.Fatal(err)
	}
	// (w is left open, as a killed process leaves it)

	// the rerun recovers it and plays only the missing games
	out, errs, code = runCLI(t, "", append(args, "--games", "6")...)
	if code != 0 || !strings.Contains(out, "generated 2 games") || !strings.Contains(out, "(4 were already recorded)") ||
		!strings.Contains(errs, "recovered temporary shard") || !strings.Contains(errs, "4 of the 6 games already recorded") {
		t.Fatalf("rerun: code %d out %q err %q", code, out, errs)
	}
	if recs := readGenerated(t, dir); len(recs) != 6 {
		t.Fatalf("rerun: %d games, want 6", len(recs))
	}
	out, _, code = runCLI(t, "", append(args, "--games", "6")...)
	if code != 0 || !strings.Contains(out, "already holds all 6 games") {
		t.Fatalf("third run: code %d out %q", code, out)
	}

	// another run's settings are refused, naming what differs, and nothing is written
	before, _ := os.ReadDir(dir)
	for _, c := range []struct{ flags, want string }{
		{"--player rollout:16", "--player rollout:16 (generate.json has rollout:8)"},
		{"--vs random", "--vs random (generate.json has rollout:8)"},
		{"--variant standard", "--variant standard (generate.json has blitz)"},
		{"--seed 2 --opening-plies 0", "--seed 2 (generate.json has 1), --opening-plies 0 (generate.json has 4)"},
	} {
		a := append(append([]string(nil), args...), "--games", "8")
		a = append(a, strings.Fields(c.flags)...)
		_, errs, code := runCLI(t, "", a...)
		if code == 0 || !strings.Contains(errs, "holds the games of another run: "+c.want) {
			t.Errorf("%s: code %d err %q", c.flags, code, errs)
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("a refused run changed the directory: %d entries, then %d", len(before), len(after))
	}
}

func TestGenerateRefused(t *testing.T) {
	dir := t.TempDir()
	// a directory of other shards (self-play, imports) is not continued
	shards := filepath.Join(dir, "imported")
	if _, _, code := runCLI(t, "", "datasets", "import-sgf", boardspaceDir, "--out", shards); code != 0 {
		t.Fatal("import failed")
	}
	out := filepath.Join(dir, "new")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--player", "rollout:8", "--games", "2", "--out", shards}, "holds 1 shards but no generate.json"},
		{[]string{"--player", "rollout:x", "--games", "2", "--out", out}, `--player: player "rollout:x": want rollout:N`},
		{[]string{"--player", "rollout:8", "--vs", "nonexistent.ckpt", "--games", "2", "--out", out}, "--vs: "},
		{[]string{"--player", "rollout:8", "--games", "0", "--out", out}, "--games must be at least 1, got 0"},
		{[]string{"--player", "rollout:8", "--games", "2", "--out", out, "--sims", "0"}, "--sims and --movetime are both 0"},
		{[]string{"--player", "rollout:8", "--games", "2"}, "--out is required"},
		{[]string{"--games", "2", "--out", out}, "--player is required"},
		{[]string{"--player", "rollout:8", "--games", "2", "--out", out, "--opening-plies", "11"}, "--opening-plies must be in [0, 10]"},
	} {
		_, errs, code := runCLI(t, "", append([]string{"datasets", "generate"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d err %q, want %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run created its --out")
	}
	out2, _, code := runCLI(t, "", "datasets", "generate", "--help")
	if code != 0 || !strings.Contains(out2, "import-sgf") || !strings.Contains(out2, "one-hot") {
		t.Errorf("--help does not mention imported games: %q", out2)
	}
}
