// Package policy lets a game client run a trained YINSH Zero network in pure Go (no cgo): load the
// safetensors file written by `yinsh export --format safetensors` (or a training checkpoint) and ask
// for action probabilities and win/draw/loss of an env.State.
//
//	p, err := policy.Load("net.safetensors")
//	ev, err := p.Evaluate(state)
//	best := ev.Best()                  // most probable legal action
//	win := ev.WDL[0]                   // for state.CurrentPlayer()
//
// A Policy is safe for concurrent use.
package policy

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// Policy is a loaded network.
type Policy struct {
	eng  *gonum.Engine
	meta model.Metadata
}

// Evaluation is the network's view of one position.
type Evaluation struct {
	// Probs[a] is the probability of action a (env.NumActions entries); 0 for illegal actions.
	Probs []float32
	// WDL is [win, draw, loss] for the side to act, summing to 1.
	WDL [3]float32
}

// Best returns the legal action with the highest probability, or -1 when there is none.
func (e Evaluation) Best() env.Action {
	best := env.Action(-1)
	var bp float32
	for a, p := range e.Probs {
		if p > bp {
			best, bp = env.Action(a), p
		}
	}
	return best
}

// Value returns win − loss for the side to act, in [−1, 1].
func (e Evaluation) Value() float32 { return e.WDL[0] - e.WDL[2] }

// Load reads an inference export or a training checkpoint (checked as model.ReadCheckpoint does:
// format, checksum, encoding version, tensor names and shapes).
func Load(path string) (*Policy, error) {
	ck, err := model.ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	return New(ck)
}

// New builds a policy from a checkpoint in memory.
func New(ck *model.Checkpoint) (*Policy, error) {
	e, err := gonum.NewEngine(ck)
	if err != nil {
		return nil, err
	}
	return &Policy{eng: e, meta: ck.Meta}, nil
}

// Metadata returns the file's metadata (architecture, training step, encoding version).
func (p *Policy) Metadata() model.Metadata { return p.meta }

// Evaluate returns the action probabilities and WDL of one state. A terminal state has no legal
// action: its probabilities are all zero.
func (p *Policy) Evaluate(s *env.State) (Evaluation, error) {
	ev, err := p.EvaluateBatch([]*env.State{s})
	if err != nil {
		return Evaluation{}, err
	}
	return ev[0], nil
}

// EvaluateBatch evaluates several states in one batched forward pass.
func (p *Policy) EvaluateBatch(states []*env.State) ([]Evaluation, error) {
	n := len(states)
	planes := make([]float32, n*env.ObservationSize)
	mask := make([]bool, n*env.NumActions)
	probs := make([]float32, n*env.NumActions)
	wdl := make([]float32, n*model.NumWDL)
	for i, s := range states {
		if s == nil {
			return nil, fmt.Errorf("policy: state %d is nil", i)
		}
		s.Observation(planes[i*env.ObservationSize : (i+1)*env.ObservationSize])
		s.LegalMask(mask[i*env.NumActions : (i+1)*env.NumActions])
	}
	if err := p.eng.Predict(n, planes, mask, probs, wdl); err != nil {
		return nil, err
	}
	model.Softmax(probs, env.NumActions)
	model.Softmax(wdl, model.NumWDL)
	out := make([]Evaluation, n)
	for i := range out {
		out[i].Probs = probs[i*env.NumActions : (i+1)*env.NumActions : (i+1)*env.NumActions]
		copy(out[i].WDL[:], wdl[i*3:i*3+3])
	}
	return out, nil
}
