package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// Analyzer answers analysis requests for one player spec from many goroutines at once, with the
// search the engine's analyze and RunJSON run: searching players (rollout:N, checkpoints) search a
// tree of their own per request (a checkpoint's trees share one network batcher), the others
// (random, heuristic, engine:"CMD") answer through their Decide. It is what other programs of
// this module (the web board of yinsh serve) analyse with.
type Analyzer struct {
	spec    string
	srch    *searcher
	factory selfplay.PlayerFactory
	closer  io.Closer
	seed    atomic.Uint64

	mu      sync.Mutex
	trees   []idleTree        // trees kept for the next requests
	players []selfplay.Player // players that do not search, kept for the next requests
	closed  bool
}

type idleTree struct {
	t   *mcts.Tree
	rng *rand.Rand
}

// AnalyzerOptions configures NewAnalyzer.
type AnalyzerOptions struct {
	// Player is the player spec (selfplay.OpenPlayer's).
	Player string
	// Search is the player's search settings: a checkpoint is searched as its players search
	// (PUCT or Gumbel, its leaves in flight, its rollout mix), and a request that gives no budget
	// gets the player's own (Sims, 0: DefaultSims; MoveTime).
	selfplay.Search
	// Variant is the variant the players are built for (players that do not search).
	Variant env.Variant
	// Seed seeds the searches; request k searches with Seed+k.
	Seed uint64
	// Parallel is the number of requests expected to search at once; it sizes a checkpoint's
	// network batches (0: DefaultJSONParallel).
	Parallel int
	// Load loads a checkpoint player's network: the backend (required for checkpoints).
	Load func(path string) (model.Net, error)
}

// AnalysisRequest is one position to analyse.
type AnalysisRequest struct {
	State *env.State // not terminal; not modified
	// Sims and MoveTime bound the search (the first reached ends it); with neither, the player's
	// own budget (AnalyzerOptions.Search's Sims and MoveTime, rollout:N's N).
	Sims     int
	MoveTime time.Duration
	// Top is how many candidates to list, most visited first.
	Top int
	// Report, when not nil, is called while a searching player searches, after each chunk of the
	// search (about every 20 ms), with the analysis so far; an error it returns ends the search and
	// Analyze returns it. A player that does not search never calls it.
	Report func(*AnalysisResult) error
}

// AnalysisResult is an analysis of one position, from the view of the side to act.
type AnalysisResult struct {
	Side env.Color
	Best env.Action
	// Searched is true for searching players: Visits, Sims and Policy are then filled in.
	Searched bool
	Visits   int // the root's visits
	Sims     int // the simulations of this search
	WDL      [3]float32
	HasValue bool
	Top      []selfplay.ActionStat
	// Policy holds every legal root action with its prior and visits, in action-id order.
	Policy  []selfplay.ActionStat
	PV      []env.Action
	Elapsed time.Duration
}

// analyzerKeepTrees is how many idle trees an Analyzer keeps for later requests.
const analyzerKeepTrees = 16

// NewAnalyzer builds the analyzer of opts.Player, or returns the error building the player gives.
func NewAnalyzer(opts AnalyzerOptions) (*Analyzer, error) {
	if opts.Sims == 0 {
		opts.Sims = DefaultSims
	}
	if opts.Sims < 0 || opts.Parallel < 0 {
		return nil, fmt.Errorf("engine: analyzer: sims %d and parallel %d, want 0 or more", opts.Sims, opts.Parallel)
	}
	if opts.Parallel == 0 {
		opts.Parallel = DefaultJSONParallel
	}
	a := &Analyzer{spec: opts.Player}
	a.seed.Store(opts.Seed)
	srch, err := openSearcher(opts.Player, opts.Search, opts.Parallel, checkpointLoader(opts.Load, opts.Variant), true)
	switch {
	case errors.Is(err, errNotSearching):
		a.factory, a.closer, err = selfplay.OpenPlayer(opts.Player, selfplay.PlayerOptions{Search: opts.Search, Variant: opts.Variant,
			Parallel: opts.Parallel, Load: opts.Load})
		if err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		a.srch = srch
	}
	return a, nil
}

// Searches reports whether the analyzer's player searches (rollout:N, a checkpoint).
func (a *Analyzer) Searches() bool { return a.srch != nil }

// Name is the player's name (a checkpoint's base name without extension, else the spec).
func (a *Analyzer) Name() string {
	if a.srch != nil {
		return a.srch.name
	}
	return a.spec
}

