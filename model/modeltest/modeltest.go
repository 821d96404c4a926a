// Package modeltest provides test inputs shared by the network backends' tests (model/gonum,
// model/torch): the same seed gives both backends the same positions and targets.
package modeltest

import (
	"math/rand/v2"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// RandomBatch builds a training batch of n non-terminal standard-rules positions, each reached by
// up to 80 random plies from the start, drawn from seed. With oneHot the policy target is one random
// legal action and the WDL target one random outcome; otherwise both are random distributions (over
// the legal actions and the three outcomes).
func RandomBatch(seed uint64, n int, oneHot bool) *model.Batch {
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
		s.LegalMask(b.Mask[i*env.NumActions : (i+1)*env.NumActions])
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

// randomStates plays random games from the start for up to maxPly plies each and returns n
// non-terminal positions.
func randomStates(rng *rand.Rand, n, maxPly int) []*env.State {
	var out []*env.State
	for len(out) < n {
		s := env.NewState(env.Standard)
		plies := rng.IntN(maxPly + 1)
		for k := 0; k < plies && !s.IsTerminal(); k++ {
			acts := s.LegalActions(nil)
			if err := s.ApplyAction(acts[rng.IntN(len(acts))]); err != nil {
				panic(err) // a legal action refused: an env bug
			}
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}
