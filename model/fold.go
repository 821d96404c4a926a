package model

import (
	"fmt"
	"math"
	"strings"
)

// Fold returns the inference form of a checkpoint: every conv → batch-norm pair becomes one conv with
// a bias (computed in float64, rounded once to float32):
//
//	s[o]      = γ[o] / √(running_var[o] + BNEps)
//	weight'   = weight[o, …] · s[o]
//	bias'[o]  = β[o] − running_mean[o] · s[o]
//
// Fully connected tensors are copied; optimiser state is dropped. An inference checkpoint is returned
// as a copy. The result has Kind KindInference and passes Validate.
func Fold(c *Checkpoint) (*Checkpoint, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("model: fold: %w", err)
	}
	if c.Meta.Kind == KindInference {
		return c.Clone(), nil
	}
	out := &Checkpoint{
		Meta:    NewMetadata(KindInference, c.Meta.Net, c.Meta.Step, nil, c.Meta.Backend),
		Tensors: map[string]*Tensor{},
	}
	out.Meta.Variant = c.Meta.Variant
	if c.Meta.Run != nil {
		r := *c.Meta.Run
		out.Meta.Run = &r
	}
	fold := func(prefix, conv, bn string) {
		w := c.Tensors[prefix+"."+conv+".weight"]
		g := c.Tensors[prefix+"."+bn+".weight"].Data
		b := c.Tensors[prefix+"."+bn+".bias"].Data
		rm := c.Tensors[prefix+"."+bn+".running_mean"].Data
		rv := c.Tensors[prefix+"."+bn+".running_var"].Data
		fw := NewTensor(w.Shape...)
		fb := NewTensor(w.Shape[0])
		per := len(w.Data) / w.Shape[0]
		for o := 0; o < w.Shape[0]; o++ {
			s := float64(g[o]) / math.Sqrt(float64(rv[o])+BNEps)
			for i := o * per; i < (o+1)*per; i++ {
				fw.Data[i] = float32(float64(w.Data[i]) * s)
			}
			fb.Data[o] = float32(float64(b[o]) - float64(rm[o])*s)
		}
		out.Tensors[prefix+"."+conv+".weight"] = fw
		out.Tensors[prefix+"."+conv+".bias"] = fb
	}
	fold("stem", "conv", "bn")
	for i := 0; i < c.Meta.Net.Blocks; i++ {
		fold("tower."+itoa(i), "conv1", "bn1")
		fold("tower."+itoa(i), "conv2", "bn2")
	}
	fold("policy", "conv", "bn")
	fold("value", "conv", "bn")
	for _, n := range []string{"policy.fc.weight", "policy.fc.bias", "value.fc1.weight", "value.fc1.bias", "value.fc2.weight", "value.fc2.bias"} {
		out.Tensors[n] = c.Tensors[n].Clone()
	}
	for n, t := range c.Tensors { // global pooling weights act after the ReLUs: nothing to fold
		if strings.HasSuffix(n, ".gpool.weight") || strings.HasPrefix(n, "value.score.") {
			out.Tensors[n] = t.Clone()
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("model: fold: %w", err)
	}
	return out, nil
}
