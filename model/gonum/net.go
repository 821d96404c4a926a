// Package gonum is the pure-Go backend of the YINSH Zero network (default build, no cgo): inference and
// training on internal/sgemm, whose AVX-512 and AVX2+FMA micro-kernels are Go assembly chosen at
// run time from the CPU's features, with gonum's float32 BLAS (blas32) as the fallback on other CPUs and
// architectures or when YINSH_KERNEL=gonum (Kernel says which is in use). On the SIMD path 3×3
// convolutions are implicit GEMMs over zero-padded planes (implicit.go); on the fallback they are
// im2col + GEMM. Work is split over chunks of the batch between the goroutines of one pool
// (pool.go). Batch norm runs in training mode (batch statistics) during TrainStep and is folded into
// the convolutions for inference (Engine). It is the reference implementation for tests and what a
// Go game client links (through model/policy).
package gonum

import (
	"fmt"
	"sync"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// BackendName is this backend's name in checkpoint metadata and on the command line.
const BackendName = "gonum"

// param is a trainable tensor with its gradient and optimiser state.
type param struct {
	name    string
	t       *model.Tensor
	grad    []float32
	slots   [][]float32 // per model.OptimizerSlots(kind), allocated lazily
	decayed bool
}

// bnLayer is a batch norm with its parameters and the statistics of the last training forward pass.
type bnLayer struct {
	gamma, beta *param
	rm, rv      *model.Tensor
	mean, vari  []float64 // batch mean and biased variance per channel (last forward)
	invstd      []float32 // 1/√(vari + eps)
}

type convBN struct {
	w         *param
	bn        bnLayer
	cout, cin int
}

type fc struct {
	w, b    *param
	out, in int
}

// Net is the gonum implementation of model.Net. Create it with New, Load or FromCheckpoint.
type Net struct {
	cfg model.Config

	trainMu sync.Mutex   // serialises TrainStep, SetOptimizer, Checkpoint, Save
	mu      sync.RWMutex // guards the fields below against Predict's engine rebuild
	step    int64
	opt     model.OptimizerConfig
	eng     *Engine // folded snapshot of the current weights; nil when stale

	tensors map[string]*model.Tensor // every checkpoint tensor (parameters and running statistics)
	params  []*param                 // trainable tensors in model.Specs order

	stem           convBN
	tower          [][2]convBN
	towerPool      []*param // per block: tower.<i>.gpool.weight [C][2C] (nil without GlobalPool)
	polPool        *param   // policy.gpool.weight [P][2C] (nil without GlobalPool)
	valPool        *param   // value.gpool.weight [V][2C] (nil without GlobalPool)
	polConv        convBN
	polFC          fc
	valConv        convBN
	valFC1, valFC2 fc
	valScore       fc // value.score (Config.ScoreHead; zero value without)

	ws *trainWS // training workspace, reused between steps of the same batch size
}

var _ model.Net = (*Net)(nil)

// New returns a freshly initialised net (model.InitCheckpoint: the same weights in every backend for
// a seed) with the default optimiser (model.DefaultSGD).
func New(cfg model.Config, seed uint64) (*Net, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return FromCheckpoint(model.InitCheckpoint(cfg, seed, BackendName))
}

// Load reads a training checkpoint written by any backend (see model.ReadCheckpoint).
func Load(path string) (*Net, error) {
	ck, err := model.ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	n, err := FromCheckpoint(ck)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return n, nil
}

// FromCheckpoint builds a net from a training checkpoint (copying its tensors). Without optimiser
// metadata the net gets model.DefaultSGD with zero state.
func FromCheckpoint(ck *model.Checkpoint) (*Net, error) {
	if err := ck.Validate(); err != nil {
		return nil, err
	}
	if ck.Meta.Kind != model.KindTraining {
		return nil, fmt.Errorf("model: a %s file cannot be trained (batch norm is folded); use a training checkpoint", ck.Meta.Kind)
	}
	cfg := ck.Meta.Net
	n := &Net{cfg: cfg, step: ck.Meta.Step, opt: model.DefaultSGD(), tensors: map[string]*model.Tensor{}}
	if ck.Meta.Optimizer != nil {
		n.opt = *ck.Meta.Optimizer
	}
	byName := map[string]*param{}
	for _, s := range model.Specs(cfg, model.KindTraining) {
		t := ck.Tensors[s.Name].Clone()
		n.tensors[s.Name] = t
		if s.Trainable {
			p := &param{name: s.Name, t: t, grad: make([]float32, len(t.Data)), decayed: model.IsDecayed(s.Name)}
			if ck.Meta.Optimizer != nil {
				for _, slot := range model.OptimizerSlots(n.opt.Kind) {
					p.slots = append(p.slots, append([]float32(nil), ck.Tensors["optim."+s.Name+"."+slot].Data...))
				}
			}
			n.params = append(n.params, p)
			byName[s.Name] = p
		}
	}
	conv := func(prefix, conv, bn string, cout, cin int) convBN {
		return convBN{
			w: byName[prefix+"."+conv+".weight"],
			bn: bnLayer{
				gamma: byName[prefix+"."+bn+".weight"], beta: byName[prefix+"."+bn+".bias"],
				rm: n.tensors[prefix+"."+bn+".running_mean"], rv: n.tensors[prefix+"."+bn+".running_var"],
			},
			cout: cout, cin: cin,
		}
	}
	lin := func(prefix string, out, in int) fc {
		return fc{w: byName[prefix+".weight"], b: byName[prefix+".bias"], out: out, in: in}
	}
	C := cfg.Channels
	n.stem = conv("stem", "conv", "bn", C, cfg.InputPlanes)
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d", i)
		n.tower = append(n.tower, [2]convBN{conv(p, "conv1", "bn1", C, C), conv(p, "conv2", "bn2", C, C)})
		n.towerPool = append(n.towerPool, byName[p+".gpool.weight"])
	}
	n.polPool, n.valPool = byName["policy.gpool.weight"], byName["value.gpool.weight"]
	n.polConv = conv("policy", "conv", "bn", cfg.PolicyChannels, C)
	n.polFC = lin("policy.fc", env.NumActions, cfg.PolicyChannels*cells)
	n.valConv = conv("value", "conv", "bn", cfg.ValueChannels, C)
	n.valFC1 = lin("value.fc1", cfg.ValueHidden, cfg.ValueChannels*cells)
	n.valFC2 = lin("value.fc2", model.NumWDL, cfg.ValueHidden)
	if cfg.ScoreHead {
		n.valScore = lin("value.score", model.NumScore, cfg.ValueHidden)
	}
	return n, nil
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

func isBN(name string) bool { return !model.IsDecayed(name) && hasSuffix(name, ".weight") }

// Config returns the architecture.
func (n *Net) Config() model.Config { return n.cfg }

// Backend returns "gonum".
func (n *Net) Backend() string { return BackendName }

// Step returns the number of optimiser steps taken.
func (n *Net) Step() int64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.step
}

