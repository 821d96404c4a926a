package model

import (
	"math/rand/v2"

	"github.com/yinsh-zero/yinsh/env"
)

// BenchInputs returns a batch of n benchmark inputs that every backend's benchmark uses: positions
// reached by 0-39 random actions from the empty standard board, their observation planes
// [n, env.NumPlanes, 11, 11], legal masks [n, env.NumActions] and one-hot policy targets on a random
// legal action [n, env.NumActions].
func BenchInputs(n int, rng *rand.Rand) (planes []float32, mask []bool, policy []float32, err error) {
	planes = make([]float32, n*env.ObservationSize)
	mask = make([]bool, n*env.NumActions)
	policy = make([]float32, n*env.NumActions)
	for i := 0; i < n; i++ {
		s := env.NewState(env.Standard)
		for k := rng.IntN(40); k > 0 && !s.IsTerminal(); k-- {
			acts := s.LegalActions(nil)
			if err := s.ApplyAction(acts[rng.IntN(len(acts))]); err != nil {
				return nil, nil, nil, err
			}
		}
		s.Observation(planes[i*env.ObservationSize:])
		s.LegalMask(mask[i*env.NumActions : (i+1)*env.NumActions])
		legal := s.LegalActions(nil)
		policy[i*env.NumActions+int(legal[rng.IntN(len(legal))])] = 1
	}
	return planes, mask, policy, nil
}
