package model

import (
	"fmt"
	"math"
)

// Schedule kinds.
const (
	ScheduleConstant = "constant"
	ScheduleStep     = "step"
	ScheduleCosine   = "cosine"
)

// ScheduleConfig is a learning-rate schedule as a function of the training step (the number of
// optimiser steps already taken, starting at 0). Every kind first warms up linearly from 0 to LR over
// WarmupSteps steps (0 = no warm-up).
//
//	constant  lr(t) = LR
//	step      lr(t) = LR · Gamma^⌊t / StepSize⌋
//	cosine    lr(t) = MinLR + (LR − MinLR) · (1 + cos(π · min(t, TotalSteps) / TotalSteps)) / 2
type ScheduleConfig struct {
	// Kind is "constant", "step" or "cosine".
	Kind string `yaml:"kind" json:"kind"`
	// LR is the base learning rate, in (0, 10].
	LR float64 `yaml:"lr" json:"lr"`
	// WarmupSteps is the length of the linear warm-up, ≥ 0.
	WarmupSteps int64 `yaml:"warmup_steps" json:"warmup_steps,omitempty"`
	// StepSize is the number of steps between decays (kind step), ≥ 1.
	StepSize int64 `yaml:"step_size" json:"step_size,omitempty"`
	// Gamma is the decay factor per StepSize steps (kind step), in (0, 1].
	Gamma float64 `yaml:"gamma" json:"gamma,omitempty"`
	// TotalSteps is the length of the cosine decay (kind cosine), ≥ 1; the rate stays at MinLR after it.
	TotalSteps int64 `yaml:"total_steps" json:"total_steps,omitempty"`
	// MinLR is the final rate of the cosine decay, in [0, LR].
	MinLR float64 `yaml:"min_lr" json:"min_lr,omitempty"`
}

// Validate checks the schedule; errors name the field.
func (s ScheduleConfig) Validate() error {
	if !(s.LR > 0 && s.LR <= 10) {
		return fmt.Errorf("model: schedule: lr = %g, must be in (0, 10]", s.LR)
	}
	if s.WarmupSteps < 0 {
		return fmt.Errorf("model: schedule: warmup_steps = %d, must be ≥ 0", s.WarmupSteps)
	}
	switch s.Kind {
	case ScheduleConstant:
	case ScheduleStep:
		if s.StepSize < 1 {
			return fmt.Errorf("model: schedule: step_size = %d, must be ≥ 1", s.StepSize)
		}
		if !(s.Gamma > 0 && s.Gamma <= 1) {
			return fmt.Errorf("model: schedule: gamma = %g, must be in (0, 1]", s.Gamma)
		}
	case ScheduleCosine:
		if s.TotalSteps < 1 {
			return fmt.Errorf("model: schedule: total_steps = %d, must be ≥ 1", s.TotalSteps)
		}
		if !(s.MinLR >= 0 && s.MinLR <= s.LR) {
			return fmt.Errorf("model: schedule: min_lr = %g, must be in [0, lr=%g]", s.MinLR, s.LR)
		}
	default:
		return fmt.Errorf("model: schedule: kind = %q, must be constant, step or cosine", s.Kind)
	}
	return nil
}

// At returns the learning rate for training step t (t ≥ 0). The config must be valid.
func (s ScheduleConfig) At(t int64) float64 {
	if t < 0 {
		t = 0
	}
	var lr float64
	switch s.Kind {
	case ScheduleStep:
		lr = s.LR * math.Pow(s.Gamma, float64(t/s.StepSize))
	case ScheduleCosine:
		x := float64(min(t, s.TotalSteps)) / float64(s.TotalSteps)
		lr = s.MinLR + (s.LR-s.MinLR)*(1+math.Cos(math.Pi*x))/2
	default:
		lr = s.LR
	}
	if s.WarmupSteps > 0 && t < s.WarmupSteps {
		lr *= float64(t+1) / float64(s.WarmupSteps+1)
	}
	return lr
}
