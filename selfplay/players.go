package selfplay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// PlayerOptions are the settings a player spec is built with.
type PlayerOptions struct {
	// Sims is the number of search simulations per decision for searching players (checkpoints);
	// rollout:N players use N unless Sims is set explicitly by the caller via RolloutSims.
	Sims int
	// Variant is the rules variant of the games (some players need it to build their search).
	Variant env.Variant
	// Gumbel makes network players use Gumbel root search (deterministic, no noise).
	Gumbel bool
	// RolloutMix is network players' leaf value mix λ: (1-λ)·network + λ·random rollout (0: none).
	RolloutMix float32
}

// ParsePlayer turns a player spec into a factory: "random", "heuristic", "rollout:N" (pure MCTS with N
// random-rollout simulations per decision) or the path of a checkpoint file (network-guided search with
// opts.Sims simulations).
func ParsePlayer(spec string, opts PlayerOptions) (PlayerFactory, error) {
	switch {
	case spec == "random":
		return func(seed uint64) (Player, error) { return NewRandom(seed), nil }, nil
	case spec == "heuristic":
		return func(seed uint64) (Player, error) { return NewHeuristic(seed), nil }, nil
	case strings.HasPrefix(spec, "rollout:"):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "rollout:"))
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, fmt.Errorf("selfplay: player %q: want rollout:N with N in [1, 1000000]", spec)
		}
		return rolloutFactory(n, opts)
	case spec == "":
		return nil, fmt.Errorf("selfplay: empty player spec (want random, heuristic, rollout:N or a checkpoint file)")
	}
	return checkpointFactory(spec, opts)
}
