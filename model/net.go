package model

import (
	"fmt"
	"math"

	"github.com/yinsh-zero/yinsh/env"
)

// Net is a policy/value network with its optimiser state, as the rest of the toolkit sees it
// (self-play through an mcts.Evaluator adapter, the trainer, the CLI). Backends: model/gonum
// (gonum.New, gonum.Load) and model/torch.
//
// Shapes, for a batch of n positions (all row-major, float32 unless noted):
//
//	planes  [n, env.NumPlanes, 11, 11]  len n*env.ObservationSize; NCHW with H = column, W = row-1,
//	                                    exactly what (*env.State).Observation writes per position
//	mask    [n, env.NumActions] bool    len n*env.NumActions; (*env.State).LegalMask per position
//	policy  [n, env.NumActions]         policy logits
//	wdl     [n, 3]                      value logits [win, draw, loss] for the side to act
//
// Concurrency: Predict is safe for concurrent use by many goroutines, also while another goroutine
// runs TrainStep (a Predict sees the weights before or after a step, never a mix). TrainStep,
// SetOptimizer, Save and Checkpoint serialise among themselves.
type Net interface {
	// Config returns the architecture.
	Config() Config

	// Backend names the implementation ("gonum", "torch").
	Backend() string

	// Predict runs inference (batch norm with running statistics) on n positions. It writes the
	// policy logits into policy (len ≥ n*env.NumActions), with −Inf where mask is false, and the WDL
	// logits into wdl (len ≥ n*3). mask may be nil: no masking. Turn logits into probabilities with
	// Softmax.
	Predict(n int, planes []float32, mask []bool, policy, wdl []float32) error

	// TrainStep runs one optimiser step on the batch (batch norm in training mode) at the learning
	// rate LearningRate() and returns the loss before the update; Step() then grows by one.
	TrainStep(b *Batch) (Loss, error)

	// EvalLoss returns the loss of a batch in inference mode, changing nothing.
	EvalLoss(b *Batch) (Loss, error)

	// Step is the number of optimiser steps taken (saved in checkpoints; drives the schedule).
	Step() int64

	// LearningRate is the rate the next TrainStep uses: Optimizer().Schedule.At(Step()).
	LearningRate() float64

	// Optimizer returns the optimiser configuration.
	Optimizer() OptimizerConfig

	// SetOptimizer replaces the optimiser configuration. The optimiser state (momentum or Adam
	// moments) is kept when the kind is unchanged and reset to zero otherwise.
	SetOptimizer(OptimizerConfig) error

	// Checkpoint returns a deep copy of the parameters, batch-norm statistics, optimiser state and
	// metadata (Kind KindTraining), ready for WriteCheckpoint.
	Checkpoint() (*Checkpoint, error)

	// Save writes Checkpoint() to path atomically.
	Save(path string) error

	// Close releases backend resources (no-op for gonum).
	Close() error
}

// Batch is a training batch of N positions.
type Batch struct {
	N int
	// Planes [N, env.NumPlanes, 11, 11]: observations (see Net).
	Planes []float32
	// Mask [N, env.NumActions] or nil. When set, illegal actions are left out of the policy
	// softmax (their logits are −Inf), and Policy must be zero there.
	Mask []bool
	// Policy [N, env.NumActions]: target distributions (each row non-negative, summing to 1).
	Policy []float32
	// WDL [N, 3]: target distributions over [win, draw, loss] from the view of the side to act.
	WDL []float32
	// Score [N, NumScore] or nil: the score head's targets (Config.ScoreHead), distributions over
	// the final score difference from the view of the side to act (class d+3); a row of zeros (a
	// game that ended without a final score, or nil) adds nothing. Ignored without a score head.
	Score []float32
}

