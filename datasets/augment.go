package datasets

import (
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// Batch is a set of training examples ready for a network: the network's own batch type, filled by
// Window.Sample and Augmenter.Write as plain row-major slices (sample i's rows start at i×size):
//
//	Planes [N, env.ObservationSize]  observation of the position, from the view of the side to act
//	Mask   [N, env.NumActions]       legal actions
//	Policy [N, env.NumActions]       search policy target, summing to 1 over legal actions
//	WDL    [N, 3]                    game outcome as win/draw/loss for the side to act
//	Score  [N, model.NumScore]       the final score difference for the side to act, one-hot
//	                                 (class d+3 for d = its rings removed − the opponent's at the
//	                                 game's end); all zero when the game did not end on the board
//	                                 (a resignation): no score target
//
// Each example is seen through one of the board's symmetries, the same one for all its rows. Mask
// and Score are always filled (model.Batch allows them nil). Resize (model.Batch.Resize) sets N and
// the lengths.
type Batch = model.Batch

// ScoreTarget writes the one-hot score row of the side to act c (clear when !ended) given the rings
// removed at the game's end, final[White] and final[Black].
func ScoreTarget(row []float32, final [2]uint8, c env.Color, ended bool) {
	clear(row[:model.NumScore])
	if !ended {
		return
	}
	d := int(final[c]) - int(final[1-c])
	row[min(max(d+3, 0), model.NumScore-1)] = 1
}

// Augmenter writes training examples under a board symmetry. It holds scratch space, so use one per
// goroutine; the zero value is ready to use.
type Augmenter struct {
	obs   []float32
	legal []env.Action
}

// Write fills example i of b with state s seen through symmetry t (0 is the identity):
// planes T(observation of s), mask T(legal actions of s), the dense policy with
// Policy[T(a)] = p / Σp for each entry (a, p), and the value wdl (already from the side to act's view,
// which no symmetry changes).
func (g *Augmenter) Write(b *Batch, i int, s *env.State, t int, policy []PolicyEntry, wdl [3]float32) {
	planes := b.Planes[i*env.ObservationSize : (i+1)*env.ObservationSize]
	mask := b.Mask[i*env.NumActions : (i+1)*env.NumActions]
	pol := b.Policy[i*env.NumActions : (i+1)*env.NumActions]
	if t == 0 {
		s.Observation(planes)
		s.LegalMask(mask)
	} else {
		if g.obs == nil {
			g.obs = make([]float32, env.ObservationSize)
			g.legal = make([]env.Action, 0, 256)
		}
		s.Observation(g.obs)
		env.TransformPlanes(t, g.obs, planes)
		// The image of the legal actions, as env.TransformMask would give, without a pass over all
		// 2,142 entries.
		clear(mask)
		g.legal = s.LegalActions(g.legal[:0])
		for _, a := range g.legal {
			mask[env.TransformAction(t, a)] = true
		}
	}
	clear(pol)
	var sum float32
	for _, e := range policy {
		sum += e.Prob
	}
	if sum > 0 {
		for _, e := range policy {
			pol[env.TransformAction(t, env.Action(e.Action))] += e.Prob / sum
		}
	}
	copy(b.WDL[3*i:3*i+3], wdl[:])
}