// Optimizer returns the optimiser configuration.
func (n *Net) Optimizer() model.OptimizerConfig {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.opt
}

// LearningRate returns the rate of the next step.
func (n *Net) LearningRate() float64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.opt.Schedule.At(n.step)
}

// SetOptimizer replaces the optimiser configuration; state is kept if the kind is unchanged.
func (n *Net) SetOptimizer(o model.OptimizerConfig) error {
	if err := o.Validate(); err != nil {
		return err
	}
	n.trainMu.Lock()
	defer n.trainMu.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	if o.Kind != n.opt.Kind {
		for _, p := range n.params {
			p.slots = nil
		}
	}
	n.opt = o
	return nil
}

// Close does nothing (no resources outside the Go heap).
func (n *Net) Close() error { return nil }

// Engine returns an inference engine for the current weights (cached until the next TrainStep).
func (n *Net) Engine() (*Engine, error) {
	n.mu.RLock()
	e := n.eng
	n.mu.RUnlock()
	if e != nil {
		return e, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.eng == nil {
		ck := &model.Checkpoint{
			Meta:    model.NewMetadata(model.KindTraining, n.cfg, n.step, nil, BackendName),
			Tensors: n.tensors,
		}
		e, err := NewEngine(ck)
		if err != nil {
			return nil, err
		}
		n.eng = e
	}
	return n.eng, nil
}

// Predict runs inference with folded batch norm; safe for concurrent use (see model.Net).
func (n *Net) Predict(num int, planes []float32, mask []bool, policy, wdl []float32) error {
	e, err := n.Engine()
	if err != nil {
		return err
	}
	return e.Predict(num, planes, mask, policy, wdl)
}

// Checkpoint returns a deep copy of the weights, statistics and optimiser state.
func (n *Net) Checkpoint() (*model.Checkpoint, error) {
	n.trainMu.Lock()
	defer n.trainMu.Unlock()
	n.mu.RLock()
	opt := n.opt
	ck := &model.Checkpoint{
		Meta:    model.NewMetadata(model.KindTraining, n.cfg, n.step, &opt, BackendName),
		Tensors: make(map[string]*model.Tensor, 2*len(n.tensors)),
	}
	n.mu.RUnlock()
	for name, t := range n.tensors {
		ck.Tensors[name] = t.Clone()
	}
	for _, p := range n.params {
		for i, slot := range model.OptimizerSlots(opt.Kind) {
			t := model.NewTensor(p.t.Shape...)
			if p.slots != nil {
				copy(t.Data, p.slots[i])
			}
			ck.Tensors["optim."+p.name+"."+slot] = t
		}
	}
	return ck, nil
}

// Save writes the checkpoint to path atomically.
func (n *Net) Save(path string) error {
	ck, err := n.Checkpoint()
	if err != nil {
		return err
	}
	return model.WriteCheckpoint(path, ck)
}
