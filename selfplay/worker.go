package selfplay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// Config configures self-play games.
type Config struct {
	Variant env.Variant
	// Search is the search for every action: simulations, c_puct, root noise, Gumbel, playout-cap
	// randomisation (FullFraction/FastSimulations). Its Temperature is replaced per action below.
	Search mcts.Config
	// TemperatureActions: the first TemperatureActions actions of a game are chosen with
	// Temperature (τ, usually 1); later ones greedily (τ = 0).
	TemperatureActions int
	Temperature        float64
	// TreeReuse keeps the searched subtree from one action to the next.
	TreeReuse bool
	// ResignThreshold: a player resigns when its root value (win - loss) has been below it for
	// ResignConsecutive consecutive own searches (0 or -1 or lower disables, values are in [-1, 1]).
	ResignThreshold   float64
	ResignConsecutive int
	// ResignCheckFraction of games never resign, so false resignations can be counted.
	ResignCheckFraction float64
	// Generator names the network (checkpoint id) recorded in each game.
	Generator string
	// ImprovedValue records, and tests for resignation, the search's estimate of the improved
	// policy's value (mcts.Result.ImprovedValue and ImprovedWDL: Σ π′·q̂ under Gumbel) instead of the
	// visit-weighted mean of the root's children (Result.Value and WDL). Under PUCT both are the same.
	ImprovedValue bool
}

// Position is the search's record of one action of a game.
type Position struct {
	// Policy is the sparse training target (probabilities summing to 1 over legal actions); empty
	// for positions that are not training targets (fast searches of playout-cap randomisation).
	Policy []PolicyEntry
	// WDL is the root's win/draw/loss estimate for the side to act.
	WDL [3]float32
	// Full marks a full search (a training target).
	Full bool
}

// PolicyEntry is one action's probability in a sparse policy: the game record's own type
// (datasets.PolicyEntry, its Action an env.Action id as uint16), so a search's policy is a
// record's policy target without a copy.
type PolicyEntry = datasets.PolicyEntry

// Game is one finished self-play game.
type Game struct {
	Index     int // game number within the run
	Seed      uint64
	Variant   env.Variant
	Generator string
	Actions   []env.Action
	Positions []Position // one per action
	Outcome   env.Outcome
	// Resigned is the colour that resigned (-1 if none); the outcome is then a win for the other.
	Resigned int
	// WouldResign is the colour that would have resigned in a resignation-check game (-1 if none).
	WouldResign int
	// Opponent names the player of OpponentColor in a game against an opponent ("" in self-play).
	Opponent      string
	OpponentColor env.Color
}

// Stats summarises a self-play run.
type Stats struct {
	Games, Actions, Searches, Simulations int
	Elapsed                               time.Duration
	// FalseResigns counts check games whose would-be resigner did not lose; Checked counts check
	// games where someone would have resigned.
	FalseResigns, Checked int
}

// RunOptions configures Run.
type RunOptions struct {
	Games    int
	Parallel int    // games played at once; each has its own tree, all share the evaluator
	Seed     uint64 // game i is seeded from (Seed, i): a game's play does not depend on scheduling
	// FirstIndex numbers the games (to continue a run after a restart).
	FirstIndex int
	// Indices, if set, are the numbers of the games to play, instead of FirstIndex ..
	// FirstIndex+Games-1 (Games and FirstIndex are then ignored): a resumed run plays exactly the
	// games it has not recorded yet, whichever finished before it was killed.
	Indices []int
	// OnGame receives each finished game (serialised; an error stops the run).
	OnGame func(Game) error
	// Progress, if set, is called after every search with the number of searches so far (from many
	// goroutines; must be cheap and safe for concurrent use).
	Progress func(searches int64)
	// Opponent, if set, may give game number i an opponent: a player that makes every action of
	// colour c instead of the search (nil player: a self-play game). Its actions are recorded without
	// a policy target (Full false) and it never resigns; the searching side's are as in self-play.
	// Called from many goroutines.
	Opponent func(i int) (p Player, c env.Color, err error)
	// Evaluator, if set, gives the evaluator of the game with seed s (GameSeed(Seed, i)) instead of
	// ev: for example ev mixed with random rollouts seeded by the game, so that a position recurring
	// in other games and generations (openings) gets fresh rollouts rather than the same ones.
	Evaluator func(seed uint64) mcts.Evaluator
	// Stop, if set, is asked before each game starts: true starts no more games, and Run returns
	// once the games in progress are finished (a cluster worker drains its games this way when a
	// new network arrives). Called from many goroutines.
	Stop func() bool
}

