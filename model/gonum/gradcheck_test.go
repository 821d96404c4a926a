package gonum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

// Per-layer checks: each layer's backward function against central differences of the scalar
// L = Σ r·y (r random), computed with float64 accumulation. Every input and parameter coordinate
// is checked for the small shapes used here.

func TestGradConv3(t *testing.T) {
	defer func(a, b, c, d int) {
		convChunk, convBackChunk, implicitChunk, implicitBackChunk = a, b, c, d
	}(convChunk, convBackChunk, implicitChunk, implicitBackChunk)
	for _, chunk := range []int{1, 2, 4} {
		convChunk, convBackChunk, implicitChunk, implicitBackChunk = chunk, chunk, chunk, chunk
		t.Run(fmt.Sprintf("chunk%d", chunk), testGradConv3)
	}
}

func testGradConv3(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, cin, cout = 3, 2, 3
	s := n * cells
	in := randSlice(rng, cin*s, 1) // CS layout
	w := randSlice(rng, cout*cin*9, 0.5)
	r := randSlice(rng, cout*s, 1)
	var sc, dsc, psc scratch
	out := make([]float32, cout*s)
	f := func() float64 {
		conv3(&sc, w, nil, cout, cin, in, s, cells, n, out, nil)
		return dot64(out, r)
	}
	gw := make([]float32, len(w))
	din := make([]float32, len(in))
	conv3Backward(&sc, &dsc, &psc, w, cout, cin, in, s, cells, n, r, gw, din)
	for i := range w {
		if g := numGrad(w, i, 1e-2, f); !closeTo(g, float64(gw[i]), 1e-3, 1e-3) {
			t.Fatalf("dW[%d]: numeric %g, analytic %g", i, g, gw[i])
		}
	}
	for i := range in {
		if g := numGrad(in, i, 1e-2, f); !closeTo(g, float64(din[i]), 1e-3, 1e-3) {
			t.Fatalf("dIn[%d] (channel %d, sample %d, cell %d): numeric %g, analytic %g", i, i/s, i%s/cells, i%cells, g, din[i])
		}
	}
}

// TestConv3Reference checks the im2col convolution against a direct loop over NCHW input.
func TestConv3Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, cin, cout = 5, 3, 4
	in := randSlice(rng, n*cin*cells, 1) // NCHW
	w := randSlice(rng, cout*cin*9, 1)
	out := make([]float32, cout*n*cells)
	var sc scratch
	defer func(c int) { convChunk = c }(convChunk)
	for _, convChunk = range []int{1, 2, 3, 8} {
		conv3(&sc, w, nil, cout, cin, in, cells, cin*cells, n, out, nil)
		checkConv3Reference(t, n, cin, cout, in, w, out)
	}
}

