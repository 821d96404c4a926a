// Package selfplay plays YINSH games with players: self-play workers whose leaf evaluations are batched
// into one network, arena matches between players, and the baseline players (random, heuristic, rollout
// MCTS).
package selfplay

import "github.com/yinsh-zero/yinsh/env"

// ActionStat describes one candidate action of a decision.
type ActionStat struct {
	Action env.Action
	Prior  float32 // the prior (network or uniform) probability
	Visits int     // search visits (0 for players that do not search)
	Q      float32 // mean value for the side to act, in [-1, 1] (0 if unknown)
}

// Decision is a player's choice with what it knows about the position.
type Decision struct {
	Action env.Action
	// WDL is the player's estimate of win, draw and loss for the side to act (valid if HasValue).
	WDL      [3]float32
	HasValue bool
	// Top lists the most considered actions, best first (may be empty).
	Top []ActionStat
	// Policy is the search's distribution over the root's actions, every action with a positive
	// probability in action-id order: the normalised root visits (PUCT) or the improved policy
	// (Gumbel), what self-play records as the policy target. Nil for decisions without a search
	// (players that do not search, forced actions).
	Policy []PolicyEntry
	// PV is the principal variation starting with Action (may be empty).
	PV []env.Action
}

// Player chooses actions for the side to act. A player is used by one goroutine at a time.
type Player interface {
	// Name identifies the player in results and ratings (e.g. "random", "rollout:200", a checkpoint).
	Name() string
	// Decide returns the player's action in s, which is not terminal. It does not modify s.
	Decide(s *env.State) (Decision, error)
	// NewGame tells the player a new game starts (players that keep a search tree drop it).
	NewGame()
}
