package gonum

import (
	"fmt"
	"math"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/sgemm"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

// The SIMD paths (AVX-512 or AVX2 kernels, implicit-GEMM convolutions) and the fallback (gonum's
// BLAS, im2col) compute the same whole networks: predictions and every parameter's gradient agree
// within float32 tolerance. On CPUs with AVX2 but not AVX-512, the AVX-512 path's 32-column tiling
// runs with Go versions of its micro-kernels (sgemm.KernelAVX512Go). (CI also runs the whole
// package with YINSH_KERNEL=gonum.)
func TestKernelPathsAgree(t *testing.T) {
	var paths []string
	for _, k := range sgemm.Available() {
		if k != sgemm.KernelGonum {
			paths = append(paths, k)
		}
	}
	if len(paths) == 0 {
		t.Skipf("only %v on this CPU: nothing to compare", sgemm.Available())
	}
	if paths[0] == sgemm.KernelAVX2 {
		paths = append(paths, sgemm.KernelAVX512Go)
	}
	defer sgemm.Use(sgemm.Kernel())
	for _, path := range paths {
		t.Run(path, func(t *testing.T) { kernelPathAgrees(t, path) })
	}
}

func kernelPathAgrees(t *testing.T, path string) {
	tiny, _ := model.Preset("tiny")
	odd := tiny
	odd.Name, odd.Channels, odd.Blocks, odd.PolicyChannels, odd.ValueChannels, odd.ValueHidden = "odd", 13, 2, 3, 2, 7
	pooled := odd
	pooled.Name, pooled.GlobalPool = "odd+gpool", true
	for _, cfg := range []model.Config{tiny, odd, pooled} {
		for _, batch := range []int{1, 5} {
			type result struct {
				policy, wdl []float32
				loss        model.Loss
				grads       [][]float32
			}
			run := func(kernel string) result {
				if err := sgemm.Use(kernel); err != nil {
					t.Fatal(err)
				}
				net := mustNew(t, cfg, 7)
				b := modeltest.RandomBatch(3, batch, false)
				r := result{policy: make([]float32, batch*env.NumActions), wdl: make([]float32, batch*model.NumWDL)}
				if err := net.Predict(batch, b.Planes, b.Mask, r.policy, r.wdl); err != nil {
					t.Fatal(err)
				}
				r.loss = net.lossGrad(b, net.Optimizer(), true)
				for _, p := range net.params {
					r.grads = append(r.grads, append([]float32(nil), p.grad...))
				}
				return r
			}
			simd, fallback := run(path), run(sgemm.KernelGonum)
			near := func(what string, a, b []float32) {
				t.Helper()
				scale := 0.0
				for _, v := range b {
					if !math.IsInf(float64(v), 0) {
						scale = math.Max(scale, math.Abs(float64(v)))
					}
				}
				for i := range a {
					x, y := float64(a[i]), float64(b[i])
					if math.IsInf(x, -1) && math.IsInf(y, -1) {
						continue
					}
					if math.IsNaN(x) || math.Abs(x-y) > 1e-4*scale+1e-6 {
						t.Fatalf("%s batch %d: %s[%d] = %v (SIMD) vs %v (fallback), scale %.3g", cfg.Name, batch, what, i, x, y, scale)
					}
				}
			}
			near("policy", simd.policy, fallback.policy)
			near("wdl", simd.wdl, fallback.wdl)
			if d := math.Abs(simd.loss.Total - fallback.loss.Total); d > 1e-5*math.Abs(fallback.loss.Total) {
				t.Fatalf("%s batch %d: loss %v vs %v", cfg.Name, batch, simd.loss.Total, fallback.loss.Total)
			}
			for i := range simd.grads {
				near(fmt.Sprintf("grad of param %d", i), simd.grads[i], fallback.grads[i])
			}
		}
	}
}
