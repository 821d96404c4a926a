package gonum

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// randomStates plays n random games from the start for a random number of plies (up to maxPly) and
// returns non-terminal positions.
func randomStates(rng *rand.Rand, n, maxPly int) []*env.State {
	var out []*env.State
	for len(out) < n {
		s := env.NewState(env.Standard)
		plies := rng.IntN(maxPly + 1)
		for k := 0; k < plies && !s.IsTerminal(); k++ {
			acts := s.LegalActions(nil)
			if err := s.ApplyAction(acts[rng.IntN(len(acts))]); err != nil {
				panic(err)
			}
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}

// randomBatch builds a batch from random positions. With oneHot the policy target is one random legal
// action and the WDL target one random outcome; otherwise both are random distributions.
func randomBatch(t testing.TB, seed uint64, n int, oneHot bool) *model.Batch {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	b := &model.Batch{
		N:      n,
		Planes: make([]float32, n*env.ObservationSize),
		Mask:   make([]bool, n*env.NumActions),
		Policy: make([]float32, n*env.NumActions),
		WDL:    make([]float32, n*model.NumWDL),
	}
	for i, s := range randomStates(rng, n, 80) {
		s.Observation(b.Planes[i*env.ObservationSize : (i+1)*env.ObservationSize])
		m := b.Mask[i*env.NumActions : (i+1)*env.NumActions]
		s.LegalMask(m)
		p := b.Policy[i*env.NumActions : (i+1)*env.NumActions]
		legal := s.LegalActions(nil)
		if oneHot {
			p[legal[rng.IntN(len(legal))]] = 1
			b.WDL[i*3+rng.IntN(3)] = 1
			continue
		}
		var sum float32
		for _, a := range legal {
			p[a] = rng.Float32()
			sum += p[a]
		}
		for _, a := range legal {
			p[a] /= sum
		}
		w := b.WDL[i*3 : i*3+3]
		var ws float32
		for k := range w {
			w[k] = rng.Float32() + 0.1
			ws += w[k]
		}
		for k := range w {
			w[k] /= ws
		}
	}
	return b
}

// microConfig is a very small architecture for gradient checks.
func microConfig() model.Config {
	return model.Config{Name: "micro", InputPlanes: env.NumPlanes, Channels: 4, Blocks: 1, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
}

// perturb randomises every tensor of the net a little (batch-norm γ, β and running statistics
// included) so that checks do not rely on the special values of a fresh initialisation.
func perturb(n *Net, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	// in name order: ranging over the map would hand the draws to the tensors in a different order
	// every run, making every test that perturbs a net nondeterministic
	for _, name := range slices.Sorted(maps.Keys(n.tensors)) {
		t := n.tensors[name]
		for i := range t.Data {
			switch {
			case hasSuffix(name, "running_var"):
				t.Data[i] = 0.5 + rng.Float32()
			case hasSuffix(name, "running_mean"), hasSuffix(name, ".bias"):
				t.Data[i] += float32(rng.NormFloat64() * 0.2)
			case isBN(name):
				t.Data[i] = 0.5 + rng.Float32()
			default:
				t.Data[i] *= 1 + float32(rng.NormFloat64()*0.1)
			}
		}
	}
	n.eng = nil
}

// numGrad returns the central difference (f(x+h) − f(x−h)) / (x+h − (x−h)) at x[i], using the
// float32 values actually stored.
func numGrad(x []float32, i int, h float64, f func() float64) float64 {
	orig := x[i]
	x[i] = float32(float64(orig) + h)
	hi := x[i]
	fp := f()
	x[i] = float32(float64(orig) - h)
	lo := x[i]
	fm := f()
	x[i] = orig
	return (fp - fm) / (float64(hi) - float64(lo))
}

// close reports whether a and b agree within rel relative and abs absolute tolerance.
func closeTo(a, b, rel, abs float64) bool {
	return math.Abs(a-b) <= abs+rel*math.Max(math.Abs(a), math.Abs(b))
}

// dot64 is Σ a·b in float64.
func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func randSlice(rng *rand.Rand, n int, scale float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64() * scale)
	}
	return s
}
