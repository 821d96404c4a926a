//go:build torch

package torch

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

const (
	bnEps      = model.BNEps
	bnMomentum = model.BNMomentum
	// BackendName is what Net.Backend returns and checkpoints record.
	BackendName = "torch"
)

// Options selects where and how a Net runs.
type Options struct {
	// Device is "cpu" (default), "cuda" or "cuda:N".
	Device string
	// Threads is libtorch's intra-op thread count (at::set_num_threads); 0 leaves it as it is
	// (libtorch's default: one per core). Nets on the same device share their worker threads
	// (worker.go), so give them the same count. On a machine shared with other busy processes fewer
	// threads than cores are much faster: every parallel region waits for its slowest thread.
	Threads int
	// MixedPrecision runs convolutions and fully connected layers in bfloat16 (float32 master weights,
	// batch norm, losses and optimiser state), for CUDA devices with bf16 tensor cores. bfloat16 has
	// float32's range, so no loss scaling is needed. On the CPU it works but is slow (tests only).
	MixedPrecision bool
}

// param is one checkpoint tensor held on the device.
type param struct {
	spec  model.TensorSpec
	t     *ts.Tensor   // float32; a leaf that requires grad when spec.Trainable
	slots []*ts.Tensor // optimiser state (model.OptimizerSlots order), trainable tensors only
}

// Net is a model.Net on libtorch. See model.Net for the concurrency contract: Predict runs on a
// batch-norm-folded copy of the weights (rebuilt lazily after a training step), so inference never
// waits for a forward/backward pass, only for the short in-place optimiser update.
type Net struct {
	cfg          model.Config
	dev          gotch.Device
	opts         Options
	infer, train *worker // the OS threads that run this net's libtorch work (worker.go)

	mu     sync.Mutex                            // serialises TrainStep, EvalLoss, SetOptimizer, Checkpoint, Save, Close
	opt    atomic.Pointer[model.OptimizerConfig] // replaced (never mutated) under mu
	step   atomic.Int64
	params []*param
	byName map[string]*param
	closed atomic.Bool

	infMu sync.RWMutex          // writers: optimiser update, fold, Close; readers: Predict
	inf   map[string]*ts.Tensor // folded inference weights (model.KindInference names); nil = stale
}

var _ model.Net = (*Net)(nil)

// New returns a freshly initialised net with the default optimiser (model.DefaultSGD). The weights
// are drawn in Go exactly as gonum.New draws them: the same seed gives the same net in both backends
// and on every device.
func New(cfg model.Config, seed uint64, o Options) (*Net, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newNet(initCheckpoint(cfg, seed), model.DefaultSGD(), o)
}

// Load reads a training checkpoint written by either backend onto the device in o.
func Load(path string, o Options) (*Net, error) {
	c, err := model.ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	n, err := FromCheckpoint(c, o)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return n, nil
}

// FromCheckpoint builds a net from a training checkpoint: parameters, batch-norm statistics,
// optimiser state and step. Without optimiser metadata the net gets model.DefaultSGD with zero state.
// An inference file (batch norm folded) cannot be trained and is refused, as in model/gonum.
func FromCheckpoint(c *model.Checkpoint, o Options) (*Net, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Meta.Kind != model.KindTraining {
		return nil, fmt.Errorf("model: a %s file cannot be trained (batch norm is folded); use a training checkpoint", c.Meta.Kind)
	}
	opt := model.DefaultSGD()
	if c.Meta.Optimizer != nil {
		opt = *c.Meta.Optimizer
	}
	return newNet(c, opt, o)
}

