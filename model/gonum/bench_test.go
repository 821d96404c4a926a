package gonum

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

// Benchmarks for BENCHMARKS.md (model section). Run:
//
//	go test ./model/gonum -run '^$' -bench . -benchmem -benchtime 3s
//
// Custom metrics: positions/s and gflops (inference), samples/s (training), gflops of the raw
// SGEMM, peak-heap-MB (Go heap in use after a training step) and peak-rss-MB (VmHWM of the process
// so far; meaningful for the first training benchmark that grows it).

func benchPredict(b *testing.B, preset string, batch int) {
	cfg, _ := model.Preset(preset)
	net := mustNew(b, cfg, 1)
	tb := modeltest.RandomBatch(1, batch, true)
	logits := make([]float32, batch*env.NumActions)
	wdl := make([]float32, batch*3)
	if err := net.Predict(batch, tb.Planes, tb.Mask, logits, wdl); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := net.Predict(batch, tb.Planes, tb.Mask, logits, wdl); err != nil {
			b.Fatal(err)
		}
	}
	pps := float64(b.N*batch) / b.Elapsed().Seconds()
	b.ReportMetric(pps, "positions/s")
	b.ReportMetric(pps*float64(cfg.FLOPsPerPosition())/1e9, "gflops")
}

func BenchmarkPredictTiny32(b *testing.B)  { benchPredict(b, "tiny", 32) }
func BenchmarkPredictTiny64(b *testing.B)  { benchPredict(b, "tiny", 64) }
func BenchmarkPredictSmall1(b *testing.B)  { benchPredict(b, "small", 1) }
func BenchmarkPredictSmall64(b *testing.B) { benchPredict(b, "small", 64) }

// BenchmarkSgemmSmall64 is gonum's raw SGEMM on the small net's tower convolution for batch 64 in
// one call: [64 × 576] · [576 × 64·121].
func BenchmarkSgemmSmall64(b *testing.B) { benchGemm(b, 64*cells, 1) }

// BenchmarkSgemmSmallSample is the per-sample shape conv3 uses, [64 × 576] · [576 × 121], one GEMM
// per goroutine on GOMAXPROCS goroutines; gflops counts all of them.
func BenchmarkSgemmSmallSample(b *testing.B) { benchGemm(b, cells, runtime.GOMAXPROCS(0)) }

func benchGemm(b *testing.B, n, par int) {
	g := newGemmBench(64, 576, n, par, rand.New(rand.NewPCG(1, 1)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parallel(par, func(w, _, _ int) {
			gemm(false, false, g.m, g.n, g.k, g.a[w], g.k, g.b[w], g.n, 0, g.c[w], g.n)
		})
	}
	b.ReportMetric(float64(b.N*par)*2*float64(g.m*g.n*g.k)/b.Elapsed().Seconds()/1e9, "gflops")
}

func benchTrain(b *testing.B, preset string, batch int) {
	cfg, _ := model.Preset(preset)
	net := mustNew(b, cfg, 1)
	tb := modeltest.RandomBatch(2, batch, true)
	if _, err := net.TrainStep(tb); err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := net.TrainStep(tb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "peak-heap-MB")
	b.ReportMetric(vmHWM()/(1<<20), "peak-rss-MB")
}

func BenchmarkTrainTiny32(b *testing.B)   { benchTrain(b, "tiny", 32) }
func BenchmarkTrainTiny64(b *testing.B)   { benchTrain(b, "tiny", 64) }
func BenchmarkTrainSmall64(b *testing.B)  { benchTrain(b, "small", 64) }
func BenchmarkTrainSmall256(b *testing.B) { benchTrain(b, "small", 256) }

// vmHWM returns the process's peak resident set size in bytes (Linux), or 0.
func vmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return 0
}
