package gonum

import (
	"fmt"
	"math"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// trainWS holds the activations a training step keeps for the backward pass, and gradient buffers.
// Sizes are for n samples (S = n*121); CS layouts unless noted.
type trainWS struct {
	n int
	// forward
	stemX, stemA []float32 // [C][S] normalised conv output (x̂), ReLU output
	blocks       []blockWS
	polX, polA   []float32 // [P][S]
	polF         []float32 // flat [n][P*121]
	logits       []float32 // [n][A]
	valX, valA   []float32 // [V][S]
	valF         []float32 // flat [n][V*121]
	valH         []float32 // [n][H] after ReLU
	wdl          []float32 // [n][3]
	// global pooling (GlobalPool only): the heads' maps after their pooled bias, and the pooled
	// features of the trunk output with the cells of their maxima
	polB, valB []float32 // [P][S], [V][S]
	trunkG     []float32 // [n][2C]
	trunkArg   []int32   // [n][C]
	bias, dG   []float32 // scratch: [n][max(C,P,V)], [n][2C]
	dPolG      []float32 // [n][2C]: the gradient of trunkG through the policy head
	// score head (ScoreHead only): logits [n][NumScore], their gradient, and dValH's share
	score, dScore, dValH2 []float32
	// backward
	dA, dT, dH []float32 // [C][S]
	dLogits    []float32 // [n][A]
	dPolF      []float32 // [n][P*121]
	dPolA      []float32 // [P][S]
	dWDL       []float32 // [n][3]
	dValH      []float32 // [n][H]
	dValF      []float32 // [n][V*121]
	dValA      []float32 // [V][S]
	sc, dsc    scratch   // im2col patches and their gradients, per worker
	psc        scratch   // per-worker weight-gradient partials
}

type blockWS struct {
	x1, h, x2, out []float32 // [C][S]: x̂ of conv1, ReLU(bn1), x̂ of conv2, block output
	// GlobalPool only: h2 = h + its pooled bias (conv2's input), g the pooled features of h
	// ([n][2C]) and arg the cells of their maxima ([n][C])
	h2  []float32
	g   []float32
	arg []int32
}

func newTrainWS(cfg model.Config, n int) *trainWS {
	s := n * cells
	C, P, V, H := cfg.Channels, cfg.PolicyChannels, cfg.ValueChannels, cfg.ValueHidden
	f := func(k int) []float32 { return make([]float32, k) }
	ws := &trainWS{
		n:     n,
		stemX: f(C * s), stemA: f(C * s),
		polX: f(P * s), polA: f(P * s), polF: f(P * s), logits: f(n * env.NumActions),
		valX: f(V * s), valA: f(V * s), valF: f(V * s), valH: f(n * H), wdl: f(n * model.NumWDL),
		dA: f(C * s), dT: f(C * s), dH: f(C * s),
		dLogits: f(n * env.NumActions), dPolF: f(P * s), dPolA: f(P * s),
		dWDL: f(n * model.NumWDL), dValH: f(n * H), dValF: f(V * s), dValA: f(V * s),
	}
	for i := 0; i < cfg.Blocks; i++ {
		b := blockWS{x1: f(C * s), h: f(C * s), x2: f(C * s), out: f(C * s)}
		if cfg.GlobalPool {
			b.h2, b.g, b.arg = f(C*s), f(n*2*C), make([]int32, n*C)
		}
		ws.blocks = append(ws.blocks, b)
	}
	if cfg.ScoreHead {
		ws.score, ws.dScore, ws.dValH2 = f(n*model.NumScore), f(n*model.NumScore), f(n*H)
	}
	if cfg.GlobalPool {
		ws.polB, ws.valB = f(P*s), f(V*s)
		ws.trunkG, ws.trunkArg = f(n*2*C), make([]int32, n*C)
		ws.bias, ws.dG, ws.dPolG = f(n*max(C, P, V)), f(n*2*C), f(n*2*C)
	}
	return ws
}

// bnForward normalises x [c][S] in place with batch statistics (x becomes x̂, the layer remembers
// mean, biased variance and 1/σ), then writes y = ReLU(γ·x̂ + β (+ res)) (ReLU when act).
func (l *bnLayer) forward(x []float32, c, s int, res, y []float32, act bool) {
	if len(l.mean) != c {
		l.mean, l.vari, l.invstd = make([]float64, c), make([]float64, c), make([]float32, c)
	}
	g, b := l.gamma.t.Data, l.beta.t.Data
	floor := reluFloor(act)
	parallel(c, func(_, lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			row := x[ch*s : (ch+1)*s]
			mean := sum64(row) / float64(s)
			vari := sqDev64(row, mean) / float64(s)
			inv := float32(1 / math.Sqrt(vari+model.BNEps))
			l.mean[ch], l.vari[ch], l.invstd[ch] = mean, vari, inv
			m32 := float32(mean)
			gc, bc := g[ch], b[ch]
			out := y[ch*s : (ch+1)*s]
			out = out[:len(row)]
			if res != nil {
				r := res[ch*s : (ch+1)*s]
				r = r[:len(row)]
				for i, v := range row {
					xh := (v - m32) * inv
					row[i] = xh
					o := gc*xh + bc + r[i]
					o = max(o, floor)
					out[i] = o
				}
				continue
			}
			for i, v := range row {
				xh := (v - m32) * inv
				row[i] = xh
				o := gc*xh + bc
				o = max(o, floor)
				out[i] = o
			}
		}
	})
}

