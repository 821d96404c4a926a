package gonum

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

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