func newNet(c *model.Checkpoint, opt model.OptimizerConfig, o Options) (*Net, error) {
	dev, err := ParseDevice(o.Device)
	if err != nil {
		return nil, err
	}
	n := &Net{cfg: c.Meta.Net, dev: dev, opts: o, byName: map[string]*param{},
		infer: workerFor(dev, roleInfer), train: workerFor(dev, roleTrain)}
	n.opt.Store(&opt)
	n.step.Store(c.Meta.Step)
	if err := n.onTrain(false, func() error { return n.upload(c, opt) }); err != nil {
		n.free()
		return nil, err
	}
	slog.Debug("torch net ready", "net", n.cfg.Name, "device", deviceString(dev), "threads", o.Threads,
		"mixed_precision", o.MixedPrecision, "step", n.step.Load())
	return n, nil
}

// upload copies the checkpoint's tensors to the device (optimiser state when the file has it for
// this optimiser kind, zeros otherwise).
func (n *Net) upload(c *model.Checkpoint, opt model.OptimizerConfig) error {
	withState := c.Meta.Optimizer != nil && c.Meta.Optimizer.Kind == opt.Kind
	for _, spec := range model.Specs(n.cfg, model.KindTraining) {
		p := &param{spec: spec}
		n.params = append(n.params, p)
		n.byName[spec.Name] = p
		src := c.Tensors[spec.Name]
		var err error
		if p.t, err = newF32(src.Data, shape64(spec.Shape), n.dev); err != nil {
			return err
		}
		if !spec.Trainable {
			continue
		}
		if err := p.t.RequiresGrad_(true); err != nil {
			return fmt.Errorf("torch: requires_grad %s: %w", spec.Name, err)
		}
		for _, slot := range model.OptimizerSlots(opt.Kind) {
			var data []float32
			if st, ok := c.Tensors["optim."+spec.Name+"."+slot]; ok && withState {
				data = st.Data
			} else {
				data = make([]float32, len(src.Data))
			}
			t, err := newF32(data, shape64(spec.Shape), n.dev)
			if err != nil {
				return err
			}
			p.slots = append(p.slots, t)
		}
	}
	return nil
}

func shape64(s []int) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = int64(d)
	}
	return out
}

// Config returns the architecture.
func (n *Net) Config() model.Config { return n.cfg }

// Backend returns "torch".
func (n *Net) Backend() string { return BackendName }

// Device returns the device the net runs on ("cpu", "cuda:0", …).
func (n *Net) Device() string { return deviceString(n.dev) }

// Step returns the number of optimiser steps taken.
func (n *Net) Step() int64 { return n.step.Load() }

// LearningRate is the rate the next TrainStep uses.
func (n *Net) LearningRate() float64 { return n.opt.Load().Schedule.At(n.step.Load()) }

// Optimizer returns the optimiser configuration.
func (n *Net) Optimizer() model.OptimizerConfig { return *n.opt.Load() }

var errClosed = errors.New("torch: net is closed")

// SetOptimizer replaces the optimiser configuration; the state is kept when the kind is unchanged
// and reset to zero otherwise.
func (n *Net) SetOptimizer(o model.OptimizerConfig) error {
	if err := o.Validate(); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return errClosed
	}
	if o.Kind != n.opt.Load().Kind {
		n.infMu.Lock()
		defer n.infMu.Unlock()
		if err := n.onTrain(false, func() error { return n.resetSlots(o.Kind) }); err != nil {
			return err
		}
	}
	n.opt.Store(&o)
	return nil
}

// resetSlots replaces the optimiser state by zeros for an optimiser kind.
func (n *Net) resetSlots(kind string) error {
	for _, p := range n.params {
		if !p.spec.Trainable {
			continue
		}
		var slots []*ts.Tensor
		for range model.OptimizerSlots(kind) {
			t, err := ts.Zeros(shape64(p.spec.Shape), gotch.Float, n.dev)
			if err != nil {
				for _, s := range slots {
					dropTensor(s)
				}
				return fmt.Errorf("torch: optimiser state: %w", err)
			}
			slots = append(slots, t)
		}
		for _, s := range p.slots {
			dropTensor(s)
		}
		p.slots = slots
	}
	return nil
}

