package model

import (
	"fmt"
	"strings"
)

// Optimiser kinds.
const (
	OptimizerSGD   = "sgd"   // SGD with (Nesterov) momentum, L2 weight decay in the gradient
	OptimizerAdamW = "adamw" // Adam with decoupled weight decay
)

// OptimizerConfig selects the optimiser, its hyper-parameters, the loss weights and the learning-rate
// schedule. Both backends implement exactly these update rules (PyTorch's SGD and AdamW):
//
//	loss   = policy CE + ValueWeight · WDL CE + ScoreWeight · score CE + L2,
//	         L2 = WeightDecay/2 · Σ w²  (decayed tensors only; score CE only with Config.ScoreHead)
//	sgd    g ← ∇(policy + ValueWeight·value + ScoreWeight·score) + WeightDecay·w   (decayed tensors)
//	       b ← Momentum·b + g;  w ← w − lr·(g + Momentum·b) if Nesterov else w − lr·b
//	adamw  w ← w − lr·WeightDecay·w (decayed tensors);  m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
//	       w ← w − lr · (m / (1−β1^t)) / (√(v / (1−β2^t)) + Eps)        (t = step + 1)
//
// Decayed tensors are convolution and fully connected weights (names ending in ".weight" that are
// not batch norm); batch-norm parameters and biases are not decayed. Loss.L2 is reported for both
// optimisers, but only SGD adds its gradient (AdamW decays the weights directly).
type OptimizerConfig struct {
	// Kind is "sgd" or "adamw".
	Kind string `yaml:"kind" json:"kind"`
	// Momentum is the SGD momentum, in [0, 1).
	Momentum float64 `yaml:"momentum" json:"momentum,omitempty"`
	// Nesterov selects Nesterov momentum for SGD.
	Nesterov bool `yaml:"nesterov" json:"nesterov,omitempty"`
	// Beta1 and Beta2 are Adam's moment decay rates, in [0, 1).
	Beta1 float64 `yaml:"beta1" json:"beta1,omitempty"`
	Beta2 float64 `yaml:"beta2" json:"beta2,omitempty"`
	// Eps is Adam's denominator term, in (0, 1].
	Eps float64 `yaml:"eps" json:"eps,omitempty"`
	// WeightDecay is the L2 coefficient (SGD) or decoupled decay (AdamW), in [0, 1].
	WeightDecay float64 `yaml:"weight_decay" json:"weight_decay"`
	// ValueWeight scales the WDL cross-entropy in the loss, in (0, 100].
	ValueWeight float64 `yaml:"value_weight" json:"value_weight"`
	// ScoreWeight scales the score head's cross-entropy (Config.ScoreHead), in [0, 100]; 0 with a
	// score head means DefaultScoreWeight.
	ScoreWeight float64 `yaml:"score_weight,omitempty" json:"score_weight,omitempty"`
	// Schedule is the learning-rate schedule.
	Schedule ScheduleConfig `yaml:"schedule" json:"schedule"`
}

// DefaultScoreWeight is the score loss weight when OptimizerConfig.ScoreWeight is 0 (KataGo weighs
// its score-distribution loss well below the value loss).
const DefaultScoreWeight = 0.5

// ScoreWeightOrDefault is ScoreWeight, or DefaultScoreWeight when it is 0.
func (o OptimizerConfig) ScoreWeightOrDefault() float64 {
	if o.ScoreWeight == 0 {
		return DefaultScoreWeight
	}
	return o.ScoreWeight
}

// DefaultSGD is SGD with Nesterov momentum 0.9, weight decay 1e-4 and a constant rate of 0.02.
func DefaultSGD() OptimizerConfig {
	return OptimizerConfig{
		Kind: OptimizerSGD, Momentum: 0.9, Nesterov: true, WeightDecay: 1e-4, ValueWeight: 1,
		Schedule: ScheduleConfig{Kind: ScheduleConstant, LR: 0.02},
	}
}

// DefaultAdamW is AdamW with β = (0.9, 0.999), eps 1e-8, weight decay 1e-4 and a constant rate of 1e-3.
func DefaultAdamW() OptimizerConfig {
	return OptimizerConfig{
		Kind: OptimizerAdamW, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 1e-4, ValueWeight: 1,
		Schedule: ScheduleConfig{Kind: ScheduleConstant, LR: 1e-3},
	}
}

// Validate checks the optimiser configuration; errors name the field.
func (o OptimizerConfig) Validate() error {
	switch o.Kind {
	case OptimizerSGD:
		if !(o.Momentum >= 0 && o.Momentum < 1) {
			return fmt.Errorf("model: optimizer: momentum = %g, must be in [0, 1)", o.Momentum)
		}
	case OptimizerAdamW:
		if !(o.Beta1 >= 0 && o.Beta1 < 1) {
			return fmt.Errorf("model: optimizer: beta1 = %g, must be in [0, 1)", o.Beta1)
		}
		if !(o.Beta2 >= 0 && o.Beta2 < 1) {
			return fmt.Errorf("model: optimizer: beta2 = %g, must be in [0, 1)", o.Beta2)
		}
		if !(o.Eps > 0 && o.Eps <= 1) {
			return fmt.Errorf("model: optimizer: eps = %g, must be in (0, 1]", o.Eps)
		}
	default:
		return fmt.Errorf("model: optimizer: kind = %q, must be sgd or adamw", o.Kind)
	}
	if !(o.WeightDecay >= 0 && o.WeightDecay <= 1) {
		return fmt.Errorf("model: optimizer: weight_decay = %g, must be in [0, 1]", o.WeightDecay)
	}
	if !(o.ValueWeight > 0 && o.ValueWeight <= 100) {
		return fmt.Errorf("model: optimizer: value_weight = %g, must be in (0, 100]", o.ValueWeight)
	}
	if !(o.ScoreWeight >= 0 && o.ScoreWeight <= 100) {
		return fmt.Errorf("model: optimizer: score_weight = %g, must be in [0, 100]", o.ScoreWeight)
	}
	return o.Schedule.Validate()
}

// OptimizerSlots returns the names of the per-parameter state tensors of an optimiser kind:
// "momentum" for SGD, "exp_avg" and "exp_avg_sq" for AdamW. In checkpoints they are stored as
// "optim.<parameter name>.<slot>" with the parameter's shape.
func OptimizerSlots(kind string) []string {
	switch kind {
	case OptimizerSGD:
		return []string{"momentum"}
	case OptimizerAdamW:
		return []string{"exp_avg", "exp_avg_sq"}
	}
	return nil
}

// IsDecayed reports whether weight decay applies to the named parameter tensor: convolution and
// fully connected weights, not batch-norm parameters or biases.
func IsDecayed(name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) < 2 || parts[len(parts)-1] != "weight" {
		return false
	}
	return !strings.HasPrefix(parts[len(parts)-2], "bn")
}
