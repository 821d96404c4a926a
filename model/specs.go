package model

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/env"
)

// The tensors a checkpoint of a given architecture holds (see the table in checkpoint.go).

// ParamCount is the number of trainable parameters of a net of this architecture and kind
// (KindTraining or KindInference, whose folded convolutions have biases instead of batch norm).
func ParamCount(cfg Config, kind string) int64 {
	var n int64
	for _, s := range Specs(cfg, kind) {
		if s.Trainable {
			n += int64(numel(s.Shape))
		}
	}
	return n
}

// TensorSpec names a tensor and its shape.
type TensorSpec struct {
	Name  string
	Shape []int
	// Trainable is true for parameters (false for batch-norm running statistics).
	Trainable bool
}

// Specs lists the tensors of a net with the given kind (KindTraining without optimiser state, or
// KindInference), in a fixed order (the order of the forward pass).
func Specs(cfg Config, kind string) []TensorSpec {
	var s []TensorSpec
	add := func(name string, trainable bool, shape ...int) {
		s = append(s, TensorSpec{name, shape, trainable})
	}
	conv := func(prefix, conv, bn string, out, in, k int) {
		add(prefix+"."+conv+".weight", true, out, in, k, k)
		if kind == KindInference {
			add(prefix+"."+conv+".bias", true, out)
			return
		}
		add(prefix+"."+bn+".weight", true, out)
		add(prefix+"."+bn+".bias", true, out)
		add(prefix+"."+bn+".running_mean", false, out)
		add(prefix+"."+bn+".running_var", false, out)
	}
	c := cfg.Channels
	gpool := func(prefix string, out int) {
		if cfg.GlobalPool {
			add(prefix+".gpool.weight", true, out, 2*c)
		}
	}
	conv("stem", "conv", "bn", c, cfg.InputPlanes, 3)
	for i := 0; i < cfg.Blocks; i++ {
		p := "tower." + itoa(i)
		conv(p, "conv1", "bn1", c, c, 3)
		gpool(p, c)
		conv(p, "conv2", "bn2", c, c, 3)
	}
	conv("policy", "conv", "bn", cfg.PolicyChannels, c, 1)
	gpool("policy", cfg.PolicyChannels)
	add("policy.fc.weight", true, env.NumActions, cfg.PolicyChannels*NumCells)
	add("policy.fc.bias", true, env.NumActions)
	conv("value", "conv", "bn", cfg.ValueChannels, c, 1)
	gpool("value", cfg.ValueChannels)
	add("value.fc1.weight", true, cfg.ValueHidden, cfg.ValueChannels*NumCells)
	add("value.fc1.bias", true, cfg.ValueHidden)
	add("value.fc2.weight", true, NumWDL, cfg.ValueHidden)
	add("value.fc2.bias", true, NumWDL)
	if cfg.ScoreHead {
		add("value.score.weight", true, NumScore, cfg.ValueHidden)
		add("value.score.bias", true, NumScore)
	}
	return s
}

// OptimizerSpecs lists the optimiser state tensors for the given optimiser kind.
func OptimizerSpecs(cfg Config, kind string) []TensorSpec {
	var s []TensorSpec
	for _, p := range Specs(cfg, KindTraining) {
		if !p.Trainable {
			continue
		}
		for _, slot := range OptimizerSlots(kind) {
			s = append(s, TensorSpec{Name: "optim." + p.Name + "." + slot, Shape: p.Shape})
		}
	}
	return s
}

// ExpectedSpecs lists every tensor a checkpoint with this metadata must hold.
func (m *Metadata) ExpectedSpecs() []TensorSpec {
	s := Specs(m.Net, m.Kind)
	if m.Kind == KindTraining && m.Optimizer != nil {
		s = append(s, OptimizerSpecs(m.Net, m.Optimizer.Kind)...)
	}
	return s
}

func (c Config) describe() string {
	g := ""
	if c.GlobalPool {
		g = "/gpool"
	}
	if c.ScoreHead {
		g += "/score"
	}
	return fmt.Sprintf("%dx%d/p%d/v%dx%d%s", c.Blocks, c.Channels, c.PolicyChannels, c.ValueChannels, c.ValueHidden, g)
}