// onInfer and onTrain run f on the net's inference or training worker (see worker.go) with grad
// mode off or on and the net's thread count.
func (n *Net) onInfer(f func() error) error { return n.infer.run(false, n.opts.Threads, f) }

func (n *Net) onTrain(grad bool, f func() error) error { return n.train.run(grad, n.opts.Threads, f) }

// Predict runs inference on count positions; see model.Net.
func (n *Net) Predict(count int, planes []float32, mask []bool, policy, wdl []float32) error {
	if err := model.CheckPredictArgs(count, n.cfg.InputPlanes, planes, mask, policy, wdl); err != nil {
		return err
	}
	if count == 0 {
		return nil
	}
	err := n.onInfer(func() error {
		w, release, err := n.inference()
		if err != nil {
			return err
		}
		defer release()
		s := &scope{}
		defer s.drop()
		x := s.uploadF32(planes[:count*n.cfg.InputPlanes*model.NumCells],
			[]int64{int64(count), int64(n.cfg.InputPlanes), model.BoardSize, model.BoardSize}, n.dev)
		logits, value, _ := n.forwardInference(s, w, x, false)
		s.download(logits, policy[:count*env.NumActions])
		s.download(value, wdl[:count*model.NumWDL])
		return s.err
	})
	if err != nil {
		return err
	}
	if mask != nil {
		ninf := float32(math.Inf(-1))
		for i, ok := range mask[:count*env.NumActions] {
			if !ok {
				policy[i] = ninf
			}
		}
	}
	return nil
}

// inference returns the folded weights, folding first if a training step made them stale, and
// holds the read lock until release.
func (n *Net) inference() (map[string]*ts.Tensor, func(), error) {
	n.infMu.RLock()
	for n.inf == nil {
		n.infMu.RUnlock()
		if n.closed.Load() {
			return nil, nil, errClosed
		}
		n.infMu.Lock()
		var err error
		if n.inf == nil && !n.closed.Load() {
			n.inf, err = n.fold()
		}
		n.infMu.Unlock()
		if err != nil {
			return nil, nil, err
		}
		n.infMu.RLock()
	}
	return n.inf, n.infMu.RUnlock, nil
}

// fold computes the inference weights (model.Fold on the device): each conv → batch norm pair
// becomes a conv with bias. Callers hold infMu for writing and have grad mode off.
func (n *Net) fold() (map[string]*ts.Tensor, error) {
	s := &scope{}
	defer s.drop()
	out := map[string]*ts.Tensor{}
	keep := func(name string, t *ts.Tensor) {
		if s.err == nil {
			if n.opts.MixedPrecision {
				t = s.toBF16(t)
			}
			out[name] = s.disown(t)
		}
	}
	pair := func(prefix, conv, bn string) {
		w := n.byName[prefix+"."+conv+".weight"].t
		g := n.byName[prefix+"."+bn+".weight"].t
		b := n.byName[prefix+"."+bn+".bias"].t
		rm := n.byName[prefix+"."+bn+".running_mean"].t
		rv := n.byName[prefix+"."+bn+".running_var"].t
		eps := s.scalar(bnEps)
		std := s.do("fold", func() (*ts.Tensor, error) { return rv.AddScalar(eps, false) })
		s.inplace("fold", func() error { return std.Sqrt_() })
		scale := s.do("fold", func() (*ts.Tensor, error) { return g.Div(std, false) })
		scale4 := s.do("fold", func() (*ts.Tensor, error) { return scale.View([]int64{-1, 1, 1, 1}, false) })
		fw := s.do("fold", func() (*ts.Tensor, error) { return w.Mul(scale4, false) })
		ms := s.do("fold", func() (*ts.Tensor, error) { return rm.Mul(scale, false) })
		fb := s.do("fold", func() (*ts.Tensor, error) { return b.Sub(ms, false) })
		keep(prefix+"."+conv+".weight", fw)
		keep(prefix+"."+conv+".bias", fb)
	}
	pair("stem", "conv", "bn")
	for i := 0; i < n.cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d", i)
		pair(p, "conv1", "bn1")
		pair(p, "conv2", "bn2")
	}
	pair("policy", "conv", "bn")
	pair("value", "conv", "bn")
	names := []string{"policy.fc.weight", "policy.fc.bias", "value.fc1.weight", "value.fc1.bias", "value.fc2.weight", "value.fc2.bias"}
	if n.cfg.ScoreHead {
		names = append(names, "value.score.weight", "value.score.bias")
	}
	if n.cfg.GlobalPool { // applied after the ReLUs: nothing to fold
		names = append(names, "policy.gpool.weight", "value.gpool.weight")
		for i := 0; i < n.cfg.Blocks; i++ {
			names = append(names, fmt.Sprintf("tower.%d.gpool.weight", i))
		}
	}
	for _, name := range names {
		src := n.byName[name].t
		keep(name, s.do("fold", func() (*ts.Tensor, error) { return src.Detach(false) }))
	}
	if s.err != nil {
		for _, t := range out {
			dropTensor(t)
		}
		return nil, s.err
	}
	return out, nil
}

