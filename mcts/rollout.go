package mcts

import (
	"math/bits"

	"github.com/yinsh-zero/yinsh/env"
)

// DefaultRolloutPlies caps a random playout when Rollout.MaxPlies is zero.
const DefaultRolloutPlies = 1000

// Rollout is the classic pure-MCTS evaluator: uniform priors, and a value from random playouts to the
// end of the game. It is deterministic and safe for concurrent use: the playouts of a state are drawn
// from a generator seeded with (Seed, the state's hash), so a state always gets the same value.
type Rollout struct {
	// Playouts is the number of random games per evaluated state (at least 1).
	Playouts int
	// Seed varies the playouts.
	Seed uint64
	// MaxPlies caps a playout (0: DefaultRolloutPlies); a capped playout is scored like marker
	// exhaustion: more rings removed wins, equal is a draw.
	MaxPlies int
}

// Evaluate implements Evaluator.
func (r Rollout) Evaluate(reqs []Request, out []Evaluation) error {
	n := max(r.Playouts, 1)
	maxPlies := r.MaxPlies
	if maxPlies <= 0 {
		maxPlies = DefaultRolloutPlies
	}
	var buf [320]env.Action
	for i, q := range reqs {
		fillUniform(out[i].Priors)
		me := q.State.CurrentPlayer()
		var wdl [3]float32
		g := splitmix{r.Seed ^ q.State.Hash()*0x9e3779b97f4a7c15}
		for k := 0; k < n; k++ {
			wdl[playout(q.State, me, maxPlies, &g, buf[:0])]++
		}
		for k := range wdl {
			wdl[k] /= float32(n)
		}
		out[i].WDL = wdl
	}
	return nil
}

// playout plays uniformly random actions from s (not modified) and returns 0, 1 or 2 for a win, draw or
// loss of me.
func playout(s *env.State, me env.Color, maxPlies int, g *splitmix, buf []env.Action) int {
	st := *s
	for ply := 0; !st.IsTerminal() && ply < maxPlies; ply++ {
		legal := st.LegalActions(buf)
		buf = legal
		if err := st.ApplyAction(legal[g.intn(len(legal))]); err != nil {
			panic("mcts: rollout: legal action refused: " + err.Error()) // an env bug, not an input error
		}
	}
	var win bool
	switch st.Outcome() {
	case env.WhiteWins:
		win = me == env.White
	case env.BlackWins:
		win = me == env.Black
	case env.Draw:
		return 1
	default: // capped: score by rings removed
		a, b := st.RingsRemoved(me), st.RingsRemoved(me^1)
		if a == b {
			return 1
		}
		win = a > b
	}
	if win {
		return 0
	}
	return 2
}

// splitmix is SplitMix64, a tiny allocation-free generator for playouts.
type splitmix struct{ s uint64 }

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a number in [0, n) (Lemire's multiply-shift; the bias is below 2^-50 for n < 2^14).
func (g *splitmix) intn(n int) int {
	hi, _ := bits.Mul64(g.next(), uint64(n))
	return int(hi)
}
