//go:build torch

package torch

import (
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

func benchPredict(bm *testing.B, preset string, n int) {
	cfg, err := model.Preset(preset)
	if err != nil {
		bm.Fatal(err)
	}
	net, err := New(cfg, 1, Options{})
	if err != nil {
		bm.Fatal(err)
	}
	defer net.Close()
	b := modeltest.RandomBatch(1, n, false)
	pol := make([]float32, n*env.NumActions)
	wdl := make([]float32, n*model.NumWDL)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		if err := net.Predict(n, b.Planes, b.Mask, pol, wdl); err != nil {
			bm.Fatal(err)
		}
	}
	bm.ReportMetric(float64(bm.N*n)/bm.Elapsed().Seconds(), "positions/s")
}

func benchTrain(bm *testing.B, preset string, n int) {
	cfg, err := model.Preset(preset)
	if err != nil {
		bm.Fatal(err)
	}
	net, err := New(cfg, 1, Options{})
	if err != nil {
		bm.Fatal(err)
	}
	defer net.Close()
	b := modeltest.RandomBatch(1, n, false)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		if _, err := net.TrainStep(b); err != nil {
			bm.Fatal(err)
		}
	}
	bm.ReportMetric(float64(bm.N*n)/bm.Elapsed().Seconds(), "samples/s")
}

func BenchmarkPredictTiny1(b *testing.B)    { benchPredict(b, "tiny", 1) }
func BenchmarkPredictTiny16(b *testing.B)   { benchPredict(b, "tiny", 16) }
func BenchmarkPredictSmall64(b *testing.B)  { benchPredict(b, "small", 64) }
func BenchmarkPredictSmall256(b *testing.B) { benchPredict(b, "small", 256) }
func BenchmarkTrainTiny16(b *testing.B)     { benchTrain(b, "tiny", 16) }
func BenchmarkTrainSmall256(b *testing.B)   { benchTrain(b, "small", 256) }