// Run plays opts.Games self-play games, opts.Parallel at a time, every search going through ev
// (typically an mcts.Batcher in front of one network, so leaves of all games share batches).
func Run(ctx context.Context, cfg Config, ev mcts.Evaluator, opts RunOptions) (Stats, error) {
	if opts.Indices != nil {
		opts.Games = len(opts.Indices)
	}
	if opts.Games < 0 || opts.Parallel < 1 {
		return Stats{}, fmt.Errorf("selfplay: games %d, parallel %d", opts.Games, opts.Parallel)
	}
	index := func(k int) int { return opts.FirstIndex + k }
	if opts.Indices != nil {
		index = func(k int) int { return opts.Indices[k] }
	}
	if err := cfg.Search.Validate(); err != nil {
		return Stats{}, err
	}
	start := time.Now()
	var (
		mu       sync.Mutex
		st       Stats
		searches atomic.Int64
	)
	err := parallelTrees(ctx, cfg.Search, ev, opts.Games, opts.Parallel, opts.Stop, func(ctx context.Context, tree *mcts.Tree, k int) error {
		i := index(k)
		var err error
		if opts.Evaluator != nil {
			err = tree.SetEvaluator(opts.Evaluator(GameSeed(opts.Seed, i)))
		}
		var g Game
		var sims int
		if err == nil {
			g, sims, err = playSelfplayGame(ctx, cfg, tree, i, opts.Seed, opts.Opponent, &searches, opts.Progress)
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil && opts.OnGame != nil {
			err = opts.OnGame(g)
		}
		if err != nil {
			return fmt.Errorf("selfplay: game %d: %w", i, err)
		}
		st.Games++
		st.Actions += len(g.Actions)
		st.Simulations += sims
		if g.WouldResign >= 0 {
			st.Checked++
			if g.Outcome != winnerOf(env.Color(g.WouldResign).Other()) {
				st.FalseResigns++
			}
		}
		return nil
	})
	st.Searches = int(searches.Load())
	st.Elapsed = time.Since(start)
	if err == nil && ctx.Err() != nil && opts.Games > st.Games {
		err = context.Cause(ctx)
	}
	return st, err
}

// parallelTrees calls work(ctx, tree, k) for k = 0 .. n-1, parallel calls at a time, each worker
// with its own tree (search config sc, evaluator ev) that it keeps from one call to the next. Before
// each call it asks stop (if set): true starts no more. The first error (a context cancellation
// aside) cancels the calls in progress and is returned; work serialises its own results.
func parallelTrees(ctx context.Context, sc mcts.Config, ev mcts.Evaluator, n, parallel int, stop func() bool, work func(ctx context.Context, tree *mcts.Tree, k int) error) error {
	var (
		mu       sync.Mutex
		firstErr error
		next     int
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < min(parallel, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tree, err := mcts.NewTree(sc, ev)
			if err != nil {
				mu.Lock()
				firstErr = errors.Join(firstErr, err)
				mu.Unlock()
				cancel()
				return
			}
			for {
				mu.Lock()
				if next >= n || ctx.Err() != nil || (stop != nil && stop()) {
					mu.Unlock()
					return
				}
				k := next
				next++
				mu.Unlock()
				if err := work(ctx, tree, k); err != nil {
					mu.Lock()
					if firstErr == nil && !errors.Is(err, context.Canceled) {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func winnerOf(c env.Color) env.Outcome {
	if c == env.White {
		return env.WhiteWins
	}
	return env.BlackWins
}

// GameSeed derives game i's seed from a run seed.
func GameSeed(seed uint64, i int) uint64 {
	return seed*0x9e3779b97f4a7c15 + uint64(i)*0xbf58476d1ce4e5b9 + 1
}

// playSelfplayGame plays game i with the given tree (and the opponent that pickOpponent, if set,
// gives it); it returns the game and its simulation count.
func playSelfplayGame(ctx context.Context, cfg Config, tree *mcts.Tree, i int, runSeed uint64, pickOpponent func(int) (Player, env.Color, error), searches *atomic.Int64, progress func(int64)) (Game, int, error) {
	seed := GameSeed(runSeed, i)
	rng := rand.New(rand.NewPCG(seed, 0x53454c46))
	g := Game{Index: i, Seed: seed, Variant: cfg.Variant, Generator: cfg.Generator, Resigned: -1, WouldResign: -1}
	check := rng.Float64() < cfg.ResignCheckFraction
	resignOn := cfg.ResignThreshold > -1 && cfg.ResignConsecutive > 0
	var low [2]int
	s := env.NewState(cfg.Variant)
	tree.Reset(s)
	var opp Player
	var oppColor env.Color
	if pickOpponent != nil {
		var err error
		if opp, oppColor, err = pickOpponent(i); err != nil {
			return g, 0, fmt.Errorf("opponent: %w", err)
		}
	}
	if opp != nil {
		opp.NewGame()
		g.Opponent, g.OpponentColor = opp.Name(), oppColor
		if c, ok := opp.(interface{ Close() error }); ok {
			defer c.Close() // an external engine goes back to its pool
		}
	}
	ob, _ := opp.(Observer) // told every action of the game, its own included
	sims := 0
	scfg := cfg.Search
	var legal []env.Action
	// play applies a, records it with pos and moves the tree along
	play := func(a env.Action, pos Position) error {
		if err := s.ApplyAction(a); err != nil {
			return err
		}
		g.Actions = append(g.Actions, a)
		g.Positions = append(g.Positions, pos)
		if ob != nil {
			ob.Observe(a)
		}
		if !cfg.TreeReuse {
			tree.Reset(s)
			return nil
		}
		return tree.Advance(a)
	}
	for !s.IsTerminal() {
		if err := ctx.Err(); err != nil {
			return g, sims, err
		}
		if len(g.Actions) >= MaxGameActions {
			return g, sims, fmt.Errorf("game exceeded %d actions", MaxGameActions)
		}
		if opp != nil && s.CurrentPlayer() == oppColor {
			d, err := opp.Decide(s)
			if err != nil {
				return g, sims, fmt.Errorf("opponent %s: %w", opp.Name(), err)
			}
			pos := Position{WDL: [3]float32{0.5, 0, 0.5}}
			if d.HasValue {
				pos.WDL = d.WDL
			}
			if err := play(d.Action, pos); err != nil {
				return g, sims, fmt.Errorf("opponent %s: %w", opp.Name(), err)
			}
			continue
		}
		if legal = s.LegalActions(legal); len(legal) == 1 {
			// a forced action: played without search, and not a training target (its policy is
			// certain; datasets.Target with no policy and no root value)
			if err := play(legal[0], Position{}); err != nil {
				return g, sims, err
			}
			continue
		}
		want := 0.0
		if len(g.Actions) < cfg.TemperatureActions {
			want = cfg.Temperature
		}
		if scfg.Temperature != want {
			scfg.Temperature = want
			if err := tree.SetConfig(scfg); err != nil {
				return g, sims, err
			}
		}
		res, err := tree.Search(rng)
		if err != nil {
			return g, sims, err
		}
		sims += res.Simulations
		n := searches.Add(1)
		if progress != nil {
			progress(n)
		}
		value, wdl := res.Value, res.WDL
		if cfg.ImprovedValue {
			value, wdl = res.ImprovedValue, res.ImprovedWDL
		}
		pos := Position{WDL: wdl, Full: res.Full}
		if res.Full {
			for a, p := range res.Policy {
				if p > 0 {
					pos.Policy = append(pos.Policy, PolicyEntry{Action: uint16(a), Prob: p})
				}
			}
		}
		me := s.CurrentPlayer()
		if resignOn && s.Phase() == env.PhaseMove {
			if float64(value) < cfg.ResignThreshold {
				low[me]++
			} else {
				low[me] = 0
			}
			if low[me] >= cfg.ResignConsecutive {
				if !check {
					g.Resigned = int(me)
					g.Outcome = winnerOf(me.Other())
					return g, sims, nil
				}
				if g.WouldResign < 0 {
					g.WouldResign = int(me)
				}
			}
		}
		if err := play(res.Action, pos); err != nil {
			return g, sims, err
		}
	}
	g.Outcome = s.Outcome()
	return g, sims, nil
}