// backward turns dy (gradient w.r.t. the batch-norm output, ReLU already applied) into the gradient
// w.r.t. its input, written to dx (may alias dy), and sets γ and β gradients.
func (l *bnLayer) backward(xhat []float32, c, s int, dy, dx []float32) {
	g := l.gamma.t.Data
	gg, gb := l.gamma.grad, l.beta.grad
	parallel(c, func(_, lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			xr, dr := xhat[ch*s:(ch+1)*s], dy[ch*s:(ch+1)*s]
			sdy, sdyx := sum64(dr), sumProd64(dr, xr)
			gb[ch], gg[ch] = float32(sdy), float32(sdyx)
			k := float32(float64(g[ch]) * float64(l.invstd[ch]) / float64(s))
			a, bm := float32(sdy), float32(sdyx)
			fs := float32(s)
			out := dx[ch*s : (ch+1)*s]
			for i, d := range dr {
				out[i] = k * (fs*d - a - xr[i]*bm)
			}
		}
	})
}

// sum64 is Σ x in float64, with four accumulators (independent add chains).
func sum64(x []float32) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		a += float64(v[0])
		b += float64(v[1])
		c += float64(v[2])
		d += float64(v[3])
	}
	for ; i < len(x); i++ {
		a += float64(x[i])
	}
	return (a + b) + (c + d)
}

// sqDev64 is Σ (x − mean)² in float64.
func sqDev64(x []float32, mean float64) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		e0, e1, e2, e3 := float64(v[0])-mean, float64(v[1])-mean, float64(v[2])-mean, float64(v[3])-mean
		a += e0 * e0
		b += e1 * e1
		c += e2 * e2
		d += e3 * e3
	}
	for ; i < len(x); i++ {
		e := float64(x[i]) - mean
		a += e * e
	}
	return (a + b) + (c + d)
}

// sumProd64 is Σ x·y in float64 (len(y) ≥ len(x)).
func sumProd64(x, y []float32) float64 {
	y = y[:len(x)]
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v, w := x[i:i+4:i+4], y[i:i+4:i+4]
		a += float64(v[0]) * float64(w[0])
		b += float64(v[1]) * float64(w[1])
		c += float64(v[2]) * float64(w[2])
		d += float64(v[3]) * float64(w[3])
	}
	for ; i < len(x); i++ {
		a += float64(x[i]) * float64(y[i])
	}
	return (a + b) + (c + d)
}

// reluMask zeroes d where the forward output y was not positive.
func reluMask(d, y []float32) {
	y = y[:len(d)]
	for i, v := range y {
		// Branch-free (the sign of y is data-dependent): all ones when y > 0, else zero.
		keep := uint32(-int32(math.Float32bits(v)) >> 31)
		d[i] = math.Float32frombits(math.Float32bits(d[i]) & keep)
	}
}