// forwardInference is the inference forward pass on folded weights: x [N, I, 11, 11] float32 →
// policy logits [N, A] and WDL logits [N, 3], float32.
// With withScore (a net with a score head), the score logits [N, NumScore] are returned too.
func (n *Net) forwardInference(s *scope, w map[string]*ts.Tensor, x *ts.Tensor, withScore bool) (logits, value, score *ts.Tensor) {
	half := n.opts.MixedPrecision
	if half {
		x = s.toBF16(x)
	}
	conv := func(x *ts.Tensor, prefix string, k int64) *ts.Tensor {
		return s.conv(x, w[prefix+".weight"], w[prefix+".bias"], k, false)
	}
	gpool := func(x, y *ts.Tensor, prefix string) *ts.Tensor {
		if !n.cfg.GlobalPool {
			return y
		}
		return s.gpool(x, y, w[prefix+".gpool.weight"], false)
	}
	h := s.relu_(conv(x, "stem.conv", 3))
	for i := 0; i < n.cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d", i)
		t := s.relu_(conv(h, p+".conv1", 3))
		t = gpool(t, t, p)
		t = conv(t, p+".conv2", 3)
		h = s.relu_(s.add_(t, h))
	}
	pf := s.flatten(gpool(h, s.relu_(conv(h, "policy.conv", 1)), "policy"))
	logits = s.linear(pf, w["policy.fc.weight"], w["policy.fc.bias"], false)
	vf := s.flatten(gpool(h, s.relu_(conv(h, "value.conv", 1)), "value"))
	vh := s.relu_(s.linear(vf, w["value.fc1.weight"], w["value.fc1.bias"], false))
	value = s.linear(vh, w["value.fc2.weight"], w["value.fc2.bias"], false)
	if withScore && n.cfg.ScoreHead {
		score = s.linear(vh, w["value.score.weight"], w["value.score.bias"], false)
		if half {
			score = s.toF32(score)
		}
	}
	if half {
		logits, value = s.toF32(logits), s.toF32(value)
	}
	return logits, value, score
}

