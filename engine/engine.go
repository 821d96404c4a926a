// Package engine implements the YINSH engine protocol: a line-based text protocol on stdin/stdout with
// GTP (Go Text Protocol, version 2) framing, through which game clients (GUIs, tournament managers,
// other engines) drive a YINSH Zero player. docs/engine-protocol.md is the reference.
//
// Framing, as in GTP: a command is one line, "[id] name [args...]"; the answer is "=[id] result" on
// success or "?[id] message" on failure, followed by an empty line. Control characters other than tab
// and newline are dropped, '#' starts a comment, tabs count as spaces, blank lines are ignored.
package engine

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// Version is the engine's version, answered by the version command.
const Version = "0.1.0"

// ProtocolVersion is the version of this protocol, answered by protocol_version. Version 2 added
// analyze, policy and the GTP aliases (clear_board, boardsize, komi, a colour for genmove and play)
// to version 1; nothing of version 1 changed.
const ProtocolVersion = "2"

// Name is answered by the name command.
const Name = "YINSH Zero"

// DefaultSims is the number of simulations per decision of checkpoint players when Options.Sims is 0
// (the arena's default too). rollout:N players use their N.
const DefaultSims = 200

// DefaultPlayer is the player spec used when Options.Player is empty, for its variant: the
// variant's reference network (nets.Reference) where one is embedded (nets.Has: standard and blitz),
// else the heuristic baseline.
func DefaultPlayer(v env.Variant) string { return nets.DefaultPlayer(v) }

// Options configures an Engine.
type Options struct {
	// Player is a player spec as selfplay.ParsePlayer takes it (random, heuristic, rollout:N, a
	// checkpoint file, reference); empty means DefaultPlayer(Variant).
	Player string
	// Search is the player's search settings (selfplay.Search), which its decisions and the
	// analysis (analyze) search with. Sims 0 means DefaultSims; MoveTime bounds every search of
	// searching players by time (see `set movetime`), Sims then being a cap only if SimsSet.
	selfplay.Search
	// Seed seeds the player; the same seed and the same commands give the same answers.
	Seed uint64
	// Variant is the rules variant of the first game (newgame may change it).
	Variant env.Variant
	// AnyVariant lets a checkpoint that records another variant play the game's (by default
	// set player and newgame refuse it, naming both).
	AnyVariant bool
	// Log receives one record per genmove (and per rebuilt player); nil discards.
	Log *slog.Logger
	// Load loads checkpoint players' networks: the backend (model/gonum's or model/torch's Load).
	// Required for checkpoint players (the engine links no backend); nil refuses them.
	Load func(path string) (model.Net, error)
}

// Engine holds one game and one player and answers protocol commands. It is not safe for concurrent
// use; one Engine serves one client.
type Engine struct {
	spec string
	// set is the player's search settings: set.Sims the simulations (set.SimsSet: set explicitly,
	// so that with a move time it caps the search, else there is no cap), set.MoveTime the time
	// per decision (0: bounded by simulations)
	set     selfplay.Search
	seed    uint64
	variant env.Variant
	log     *slog.Logger

	anyVar bool
	clock  gtpClock // GTP time_settings, mapped onto movetime

	player selfplay.Player
	closer io.Closer // releases what the player's factory holds
	nets   netCache  // the network of the checkpoint loaded last, shared by players and analysis

	state   env.State
	history []env.State  // history[i] is the state before moves[i]
	moves   []env.Action // actions since newgame or position
	buf     []env.Action

	// analysis (analyze, policy): built on first use for the player spec, dropped when it changes
	search  *searcher
	atree   *mcts.Tree // the analysis tree, its root the position akey names
	arng    *rand.Rand
	akey    string
	pending *analysis // set by cmdAnalyze for Run or Exec to run

	quit bool
}

// New returns an engine at the start of a game, or an error if the player cannot be built.
func New(opts Options) (*Engine, error) {
	if opts.Player == "" {
		opts.Player = DefaultPlayer(opts.Variant)
	}
	switch {
	case opts.Sims == 0:
		opts.Sims = DefaultSims
	case opts.Sims < 0:
		return nil, fmt.Errorf("engine: sims must be at least 1, got %d", opts.Sims)
	}
	if opts.MoveTime < 0 {
		return nil, fmt.Errorf("engine: move time must be 0 or positive, got %v", opts.MoveTime)
	}
	e := &Engine{log: opts.Log, variant: opts.Variant, anyVar: opts.AnyVariant, nets: netCache{loader: opts.Load}}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if err := e.configure(opts.Player, opts.Search, opts.Seed, opts.Variant); err != nil {
		return nil, err
	}
	e.reset(env.NewState(opts.Variant))
	return e, nil
}

// configure builds a player from spec, search settings, seed and variant and, if that works, makes
// them current. On error the engine is unchanged. Every change of a setting goes through here (or
// through the player's SetMoveTime, which mcts.Tree.SetConfig validates): the settings are checked
// by the player's search, mcts.Config.Validate, and nowhere else.
func (e *Engine) configure(spec string, set selfplay.Search, seed uint64, v env.Variant) error {
	if selfplay.FollowsVariant(spec) && !nets.Has(v) {
		// the levels and the reference play the game's variant's network: refused where none exists
		return fmt.Errorf("player %s plays the reference network of the game's variant, and there is none for %s (newgame with another variant, or set player another)", spec, v)
	}
	if trained, ok := selfplay.TrainedVariant(spec, v); ok && trained != v && !e.anyVar {
		return fmt.Errorf("checkpoint %s was trained for %s, the game is %s (newgame %s, or start the engine with --any-variant)", spec, trained, v, trained)
	}
	factory, closer, err := e.openPlayer(spec, selfplay.PlayerOptions{Search: set, Variant: v})
	if err != nil {
		return err
	}
	p, err := factory(seed)
	if err != nil {
		closer.Close()
		return err
	}
	if e.closer != nil {
		e.closer.Close() // the old player's resources: a network's batcher, an engine process
	}
	e.dropSearcher()
	e.nets.flush() // networks no player or searcher uses any more
	e.spec, e.set, e.seed, e.variant, e.player, e.closer = spec, set, seed, v, p, closer
	e.log.Debug("player", "spec", spec, "name", p.Name(), "sims", set.Sims, "movetime", set.MoveTime, "gumbel", set.Gumbel,
		"seed", seed, "variant", v.String())
	return nil
}

// reset starts a game from s.
func (e *Engine) reset(s *env.State) {
	e.state = *s
	e.history = e.history[:0]
	e.moves = e.moves[:0]
	e.player.NewGame()
}

// State returns a copy of the current game state.
func (e *Engine) State() *env.State { return e.state.Clone() }

// apply plays a for the side to act, keeping the state before it for undo.
func (e *Engine) apply(a env.Action) error {
	before := e.state
	if err := e.state.ApplyAction(a); err != nil {
		return err
	}
	e.history = append(e.history, before)
	e.moves = append(e.moves, a)
	if ob, ok := e.player.(selfplay.Observer); ok {
		ob.Observe(a) // an external engine follows the game
	}
	return nil
}

// Close releases the player's resources (a network's batcher, an external engine's process).
func (e *Engine) Close() error {
	if e.closer == nil {
		return nil
	}
	err := e.closer.Close()
	e.closer = nil
	e.dropSearcher()
	e.nets.close()
	return err
}

// undo takes back the last n actions (n ≤ len(e.moves)).
func (e *Engine) undo(n int) {
	if n <= 0 {
		return
	}
	k := len(e.moves) - n
	e.state = e.history[k]
	e.history = e.history[:k]
	e.moves = e.moves[:k]
}
