package gonum

import (
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/sgemm"
	"github.com/yinsh-zero/yinsh/model"
)

// BenchResult is what `yinsh bench model` reports.
type BenchResult struct {
	PositionsPerSec    float64 // inference throughput (Predict, batch Batch)
	TrainSamplesPerSec float64 // TrainStep throughput (batch Batch)
	GFLOPS             float64 // achieved in inference: Config.FLOPsPerPosition · positions/s
	SgemmGFLOPS        float64 // max(SgemmSampleGFLOPS, SgemmBatchGFLOPS): the reference for GFLOPS
	SgemmSampleGFLOPS  float64 // raw SGEMM, per-sample conv shape, one GEMM per goroutine
	SgemmBatchGFLOPS   float64 // raw SGEMM, whole-batch conv shape, one call
	PeakTrainHeapBytes uint64  // Go heap in use after a training step (workspace included)
	Kernel             string  // the GEMM kernel in use (Kernel())
}

// Kernel names the GEMM kernel the backend uses now: "avx512" or "avx2+fma" (internal/sgemm's Go
// assembly, implicit-GEMM convolutions) or "gonum" (gonum's blas32 and im2col: other CPUs, or
// YINSH_KERNEL=gonum).
func Kernel() string { return sgemm.Kernel() }

// Bench measures inference and training throughput of a freshly initialised net with the given
// architecture and batch size on random positions, and gonum's raw SGEMM throughput on the 3×3 tower
// convolution's shapes, spending about minTime on each of inference (with the SGEMMs interleaved)
// and training. It uses GOMAXPROCS goroutines.
func Bench(cfg model.Config, batch int, minTime time.Duration) (BenchResult, error) {
	r := BenchResult{Kernel: Kernel()}
	net, err := New(cfg, 1)
	if err != nil {
		return r, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	planes, mask, pol, err := model.BenchInputs(batch, rng)
	if err != nil {
		return r, err
	}
	wdl := make([]float32, batch*model.NumWDL)
	logits := make([]float32, batch*env.NumActions)
	if err := net.Predict(batch, planes, mask, logits, wdl); err != nil { // warm-up, builds the engine
		return r, err
	}
	// Raw SGEMM on the tower convolution's shapes, with the same operands' sizes as the convs:
	// per sample ([C × 9C]·[9C × 121], one GEMM per goroutine on GOMAXPROCS goroutines, as conv3
	// runs them) and for the whole batch in one call ([C × 9C]·[9C × batch·121], gonum splitting it
	// between goroutines). Inference and the GEMMs are measured in alternating rounds, keeping the
	// best round of each, so that load from other processes affects them alike.
	sample := newGemmBench(cfg.Channels, 9*cfg.Channels, cells, workers(batch), rng)
	whole := newGemmBench(cfg.Channels, 9*cfg.Channels, batch*cells, 1, rng)
	const rounds = 10
	for round := 0; round < rounds; round++ {
		calls, el := timeIt(minTime/rounds, func() error { return net.Predict(batch, planes, mask, logits, wdl) })
		r.PositionsPerSec = max(r.PositionsPerSec, float64(calls*batch)/el.Seconds())
		r.SgemmSampleGFLOPS = max(r.SgemmSampleGFLOPS, sample.run(minTime/rounds/2))
		r.SgemmBatchGFLOPS = max(r.SgemmBatchGFLOPS, whole.run(minTime/rounds/2))
	}
	r.SgemmGFLOPS = max(r.SgemmSampleGFLOPS, r.SgemmBatchGFLOPS)
	r.GFLOPS = r.PositionsPerSec * float64(cfg.FLOPsPerPosition()) / 1e9

	tb := &model.Batch{N: batch, Planes: planes, Mask: mask, Policy: pol, WDL: make([]float32, batch*model.NumWDL)}
	for i := 0; i < batch; i++ {
		tb.WDL[i*3+i%3] = 1
	}
	if _, err := net.TrainStep(tb); err != nil {
		return r, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.PeakTrainHeapBytes = ms.HeapInuse
	calls, el := timeIt(minTime, func() error { _, err := net.TrainStep(tb); return err })
	r.TrainSamplesPerSec = float64(calls*batch) / el.Seconds()
	return r, nil
}

// timeIt calls f at least once and until minTime has passed; it returns the calls and the time taken.
func timeIt(minTime time.Duration, f func() error) (int, time.Duration) {
	start := time.Now()
	calls := 0
	for {
		if err := f(); err != nil {
			return calls, time.Since(start)
		}
		calls++
		if el := time.Since(start); el >= minTime {
			return calls, el
		}
	}
}

// gemmBench runs independent SGEMMs m×k · k×n on par goroutines.
type gemmBench struct {
	m, k, n int
	a, b, c [][]float32
}

func newGemmBench(m, k, n, par int, rng *rand.Rand) *gemmBench {
	g := &gemmBench{m: m, k: k, n: n}
	for i := 0; i < par; i++ {
		a, b := make([]float32, m*k), make([]float32, k*n)
		for j := range a {
			a[j] = rng.Float32()
		}
		for j := range b {
			b[j] = rng.Float32()
		}
		g.a, g.b, g.c = append(g.a, a), append(g.b, b), append(g.c, make([]float32, m*n))
	}
	return g
}

// run repeats the GEMMs for about d and returns GFLOPS.
func (g *gemmBench) run(d time.Duration) float64 {
	calls, el := timeIt(d, func() error {
		parallel(len(g.a), func(w, _, _ int) {
			gemm(false, false, g.m, g.n, g.k, g.a[w], g.k, g.b[w], g.n, 0, g.c[w], g.n)
		})
		return nil
	})
	return float64(calls*len(g.a)) * 2 * float64(g.m*g.n*g.k) / el.Seconds() / 1e9
}
