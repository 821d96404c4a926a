package selfplay

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/mcts"
)

// rolloutFactory makes pure-MCTS players: n simulations per decision, each leaf valued by one random
// playout (mcts.Rollout), greedy choice, no noise.
func rolloutFactory(n int, opts PlayerOptions) (PlayerFactory, error) {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = n
	cfg.LeavesInFlight = 1
	cfg.DirichletFraction = 0
	cfg.Temperature = 0
	name := fmt.Sprintf("rollout:%d", n)
	return func(seed uint64) (Player, error) {
		return NewSearchPlayer(name, cfg, mcts.Rollout{Playouts: 1, Seed: seed}, seed)
	}, nil
}