// forwardTrain is the training forward pass (batch norm on batch statistics). stats maps each
// running_mean / running_var name to a copy that batch norm updates in place.
// The score logits [N, NumScore] are nil without a score head.
func (n *Net) forwardTrain(s *scope, x *ts.Tensor, stats map[string]*ts.Tensor) (logits, value, score *ts.Tensor) {
	half := n.opts.MixedPrecision
	t := func(name string) *ts.Tensor { return n.byName[name].t }
	convBN := func(x *ts.Tensor, prefix, conv, bn string, k int64) *ts.Tensor {
		y := s.conv(x, t(prefix+"."+conv+".weight"), nil, k, half)
		b := prefix + "." + bn
		return s.batchNorm(y, t(b+".weight"), t(b+".bias"), stats[b+".running_mean"], stats[b+".running_var"], true)
	}
	gpool := func(x, y *ts.Tensor, prefix string) *ts.Tensor {
		if !n.cfg.GlobalPool {
			return y
		}
		return s.gpool(x, y, t(prefix+".gpool.weight"), half)
	}
	h := s.relu_(convBN(x, "stem", "conv", "bn", 3))
	for i := 0; i < n.cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d", i)
		y := s.relu_(convBN(h, p, "conv1", "bn1", 3))
		y = gpool(y, y, p)
		y = convBN(y, p, "conv2", "bn2", 3)
		h = s.relu_(s.add_(y, h))
	}
	pf := s.flatten(gpool(h, s.relu_(convBN(h, "policy", "conv", "bn", 1)), "policy"))
	logits = s.linear(pf, t("policy.fc.weight"), t("policy.fc.bias"), half)
	vf := s.flatten(gpool(h, s.relu_(convBN(h, "value", "conv", "bn", 1)), "value"))
	vh := s.relu_(s.linear(vf, t("value.fc1.weight"), t("value.fc1.bias"), half))
	value = s.linear(vh, t("value.fc2.weight"), t("value.fc2.bias"), half)
	if n.cfg.ScoreHead {
		score = s.linear(vh, t("value.score.weight"), t("value.score.bias"), half)
	}
	return logits, value, score
}

// scoreLoss is the score head's cross-entropy (a scalar tensor) against b.Score, or nil without
// targets or without a score head.
func (n *Net) scoreLoss(s *scope, b *model.Batch, score *ts.Tensor) *ts.Tensor {
	if score == nil || b.Score == nil {
		return nil
	}
	target := s.uploadF32(b.Score, []int64{int64(b.N), model.NumScore}, n.dev)
	return crossEntropy(s, score, nil, target, b.N)
}

// batchTensors uploads a training batch: planes, the illegal-action mask (nil when b.Mask is nil)
// and the two targets.
func (n *Net) batchTensors(s *scope, b *model.Batch) (x, illegal, tp, tw *ts.Tensor) {
	N := int64(b.N)
	x = s.uploadF32(b.Planes, []int64{N, int64(n.cfg.InputPlanes), model.BoardSize, model.BoardSize}, n.dev)
	if b.Mask != nil {
		ill := make([]bool, len(b.Mask))
		for i, ok := range b.Mask {
			ill[i] = !ok
		}
		illegal = s.uploadBool(ill, []int64{N, int64(env.NumActions)}, n.dev)
	}
	tp = s.uploadF32(b.Policy, []int64{N, int64(env.NumActions)}, n.dev)
	tw = s.uploadF32(b.WDL, []int64{N, model.NumWDL}, n.dev)
	return x, illegal, tp, tw
}

// losses returns the policy and value cross-entropies (means over the batch) as scalar tensors.
func (n *Net) losses(s *scope, logits, value, illegal, tp, tw *ts.Tensor, count int) (*ts.Tensor, *ts.Tensor) {
	return crossEntropy(s, logits, illegal, tp, count), crossEntropy(s, value, nil, tw, count)
}

// crossEntropy is −Σ target·log softmax(logits) over the batch, divided by count (a scalar
// tensor); illegal (nil: none) masks logits out of the softmax.
func crossEntropy(s *scope, logits, illegal, target *ts.Tensor, count int) *ts.Tensor {
	if illegal != nil {
		ninf := s.scalar(math.Inf(-1))
		logits = s.do("masked_fill", func() (*ts.Tensor, error) { return logits.MaskedFill(illegal, ninf, false) })
	}
	logp := s.do("log_softmax", func() (*ts.Tensor, error) { return logits.LogSoftmax(1, gotch.Float, false) })
	if illegal != nil {
		// 0·(−∞) would be NaN: illegal actions have zero target mass and drop out of the sum.
		zero := s.scalar(0)
		logp = s.do("masked_fill", func() (*ts.Tensor, error) { return logp.MaskedFill(illegal, zero, false) })
	}
	prod := s.do("mul", func() (*ts.Tensor, error) { return logp.Mul(target, false) })
	sum := s.do("sum", func() (*ts.Tensor, error) { return prod.Sum(gotch.Float, false) })
	k := s.scalar(-1 / float64(count))
	return s.do("scale", func() (*ts.Tensor, error) { return sum.MulScalar(k, false) })
}

