//go:build torch

package torch

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// BenchResult is what `yinsh bench model --backend torch` reports (the fields of gonum.BenchResult).
type BenchResult struct {
	PositionsPerSec    float64 // inference throughput (Predict, batch Batch)
	TrainSamplesPerSec float64 // TrainStep throughput (batch Batch)
	GFLOPS             float64 // achieved in inference: Config.FLOPsPerPosition · positions/s
	SgemmGFLOPS        float64 // libtorch's raw float32 matmul on the tower convolution's GEMM shape
	Threads            int     // libtorch intra-op threads used
	Device             string
}

// benchRounds: each measurement is split into rounds, alternating between what is measured, and
// the best round is kept, so that load from other processes affects all alike (as in gonum.Bench).
const benchRounds = 5

// Bench measures a freshly initialised net as gonum.Bench does: Predict and TrainStep throughput on
// random positions at the given batch size, and the raw matmul throughput of the 3×3 tower
// convolution's GEMM shape (Channels × 9·Channels times 9·Channels × batch·121).
func Bench(cfg model.Config, batch int, minTime time.Duration, o Options) (BenchResult, error) {
	var r BenchResult
	net, err := New(cfg, 1, o)
	if err != nil {
		return r, err
	}
	defer net.Close()
	r.Device = net.Device()
	rng := rand.New(rand.NewPCG(1, 2))
	planes, mask, pol, err := model.BenchInputs(batch, rng)
	if err != nil {
		return r, err
	}
	wdl := make([]float32, batch*model.NumWDL)
	logits := make([]float32, batch*env.NumActions)
	predict := func() error { return net.Predict(batch, planes, mask, logits, wdl) }

	m, k, n := cfg.Channels, 9*cfg.Channels, batch*model.NumCells
	gemm, release, err := matmulBench(net, m, k, n, rng)
	if err != nil {
		return r, err
	}
	defer release()
	for _, f := range []func() error{predict, predict, gemm} { // warm-up: folding, oneDNN primitives
		if err := f(); err != nil {
			return r, err
		}
	}
	for round := 0; round < benchRounds; round++ {
		calls, el, err := timeIt(minTime/benchRounds, predict)
		if err != nil {
			return r, err
		}
		r.PositionsPerSec = max(r.PositionsPerSec, float64(calls*batch)/el.Seconds())
		calls, el, err = timeIt(minTime/benchRounds, gemm)
		if err != nil {
			return r, err
		}
		r.SgemmGFLOPS = max(r.SgemmGFLOPS, float64(calls)*2*float64(m*n*k)/el.Seconds()/1e9)
	}
	r.GFLOPS = r.PositionsPerSec * float64(cfg.FLOPsPerPosition()) / 1e9

	tb := &model.Batch{N: batch, Planes: planes, Mask: mask, Policy: pol, WDL: make([]float32, batch*model.NumWDL)}
	for i := 0; i < batch; i++ {
		tb.WDL[i*3+i%3] = 1
	}
	train := func() error { _, err := net.TrainStep(tb); return err }
	if err := train(); err != nil {
		return r, err
	}
	for round := 0; round < benchRounds; round++ {
		calls, el, err := timeIt(minTime/benchRounds, train)
		if err != nil {
			return r, err
		}
		r.TrainSamplesPerSec = max(r.TrainSamplesPerSec, float64(calls*batch)/el.Seconds())
	}
	err = net.onInfer(func() error { r.Threads = threads(); return nil })
	return r, err
}

// matmulBench returns a function computing one [m,k]×[k,n] float32 matmul on the net's device (and
// waiting for it), and a function freeing its tensors.
func matmulBench(net *Net, m, k, n int, rng *rand.Rand) (func() error, func(), error) {
	rnd := func(size int) []float32 {
		x := make([]float32, size)
		for i := range x {
			x[i] = rng.Float32()
		}
		return x
	}
	a, err := newF32(rnd(m*k), []int64{int64(m), int64(k)}, net.dev)
	if err != nil {
		return nil, nil, err
	}
	b, err := newF32(rnd(k*n), []int64{int64(k), int64(n)}, net.dev)
	if err != nil {
		dropTensor(a)
		return nil, nil, err
	}
	c, err := ts.Empty([]int64{int64(m), int64(n)}, gotch.Float, net.dev)
	if err != nil {
		dropTensor(a)
		dropTensor(b)
		return nil, nil, err
	}
	run := func() error {
		return net.onInfer(func() error {
			out, err := a.MmOut(c, b, false)
			if err != nil {
				return fmt.Errorf("torch: mm: %w", err)
			}
			dropTensor(out)
			if net.dev.IsCuda() {
				return ts.CudaSynchronize(net.dev.Value)
			}
			return nil
		})
	}
	return run, func() { dropTensor(a); dropTensor(b); dropTensor(c) }, nil
}

// timeIt calls f at least once and until minTime has passed.
func timeIt(minTime time.Duration, f func() error) (int, time.Duration, error) {
	start := time.Now()
	calls := 0
	for {
		if err := f(); err != nil {
			return calls, time.Since(start), err
		}
		calls++
		if el := time.Since(start); el >= minTime {
			return calls, el, nil
		}
	}
}