// forwardTrain runs the network in training mode (batch statistics) and leaves the activations in
// ws: logits in ws.logits, WDL logits in ws.wdl. Running statistics are not touched.
func (n *Net) forwardTrain(ws *trainWS, planes []float32) {
	cfg := n.cfg
	N := ws.n
	s := N * cells
	C := cfg.Channels
	conv3(&ws.sc, n.stem.w.t.Data, nil, C, cfg.InputPlanes, planes, cells, cfg.InputPlanes*cells, N, ws.stemX, nil)
	n.stem.bn.forward(ws.stemX, C, s, nil, ws.stemA, true)
	a := ws.stemA
	for i := range n.tower {
		blk, b := &n.tower[i], &ws.blocks[i]
		conv3(&ws.sc, blk[0].w.t.Data, nil, C, C, a, s, cells, N, b.x1, nil)
		blk[0].bn.forward(b.x1, C, s, nil, b.h, true)
		h := b.h
		if gp := n.towerPool[i]; gp != nil {
			copy(b.h2, b.h)
			gpoolFeatures(b.h, C, N, b.g, b.arg)
			gpoolAdd(b.g, C, N, gp.t.Data, C, ws.bias, b.h2)
			h = b.h2
		}
		conv3(&ws.sc, blk[1].w.t.Data, nil, C, C, h, s, cells, N, b.x2, nil)
		blk[1].bn.forward(b.x2, C, s, a, b.out, true)
		a = b.out
	}
	P, V := cfg.PolicyChannels, cfg.ValueChannels
	polA, valA := ws.polA, ws.valA // the heads' maps as their fully connected layers see them
	if cfg.GlobalPool {
		gpoolFeatures(a, C, N, ws.trunkG, ws.trunkArg)
	}
	conv1(n.polConv.w.t.Data, P, C, a, N, ws.polX)
	n.polConv.bn.forward(ws.polX, P, s, nil, ws.polA, true)
	if cfg.GlobalPool {
		copy(ws.polB, ws.polA)
		gpoolAdd(ws.trunkG, C, N, n.polPool.t.Data, P, ws.bias, ws.polB)
		polA = ws.polB
	}
	toFlat(polA, P, N, ws.polF)
	linear(ws.polF, N, P*cells, n.polFC.w.t.Data, n.polFC.b.t.Data, env.NumActions, ws.logits)
	conv1(n.valConv.w.t.Data, V, C, a, N, ws.valX)
	n.valConv.bn.forward(ws.valX, V, s, nil, ws.valA, true)
	if cfg.GlobalPool {
		copy(ws.valB, ws.valA)
		gpoolAdd(ws.trunkG, C, N, n.valPool.t.Data, V, ws.bias, ws.valB)
		valA = ws.valB
	}
	toFlat(valA, V, N, ws.valF)
	linear(ws.valF, N, V*cells, n.valFC1.w.t.Data, n.valFC1.b.t.Data, cfg.ValueHidden, ws.valH)
	relu(ws.valH)
	linear(ws.valH, N, cfg.ValueHidden, n.valFC2.w.t.Data, n.valFC2.b.t.Data, model.NumWDL, ws.wdl)
	if cfg.ScoreHead {
		linear(ws.valH, N, cfg.ValueHidden, n.valScore.w.t.Data, n.valScore.b.t.Data, model.NumScore, ws.score)
	}
}