// l2 returns WeightDecay/2 · Σ w² over the decayed tensors (grad mode off).
func (n *Net) l2(s *scope, wd float64) float64 {
	if wd == 0 {
		return 0
	}
	var acc *ts.Tensor
	for _, p := range n.params {
		if !p.spec.Trainable || !model.IsDecayed(p.spec.Name) {
			continue
		}
		w := p.t
		sq := s.do("l2", func() (*ts.Tensor, error) { return w.Square(false) })
		sum := s.do("l2", func() (*ts.Tensor, error) { return sq.Sum(gotch.Double, false) })
		if acc == nil {
			acc = sum
		} else {
			s.add_(acc, sum)
		}
	}
	if acc == nil {
		return 0
	}
	return wd / 2 * s.item(acc)
}

// TrainStep runs one optimiser step; see model.Net.
func (n *Net) TrainStep(b *model.Batch) (model.Loss, error) {
	if err := b.Validate(n.cfg.InputPlanes); err != nil {
		return model.Loss{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return model.Loss{}, errClosed
	}
	var loss model.Loss
	err := n.onTrain(true, func() (err error) {
		loss, err = n.trainStep(b)
		return err
	})
	return loss, err
}

// trainStep is TrainStep on the training worker, grad mode on.
func (n *Net) trainStep(b *model.Batch) (model.Loss, error) {
	s := &scope{}
	defer s.drop()
	opt := *n.opt.Load()

	// Batch norm updates copies of the running statistics, swapped in with the weight update, so that
	// a concurrent fold never sees a half-updated state.
	stats := map[string]*ts.Tensor{}
	for _, p := range n.params {
		if !p.spec.Trainable {
			stats[p.spec.Name] = s.clone(p.t)
		}
	}
	x, illegal, tp, tw := n.batchTensors(s, b)
	logits, value, score := n.forwardTrain(s, x, stats)
	pl, vl := n.losses(s, logits, value, illegal, tp, tw, b.N)
	vw := s.scalar(opt.ValueWeight)
	wv := s.do("loss", func() (*ts.Tensor, error) { return vl.MulScalar(vw, false) })
	total := s.do("loss", func() (*ts.Tensor, error) { return pl.Add(wv, false) })
	sl := n.scoreLoss(s, b, score)
	if sl != nil {
		sw := s.scalar(opt.ScoreWeightOrDefault())
		ws := s.do("loss", func() (*ts.Tensor, error) { return sl.MulScalar(sw, false) })
		total = s.do("loss", func() (*ts.Tensor, error) { return total.Add(ws, false) })
	}
	s.inplace("backward", func() error { return total.Backward() })
	loss := model.Loss{Policy: s.item(pl), Value: s.item(vl)}
	if sl != nil {
		loss.Score = s.item(sl)
	}
	if s.err != nil {
		n.zeroGrads()
		return model.Loss{}, s.err
	}

	if _, err := ts.GradSetEnabled(false); err != nil {
		n.zeroGrads()
		return model.Loss{}, fmt.Errorf("torch: no_grad: %w", err)
	}
	loss.L2 = n.l2(s, opt.WeightDecay)
	loss.Total = loss.Policy + opt.ValueWeight*loss.Value + loss.L2
	if n.cfg.ScoreHead {
		loss.Total += opt.ScoreWeightOrDefault() * loss.Score
	}
	if !isFinite(loss.Total) {
		n.zeroGrads()
		return loss, fmt.Errorf("torch: train step %d: non-finite loss (%v); weights left unchanged", n.step.Load(), loss)
	}

	n.infMu.Lock()
	err := n.update(s, opt, opt.Schedule.At(n.step.Load()), n.step.Load()+1)
	if err == nil {
		for name, st := range stats {
			p := n.byName[name]
			dropTensor(p.t)
			p.t = s.disown(st)
		}
	}
	n.dropInference()
	n.infMu.Unlock()
	n.zeroGrads()
	if err != nil {
		return loss, err
	}
	n.step.Add(1)
	return loss, nil
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// update applies the optimiser to every trainable parameter (grad mode off, infMu held). t is the
// 1-based step number for Adam's bias correction.
func (n *Net) update(s *scope, o model.OptimizerConfig, lr float64, t int64) error {
	for _, p := range n.params {
		if !p.spec.Trainable {
			continue
		}
		w := p.t
		g := s.do("grad", func() (*ts.Tensor, error) { return w.Grad(false) })
		if s.err != nil {
			return s.err
		}
		if ok, err := g.Defined(); err != nil || !ok {
			return fmt.Errorf("torch: %s has no gradient", p.spec.Name)
		}
		decay := model.IsDecayed(p.spec.Name) && o.WeightDecay > 0
		switch o.Kind {
		case model.OptimizerSGD:
			if decay {
				wd := s.scalar(o.WeightDecay)
				dw := s.do("sgd", func() (*ts.Tensor, error) { return w.MulScalar(wd, false) })
				s.inplace("sgd", func() error { return g.Add_(dw) })
			}
			buf := p.slots[0]
			mom := s.scalar(o.Momentum)
			s.inplace("sgd", func() error { return buf.MulScalar_(mom) })
			s.inplace("sgd", func() error { return buf.Add_(g) })
			d := buf
			if o.Nesterov {
				d = s.do("sgd", func() (*ts.Tensor, error) { return buf.MulScalar(mom, false) })
				s.inplace("sgd", func() error { return d.Add_(g) })
			}
			lrs := s.scalar(lr)
			step := s.do("sgd", func() (*ts.Tensor, error) { return d.MulScalar(lrs, false) })
			s.inplace("sgd", func() error { return w.Sub_(step) })
		case model.OptimizerAdamW:
			if decay {
				k := s.scalar(1 - lr*o.WeightDecay)
				s.inplace("adamw", func() error { return w.MulScalar_(k) })
			}
			m, v := p.slots[0], p.slots[1]
			b1, b2 := s.scalar(o.Beta1), s.scalar(o.Beta2)
			c1, c2 := s.scalar(1-o.Beta1), s.scalar(1-o.Beta2)
			s.inplace("adamw", func() error { return m.MulScalar_(b1) })
			gm := s.do("adamw", func() (*ts.Tensor, error) { return g.MulScalar(c1, false) })
			s.inplace("adamw", func() error { return m.Add_(gm) })
			s.inplace("adamw", func() error { return v.MulScalar_(b2) })
			gg := s.do("adamw", func() (*ts.Tensor, error) { return g.Mul(g, false) })
			s.inplace("adamw", func() error { return gg.MulScalar_(c2) })
			s.inplace("adamw", func() error { return v.Add_(gg) })
			bc1 := 1 - math.Pow(o.Beta1, float64(t))
			bc2 := 1 - math.Pow(o.Beta2, float64(t))
			bc2s, eps := s.scalar(bc2), s.scalar(o.Eps)
			denom := s.do("adamw", func() (*ts.Tensor, error) { return v.DivScalar(bc2s, false) })
			s.inplace("adamw", func() error { return denom.Sqrt_() })
			s.inplace("adamw", func() error { return denom.AddScalar_(eps) })
			upd := s.do("adamw", func() (*ts.Tensor, error) { return m.Div(denom, false) })
			k := s.scalar(lr / bc1)
			s.inplace("adamw", func() error { return upd.MulScalar_(k) })
			s.inplace("adamw", func() error { return w.Sub_(upd) })
		default:
			return fmt.Errorf("torch: optimiser %q", o.Kind)
		}
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// zeroGrads clears the accumulated gradients.
func (n *Net) zeroGrads() {
	for _, p := range n.params {
		if !p.spec.Trainable {
			continue
		}
		g, err := p.t.Grad(false)
		if err != nil {
			continue
		}
		if ok, _ := g.Defined(); ok {
			_ = g.Zero_()
		}
		dropTensor(g)
	}
}

// dropInference frees the folded weights (infMu held for writing).
func (n *Net) dropInference() {
	for _, t := range n.inf {
		dropTensor(t)
	}
	n.inf = nil
}

// EvalLoss returns the loss of a batch in inference mode, changing nothing.
func (n *Net) EvalLoss(b *model.Batch) (model.Loss, error) {
	if err := b.Validate(n.cfg.InputPlanes); err != nil {
		return model.Loss{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return model.Loss{}, errClosed
	}
	var loss model.Loss
	err := n.onTrain(false, func() error {
		w, release, err := n.inference()
		if err != nil {
			return err
		}
		defer release()
		s := &scope{}
		defer s.drop()
		x, illegal, tp, tw := n.batchTensors(s, b)
		logits, value, score := n.forwardInference(s, w, x, true)
		pl, vl := n.losses(s, logits, value, illegal, tp, tw, b.N)
		opt := *n.opt.Load()
		loss = model.Loss{Policy: s.item(pl), Value: s.item(vl), L2: n.l2(s, opt.WeightDecay)}
		loss.Total = loss.Policy + opt.ValueWeight*loss.Value + loss.L2
		if sl := n.scoreLoss(s, b, score); sl != nil {
			loss.Score = s.item(sl)
			loss.Total += opt.ScoreWeightOrDefault() * loss.Score
		}
		return s.err
	})
	return loss, err
}

// Checkpoint returns a deep copy of the weights, statistics and optimiser state.
func (n *Net) Checkpoint() (*model.Checkpoint, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Load() {
		return nil, errClosed
	}
	opt := *n.opt.Load()
	c := &model.Checkpoint{
		Meta:    model.NewMetadata(model.KindTraining, n.cfg, n.step.Load(), &opt, BackendName),
		Tensors: map[string]*model.Tensor{},
	}
	slots := model.OptimizerSlots(opt.Kind)
	err := n.onTrain(false, func() error {
		for _, p := range n.params {
			t := model.NewTensor(p.spec.Shape...)
			if err := download(p.t, t.Data); err != nil {
				return fmt.Errorf("%s: %w", p.spec.Name, err)
			}
			c.Tensors[p.spec.Name] = t
			for i, st := range p.slots {
				t := model.NewTensor(p.spec.Shape...)
				if err := download(st, t.Data); err != nil {
					return fmt.Errorf("%s: %w", p.spec.Name, err)
				}
				c.Tensors["optim."+p.spec.Name+"."+slots[i]] = t
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func download(t *ts.Tensor, dst []float32) error { return copyOut(t, dst) }

// Save writes Checkpoint() to path atomically.
func (n *Net) Save(path string) error {
	c, err := n.Checkpoint()
	if err != nil {
		return err
	}
	return model.WriteCheckpoint(path, c)
}

// Close frees the libtorch tensors; the net is unusable afterwards.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed.Swap(true) {
		return nil
	}
	n.infMu.Lock()
	defer n.infMu.Unlock()
	n.dropInference()
	n.free()
	return nil
}

func (n *Net) free() {
	for _, p := range n.params {
		dropTensor(p.t)
		for _, s := range p.slots {
			dropTensor(s)
		}
		p.t, p.slots = nil, nil
	}
}
