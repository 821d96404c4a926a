package env

import "math/rand/v2"

// RandomPlayout plays uniformly random legal actions from s until the game ends, modifying s, and
// returns the number of actions played. buf is scratch space for legal actions (pass one with capacity
// 256 to avoid allocation).
func RandomPlayout(s *State, r *rand.Rand, buf []Action) int {
	n := 0
	for s.phase != PhaseOver {
		buf = s.LegalActions(buf)
		s.apply(buf[r.IntN(len(buf))])
		n++
	}
	return n
}