// Analyze analyses one position. It stops early, with ctx's error, when ctx is done.
func (a *Analyzer) Analyze(ctx context.Context, req AnalysisRequest) (*AnalysisResult, error) {
	if req.State == nil || req.State.IsTerminal() {
		return nil, errors.New("engine: analyze: the game is over")
	}
	if req.Sims < 0 || req.MoveTime < 0 || req.Top < 0 {
		return nil, errors.New("engine: analyze: negative budget or top")
	}
	start := time.Now()
	out := &AnalysisResult{Side: req.State.CurrentPlayer()}
	if a.srch == nil {
		p, err := a.player()
		if err != nil {
			return nil, err
		}
		p.NewGame()
		d, err := p.Decide(req.State)
		if err == nil && !req.State.IsLegal(d.Action) {
			err = fmt.Errorf("player %s chose the illegal action %s", p.Name(), d.Action)
		}
		if err != nil {
			return nil, err
		}
		a.putPlayer(p)
		out.Best, out.WDL, out.HasValue, out.PV = d.Action, d.WDL, d.HasValue, d.PV
		out.Top = d.Top[:min(req.Top, len(d.Top))]
		out.Elapsed = time.Since(start)
		return out, nil
	}
	it, err := a.tree()
	if err != nil {
		return nil, err
	}
	b := budget{Sims: req.Sims, MoveTime: req.MoveTime}
	if !b.bounded() {
		b = a.srch.ownBudget()
	}
	it.t.Reset(req.State)
	var report func(*mcts.Result, int, time.Duration) error
	if req.Report != nil {
		report = func(res *mcts.Result, sims int, _ time.Duration) error {
			return req.Report(searchResult(req.State, res, sims, req.Top, start))
		}
	}
	res, sims, err := searchMore(it.t, it.rng, a.srch.cfg, b, JSONMaxTreeBytes, func() bool { return ctx.Err() != nil }, report)
	var rerr reportError
	if errors.As(err, &rerr) {
		a.putTree(it) // the chunk ended: the tree is whole
		return nil, rerr.err
	}
	if err != nil {
		return nil, err // the tree may be inconsistent: dropped
	}
	if ctx.Err() != nil {
		a.putTree(it)
		return nil, ctx.Err()
	}
	if it.t.Bytes() <= jsonKeepTreeBytes {
		a.putTree(it)
	}
	return searchResult(req.State, res, sims, req.Top, start), nil
}

// searchResult is the analysis of a search's root summary res after sims simulations begun at start.
func searchResult(st *env.State, res *mcts.Result, sims, top int, start time.Time) *AnalysisResult {
	out := &AnalysisResult{Side: st.CurrentPlayer()}
	d := selfplay.DecisionFromResult(res, top)
	out.Best, out.Searched, out.Visits, out.Sims = res.Action, true, res.Visits, sims
	out.WDL, out.HasValue, out.Top, out.PV = d.WDL, true, d.Top, d.PV
	out.Policy = make([]selfplay.ActionStat, len(res.Children))
	for i, c := range res.Children {
		out.Policy[i] = selfplay.ActionStat{Action: c.Action, Prior: c.Prior, Visits: c.Visits, Q: c.Q}
	}
	// children may come shuffled (rollout players)
	slices.SortFunc(out.Policy, func(x, y selfplay.ActionStat) int { return int(x.Action) - int(y.Action) })
	out.Elapsed = time.Since(start)
	return out
}

func (a *Analyzer) tree() (idleTree, error) {
	a.mu.Lock()
	if n := len(a.trees); n > 0 {
		it := a.trees[n-1]
		a.trees = a.trees[:n-1]
		a.mu.Unlock()
		return it, nil
	}
	a.mu.Unlock()
	t, rng, err := a.srch.newTree(a.seed.Add(1) - 1)
	return idleTree{t, rng}, err
}

func (a *Analyzer) putTree(it idleTree) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed && len(a.trees) < analyzerKeepTrees {
		a.trees = append(a.trees, it)
	}
}

func (a *Analyzer) player() (selfplay.Player, error) {
	a.mu.Lock()
	if n := len(a.players); n > 0 {
		p := a.players[n-1]
		a.players = a.players[:n-1]
		a.mu.Unlock()
		return p, nil
	}
	a.mu.Unlock()
	return a.factory(a.seed.Add(1) - 1)
}

func (a *Analyzer) putPlayer(p selfplay.Player) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closed && len(a.players) < analyzerKeepTrees {
		a.players = append(a.players, p)
	}
}

// Close releases the player's resources (a network's batcher, external engines' processes). No
// request may be in flight.
func (a *Analyzer) Close() error {
	a.mu.Lock()
	a.closed, a.trees, a.players = true, nil, nil
	a.mu.Unlock()
	if a.srch != nil {
		return a.srch.Close()
	}
	if a.closer != nil {
		return a.closer.Close()
	}
	return nil
}
