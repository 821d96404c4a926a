package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/train"
)

// threads: N runs the pure-Go backend (and the whole process) on N cores, what makes a seeded run
// reproducible for a given threads value; the setting is restored afterwards.
func TestTrainThreadsSetGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	restore := setThreads(train.Config{Threads: before + 1, Backend: "gonum"})
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("threads %d: GOMAXPROCS %d", before+1, got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after the run: GOMAXPROCS %d, want %d back", got, before)
	}
	setThreads(train.Config{Threads: 0, Backend: "gonum"})()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("threads 0: GOMAXPROCS %d, want %d (all cores, unchanged)", got, before)
	}
}

// yinsh train logs through the CLI's logger: --log-level warn keeps its INFO lines out, --log-format
// json makes them JSON; the closing summary still goes to standard output.
func TestTrainLogFlags(t *testing.T) {
	args := func(run string) []string {
		return []string{"train", "--config", "../../configs/quickstart.yaml", "--run", run,
			"--set", "generations=1", "--set", "selfplay.games=2", "--set", "selfplay.parallel=2",
			"--set", "selfplay.simulations=4", "--set", "training.min_positions=1000000",
			"--set", "evaluation.baseline_games=0"}
	}
	out, errs, code := runCLI(t, "", append([]string{"--log-level", "warn"}, args(filepath.Join(t.TempDir(), "r"))...)...)
	if code != 0 {
		t.Fatalf("train: code %d: %s", code, errs)
	}
	if strings.Contains(errs, "level=INFO") {
		t.Errorf("--log-level warn: INFO lines on stderr:\n%s", errs)
	}
	if !strings.Contains(out, "run done: 1 generations") {
		t.Errorf("no closing summary on stdout:\n%s", out)
	}
	_, errs, code = runCLI(t, "", append([]string{"--log-format", "json"}, args(filepath.Join(t.TempDir(), "r"))...)...)
	if code != 0 {
		t.Fatalf("train: code %d: %s", code, errs)
	}
	if !strings.Contains(errs, `"level":"INFO","msg":"datasets: replay window loaded"`) {
		t.Errorf("--log-format json: no JSON log lines on stderr:\n%s", errs)
	}
}
