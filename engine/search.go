package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// errNotSearching is returned by openSearcher for player specs that do not search (random,
// heuristic, engine:"CMD") or whose decisions are not a search's (level:N, analysed by its
// decisions as the others are).
var errNotSearching = errors.New("the player does not search")

// searcher builds search trees for a searching player spec (rollout:N, a checkpoint file) that
// search as the spec's players do (selfplay.OpenPlayer): the same configuration and the same leaf
// evaluation. The players of selfplay keep their trees to themselves; analysis needs its own, to add
// visits chunk by chunk and report the root in between. One searcher serves many trees at once:
// for a checkpoint, every tree's leaves go through one batcher to one network.
type searcher struct {
	name string
	cfg  mcts.Config   // the players' search; Simulations is the spec's budget (rollout:N's N, or sims)
	net  *mcts.Batcher // the network's evaluator, nil for rollout players
	mix  float32       // checkpoint players' leaf value mix λ with one random rollout
	// owned is the network when the searcher owns it (closed with it), nil when it is borrowed
	owned model.Net
}

// openSearcher returns the searcher of spec, errNotSearching if spec is a player that does not
// search, or the error that building it gives (a bad rollout:N, settings mcts refuses, a checkpoint
// that does not load). set is the player's search settings: a checkpoint searches with set.Config()
// as its players do (selfplay.PlayerOptions.Search), a rollout:N player with set.RolloutConfig(N).
// parallel is the number of trees searched at once, which sizes the network's batches (their
// leaves in flight). load loads the checkpoint's network; with own the searcher closes it on
// Close, else it is borrowed (the engine's cache keeps it).
func openSearcher(spec string, set selfplay.Search, parallel int, load func(path string) (model.Net, error), own bool) (*searcher, error) {
	switch {
	case spec == "random" || spec == "heuristic" || spec == "" || strings.HasPrefix(spec, protocol.SpecPrefix),
		selfplay.IsLevel(spec): // a level's decisions are its recipe's, not a search's best
		return nil, errNotSearching
	case strings.HasPrefix(spec, "rollout:"):
		n, err := selfplay.ParseRollout(spec)
		if err != nil {
			return nil, err
		}
		cfg := set.RolloutConfig(n)
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("player %s: %w", spec, err)
		}
		return &searcher{name: spec, cfg: cfg}, nil
	}
	if set.Simulations() < 1 {
		return nil, fmt.Errorf("player %s: simulations must be at least 1", spec)
	}
	if err := set.Validate(); err != nil {
		return nil, fmt.Errorf("player %s: %w", spec, err)
	}
	if load == nil {
		return nil, fmt.Errorf("player %s: no backend to load a checkpoint with (the options' Load is nil)", spec)
	}
	net, err := load(spec)
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", spec, err)
	}
	var owned model.Net
	if own {
		owned = net
	}
	cfg := set.Config() // as checkpoint players: greedy, no noise, PUCT or Gumbel, their leaves in flight
	ev := &mcts.NetEvaluator{Net: net.Predict, PolicyLogits: true, WDLLogits: true}
	// eager, as selfplay's network players: one tree alone never waits for leaves that will not come
	b, err := mcts.NewBatcher(ev, mcts.BatcherOptions{MaxBatch: max(parallel, 1) * cfg.LeavesInFlight, Eager: true})
	if err != nil {
		if owned != nil {
			owned.Close()
		}
		return nil, err
	}
	return &searcher{name: checkpointName(spec), cfg: cfg, net: b, mix: set.RolloutMix, owned: owned}, nil
}

// ownBudget returns the budget of a search that is given none: the player's own, its simulations
// (rollout:N's N, or the checkpoint's capped Sims) and its move time.
func (s *searcher) ownBudget() budget {
	return budget{Sims: s.cfg.Simulations, MoveTime: s.cfg.MoveTime}
}

// leaf returns the leaf evaluator of one tree; seed varies its rollouts.
func (s *searcher) leaf(seed uint64) mcts.Evaluator {
	switch {
	case s.net == nil:
		return mcts.Rollout{Playouts: 1, Seed: seed}
	case s.mix > 0:
		return &mcts.Mix{Net: s.net, Rollout: mcts.Rollout{Playouts: 1, Seed: seed}, Lambda: s.mix}
	}
	return s.net
}

