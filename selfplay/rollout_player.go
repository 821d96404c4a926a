package selfplay

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/mcts"
)

// rolloutFactory makes pure-MCTS players: n simulations per decision, each leaf valued by one random
// playout (mcts.Rollout), greedy choice, no noise, children in random order (ties between equal
// priors and equal visit counts are broken at random, not by action id: see
// mcts.Config.ShuffleChildren).
func rolloutFactory(n int, opts PlayerOptions) (PlayerFactory, error) {
	cfg := opts.RolloutConfig(n)
	name := fmt.Sprintf("rollout:%d", n)
	return func(seed uint64) (Player, error) {
		return NewSearchPlayer(name, cfg, mcts.Rollout{Playouts: 1, Seed: seed}, seed)
	}, nil
}

// RolloutSearchConfig is the search of rollout:N players: n simulations, sequential (one leaf in
// flight), greedy, no noise, children in random order.
func RolloutSearchConfig(n int) mcts.Config {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = n
	cfg.LeavesInFlight = 1
	cfg.DirichletFraction = 0
	cfg.Temperature = 0
	cfg.ShuffleChildren = true
	return cfg
}