// Resize sets N and the lengths of every slice (Mask and Score included) for n positions, reusing
// their capacity. Contents are unspecified until filled.
func (b *Batch) Resize(n int) {
	b.N = n
	b.Planes = resize(b.Planes, n*env.ObservationSize)
	b.Mask = resize(b.Mask, n*env.NumActions)
	b.Policy = resize(b.Policy, n*env.NumActions)
	b.WDL = resize(b.WDL, n*NumWDL)
	b.Score = resize(b.Score, n*NumScore)
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Validate checks lengths and that targets are finite, non-negative and zero on illegal actions.
// Rows need not sum exactly to 1 (the losses use them as given).
func (b *Batch) Validate(numPlanes int) error {
	n := b.N
	if n < 1 {
		return fmt.Errorf("model: batch: N = %d, must be ≥ 1", n)
	}
	if len(b.Planes) != n*numPlanes*NumCells {
		return fmt.Errorf("model: batch: len(Planes) = %d, want N*%d = %d", len(b.Planes), numPlanes*NumCells, n*numPlanes*NumCells)
	}
	if b.Mask != nil && len(b.Mask) != n*env.NumActions {
		return fmt.Errorf("model: batch: len(Mask) = %d, want N*%d = %d", len(b.Mask), env.NumActions, n*env.NumActions)
	}
	if len(b.Policy) != n*env.NumActions {
		return fmt.Errorf("model: batch: len(Policy) = %d, want N*%d = %d", len(b.Policy), env.NumActions, n*env.NumActions)
	}
	if len(b.WDL) != n*NumWDL {
		return fmt.Errorf("model: batch: len(WDL) = %d, want N*3 = %d", len(b.WDL), n*NumWDL)
	}
	if b.Score != nil && len(b.Score) != n*NumScore {
		return fmt.Errorf("model: batch: len(Score) = %d, want N*%d = %d", len(b.Score), NumScore, n*NumScore)
	}
	for i, p := range b.Score {
		if !(p >= 0) || math.IsInf(float64(p), 1) {
			return fmt.Errorf("model: batch: Score[%d] = %g, must be finite and ≥ 0", i, p)
		}
	}
	for i, p := range b.Policy {
		if !(p >= 0) || math.IsInf(float64(p), 1) {
			return fmt.Errorf("model: batch: Policy[%d] = %g (row %d, action %d), must be finite and ≥ 0", i, p, i/env.NumActions, i%env.NumActions)
		}
		if p > 0 && b.Mask != nil && !b.Mask[i] {
			return fmt.Errorf("model: batch: Policy[%d] = %g puts mass on illegal action %d of row %d", i, p, i%env.NumActions, i/env.NumActions)
		}
	}
	for i, p := range b.WDL {
		if !(p >= 0) || math.IsInf(float64(p), 1) {
			return fmt.Errorf("model: batch: WDL[%d] = %g, must be finite and ≥ 0", i, p)
		}
	}
	return nil
}

// Loss is a batch loss, averaged over the batch (natural log).
type Loss struct {
	Policy float64 // cross-entropy of policy targets against softmax(masked logits)
	Value  float64 // cross-entropy of WDL targets against softmax(wdl logits)
	Score  float64 // cross-entropy of score targets (Config.ScoreHead; 0 without)
	L2     float64 // WeightDecay/2 · Σ w² over decayed tensors
	Total  float64 // Policy + ValueWeight·Value + ScoreWeight·Score + L2
}

func (l Loss) String() string {
	return fmt.Sprintf("loss %.5f (policy %.5f, value %.5f, l2 %.5f)", l.Total, l.Policy, l.Value, l.L2)
}

// CheckPredictArgs checks the lengths of Predict's arguments; backends call it.
func CheckPredictArgs(n, numPlanes int, planes []float32, mask []bool, policy, wdl []float32) error {
	switch {
	case n < 0:
		return fmt.Errorf("model: predict: n = %d", n)
	case len(planes) < n*numPlanes*NumCells:
		return fmt.Errorf("model: predict: len(planes) = %d, want ≥ n*%d = %d", len(planes), numPlanes*NumCells, n*numPlanes*NumCells)
	case mask != nil && len(mask) < n*env.NumActions:
		return fmt.Errorf("model: predict: len(mask) = %d, want ≥ n*%d = %d", len(mask), env.NumActions, n*env.NumActions)
	case len(policy) < n*env.NumActions:
		return fmt.Errorf("model: predict: len(policy) = %d, want ≥ n*%d = %d", len(policy), env.NumActions, n*env.NumActions)
	case len(wdl) < n*NumWDL:
		return fmt.Errorf("model: predict: len(wdl) = %d, want ≥ n*3 = %d", len(wdl), n*NumWDL)
	}
	return nil
}

// Softmax turns each row of logits (rows of length width) into probabilities in place. Entries at −Inf
// become 0; a row that is all −Inf (no legal action) becomes all zeros.
func Softmax(logits []float32, width int) {
	for r := 0; r+width <= len(logits); r += width {
		row := logits[r : r+width]
		mx := float32(math.Inf(-1))
		for _, v := range row {
			if v > mx {
				mx = v
			}
		}
		if math.IsInf(float64(mx), -1) {
			clear(row)
			continue
		}
		var sum float64
		for i, v := range row {
			e := float32(math.Exp(float64(v - mx)))
			row[i] = e
			sum += float64(e)
		}
		inv := float32(1 / sum)
		for i := range row {
			row[i] *= inv
		}
	}
}
