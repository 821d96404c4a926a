package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/internal/testenv"
	"github.com/yinsh-zero/yinsh/train"
)

// tinyRunYAML is a training run of a few seconds.
const tinyRunYAML = `variant: blitz
seed: 3
generations: %d
net: {preset: tiny, channels: 4, policy_channels: 1}
selfplay: {games: 4, parallel: 4, simulations: 4, gumbel_considered: 4}
training: {steps_per_generation: 3, batch_size: 8, min_positions: 10}
evaluation: {games: 2, simulations: 2, parallel: 2, gate: none, baseline_games: 2, baselines: [random], ladder: [1], ladder_games: 2}
`

func writeTinyConfig(t *testing.T, gens int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(tinyRunYAML, gens)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunsCheck: yinsh runs check passes a finished run, prints every problem of a damaged one
// (exit 1), and --repair restores a config.yaml whose fixed key was edited, saying so; resume of the
// finished run says it is finished.
func TestRunsCheck(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	if _, errs, code := runCLI(t, "", "train", "--config", writeTinyConfig(t, 1), "--run", run); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, errs)
	}
	out, errs, code := runCLI(t, "", "runs", "check", run)
	if code != 0 || !strings.Contains(out, "ok (state.json format 2): 1 of 1 generations, finished") {
		t.Fatalf("check of a finished run: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = runCLI(t, "", "train", "--run", run, "--resume")
	if code != 0 || !strings.Contains(out, "run "+run+" is finished (1 generations of 1)") || !strings.Contains(out, "--set generations=2") || strings.Contains(errs, "INFO") {
		t.Fatalf("resume of a finished run: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}

	cfgPath := filepath.Join(run, train.ConfigFile)
	orig, _ := os.ReadFile(cfgPath)
	if err := os.WriteFile(cfgPath, bytes.Replace(orig, []byte("seed: 3"), []byte("seed: 4"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	shards, _ := filepath.Glob(filepath.Join(run, "games", "shard-*.yz"))
	if len(shards) == 0 {
		t.Fatal("no shards")
	}
	os.Remove(shards[0])
	out, _, code = runCLI(t, "", "runs", "check", run)
	if code != 1 || !strings.Contains(out, "config.yaml: seed: 4, state.json records 3") ||
		!strings.Contains(out, filepath.Base(shards[0])+": missing") || !strings.Contains(out, "2 problem(s)") {
		t.Fatalf("check of a damaged run: exit %d\n%s", code, out)
	}
	_, errs, code = runCLI(t, "", "train", "--run", run, "--resume")
	if code == 0 || !strings.Contains(errs, "resume refused, nothing written") {
		t.Fatalf("resume of a damaged run: exit %d\n%s", code, errs)
	}
	out, _, code = runCLI(t, "", "runs", "check", "--repair", run)
	if code != 1 || !strings.Contains(out, "repaired: config.yaml restored from state.json") || strings.Contains(out, "config.yaml: seed") ||
		!strings.Contains(out, "1 problem(s)") {
		t.Fatalf("repair: exit %d\n%s", code, out)
	}
	if got, _ := os.ReadFile(cfgPath); !bytes.Equal(got, orig) {
		t.Fatalf("config.yaml not restored:\n%s", got)
	}
}

// TestTrainSignalChild is the child process of TestTrainSignal: yinsh with the arguments in
// YINSH_MAIN_ARGS (one per line).
func TestTrainSignalChild(t *testing.T) {
	args := os.Getenv("YINSH_MAIN_ARGS")
	if args == "" {
		t.Skip("child process of TestTrainSignal")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdin, os.Stdout, os.Stderr))
}

// TestTrainSignal: SIGTERM during self-play stops yinsh train after the step in progress with exit
// 143 and the resume command (SIGINT: 130); a second signal right after the first stops it at once
// with the second's status; the run then resumes to the end.
func TestTrainSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	run := filepath.Join(t.TempDir(), "run")
	cfg := writeTinyConfig(t, 3)
	child := func(sigs []syscall.Signal, args ...string) (int, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTrainSignalChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "YINSH_MAIN_ARGS="+strings.Join(args, "\n"))
		out := &testenv.SyncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if len(sigs) > 0 {
			// wait for the generation's self-play to start (the replay window is loaded just
			// before it)
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) && !strings.Contains(out.String(), "replay window loaded") {
				time.Sleep(5 * time.Millisecond)
			}
			for _, s := range sigs { // back to back: two different signals are not merged
				cmd.Process.Signal(s)
			}
		}
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String()
	}
	code, out := child([]syscall.Signal{syscall.SIGTERM}, "train", "--config", cfg, "--run", run)
	if code != 143 || !strings.Contains(out, "interrupted: resume with yinsh train --run "+run+" --resume") || strings.Contains(out, "context canceled") {
		t.Fatalf("SIGTERM: exit %d\n%s", code, out)
	}
	if o, _, c := runCLI(t, "", "runs", "check", run); c != 0 {
		t.Fatalf("check after SIGTERM: exit %d\n%s", c, o)
	}
	code, out = child([]syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, "train", "--run", run, "--resume")
	if code != 143 || !strings.Contains(out, "second signal (SIGTERM): stopping at once") || strings.Contains(out, "interrupted:") {
		t.Fatalf("SIGINT then SIGTERM: exit %d\n%s", code, out)
	}
	code, out = child([]syscall.Signal{syscall.SIGINT}, "train", "--run", run, "--resume")
	if code != 130 || !strings.Contains(out, "interrupted: resume with") {
		t.Fatalf("SIGINT: exit %d\n%s", code, out)
	}
	code, out = child(nil, "train", "--run", run, "--resume")
	if code != 0 {
		t.Fatalf("resume after the signals: exit %d\n%s", code, out)
	}
	ms, err := train.ReadMetrics(filepath.Join(run, train.MetricsFile))
	if err != nil || len(ms) != 3 {
		t.Fatalf("metrics after resume: %d lines, %v", len(ms), err)
	}
	if o, _, c := runCLI(t, "", "runs", "check", run); c != 0 || !strings.Contains(o, "3 of 3 generations, finished") {
		t.Fatalf("check after resume: exit %d\n%s", c, o)
	}
}

// TestRunsPlot: yinsh runs plot redraws a run's plots from its files (a deleted rating.png comes
// back), and on a directory that is not a run exits 1 naming the file it could not read.
func TestRunsPlot(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	if _, errs, code := runCLI(t, "", "train", "--config", writeTinyConfig(t, 1), "--run", run); code != 0 {
		t.Fatalf("train: exit %d\n%s", code, errs)
	}
	rating := filepath.Join(run, "plots", "rating.png")
	if err := os.Remove(rating); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCLI(t, "", "runs", "plot", run); code != 0 || !strings.Contains(out, "plots: "+filepath.Join(run, "plots")) {
		t.Fatalf("runs plot: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(rating); err != nil {
		t.Fatalf("rating.png not redrawn: %v", err)
	}
	empty := t.TempDir()
	_, errs, code := runCLI(t, "", "runs", "plot", empty)
	if code != 1 || !strings.Contains(errs, filepath.Join(empty, train.MetricsFile)) {
		t.Fatalf("runs plot of an empty directory: exit %d, stderr %q; want 1 naming metrics.jsonl", code, errs)
	}
}
