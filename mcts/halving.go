package mcts

import (
	"math"
	"time"
)

// halving is the sequential-halving schedule of a Gumbel search's root (mctx
// get_sequence_of_considered_visits), generated one simulation at a time instead of as a table: for
// each simulation, the visit count (in this search) of the root child it must extend. The m
// considered actions are visited in rounds, one visit each per round, so a round's entries all hold
// the number of rounds before it; a phase is some rounds, and after each phase the actions still
// considered are halved (down to 2; mctx's considered = max(2, considered/2)). The root selection
// then extends the best-scored action with that visit count, which keeps the better half.
//
// An untimed search's phases have mctx's lengths for its simulation budget n: ceil(log2 m) phases of
// about n/log2m simulations, max(1, n/(log2m·considered)) rounds each; so the sequence is mctx's
// exactly, entry for entry. A timed search also ends a phase, at the end of a round, once the
// phase's share of the move time has passed: phase p (from 0) ends at start + (p+1)·MoveTime/log2m
// at the latest, the last pair runs until the deadline. The schedule is then sized for the
// simulations the time allows, whatever the simulation cap (a purely timed search passes a huge
// one), and its memory is constant.
type halving struct {
	m, log2m   int   // considered actions at the start, ceil(log2 m)
	budget     int   // the simulation budget, which sizes the untimed phases
	considered int   // actions in the current phase
	rounds     int   // rounds of the current phase (at most: time may end it earlier)
	round      int   // rounds done in the current phase
	phase      int   // the current phase, from 0
	pos        int   // entries done in the current round
	value      int32 // the current entry: rounds done in all phases
	index      int   // the simulation the current entry is for

	timed      bool
	began      time.Time
	phaseShare time.Duration // MoveTime/log2m
}

// start begins the schedule for m considered actions and budget simulations; deadline, if not
// zero, makes it timed from start.
func (h *halving) start(m, budget int, start, deadline time.Time) {
	*h = halving{m: m, budget: budget, considered: max(m, 1), timed: !deadline.IsZero(), began: start}
	if m > 1 {
		h.log2m = int(math.Ceil(math.Log2(float64(m))))
		h.rounds = max(1, budget/(h.log2m*h.considered))
		h.phaseShare = deadline.Sub(start) / time.Duration(h.log2m)
	}
}

// at returns the entry for simulation i. Calls must not go back: i at least that of the previous
// call (a repeated i, after a collision, returns the same entry). now is read at the end of a
// round, in a timed search's phases before the last.
func (h *halving) at(i int, now func() time.Time) int32 {
	for h.index < i {
		h.next(now)
	}
	return h.value
}

// next moves to the entry of the next simulation.
func (h *halving) next(now func() time.Time) {
	h.index++
	if h.pos++; h.pos < h.considered {
		return
	}
	h.pos = 0
	h.value++
	if h.m <= 1 {
		return // one action: every simulation extends it
	}
	h.round++
	end := h.round >= h.rounds
	if !end && h.timed && h.phase < h.log2m-1 {
		end = !now().Before(h.began.Add(time.Duration(h.phase+1) * h.phaseShare))
	}
	if end {
		h.phase++
		h.round = 0
		h.considered = max(2, h.considered/2)
		h.rounds = max(1, h.budget/(h.log2m*h.considered))
	}
}
