// Package experiments holds the smoke test of the research programs in its subdirectories: each
// builds and runs on its smallest input (cd scripts/experiments && go test ./...).
package experiments

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/train"
)

func TestProgramsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three programs")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./...: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
		fail bool   // the run is expected to exit non-zero
		want string // in its output
	}{
		{"openings", []string{"-pairs", "1", "-sims", "2", "-k", "0"}, false, "distinct"},
		{"placement", []string{"-games", "2", "-sims", "2"}, false, "prior uniform vs rollout:2: 2 games"},
		{"valuecheck", nil, true, "valuecheck:"}, // needs a checkpoint and games: refuses clearly
		{"valuecheck", []string{"-help"}, false, "-checkpoint"},
	} {
		out, err := exec.Command(filepath.Join(bin, tc.name), tc.args...).CombinedOutput()
		if (err != nil) != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s %v: error %v (want failure: %v), output lacks %q:\n%s", tc.name, tc.args, err, tc.fail, tc.want, out)
		}
	}
}

// TestScalingPoolPlot runs the scaling study's tooling on its smallest input: a round robin of
// random, heuristic and two rollout players at 5 ms a move, resumed, then adaptive with a games
// budget, then plot; the product's ratings code reads the results, and the plot is a PNG.
func TestScalingPoolPlot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program and plays games")
	}
	bin := filepath.Join(t.TempDir(), "scaling")
	if out, err := exec.Command("go", "build", "-o", bin, "./scaling").CombinedOutput(); err != nil {
		t.Fatalf("go build ./scaling: %v\n%s", err, out)
	}
	dir := t.TempDir()
	pool := filepath.Join(dir, "smoke.pool")
	os.WriteFile(pool, []byte("unit: self-play games\nr4 rollout 10 rollout:4\nr16 rollout 40 rollout:16\nheur - - heuristic\nrand - - random\n"), 0o644)
	results := filepath.Join(dir, "results-pool.jsonl")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("scaling %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	lines := func() int {
		data, _ := os.ReadFile(results)
		return strings.Count(string(data), "\n")
	}
	common := []string{"-pool", pool, "-dir", dir, "-movetime", "5"}
	run(append([]string{"pool", "-games", "2"}, common...)...)
	if n := lines(); n != 6 { // 6 pairs of players, one game pair each
		t.Fatalf("%d results lines after the round robin, want 6", n)
	}
	if out := run(append([]string{"pool", "-games", "2"}, common...)...); lines() != 6 || !strings.Contains(out, "every pair has its 2 games") {
		t.Fatalf("a second run played again (%d lines):\n%s", lines(), out)
	}
	run(append([]string{"pool", "-games", "4", "-adaptive", "-target", "1", "-max-games", "32", "-anchor", "rand"}, common...)...)
	if n := lines(); n != 16 { // the round robin's second game pairs (6 lines), then 4 adaptive ones
		t.Fatalf("%d results lines after the adaptive run, want 16", n)
	}
	rs, err := train.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	ratings, err := train.FitRatings(rs, "rand")
	if err != nil || len(ratings) != 4 {
		t.Fatalf("ratings of the results: %v %v", ratings, err)
	}
	out := run(append([]string{"plot", "-anchor", "rand"}, common...)...)
	for _, want := range []string{"| rollout | 10 | r4 |", "| rollout | 40 | r16 |", "| - | – | rand | +0 | [+0, +0] |", "Elo per doubling"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(filepath.Join(dir, "scaling.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("scaling.png: %v", err)
	}
}
