package gonum

import (
	"fmt"
	"math"
	"sync"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/sgemm"
	"github.com/yinsh-zero/yinsh/model"
)

// Engine is an inference-only network with batch norm folded into the convolutions (see model.Fold).
// Its weights never change after construction, so Predict is safe for concurrent use; each call
// takes a workspace from a pool. Net.Predict runs on an Engine built from the net's current weights;
// game clients build one from an exported file (model/policy).
type Engine struct {
	cfg model.Config
	// stem and tower: conv weights [out][in*9] and biases [out]
	stemW, stemB []float32
	stemP        *sgemm.PackedA // stemW packed for the SIMD kernel
	blocks       []engineBlock
	// heads: 1×1 conv [out][C] + bias; fully connected weights [out][in] packed as B = wᵀ
	polW, polB []float32
	polFc      *sgemm.PackedB
	polFcB     []float32
	valW, valB []float32
	v1         *sgemm.PackedB
	v1B        []float32
	v2         *sgemm.PackedB
	v2B        []float32
	sc         *sgemm.PackedB // value.score (ScoreHead only: EvalLoss reads it)
	scB        []float32
	// global pooling weights [P][2C], [V][2C] (nil without GlobalPool)
	polG, valG []float32

	pool sync.Pool // *engineWS
}

type engineBlock struct {
	w1, b1, w2, b2 []float32
	p1, p2         *sgemm.PackedA // w1, w2 packed
	g              []float32      // tower.<i>.gpool.weight [C][2C] (nil without GlobalPool)
}

// engineWS is one Predict call's workspace, sized for up to cap samples.
type engineWS struct {
	cap     int
	a, h, t []float32 // CS [C][n*121]
	pz, vz  []float32 // CS [P][S], [V][S]
	pf, vf  []float32 // flat [n][P*121], [n][V*121]
	vh      []float32 // [n][H]
	g, bias []float32 // GlobalPool: pooled features [n][2C], bias scratch [n][max(C,P,V)]
	col     scratch
}

// NewEngine builds an inference engine from a training checkpoint (folded here) or an inference file.
func NewEngine(c *model.Checkpoint) (*Engine, error) {
	f, err := model.Fold(c)
	if err != nil {
		return nil, err
	}
	t := func(name string) []float32 { return append([]float32(nil), f.Tensors[name].Data...) }
	cfg := f.Meta.Net
	e := &Engine{
		cfg:   cfg,
		stemW: t("stem.conv.weight"), stemB: t("stem.conv.bias"),
		polW: t("policy.conv.weight"), polB: t("policy.conv.bias"),
		polFc:  packFC(f.Tensors["policy.fc.weight"].Data, env.NumActions, cfg.PolicyChannels*cells),
		polFcB: t("policy.fc.bias"),
		valW:   t("value.conv.weight"), valB: t("value.conv.bias"),
		v1:  packFC(f.Tensors["value.fc1.weight"].Data, cfg.ValueHidden, cfg.ValueChannels*cells),
		v1B: t("value.fc1.bias"),
		v2:  packFC(f.Tensors["value.fc2.weight"].Data, model.NumWDL, cfg.ValueHidden),
		v2B: t("value.fc2.bias"),
	}
	if cfg.GlobalPool {
		e.polG, e.valG = t("policy.gpool.weight"), t("value.gpool.weight")
	}
	if cfg.ScoreHead {
		e.sc, e.scB = packFC(f.Tensors["value.score.weight"].Data, model.NumScore, cfg.ValueHidden), t("value.score.bias")
	}
	C := cfg.Channels
	e.stemP = sgemm.PackA(false, C, cfg.InputPlanes*9, e.stemW, cfg.InputPlanes*9)
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d.", i)
		b := engineBlock{
			w1: t(p + "conv1.weight"), b1: t(p + "conv1.bias"),
			w2: t(p + "conv2.weight"), b2: t(p + "conv2.bias"),
		}
		if cfg.GlobalPool {
			b.g = t(p + "gpool.weight")
		}
		b.p1 = sgemm.PackA(false, C, C*9, b.w1, C*9)
		b.p2 = sgemm.PackA(false, C, C*9, b.w2, C*9)
		e.blocks = append(e.blocks, b)
	}
	return e, nil
}

// packFC packs a fully connected weight w [out][in] as the B = wᵀ of y = x·wᵀ.
func packFC(w []float32, out, in int) *sgemm.PackedB { return sgemm.PackB(true, in, out, w, in) }

// Config returns the architecture.
func (e *Engine) Config() model.Config { return e.cfg }

