//go:build torch

package torch

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

// CUDA tests skip cleanly where libtorch has no CUDA or no GPU is visible (the CPU wheel set up by
// scripts/libtorch.sh never has one; see docs/torch.md for the GPU build). On a GPU, cuDNN may run
// float32 convolutions in TF32 (libtorch's default), hence the looser tolerances.

func needCUDA(t *testing.T) {
	t.Helper()
	if !CUDAAvailable() {
		t.Skip("no CUDA device (libtorch without CUDA, or no GPU)")
	}
}

func TestCUDAPredictMatchesCPU(t *testing.T) {
	needCUDA(t)
	for _, preset := range []string{"tiny", "small"} {
		t.Run(preset, func(t *testing.T) {
			cfg, _ := model.Preset(preset)
			c := perturbed(t, cfg, 3, model.DefaultSGD())
			b := modeltest.RandomBatch(5, 64, false)
			cp, cw, _ := predict(t, newTorch(t, c, Options{}), b)
			gpu := newTorch(t, c, Options{Device: "cuda"})
			if gpu.Device() != "cuda:0" {
				t.Fatalf("device %q, want cuda:0", gpu.Device())
			}
			gp, gw, _ := predict(t, gpu, b)
			dp, _ := maxDiff(gp, cp)
			dw := maxRelDiff(gw, cw)
			t.Logf("cuda vs cpu: policy prob %.2e, WDL logit %.2e", dp, dw)
			if dp > 5e-3 || dw > 5e-3 {
				t.Errorf("cuda and cpu differ: policy %.3g, WDL %.3g", dp, dw)
			}
		})
	}
}

func TestCUDATrainStepMatchesGonum(t *testing.T) {
	needCUDA(t)
	cfg := tinyConfig(t)
	for name, opt := range optimizers() {
		t.Run(name, func(t *testing.T) {
			c := perturbed(t, cfg, 11, opt)
			g := newGonum(t, c)
			n := newTorch(t, c, Options{Device: "cuda"})
			b := modeltest.RandomBatch(20, 32, false)
			gl, err := g.TrainStep(b)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := n.TrainStep(b)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(tl.Total-gl.Total) > 1e-3*math.Max(1, gl.Total) {
				t.Errorf("loss: cuda %v, gonum %v", tl, gl)
			}
			gc, _ := g.Checkpoint()
			tc, err := n.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range gc.Tensors {
				scale := 1e-3
				for _, x := range v.Data {
					scale = math.Max(scale, math.Abs(float64(x)))
				}
				if d, _ := maxDiff(tc.Tensors[k].Data, v.Data); d > 1e-2*scale {
					t.Errorf("%s: max |Δ| %.3g (scale %.3g)", k, d, scale)
				}
			}
		})
	}
}

func TestCUDAMixedPrecision(t *testing.T) {
	needCUDA(t)
	c := perturbed(t, tinyConfig(t), 8, model.DefaultSGD())
	b := modeltest.RandomBatch(8, 64, false)
	full := newTorch(t, c, Options{Device: "cuda"})
	half := newTorch(t, c, Options{Device: "cuda", MixedPrecision: true})
	fp, fw, _ := predict(t, full, b)
	hp, hw, _ := predict(t, half, b)
	dp, _ := maxDiff(fp, hp)
	dw := maxRelDiff(fw, hw)
	t.Logf("bf16 vs f32 on cuda: policy prob %.2e, WDL logit %.2e", dp, dw)
	if dp > 0.05 || dw > 0.1 {
		t.Errorf("bf16 inference too far from float32: %.3g, %.3g", dp, dw)
	}
	for i := 0; i < 3; i++ {
		fl, err := full.TrainStep(b)
		if err != nil {
			t.Fatal(err)
		}
		hl, err := half.TrainStep(b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fl.Total-hl.Total) > 0.05*fl.Total {
			t.Errorf("step %d: bf16 loss %v, float32 %v", i, hl, fl)
		}
	}
}

// TestCUDACheckpoint: a net trained on the GPU saves a checkpoint that gonum loads and predicts
// with; a gonum checkpoint loads onto the GPU.
func TestCUDACheckpoint(t *testing.T) {
	needCUDA(t)
	c := perturbed(t, tinyConfig(t), 2, model.DefaultAdamW())
	n := newTorch(t, c, Options{Device: "cuda:0"})
	if _, err := n.TrainStep(modeltest.RandomBatch(2, 16, false)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cuda.safetensors")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	g, err := gonum.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b := modeltest.RandomBatch(3, 16, false)
	tp, _, _ := predict(t, n, b)
	gp, _, _ := predict(t, g, b)
	if d, _ := maxDiff(tp, gp); d > 5e-3 {
		t.Errorf("cuda→gonum: policy differs by %.3g", d)
	}
	n2, err := Load(path, Options{Device: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	defer n2.Close()
	if n2.Step() != 1 {
		t.Errorf("step %d after reload, want 1", n2.Step())
	}
}

// TestCUDANoTensorLeak: live gotch tensors stay constant over GPU inference and training.
func TestCUDANoTensorLeak(t *testing.T) {
	needCUDA(t)
	n := newTorch(t, perturbed(t, tinyConfig(t), 1, model.DefaultSGD()), Options{Device: "cuda"})
	b := modeltest.RandomBatch(1, 64, false)
	pol := make([]float32, b.N*env.NumActions)
	wdl := make([]float32, b.N*model.NumWDL)
	run := func(k int) {
		for i := 0; i < k; i++ {
			if err := n.Predict(b.N, b.Planes, b.Mask, pol, wdl); err != nil {
				t.Fatal(err)
			}
			if i%20 == 0 {
				if _, err := n.TrainStep(b); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	run(100)
	live0 := liveTensors()
	run(2000)
	if live1 := liveTensors(); live1 != live0 {
		t.Errorf("live gotch tensors grew from %d to %d", live0, live1)
	}
}
