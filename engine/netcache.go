package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// isCheckpointSpec reports whether spec names a checkpoint file or the reference network rather
// than a built-in player (selfplay.Builtin), a level or nothing, as selfplay.OpenPlayer tells them
// apart.
func isCheckpointSpec(spec string) bool {
	return spec != "" && !selfplay.Builtin(spec) && !selfplay.IsLevel(spec)
}

// checkpointName is the name of a checkpoint's players: the file name without its extension (as
// selfplay names them).
func checkpointName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// netCache keeps the network of the checkpoint loaded last, so that what rebuilds the player
// (set sims, set movetime, set seed, set player with the same file, newgame with another variant)
// and the analysis searcher reuse it instead of reading and decoding the file again. The network's
// weights never change (model.Net.Predict is safe for concurrent use), so the player's batcher and
// the searcher's can share it. A file that changed on disk since it was loaded (another size or
// modification time: a training run writing a new checkpoint over it) is loaded anew.
type netCache struct {
	path string
	size int64
	mod  time.Time
	net  model.Net
	// loader loads a checkpoint on the engine's backend (nil: none, checkpoints are refused)
	loader func(path string) (model.Net, error)
	// evicted are networks replaced in the cache that players may still use: closed by flush,
	// once the players built on them are closed
	evicted []model.Net
}

// flush closes the networks evicted from the cache.
func (c *netCache) flush() {
	for _, n := range c.evicted {
		n.Close()
	}
	c.evicted = nil
}

// close closes every network the cache holds.
func (c *netCache) close() {
	c.flush()
	if c.net != nil {
		c.net.Close()
	}
	*c = netCache{loader: c.loader}
}

// load returns the network of the checkpoint at path, from the cache if the file is unchanged;
// "reference" is variant v's reference network (nets.Resolve).
func (c *netCache) load(path string, v env.Variant) (model.Net, error) {
	path, err := nets.Resolve(path, v)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if c.net != nil && c.path == path && c.size == fi.Size() && c.mod.Equal(fi.ModTime()) {
		return c.net, nil
	}
	if c.loader == nil {
		return nil, errors.New("no backend to load a checkpoint with (engine.Options.Load is nil)")
	}
	net, err := c.loader(path)
	if err != nil {
		return nil, err
	}
	if c.net != nil {
		c.evicted = append(c.evicted, c.net)
	}
	c.path, c.size, c.mod, c.net = path, fi.Size(), fi.ModTime(), net
	return net, nil
}

// checkpointLoader returns load behind nets.Resolve (the reference network's spec names the cached
// file of variant v's network), or nil when load is nil (openSearcher then refuses checkpoints, naming the missing
// backend). Both backends read through model.ReadCheckpoint, which refuses a directory, a device or
// a named pipe before opening it (reading /dev/zero or a FIFO as a checkpoint would never end).
func checkpointLoader(load func(string) (model.Net, error), v env.Variant) func(string) (model.Net, error) {
	if load == nil {
		return nil
	}
	return func(path string) (model.Net, error) {
		path, err := nets.Resolve(path, v)
		if err != nil {
			return nil, err
		}
		return load(path)
	}
}

// checkpointError is selfplay.OpenPlayer's error for a spec that does not load as a checkpoint.
func checkpointError(path string, err error) error {
	return fmt.Errorf(`selfplay: player %q is not reference, level:N, random, heuristic, rollout:N or engine:"CMD", and loading it as a checkpoint failed: %w`, path, err)
}

// netPlayerBatch is the network batch of the engine's checkpoint players: selfplay's for players
// made without PlayerOptions.Parallel (the engine plays one game).
const netPlayerBatch = 64

// openPlayer is selfplay.OpenPlayer, except that a checkpoint's network comes from the engine's
// cache: only the players' search and their batcher, which depend on the simulations and the move
// time, are built anew. The closer stops that batcher; the network stays cached.
func (e *Engine) openPlayer(spec string, opts selfplay.PlayerOptions) (selfplay.PlayerFactory, io.Closer, error) {
	if selfplay.IsLevel(spec) { // the level loads its variant's reference network itself, and closes it
		opts.Load = e.nets.loader
		if opts.Load == nil {
			return nil, nil, fmt.Errorf("player %s: no backend to load the reference network with", spec)
		}
		return selfplay.OpenPlayer(spec, opts)
	}
	if !isCheckpointSpec(spec) {
		return selfplay.OpenPlayer(spec, opts)
	}
	if opts.Simulations() < 1 {
		return nil, nil, fmt.Errorf("selfplay: player %s: simulations must be at least 1", spec)
	}
	if err := opts.Search.Validate(); err != nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: %w", spec, err)
	}
	net, err := e.nets.load(spec, opts.Variant)
	if err != nil {
		return nil, nil, checkpointError(spec, err)
	}
	np, err := selfplay.NewNetPlayers(checkpointName(spec), net.Predict, opts.Config(), netPlayerBatch, opts.RolloutMix)
	if err != nil {
		return nil, nil, err
	}
	return np.Factory(), np, nil
}
