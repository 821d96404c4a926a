package selfplay

import (
	"fmt"
	"time"

	"github.com/yinsh-zero/yinsh/mcts"
)

// Search is a searching player's settings: what a checkpoint player's search is built from, the
// same for play, arena, the engine, analysis (the engine's analyze, the JSON analyser, the web
// server's /api/analyze) and the players those build. Config turns it into the mcts.Config, and
// Validate checks it there: mcts.Config.Validate is the one place that accepts or refuses a
// combination (a timed Gumbel search among them), never the commands' flag checks. The zero value
// is not valid (Sims 0); rollout:N players take only MoveTime from it (their N is their budget).
type Search struct {
	// Sims is the simulations per decision of checkpoint players. With a MoveTime it caps the timed
	// search only if SimsSet (the user gave it); otherwise the search is bounded by time alone
	// (MaxSims). See Simulations.
	Sims    int
	SimsSet bool
	// MoveTime, when positive, bounds every search by time as well (mcts.Config.MoveTime); 0: by
	// simulations alone.
	MoveTime time.Duration
	// Gumbel makes checkpoint players search with Gumbel AlphaZero's root (deterministic, no
	// Gumbel noise) instead of PUCT.
	Gumbel bool
	// LeavesInFlight is how many leaves a checkpoint player's search sends per network call, kept
	// apart by virtual loss (0: mcts.DefaultConfig's). 1 is sequential search.
	LeavesInFlight int
	// RolloutMix is checkpoint players' leaf value mix λ: (1-λ)·network + λ·one random rollout
	// (mcts.Mix; 0: the network's value alone).
	RolloutMix float32
}

// Simulations is the simulation budget of a checkpoint player's search: Sims, or MaxSims when a
// move time bounds the search and Sims was not given (a purely timed search).
func (s Search) Simulations() int { return SimsCap(s.Sims, s.SimsSet, s.MoveTime) }

// Config returns the search of checkpoint players with these settings: SearchConfig(Simulations(),
// Gumbel) with LeavesInFlight when set and MoveTime. It does not validate (see Validate).
func (s Search) Config() mcts.Config {
	cfg := SearchConfig(s.Simulations(), s.Gumbel)
	if s.LeavesInFlight > 0 {
		cfg.LeavesInFlight = s.LeavesInFlight
	}
	cfg.MoveTime = s.MoveTime
	return cfg
}

// RolloutConfig returns the search of a rollout:N player under these settings: RolloutSearchConfig(n)
// bounded by MoveTime as well.
func (s Search) RolloutConfig(n int) mcts.Config {
	cfg := RolloutSearchConfig(n)
	cfg.MoveTime = s.MoveTime
	return cfg
}

// Validate reports whether a checkpoint player can search with these settings: the mix in [0, 1],
// then Config's mcts.Config.Validate (the simulations, the move time, the leaves in flight, and
// whether Gumbel goes with a move time are its rules).
func (s Search) Validate() error {
	if !(s.RolloutMix >= 0 && s.RolloutMix <= 1) {
		return fmt.Errorf("selfplay: search: RolloutMix is %g, want [0, 1]", s.RolloutMix)
	}
	if s.LeavesInFlight < 0 {
		return fmt.Errorf("selfplay: search: LeavesInFlight is %d, want 0 (the default) or more", s.LeavesInFlight)
	}
	cfg := s.Config()
	return cfg.Validate()
}
