package selfplay

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
)

// SearchConfig returns the search used by network players in evaluation games and play: sims
// simulations, greedy choice, no root noise; Gumbel root search when gumbel is set (better at small
// budgets).
func SearchConfig(sims int, gumbel bool) mcts.Config {
	cfg := mcts.DefaultConfig()
	cfg.Simulations = sims
	cfg.DirichletFraction = 0
	cfg.Temperature = 0
	if gumbel {
		cfg.Gumbel = true
		cfg.GumbelScale = 0 // deterministic: no Gumbel noise in evaluation
	}
	return cfg
}

// NetPlayers makes search players that share one network through one batching evaluator, so the
// leaves of games played in parallel are evaluated together. Close stops the batcher.
type NetPlayers struct {
	name    string
	cfg     mcts.Config
	batcher *mcts.Batcher
	mix     float32
	once    sync.Once
}

// NewNetPlayers wraps a network's batched inference (model.Net.Predict has this shape). With
// rolloutMix λ > 0 the leaf value is (1-λ)·network + λ·one random rollout (mcts.Mix).
func NewNetPlayers(name string, predict mcts.Net, cfg mcts.Config, maxBatch int, rolloutMix float32) (*NetPlayers, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ev := &mcts.NetEvaluator{Net: predict, PolicyLogits: true, WDLLogits: true}
	// eager: a batch takes the leaves waiting when the network is free, so a player that searches
	// alone (an engine, the one side of an arena whose turn it is) never waits for leaves that will not come
	b, err := mcts.NewBatcher(ev, mcts.BatcherOptions{MaxBatch: max(maxBatch, 1), Eager: true})
	if err != nil {
		return nil, err
	}
	return &NetPlayers{name: name, cfg: cfg, batcher: b, mix: rolloutMix}, nil
}

// Factory returns a PlayerFactory making search players over the shared network. With a rollout
// mix, each player's rollouts are seeded with its own seed, so games differ even between
// deterministic searches.
func (n *NetPlayers) Factory() PlayerFactory {
	return func(seed uint64) (Player, error) {
		var leaf mcts.Evaluator = n.batcher
		if n.mix > 0 {
			leaf = &mcts.Mix{Net: n.batcher, Rollout: mcts.Rollout{Playouts: 1, Seed: seed}, Lambda: n.mix}
		}
		return NewSearchPlayer(n.name, n.cfg, leaf, seed)
	}
}

// Stats returns the batcher's batch-size statistics.
func (n *NetPlayers) Stats() mcts.BatchStats { return n.batcher.Stats() }

// Close stops the batching evaluator.
func (n *NetPlayers) Close() error {
	var err error
	n.once.Do(func() { err = n.batcher.Close() })
	return err
}

// checkpointFactory loads a training checkpoint with opts.Load (the backend) and makes network
// search players searching with opts.Search.Config(). The player's name is the checkpoint's file
// name.
func checkpointFactory(spec string, opts PlayerOptions) (PlayerFactory, io.Closer, error) {
	if opts.Simulations() < 1 {
		return nil, nil, fmt.Errorf("selfplay: player %s: simulations must be at least 1", spec)
	}
	if err := opts.Search.Validate(); err != nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: %w", spec, err)
	}
	if opts.Load == nil {
		return nil, nil, fmt.Errorf(`selfplay: player %q is not reference, level:N, random, heuristic, rollout:N or engine:"CMD", and there is no backend to load it as a checkpoint with (PlayerOptions.Load is nil)`, spec)
	}
	path, err := nets.Resolve(spec, opts.Variant) // "reference": the file of the variant's embedded network
	if err != nil {
		return nil, nil, err
	}
	net, err := opts.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf(`selfplay: player %q is not reference, level:N, random, heuristic, rollout:N or engine:"CMD", and loading it as a checkpoint failed: %w`, spec, err)
	}
	name := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
	cfg := opts.Config()
	np, err := NewNetPlayers(name, net.Predict, cfg, opts.maxBatch(cfg), opts.RolloutMix)
	if err != nil {
		net.Close()
		return nil, nil, err
	}
	// the batcher serves every player of the factory until Close, then the network goes
	return np.Factory(), netCloser{np, net}, nil
}

// netCloser closes a factory's batcher, then its network.
type netCloser struct {
	np  *NetPlayers
	net model.Net
}

func (c netCloser) Close() error {
	err := c.np.Close()
	if cerr := c.net.Close(); err == nil {
		err = cerr
	}
	return err
}
