//go:build torch

package torch

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/yinsh-zero/yinsh/model"
)

// initCheckpoint returns freshly initialised weights, drawn in Go exactly as gonum.New draws them
// (same generator, same order, same distributions), so a seed gives the same net in both backends
// and on every device: convolution and hidden fully connected weights N(0, 2/fan_in), output layers
// (policy.fc, value.fc2) N(0, 1/fan_in), biases 0, batch norm γ = 1, β = 0, running mean 0 and
// running variance 1.
func initCheckpoint(cfg model.Config, seed uint64) *model.Checkpoint {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	c := &model.Checkpoint{
		Meta:    model.NewMetadata(model.KindTraining, cfg, 0, nil, BackendName),
		Tensors: map[string]*model.Tensor{},
	}
	for _, s := range model.Specs(cfg, model.KindTraining) {
		t := model.NewTensor(s.Shape...)
		c.Tensors[s.Name] = t
		isBNWeight := !model.IsDecayed(s.Name) && strings.HasSuffix(s.Name, ".weight")
		switch {
		case strings.HasSuffix(s.Name, ".running_var"), isBNWeight:
			for i := range t.Data {
				t.Data[i] = 1
			}
		case strings.HasSuffix(s.Name, ".weight"):
			fanIn := len(t.Data) / s.Shape[0]
			gain := 2.0
			if s.Name == "policy.fc.weight" || s.Name == "value.fc2.weight" {
				gain = 1
			}
			std := math.Sqrt(gain / float64(fanIn))
			for i := range t.Data {
				t.Data[i] = float32(rng.NormFloat64() * std)
			}
		}
	}
	return c
}