// newTree returns an empty tree and the random stream of its searches.
func (s *searcher) newTree(seed uint64) (*mcts.Tree, *rand.Rand, error) {
	t, err := mcts.NewTree(s.cfg, s.leaf(seed))
	if err != nil {
		return nil, nil, err
	}
	return t, rand.New(rand.NewPCG(seed, 0x414e4c5a)), nil
}

// Close stops the network's batcher.
func (s *searcher) Close() error {
	if s == nil || s.net == nil {
		return nil
	}
	err := s.net.Close()
	if s.owned != nil {
		if cerr := s.owned.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// budget bounds an incremental search: Sims new simulations, MoveTime of search, both (the first
// reached ends it) or neither (only the caller's stop ends it).
type budget struct {
	Sims     int
	MoveTime time.Duration
}

func (b budget) bounded() bool { return b.Sims > 0 || b.MoveTime > 0 }

// chunkTime is the longest one chunk of an incremental search runs (it then overruns by at most one
// batch of leaves): how often it looks at its stop condition and can report.
const chunkTime = 20 * time.Millisecond

// reportError wraps an error of searchMore's report callback, to tell it from a search error.
type reportError struct{ err error }

func (e reportError) Error() string { return e.err.Error() }
func (e reportError) Unwrap() error { return e.err }

// searchMore adds simulations to the tree's current root in chunks (each chunk is one
// mcts.Tree.Search, which keeps the visits of the earlier ones), until the budget is spent, stop
// returns true, or the tree holds more than maxBytes. After each chunk it calls report, if not nil,
// with the root's summary, the simulations added so far and the time since the start; an error of
// report ends the search and is returned wrapped in reportError. At least one chunk runs. It
// returns the last summary and the simulations added.
//
// base is the player's search (searcher.cfg). A PUCT chunk runs at most chunkTime (it then overruns
// by at most one batch of leaves), so the search looks at its stop condition and can report that
// often; PUCT chunks add up to the one search the player would run. A Gumbel search plans its
// sequential halving for the simulations (and the time) it is given, so a Gumbel chunk is the
// player's whole search (base's simulations and move time) on top of the visits already in the
// tree, cut to what is left of the budget: with the player's own budget (searcher.ownBudget) it is
// one chunk, exactly the search the player decides with; a larger budget, or none, repeats it,
// and stop is looked at after each.
func searchMore(t *mcts.Tree, rng *rand.Rand, base mcts.Config, b budget, maxBytes int, stop func() bool,
	report func(res *mcts.Result, sims int, elapsed time.Duration) error) (*mcts.Result, int, error) {
	start := time.Now()
	sims := 0
	for {
		cfg := chunkConfig(base, b, sims, time.Since(start))
		if err := t.SetConfig(cfg); err != nil {
			return nil, sims, err
		}
		res, err := t.Search(rng)
		if err != nil {
			return nil, sims, err
		}
		sims += res.Simulations
		elapsed := time.Since(start)
		if report != nil {
			if err := report(res, sims, elapsed); err != nil {
				return res, sims, reportError{err}
			}
		}
		if b.Sims > 0 && sims >= b.Sims || b.MoveTime > 0 && elapsed >= b.MoveTime ||
			t.Bytes() > maxBytes || stop != nil && stop() {
			return res, sims, nil
		}
	}
}

// chunkConfig is the search of searchMore's next chunk, after sims simulations and elapsed time of
// budget b.
func chunkConfig(base mcts.Config, b budget, sims int, elapsed time.Duration) mcts.Config {
	cfg := base
	left := max(b.MoveTime-elapsed, time.Microsecond) // what is left of a move time
	// Gumbel: the player's own search, cut to what is left of the budget
	if base.Gumbel {
		if b.Sims > 0 {
			cfg.Simulations = min(cfg.Simulations, b.Sims-sims)
		}
		if b.MoveTime > 0 {
			cfg.MoveTime = left
			if base.MoveTime > 0 {
				cfg.MoveTime = min(base.MoveTime, left)
			}
		}
		return cfg
	}
	cfg.Simulations = selfplay.MaxSims
	if b.Sims > 0 {
		cfg.Simulations = b.Sims - sims
	}
	cfg.MoveTime = chunkTime
	if b.MoveTime > 0 {
		cfg.MoveTime = min(chunkTime, left)
	}
	return cfg
}