// backward propagates ws.dLogits and ws.dWDL (set by losses) to every parameter gradient.
func (n *Net) backward(ws *trainWS, planes []float32) {
	cfg := n.cfg
	N := ws.n
	s := N * cells
	C, P, V := cfg.Channels, cfg.PolicyChannels, cfg.ValueChannels
	a := ws.stemA
	if len(ws.blocks) > 0 {
		a = ws.blocks[len(ws.blocks)-1].out
	}
	// value head
	linearBackward(ws.valH, N, cfg.ValueHidden, n.valFC2.w.t.Data, model.NumWDL, ws.dWDL, n.valFC2.w.grad, n.valFC2.b.grad, ws.dValH)
	if cfg.ScoreHead {
		linearBackward(ws.valH, N, cfg.ValueHidden, n.valScore.w.t.Data, model.NumScore, ws.dScore, n.valScore.w.grad, n.valScore.b.grad, ws.dValH2)
		for i, v := range ws.dValH2 {
			ws.dValH[i] += v
		}
	}
	reluMask(ws.dValH, ws.valH)
	linearBackward(ws.valF, N, V*cells, n.valFC1.w.t.Data, cfg.ValueHidden, ws.dValH, n.valFC1.w.grad, n.valFC1.b.grad, ws.dValF)
	fromFlat(ws.dValF, V, N, ws.dValA)
	if cfg.GlobalPool { // the value map's pooled bias: its weight's gradient, and dG for the trunk
		gpoolGrad(ws.dValA, V, N, ws.trunkG, C, n.valPool.t.Data, ws.bias, n.valPool.grad, ws.dG)
	}
	reluMask(ws.dValA, ws.valA)
	n.valConv.bn.backward(ws.valX, V, s, ws.dValA, ws.dValA)
	gemm(false, true, V, C, s, ws.dValA, s, a, s, 0, n.valConv.w.grad, C)
	gemm(true, false, C, s, V, n.valConv.w.t.Data, C, ws.dValA, s, 0, ws.dA, s)
	// policy head
	linearBackward(ws.polF, N, P*cells, n.polFC.w.t.Data, env.NumActions, ws.dLogits, n.polFC.w.grad, n.polFC.b.grad, ws.dPolF)
	fromFlat(ws.dPolF, P, N, ws.dPolA)
	if cfg.GlobalPool {
		gpoolGrad(ws.dPolA, P, N, ws.trunkG, C, n.polPool.t.Data, ws.bias, n.polPool.grad, ws.dPolG)
		for j, v := range ws.dPolG {
			ws.dG[j] += v
		}
		gpoolScatter(ws.dG, C, N, ws.trunkArg, ws.dA) // both heads' pooled features, back to the trunk
	}
	reluMask(ws.dPolA, ws.polA)
	n.polConv.bn.backward(ws.polX, P, s, ws.dPolA, ws.dPolA)
	gemm(false, true, P, C, s, ws.dPolA, s, a, s, 0, n.polConv.w.grad, C)
	gemm(true, false, C, s, P, n.polConv.w.t.Data, C, ws.dPolA, s, 1, ws.dA, s)
	// tower, last block first; ws.dA is the gradient w.r.t. the block output
	for i := len(n.tower) - 1; i >= 0; i-- {
		blk, b := &n.tower[i], &ws.blocks[i]
		in := ws.stemA
		if i > 0 {
			in = ws.blocks[i-1].out
		}
		reluMask(ws.dA, b.out) // dA is now the gradient of bn2(...) + skip
		blk[1].bn.backward(b.x2, C, s, ws.dA, ws.dT)
		h := b.h
		if b.h2 != nil {
			h = b.h2
		}
		conv3Backward(&ws.sc, &ws.dsc, &ws.psc, blk[1].w.t.Data, C, C, h, s, cells, N, ws.dT, blk[1].w.grad, ws.dH)
		if gp := n.towerPool[i]; gp != nil { // h2 = h + gpool(h): dH gains the pooled path
			gpoolGrad(ws.dH, C, N, b.g, C, gp.t.Data, ws.bias, gp.grad, ws.dG)
			gpoolScatter(ws.dG, C, N, b.arg, ws.dH)
		}
		reluMask(ws.dH, b.h)
		blk[0].bn.backward(b.x1, C, s, ws.dH, ws.dH)
		conv3Backward(&ws.sc, &ws.dsc, &ws.psc, blk[0].w.t.Data, C, C, in, s, cells, N, ws.dH, blk[0].w.grad, ws.dT)
		parallel(C, func(_, lo, hi int) {
			d, t := ws.dA[lo*s:hi*s], ws.dT[lo*s:hi*s]
			for j, v := range t {
				d[j] += v
			}
		})
	}
	reluMask(ws.dA, ws.stemA)
	n.stem.bn.backward(ws.stemX, C, s, ws.dA, ws.dA)
	conv3Backward(&ws.sc, &ws.dsc, &ws.psc, n.stem.w.t.Data, C, cfg.InputPlanes, planes, cells, cfg.InputPlanes*cells, N, ws.dA, n.stem.w.grad, nil)
}

