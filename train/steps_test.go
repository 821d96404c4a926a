package train

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/internal/progress"
)

// A generation whose replay window runs out (every position drawn training.max_reuse times) stops
// training early: metrics.jsonl records the steps run beside the steps asked for and what stopped
// it, the progress output says "steps N/M (max_reuse)", and the bar ends at N, never at M/M.
func TestTrainEffectiveSteps(t *testing.T) {
	cfg := tinyConfig(t, 1)
	cfg.Training.StepsPerGeneration = 1000
	cfg.Training.MaxReuse = 1
	cfg.Evaluation.Games, cfg.Evaluation.BaselineGames, cfg.Evaluation.AnchorGames, cfg.Evaluation.Ladder = 0, 0, 0, nil
	dir := t.TempDir()
	var out, bars bytes.Buffer
	scr := progress.NewScreen()
	o := Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out, Progress: scr.Terminal(&bars, nil)}
	if err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	tm := ms[0].Train
	if tm.Steps == 0 || tm.Steps >= 1000 || tm.TargetSteps != 1000 || tm.StoppedBy != "max_reuse" {
		t.Fatalf("train metrics %+v: want some of 1000 steps, target_steps 1000, stopped_by max_reuse", tm)
	}
	want := fmt.Sprintf("steps %d/1000 (max_reuse", tm.Steps)
	if !strings.Contains(bars.String(), want) {
		t.Errorf("progress output lacks %q:\n%q", want, bars.String())
	}
	if strings.Contains(bars.String(), "(1000/1000)") || !strings.Contains(bars.String(), fmt.Sprintf("(%d/1000)", tm.Steps)) {
		t.Errorf("the training bar does not end at %d of 1000 steps:\n%q", tm.Steps, bars.String())
	}
	if !strings.Contains(out.String(), fmt.Sprintf("train %d/1000 steps (max_reuse)", tm.Steps)) {
		t.Errorf("summary %q does not say the steps were cut short", out.String())
	}

	// all the steps asked for: stopped by steps; too small a window: by min_positions
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Training.StepsPerGeneration = 2 }, "steps"},
		{func(c *Config) { c.Training.MinPositions = 1_000_000 }, "min_positions"},
	} {
		cfg := tinyConfig(t, 1)
		c.set(&cfg)
		dir := t.TempDir()
		if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend}); err != nil {
			t.Fatal(err)
		}
		ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		if tm := ms[0].Train; tm.StoppedBy != c.want || tm.TargetSteps != cfg.Training.StepsPerGeneration {
			t.Errorf("train metrics %+v: want stopped_by %s, target_steps %d", tm, c.want, cfg.Training.StepsPerGeneration)
		}
	}
}