func (e *Engine) workspace(n int) *engineWS {
	ws, _ := e.pool.Get().(*engineWS)
	if ws != nil && ws.cap >= n {
		return ws
	}
	c := e.cfg
	s := n * cells
	return &engineWS{
		cap: n,
		a:   make([]float32, c.Channels*s), h: make([]float32, c.Channels*s), t: make([]float32, c.Channels*s),
		pz: make([]float32, c.PolicyChannels*s), vz: make([]float32, c.ValueChannels*s),
		pf: make([]float32, c.PolicyChannels*s), vf: make([]float32, c.ValueChannels*s),
		vh: make([]float32, n*c.ValueHidden),
		g:  make([]float32, n*2*c.Channels), bias: make([]float32, n*max(c.Channels, c.PolicyChannels, c.ValueChannels)),
	}
}

// Predict evaluates n positions; see model.Net.Predict for shapes and semantics (policy logits with
// −Inf where mask is false, WDL logits). Safe for concurrent use.
func (e *Engine) Predict(n int, planes []float32, mask []bool, policy, wdl []float32) error {
	return e.predict(n, planes, mask, policy, wdl, nil)
}

// predict is Predict that also writes the score head's logits [n][NumScore] when score is not nil
// (a net with a score head only).
func (e *Engine) predict(n int, planes []float32, mask []bool, policy, wdl, score []float32) error {
	if err := model.CheckPredictArgs(n, e.cfg.InputPlanes, planes, mask, policy, wdl); err != nil {
		return err
	}
	if score != nil && (e.sc == nil || len(score) < n*model.NumScore) {
		return fmt.Errorf("model: predict: no score head, or len(score) = %d < n*%d", len(score), model.NumScore)
	}
	if n == 0 {
		return nil
	}
	ws := e.workspace(n)
	defer e.pool.Put(ws)
	e.forward(ws, n, planes, policy, wdl)
	if score != nil {
		linearP(ws.vh[:n*e.cfg.ValueHidden], n, e.cfg.ValueHidden, e.sc, e.scB, model.NumScore, score[:n*model.NumScore])
	}
	if mask != nil {
		ninf := float32(math.Inf(-1))
		for i, ok := range mask[:n*env.NumActions] {
			if !ok {
				policy[i] = ninf
			}
		}
	}
	return nil
}

// forward runs the folded network.
func (e *Engine) forward(ws *engineWS, n int, planes, policy, wdl []float32) {
	c := e.cfg
	C := c.Channels
	s := n * cells
	a, h, t := ws.a[:C*s], ws.h[:C*s], ws.t[:C*s]
	// stem: NCHW input
	conv3(&ws.col, e.stemW, e.stemP, C, c.InputPlanes, planes, cells, c.InputPlanes*cells, n, a, &epilogue{bias: e.stemB, act: true})
	for _, b := range e.blocks {
		conv3(&ws.col, b.w1, b.p1, C, C, a, s, cells, n, h, &epilogue{bias: b.b1, act: true})
		if b.g != nil {
			gpoolFeatures(h, C, n, ws.g, nil)
			gpoolAdd(ws.g, C, n, b.g, C, ws.bias, h)
		}
		conv3(&ws.col, b.w2, b.p2, C, C, h, s, cells, n, t, &epilogue{bias: b.b2, res: a, act: true})
		a, t = t, a
	}
	if c.GlobalPool {
		gpoolFeatures(a, C, n, ws.g, nil)
	}
	// policy head
	P := c.PolicyChannels
	pz, pf := ws.pz[:P*s], ws.pf[:P*s]
	conv1(e.polW, P, C, a, n, pz)
	parallel(n, func(_, lo, hi int) { biasAct(pz, e.polB, nil, s, lo, hi, true) })
	if c.GlobalPool {
		gpoolAdd(ws.g, C, n, e.polG, P, ws.bias, pz)
	}
	toFlat(pz, P, n, pf)
	linearP(pf, n, P*cells, e.polFc, e.polFcB, env.NumActions, policy[:n*env.NumActions])
	// value head
	V := c.ValueChannels
	vz, vf := ws.vz[:V*s], ws.vf[:V*s]
	conv1(e.valW, V, C, a, n, vz)
	parallel(n, func(_, lo, hi int) { biasAct(vz, e.valB, nil, s, lo, hi, true) })
	if c.GlobalPool {
		gpoolAdd(ws.g, C, n, e.valG, V, ws.bias, vz)
	}
	toFlat(vz, V, n, vf)
	vh := ws.vh[:n*c.ValueHidden]
	linearP(vf, n, V*cells, e.v1, e.v1B, c.ValueHidden, vh)
	relu(vh)
	linearP(vh, n, c.ValueHidden, e.v2, e.v2B, model.NumWDL, wdl[:n*model.NumWDL])
}