// crossEntropy computes, per row of logits [n][width], −Σ t·log softmax(masked logits) and, when
// grad is not nil, its gradient scaled by scale (p·Σt − t; zero on masked entries). It returns
// the sum over rows.
func crossEntropy(logits []float32, mask []bool, target []float32, n, width int, scale float64, grad []float32) float64 {
	partial := make([]float64, workers(n)) // summed in worker order: deterministic
	parallel(n, func(w, lo, hi int) {
		var sum float64
		for r := lo; r < hi; r++ {
			l := logits[r*width : (r+1)*width]
			t := target[r*width : (r+1)*width]
			var m []bool
			if mask != nil {
				m = mask[r*width : (r+1)*width]
			}
			mx := math.Inf(-1)
			for i, v := range l {
				if (m == nil || m[i]) && float64(v) > mx {
					mx = float64(v)
				}
			}
			var z, tsum float64
			for i, v := range l {
				if m == nil || m[i] {
					z += math.Exp(float64(v) - mx)
					tsum += float64(t[i])
				}
			}
			if z == 0 { // no legal action (terminal position): no loss, no gradient
				if grad != nil {
					clear(grad[r*width : (r+1)*width])
				}
				continue
			}
			lse := mx + math.Log(z)
			for i, v := range l {
				if (m == nil || m[i]) && t[i] != 0 {
					sum += float64(t[i]) * (lse - float64(v))
				}
			}
			if grad != nil {
				g := grad[r*width : (r+1)*width]
				for i, v := range l {
					if m != nil && !m[i] {
						g[i] = 0
						continue
					}
					p := math.Exp(float64(v) - lse)
					g[i] = float32(scale * (p*tsum - float64(t[i])))
				}
			}
		}
		partial[w] = sum
	})
	var total float64
	for _, p := range partial {
		total += p
	}
	return total
}

// l2 returns WeightDecay/2 · Σ w² over decayed tensors.
func (n *Net) l2(wd float64) float64 {
	var s float64
	for _, p := range n.params {
		if p.decayed {
			for _, v := range p.t.Data {
				s += float64(v) * float64(v)
			}
		}
	}
	return wd / 2 * s
}

// lossGrad runs a training-mode forward pass and, when grad is set, the backward pass, filling every
// param.grad with the gradient of Policy + ValueWeight·Value (+ ScoreWeight·Score with a score head;
// weight decay is the optimiser's job).
func (n *Net) lossGrad(b *model.Batch, opt model.OptimizerConfig, grad bool) model.Loss {
	if n.ws == nil || n.ws.n != b.N {
		n.ws = newTrainWS(n.cfg, b.N)
	}
	ws := n.ws
	n.forwardTrain(ws, b.Planes)
	N := float64(b.N)
	var dl, dw []float32
	if grad {
		dl, dw = ws.dLogits, ws.dWDL
	}
	var l model.Loss
	l.Policy = crossEntropy(ws.logits, b.Mask, b.Policy, b.N, env.NumActions, 1/N, dl) / N
	l.Value = crossEntropy(ws.wdl, nil, b.WDL, b.N, model.NumWDL, opt.ValueWeight/N, dw) / N
	l.L2 = n.l2(opt.WeightDecay)
	l.Total = l.Policy + opt.ValueWeight*l.Value + l.L2
	if n.cfg.ScoreHead {
		sw := opt.ScoreWeightOrDefault()
		var ds []float32
		if grad {
			ds = ws.dScore
		}
		l.Score = scoreLoss(ws.score, b.Score, b.N, sw/N, ds) / N
		l.Total += sw * l.Score
	}
	if grad {
		n.backward(ws, b.Planes)
	}
	return l
}

// TrainStep runs one optimiser step on the batch and returns the loss before the update.
func (n *Net) TrainStep(b *model.Batch) (model.Loss, error) {
	if err := b.Validate(n.cfg.InputPlanes); err != nil {
		return model.Loss{}, err
	}
	n.trainMu.Lock()
	defer n.trainMu.Unlock()
	n.mu.RLock()
	opt, step := n.opt, n.step
	n.mu.RUnlock()
	l := n.lossGrad(b, opt, true)
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		return l, fmt.Errorf("model: train step %d: loss is %g; weights left unchanged", step, l.Total)
	}
	s := float64(b.N * cells)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.applyOptimizer(opt, step)
	for _, bn := range n.bnLayers() {
		for c := range bn.rm.Data {
			bn.rm.Data[c] = float32((1-model.BNMomentum)*float64(bn.rm.Data[c]) + model.BNMomentum*bn.mean[c])
			bn.rv.Data[c] = float32((1-model.BNMomentum)*float64(bn.rv.Data[c]) + model.BNMomentum*bn.vari[c]*s/math.Max(s-1, 1))
		}
	}
	n.step++
	n.eng = nil
	return l, nil
}

func (n *Net) bnLayers() []*bnLayer {
	l := []*bnLayer{&n.stem.bn}
	for i := range n.tower {
		l = append(l, &n.tower[i][0].bn, &n.tower[i][1].bn)
	}
	return append(l, &n.polConv.bn, &n.valConv.bn)
}

