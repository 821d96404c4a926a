package selfplay

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// PlayerOptions are the settings a player spec is built with.
type PlayerOptions struct {
	// Search is the searching players' settings: checkpoints search with Search.Config();
	// rollout:N players always use N simulations, bounded by Search.MoveTime as well.
	Search
	// Variant is the rules variant of the games (some players need it to build their search).
	Variant env.Variant
	// Parallel is the number of games played at once, which sizes network players' batches
	// (Parallel × LeavesInFlight leaves; 0: 64 leaves).
	Parallel int
	// Load loads checkpoint players' networks: the backend they run on (model/gonum's Load, or
	// model/torch's). Required for checkpoint players: selfplay links no backend. The network is
	// closed with the factory's closer.
	Load func(path string) (model.Net, error)
	// EngineTimeout bounds an external engine's decision (engine:"CMD" players); past it the engine
	// is killed and loses the game. 0: DefaultEngineTimeout, or 2·MoveTime + 2 s with a move time.
	EngineTimeout time.Duration
}

// maxBatch is the network batch of players searching with cfg: every game's leaves in flight, so a
// batch is complete as soon as all games wait for it (64 when Parallel is not set).
func (o PlayerOptions) maxBatch(cfg mcts.Config) int {
	if o.Parallel > 0 {
		return o.Parallel * cfg.LeavesInFlight
	}
	return 64
}

// ParsePlayer turns a player spec into a factory (see OpenPlayer). What the players hold lives as long
// as the program: use OpenPlayer where it should be released (external engines' processes, a
// network's batcher).
func ParsePlayer(spec string, opts PlayerOptions) (PlayerFactory, error) {
	f, _, err := OpenPlayer(spec, opts)
	return f, err
}

// OpenPlayer turns a player spec into a factory and a closer that releases what its players share:
// "random", "heuristic", "rollout:N" (pure MCTS with N random-rollout simulations per decision),
// "level:N" (strength level N in [1, MaxLevel] over opts.Variant's reference network; see Levels),
// engine:"CMD ARGS" (an external program speaking the engine protocol, one process per game played
// at once, started now), "reference" (opts.Variant's embedded network, package nets) or the path of
// a checkpoint file (network-guided search with opts.Sims simulations). Close it when no player of the factory is in use any more.
func OpenPlayer(spec string, opts PlayerOptions) (PlayerFactory, io.Closer, error) {
	switch {
	case spec == "random":
		return func(seed uint64) (Player, error) { return NewRandom(seed), nil }, nopCloser{}, nil
	case spec == "heuristic":
		return func(seed uint64) (Player, error) { return NewHeuristic(seed), nil }, nopCloser{}, nil
	case strings.HasPrefix(spec, "rollout:"):
		n, err := ParseRollout(spec)
		if err != nil {
			return nil, nil, err
		}
		f, err := rolloutFactory(n, opts)
		return f, nopCloser{}, err
	case IsLevel(spec):
		n, err := ParseLevel(spec)
		if err != nil {
			return nil, nil, err
		}
		return levelFactory(spec, n, opts)
	case strings.HasPrefix(spec, protocol.SpecPrefix):
		return externalFactory(spec, opts)
	case spec == "":
		return nil, nil, fmt.Errorf(`selfplay: empty player spec (want reference, level:N, random, heuristic, rollout:N, engine:"CMD ARGS" or a checkpoint file)`)
	}
	return checkpointFactory(spec, opts)
}

// Builtin reports whether a player spec names a player without a network of its own: random,
// heuristic, rollout:N or an external engine (engine:"CMD"). The other specs are "reference", the
// levels (which play a variant's reference network) and checkpoint files.
func Builtin(spec string) bool {
	return spec == "random" || spec == "heuristic" || strings.HasPrefix(spec, "rollout:") ||
		strings.HasPrefix(spec, protocol.SpecPrefix)
}

// TrainedVariant returns the variant the network a player spec plays was trained for: v itself for
// "reference" and the levels (they play v's reference network, FollowsVariant), the variant a
// checkpoint file records in its header for a file, and false for a built-in player or the empty
// spec, a checkpoint that records no variant (older ones) and a file that cannot be read (left to
// the player's loader to report). It reads the header only; model.ReadMetadata refuses a named pipe
// or a directory before reading anything.
func TrainedVariant(spec string, v env.Variant) (env.Variant, bool) {
	switch {
	case FollowsVariant(spec):
		return v, true
	case spec == "" || Builtin(spec):
		return 0, false
	}
	h, err := model.ReadMetadata(spec)
	if err != nil {
		return 0, false
	}
	return h.Meta.VariantValue()
}

// MaxSims is the most simulations one search may be given: rollout:N's largest N, and the cap of a
// search bounded by a move time alone.
const MaxSims = 10_000_000

// ParseRollout returns the N of a rollout:N spec, in [1, MaxSims].
func ParseRollout(spec string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(spec, "rollout:"))
	if err != nil || !strings.HasPrefix(spec, "rollout:") || n < 1 || n > MaxSims {
		return 0, fmt.Errorf("selfplay: player %q: want rollout:N with N in [1, %d]", spec, MaxSims)
	}
	return n, nil
}

// SimsCap returns the simulation budget of checkpoint players: sims, or MaxSims when a move time
// bounds the search and sims was not given (a purely timed search).
func SimsCap(sims int, given bool, movetime time.Duration) int {
	if movetime > 0 && !given {
		return MaxSims
	}
	return sims
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
