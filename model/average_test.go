package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

func initCheckpoint(t *testing.T, cfg model.Config, seed uint64) *model.Checkpoint {
	t.Helper()
	net, err := gonum.New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := net.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return ck
}

// TestAverage checks every element of the mean against a float64 reference, the dropped optimiser
// state, the metadata taken from the last checkpoint, and that the inputs are left unchanged.
func TestAverage(t *testing.T) {
	cfg, err := model.ResolveConfig("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cks := []*model.Checkpoint{initCheckpoint(t, cfg, 1), initCheckpoint(t, cfg, 2), initCheckpoint(t, cfg, 3)}
	cks[2].Meta.Step = 77
	// running statistics differ between the inputs too
	for i, c := range cks {
		for name, tn := range c.Tensors {
			if strings.HasSuffix(name, "running_var") {
				for j := range tn.Data {
					tn.Data[j] = float32(i+1) * 0.5
				}
			}
		}
	}
	before := cks[0].Clone()
	avg, err := model.Average(cks)
	if err != nil {
		t.Fatal(err)
	}
	if avg.Meta.Step != 77 || avg.Meta.Optimizer != nil {
		t.Errorf("metadata: step %d optimizer %v, want the last checkpoint's step 77 and no optimiser", avg.Meta.Step, avg.Meta.Optimizer)
	}
	for name, got := range avg.Tensors {
		if strings.HasPrefix(name, "optim.") {
			t.Fatalf("optimiser tensor %s kept", name)
		}
		for j, v := range got.Data {
			want := (float64(cks[0].Tensors[name].Data[j]) + float64(cks[1].Tensors[name].Data[j]) + float64(cks[2].Tensors[name].Data[j])) / 3
			if d := float64(v) - want; d > 1e-6 || d < -1e-6 {
				t.Fatalf("%s[%d] = %v, want %v", name, j, v, want)
			}
		}
		if strings.HasSuffix(name, "running_var") && got.Data[0] != 1 {
			t.Errorf("%s = %v, want the mean 1 of 0.5, 1 and 1.5", name, got.Data[0])
		}
	}
	if want := len(avg.Meta.ExpectedSpecs()); len(avg.Tensors) != want {
		t.Errorf("%d tensors, want the %d of a checkpoint without optimiser", len(avg.Tensors), want)
	}
	for name, tn := range before.Tensors {
		if !slices.Equal(tn.Data, cks[0].Tensors[name].Data) {
			t.Fatalf("Average changed its input's %s", name)
		}
	}
	// the average of one checkpoint is that checkpoint's weights
	one, err := model.Average(cks[:1])
	if err != nil {
		t.Fatal(err)
	}
	for name, tn := range one.Tensors {
		if !slices.Equal(tn.Data, cks[0].Tensors[name].Data) {
			t.Fatalf("average of one: %s differs", name)
		}
	}
}

// TestAverageRefuses checks the errors: nothing to average, two architectures, two variants, an
// inference file.
func TestAverageRefuses(t *testing.T) {
	tiny, _ := model.ResolveConfig("tiny")
	small, _ := model.ResolveConfig("small")
	a, b := initCheckpoint(t, tiny, 1), initCheckpoint(t, small, 1)
	if _, err := model.Average(nil); err == nil {
		t.Error("no checkpoints: no error")
	}
	if _, err := model.Average([]*model.Checkpoint{a, b}); err == nil || !strings.Contains(err.Error(), "checkpoint 2 of 2") {
		t.Errorf("two architectures: %v", err)
	}
	c := initCheckpoint(t, tiny, 2)
	a.Meta.Variant, c.Meta.Variant = "standard", "blitz"
	if _, err := model.Average([]*model.Checkpoint{a, c}); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Errorf("two variants: %v", err)
	}
	inf, err := model.Fold(initCheckpoint(t, tiny, 3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Average([]*model.Checkpoint{inf}); err == nil || !strings.Contains(err.Error(), "inference") {
		t.Errorf("an inference checkpoint: %v", err)
	}
}