// EvalLoss returns the inference-mode loss of a batch.
func (n *Net) EvalLoss(b *model.Batch) (model.Loss, error) {
	if err := b.Validate(n.cfg.InputPlanes); err != nil {
		return model.Loss{}, err
	}
	opt := n.Optimizer()
	e, err := n.Engine()
	if err != nil {
		return model.Loss{}, err
	}
	logits := make([]float32, b.N*env.NumActions)
	wdl := make([]float32, b.N*model.NumWDL)
	var score []float32
	if n.cfg.ScoreHead {
		score = make([]float32, b.N*model.NumScore)
	}
	if err := e.predict(b.N, b.Planes, nil, logits, wdl, score); err != nil {
		return model.Loss{}, err
	}
	N := float64(b.N)
	var l model.Loss
	l.Policy = crossEntropy(logits, b.Mask, b.Policy, b.N, env.NumActions, 1, nil) / N
	l.Value = crossEntropy(wdl, nil, b.WDL, b.N, model.NumWDL, 1, nil) / N
	if n.cfg.ScoreHead {
		l.Score = scoreLoss(score, b.Score, b.N, 1, nil) / N
	}
	n.trainMu.Lock()
	l.L2 = n.l2(opt.WeightDecay)
	n.trainMu.Unlock()
	l.Total = l.Policy + opt.ValueWeight*l.Value + l.L2
	if n.cfg.ScoreHead {
		l.Total += opt.ScoreWeightOrDefault() * l.Score
	}
	return l, nil
}

// scoreLoss is crossEntropy over the score logits [n][NumScore] for targets [n][NumScore] (nil:
// none, zero loss; a zero row adds nothing); grad, when not nil, is always written (zero without
// targets).
func scoreLoss(logits, target []float32, n int, scale float64, grad []float32) float64 {
	if target == nil {
		clear(grad)
		return 0
	}
	return crossEntropy(logits, nil, target, n, model.NumScore, scale, grad)
}

// applyOptimizer updates every parameter from its gradient (see model.OptimizerConfig for the rules).
func (n *Net) applyOptimizer(o model.OptimizerConfig, step int64) {
	lr := o.Schedule.At(step)
	slots := len(model.OptimizerSlots(o.Kind))
	for _, p := range n.params {
		if len(p.slots) != slots {
			p.slots = make([][]float32, slots)
			for i := range p.slots {
				p.slots[i] = make([]float32, len(p.t.Data))
			}
		}
	}
	t := float64(step + 1)
	bc1 := 1 - math.Pow(o.Beta1, t)
	bc2 := 1 - math.Pow(o.Beta2, t)
	for _, p := range n.params {
		wd := 0.0
		if p.decayed {
			wd = o.WeightDecay
		}
		w, g := p.t.Data, p.grad
		parallelMin(len(w), 1<<14, func(lo, hi int) {
			w, g := w[lo:hi], g[lo:hi]
			g = g[:len(w)]
			switch o.Kind {
			case model.OptimizerSGD:
				buf := p.slots[0][lo:hi]
				buf = buf[:len(w)]
				mu, wd32, lr32 := float32(o.Momentum), float32(wd), float32(lr)
				if o.Nesterov {
					for i, wi := range w {
						gi := g[i] + wd32*wi
						b := mu*buf[i] + gi
						buf[i] = b
						w[i] = wi - lr32*(gi+mu*b)
					}
					return
				}
				for i, wi := range w {
					b := mu*buf[i] + g[i] + wd32*wi
					buf[i] = b
					w[i] = wi - lr32*b
				}
			case model.OptimizerAdamW:
				m, v := p.slots[0][lo:hi], p.slots[1][lo:hi]
				m, v = m[:len(w)], v[:len(w)]
				b1, b2 := float32(o.Beta1), float32(o.Beta2)
				for i := range w {
					w[i] -= float32(lr * wd * float64(w[i]))
					gi := g[i]
					m[i] = b1*m[i] + (1-b1)*gi
					v[i] = b2*v[i] + (1-b2)*gi*gi
					mh := float64(m[i]) / bc1
					vh := float64(v[i]) / bc2
					w[i] -= float32(lr * mh / (math.Sqrt(vh) + o.Eps))
				}
			}
		})
	}
}
