package model

import (
	"math"
	"math/rand/v2"
	"strings"
)

// InitCheckpoint returns freshly initialised training weights, the same for every backend (so a seed
// gives the same net in model/gonum and model/torch, on every device): drawn from a PCG generator
// seeded with seed in Specs order, convolution and hidden fully connected weights N(0, 2/fan_in)
// (He), output layers (policy.fc, value.fc2) N(0, 1/fan_in), biases 0, batch norm γ = 1, β = 0,
// running mean 0 and running variance 1. backend is recorded in the metadata.
func InitCheckpoint(cfg Config, seed uint64, backend string) *Checkpoint {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	c := &Checkpoint{
		Meta:    NewMetadata(KindTraining, cfg, 0, nil, backend),
		Tensors: map[string]*Tensor{},
	}
	for _, s := range Specs(cfg, KindTraining) {
		t := NewTensor(s.Shape...)
		c.Tensors[s.Name] = t
		isBNWeight := !IsDecayed(s.Name) && strings.HasSuffix(s.Name, ".weight")
		switch {
		case strings.HasSuffix(s.Name, ".running_var"), isBNWeight:
			for i := range t.Data {
				t.Data[i] = 1
			}
		case strings.HasSuffix(s.Name, ".weight"):
			fanIn := len(t.Data) / s.Shape[0]
			gain := 2.0
			if s.Name == "policy.fc.weight" || s.Name == "value.fc2.weight" || s.Name == "value.score.weight" {
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