func checkConv3Reference(t *testing.T, n, cin, cout int, in, w, out []float32) {
	t.Helper()
	for s := 0; s < n; s++ {
		for co := 0; co < cout; co++ {
			for i := 0; i < side; i++ {
				for j := 0; j < side; j++ {
					var want float64
					for ci := 0; ci < cin; ci++ {
						for ky := 0; ky < 3; ky++ {
							for kx := 0; kx < 3; kx++ {
								y, x := i+ky-1, j+kx-1
								if y < 0 || y >= side || x < 0 || x >= side {
									continue
								}
								want += float64(w[((co*cin+ci)*3+ky)*3+kx]) * float64(in[(s*cin+ci)*cells+y*side+x])
							}
						}
					}
					got := out[co*n*cells+s*cells+i*side+j]
					if !closeTo(float64(got), want, 1e-5, 1e-5) {
						t.Fatalf("sample %d out %d cell (%d,%d): got %g want %g", s, co, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestGradConv1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, cin, cout = 2, 3, 2
	s := n * cells
	in := randSlice(rng, cin*s, 1)
	w := randSlice(rng, cout*cin, 1)
	r := randSlice(rng, cout*s, 1)
	out := make([]float32, cout*s)
	f := func() float64 { conv1(w, cout, cin, in, n, out); return dot64(out, r) }
	gw := make([]float32, len(w))
	din := make([]float32, len(in))
	// the same two GEMMs as Net.backward uses for the heads
	gemm(false, true, cout, cin, s, r, s, in, s, 0, gw, cin)
	gemm(true, false, cin, s, cout, w, cin, r, s, 0, din, s)
	for i := range w {
		if g := numGrad(w, i, 1e-2, f); !closeTo(g, float64(gw[i]), 1e-3, 1e-3) {
			t.Fatalf("dW[%d]: numeric %g, analytic %g", i, g, gw[i])
		}
	}
	for i := 0; i < len(in); i += 7 {
		if g := numGrad(in, i, 1e-2, f); !closeTo(g, float64(din[i]), 1e-3, 1e-3) {
			t.Fatalf("dIn[%d]: numeric %g, analytic %g", i, g, din[i])
		}
	}
}

func TestGradBatchNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const c = 3
	const s = 2 * cells
	x := randSlice(rng, c*s, 2)
	for i := range x {
		x[i] += float32(i % 3) // different means per position
	}
	r := randSlice(rng, c*s, 1)
	res := randSlice(rng, c*s, 1)
	for _, act := range []bool{false, true} {
		for _, withRes := range []bool{false, true} {
			l := bnLayer{
				gamma: &param{t: &model.Tensor{Data: []float32{0.7, 1.3, -0.4}}, grad: make([]float32, c)},
				beta:  &param{t: &model.Tensor{Data: []float32{0.1, -0.5, 0.3}}, grad: make([]float32, c)},
			}
			var rs []float32
			if withRes {
				rs = res
			}
			y := make([]float32, c*s)
			xs := make([]float32, c*s)
			f := func() float64 {
				copy(xs, x)
				l.forward(xs, c, s, rs, y, act)
				return dot64(y, r)
			}
			f()
			dy := append([]float32(nil), r...)
			if act {
				reluMask(dy, y)
			}
			dx := make([]float32, c*s)
			l.backward(xs, c, s, dy, dx)
			for _, p := range []*param{l.gamma, l.beta} {
				for i := range p.t.Data {
					if g := numGrad(p.t.Data, i, 1e-3, f); !closeTo(g, float64(p.grad[i]), 2e-3, 2e-3) {
						t.Fatalf("act=%v res=%v: d(γ|β)[%d]: numeric %g, analytic %g", act, withRes, i, g, p.grad[i])
					}
				}
			}
			for i := 0; i < len(x); i += 5 {
				if act && math.Abs(float64(y[i])) < 1e-2 {
					continue // at the ReLU kink
				}
				if g := numGrad(x, i, 1e-3, f); !closeTo(g, float64(dx[i]), 2e-2, 2e-3) {
					t.Fatalf("act=%v res=%v: dx[%d]: numeric %g, analytic %g", act, withRes, i, g, dx[i])
				}
			}
		}
	}
}

func TestGradLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, in, out = 3, 7, 5
	x := randSlice(rng, n*in, 1)
	w := randSlice(rng, out*in, 1)
	b := randSlice(rng, out, 1)
	r := randSlice(rng, n*out, 1)
	y := make([]float32, n*out)
	f := func() float64 { linear(x, n, in, w, b, out, y); return dot64(y, r) }
	gw, gb, dx := make([]float32, len(w)), make([]float32, len(b)), make([]float32, len(x))
	linearBackward(x, n, in, w, out, r, gw, gb, dx)
	for _, c := range []struct {
		name   string
		v, g   []float32
		wtrans bool
	}{{"w", w, gw, false}, {"b", b, gb, false}, {"x", x, dx, false}} {
		for i := range c.v {
			if g := numGrad(c.v, i, 1e-2, f); !closeTo(g, float64(c.g[i]), 1e-3, 1e-3) {
				t.Fatalf("d%s[%d]: numeric %g, analytic %g", c.name, i, g, c.g[i])
			}
		}
	}
	// linearP with the packed weight gives the same output.
	y2 := make([]float32, n*out)
	linearP(x, n, in, packFC(w, out, in), b, out, y2)
	linear(x, n, in, w, b, out, y)
	for i := range y {
		if !closeTo(float64(y[i]), float64(y2[i]), 1e-5, 1e-5) {
			t.Fatalf("linearP[%d] = %g, linear %g", i, y2[i], y[i])
		}
	}
}

func TestGradReLUAndFlatten(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, c = 2, 3
	s := n * cells
	x := randSlice(rng, c*s, 1)
	r := randSlice(rng, c*s, 1)
	flat := make([]float32, c*s)
	y := make([]float32, c*s)
	f := func() float64 {
		copy(y, x)
		relu(y)
		toFlat(y, c, n, flat)
		return dot64(flat, r)
	}
	f()
	// backward: r is the gradient w.r.t. flat; fromFlat then the ReLU mask
	d := make([]float32, c*s)
	fromFlat(r, c, n, d)
	reluMask(d, y)
	for i := range x {
		if math.Abs(float64(x[i])) < 2e-2 {
			continue
		}
		if g := numGrad(x, i, 1e-2, f); !closeTo(g, float64(d[i]), 1e-4, 1e-4) {
			t.Fatalf("dx[%d]: numeric %g, analytic %g", i, g, d[i])
		}
	}
	// flatten order is PyTorch's: flat[i][ch*121+p] = x[ch][i*121+p]
	if flat[(1*c+2)*cells+5] != y[2*s+1*cells+5] {
		t.Fatal("toFlat order")
	}
}

func TestGradCrossEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, width = 3, 6
	logits := randSlice(rng, n*width, 2)
	mask := make([]bool, n*width)
	target := make([]float32, n*width)
	for r := 0; r < n; r++ {
		var sum float32
		for i := 0; i < width; i++ {
			mask[r*width+i] = i%3 != 1
			if mask[r*width+i] {
				target[r*width+i] = rng.Float32()
				sum += target[r*width+i]
			}
		}
		for i := 0; i < width; i++ {
			target[r*width+i] /= sum
		}
	}
	for _, m := range [][]bool{nil, mask} {
		grad := make([]float32, n*width)
		const scale = 0.7
		f := func() float64 { return scale * crossEntropy(logits, m, target, n, width, 1, nil) }
		crossEntropy(logits, m, target, n, width, scale, grad)
		for i := range logits {
			if g := numGrad(logits, i, 1e-3, f); !closeTo(g, float64(grad[i]), 1e-3, 1e-4) {
				t.Fatalf("mask=%v dlogit[%d]: numeric %g, analytic %g", m != nil, i, g, grad[i])
			}
		}
	}
	// one-hot target: loss is −log p of that entry
	l := []float32{1, 2, 3}
	got := crossEntropy(l, nil, []float32{0, 0, 1}, 1, 3, 1, nil)
	want := -(3 - math.Log(math.Exp(1)+math.Exp(2)+math.Exp(3)))
	if !closeTo(got, want, 1e-9, 1e-9) {
		t.Fatalf("CE = %g, want %g", got, want)
	}
}

// TestGradNet checks the whole network's gradient (training-mode batch norm, masked policy loss,
// WDL loss) per parameter tensor against central differences of refLoss, an independent float64
// implementation of the forward pass (direct loops, no im2col or BLAS): float32 finite differences
// drown in rounding noise once steps are small enough to avoid ReLU kinks. It checks the directional
// derivative along a direction mixing the analytic gradient with noise, and the 3 coordinates with
// the largest gradients, of every tensor.
func TestGradNet(t *testing.T) {
	pooled := microConfig()
	pooled.GlobalPool, pooled.Blocks = true, 2
	scored := microConfig()
	scored.ScoreHead = true
	for name, cfg := range map[string]model.Config{"plain": microConfig(), "gpool": pooled, "score": scored} {
		t.Run(name, func(t *testing.T) { gradNet(t, cfg) })
	}
}

func gradNet(t *testing.T, cfg model.Config) {
	net, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	perturb(net, 2)
	b := modeltest.RandomBatch(3, 3, false)
	if cfg.ScoreHead { // soft targets on rows 0 and 1, none on row 2
		b.Score = make([]float32, 3*model.NumScore)
		for i, p := range []float32{0.5, 0, 0.25, 0, 0, 0.25, 0, 0, 0, 0, 1} {
			b.Score[i] = p
		}
	}
	opt := net.Optimizer()
	opt.ValueWeight, opt.ScoreWeight = 1.5, 0.7
	l := net.lossGrad(b, opt, true)
	w := map[string][]float64{}
	for name, t := range net.tensors {
		w[name] = to64(t.Data)
	}
	ref := func() float64 { return refLoss(net.cfg, w, b, opt.ValueWeight, opt.ScoreWeight) }
	if got, want := l.Policy+opt.ValueWeight*l.Value+opt.ScoreWeight*l.Score, ref(); !closeTo(got, want, 1e-5, 1e-5) {
		t.Fatalf("float32 loss %g, float64 reference %g", got, want)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, p := range net.params {
		g := to64(p.grad)
		gn := math.Sqrt(dot(g, g))
		if gn == 0 {
			t.Fatalf("%s: zero gradient", p.name)
		}
		x := w[p.name]
		d := to64(randSlice(rng, len(g), 1))
		dn := math.Sqrt(dot(d, d))
		for i := range d {
			d[i] = 0.8*g[i]/gn + 0.6*d[i]/dn
		}
		const h = 1e-5
		orig := append([]float64(nil), x...)
		for i := range x {
			x[i] = orig[i] + h*d[i]
		}
		fp := ref()
		for i := range x {
			x[i] = orig[i] - h*d[i]
		}
		fm := ref()
		copy(x, orig)
		num, ana := (fp-fm)/(2*h), dot(g, d)
		if !closeTo(num, ana, 2e-3, 1e-5) {
			t.Errorf("%s %v: directional derivative numeric %.7g, analytic %.7g", p.name, p.t.Shape, num, ana)
		}
		gs := append([]float64(nil), g...)
		for k := 0; k < 3 && k < len(g); k++ {
			best := 0
			for i := range gs {
				if math.Abs(gs[i]) > math.Abs(gs[best]) {
					best = i
				}
			}
			gs[best] = 0
			x[best] = orig[best] + h
			fp := ref()
			x[best] = orig[best] - h
			fm := ref()
			x[best] = orig[best]
			if num := (fp - fm) / (2 * h); !closeTo(num, g[best], 2e-3, 1e-5) {
				t.Errorf("%s[%d]: numeric %.7g, analytic %.7g", p.name, best, num, g[best])
			}
		}
	}
}

func to64(a []float32) []float64 {
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = float64(v)
	}
	return b
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// refLoss is Policy + vw·Value of the network in training mode, in float64 with direct loops over
// NCHW tensors: the specification the optimised code is checked against.
func refLoss(cfg model.Config, w map[string][]float64, b *model.Batch, vw, sw float64) float64 {
	n := b.N
	x := make([][]float64, n) // per sample [C][121]
	for s := range x {
		x[s] = to64(b.Planes[s*env.ObservationSize : (s+1)*env.ObservationSize])
	}
	conv := func(x [][]float64, wt []float64, cout, cin, k int) [][]float64 {
		out := make([][]float64, n)
		for s := range out {
			out[s] = make([]float64, cout*cells)
			for co := 0; co < cout; co++ {
				for i := 0; i < side; i++ {
					for j := 0; j < side; j++ {
						var sum float64
						for ci := 0; ci < cin; ci++ {
							for ky := 0; ky < k; ky++ {
								for kx := 0; kx < k; kx++ {
									y, xx := i+ky-k/2, j+kx-k/2
									if y >= 0 && y < side && xx >= 0 && xx < side {
										sum += wt[((co*cin+ci)*k+ky)*k+kx] * x[s][ci*cells+y*side+xx]
									}
								}
							}
						}
						out[s][co*cells+i*side+j] = sum
					}
				}
			}
		}
		return out
	}
	bn := func(x [][]float64, prefix string, c int) {
		g, be := w[prefix+".weight"], w[prefix+".bias"]
		for ch := 0; ch < c; ch++ {
			var mean, vari float64
			for s := range x {
				for p := 0; p < cells; p++ {
					mean += x[s][ch*cells+p]
				}
			}
			mean /= float64(n * cells)
			for s := range x {
				for p := 0; p < cells; p++ {
					d := x[s][ch*cells+p] - mean
					vari += d * d
				}
			}
			vari /= float64(n * cells)
			for s := range x {
				for p := 0; p < cells; p++ {
					v := &x[s][ch*cells+p]
					*v = g[ch]*(*v-mean)/math.Sqrt(vari+model.BNEps) + be[ch]
				}
			}
		}
	}
	relu := func(x [][]float64) {
		for _, r := range x {
			for i, v := range r {
				r[i] = math.Max(v, 0)
			}
		}
	}
	// gpool adds to y [cy][121] per sample the pooled bias of x [cx][121]: [means, maxima] · wᵀ
	gpool := func(x [][]float64, cx int, y [][]float64, cy int, name string) {
		if !cfg.GlobalPool {
			return
		}
		wt := w[name]
		for s := range x {
			g := make([]float64, 2*cx)
			for c := 0; c < cx; c++ {
				mx := math.Inf(-1)
				for p := 0; p < cells; p++ {
					v := x[s][c*cells+p]
					g[c] += v / cells
					mx = math.Max(mx, v)
				}
				g[cx+c] = mx
			}
			for d := 0; d < cy; d++ {
				var bias float64
				for j, v := range g {
					bias += wt[d*2*cx+j] * v
				}
				for p := 0; p < cells; p++ {
					y[s][d*cells+p] += bias
				}
			}
		}
	}
	fc := func(x []float64, prefix string, out int) []float64 {
		wt, bi := w[prefix+".weight"], w[prefix+".bias"]
		y := make([]float64, out)
		for o := range y {
			y[o] = bi[o]
			for i, v := range x {
				y[o] += wt[o*len(x)+i] * v
			}
		}
		return y
	}
	ce := func(l []float64, mask []bool, t []float32) float64 {
		var z float64
		for i, v := range l {
			if mask == nil || mask[i] {
				z += math.Exp(v)
			}
		}
		var loss float64
		for i, v := range l {
			if t[i] != 0 {
				loss -= float64(t[i]) * (v - math.Log(z))
			}
		}
		return loss
	}
	C := cfg.Channels
	a := conv(x, w["stem.conv.weight"], C, cfg.InputPlanes, 3)
	bn(a, "stem.bn", C)
	relu(a)
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("tower.%d.", i)
		h := conv(a, w[p+"conv1.weight"], C, C, 3)
		bn(h, p+"bn1", C)
		relu(h)
		h0 := make([][]float64, n)
		for s := range h {
			h0[s] = append([]float64(nil), h[s]...)
		}
		gpool(h0, C, h, C, p+"gpool.weight")
		h = conv(h, w[p+"conv2.weight"], C, C, 3)
		bn(h, p+"bn2", C)
		for s := range h {
			for j := range h[s] {
				h[s][j] += a[s][j]
			}
		}
		relu(h)
		a = h
	}
	pz := conv(a, w["policy.conv.weight"], cfg.PolicyChannels, C, 1)
	bn(pz, "policy.bn", cfg.PolicyChannels)
	relu(pz)
	gpool(a, C, pz, cfg.PolicyChannels, "policy.gpool.weight")
	vz := conv(a, w["value.conv.weight"], cfg.ValueChannels, C, 1)
	bn(vz, "value.bn", cfg.ValueChannels)
	relu(vz)
	gpool(a, C, vz, cfg.ValueChannels, "value.gpool.weight")
	var pol, val float64
	for s := 0; s < n; s++ {
		logits := fc(pz[s], "policy.fc", env.NumActions)
		pol += ce(logits, b.Mask[s*env.NumActions:(s+1)*env.NumActions], b.Policy[s*env.NumActions:(s+1)*env.NumActions])
		hid := fc(vz[s], "value.fc1", cfg.ValueHidden)
		for i, v := range hid {
			hid[i] = math.Max(v, 0)
		}
		val += ce(fc(hid, "value.fc2", model.NumWDL), nil, b.WDL[s*3:s*3+3])
		if cfg.ScoreHead && b.Score != nil {
			val += sw / vw * ce(fc(hid, "value.score", model.NumScore), nil, b.Score[s*model.NumScore:(s+1)*model.NumScore])
		}
	}
	return (pol + vw*val) / float64(n)
}

// TestLossMatchesDefinition checks the policy and value losses of a forward pass against a direct
// computation from the logits.
func TestLossMatchesDefinition(t *testing.T) {
	net, err := New(microConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	b := modeltest.RandomBatch(5, 4, false)
	opt := net.Optimizer()
	l := net.lossGrad(b, opt, false)
	var pol, val float64
	for r := 0; r < b.N; r++ {
		lg := net.ws.logits[r*env.NumActions : (r+1)*env.NumActions]
		var z float64
		for a, v := range lg {
			if b.Mask[r*env.NumActions+a] {
				z += math.Exp(float64(v))
			}
		}
		for a, v := range lg {
			if tp := b.Policy[r*env.NumActions+a]; tp > 0 {
				pol -= float64(tp) * (float64(v) - math.Log(z))
			}
		}
		w := net.ws.wdl[r*3 : r*3+3]
		zw := math.Exp(float64(w[0])) + math.Exp(float64(w[1])) + math.Exp(float64(w[2]))
		for k := 0; k < 3; k++ {
			val -= float64(b.WDL[r*3+k]) * (float64(w[k]) - math.Log(zw))
		}
	}
	pol /= float64(b.N)
	val /= float64(b.N)
	if !closeTo(l.Policy, pol, 1e-5, 1e-6) || !closeTo(l.Value, val, 1e-5, 1e-6) {
		t.Fatalf("loss %+v, want policy %g value %g", l, pol, val)
	}
	if !closeTo(l.Total, l.Policy+opt.ValueWeight*l.Value+l.L2, 1e-12, 1e-12) || l.L2 <= 0 {
		t.Fatalf("total %+v", l)
	}
}
