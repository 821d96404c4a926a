package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// Reanalyse (MuZero Reanalyse, Schrittwieser et al. 2021): a recorded game is replayed action by
// action and every position that was a training target is searched again by the current network,
// giving a fresh policy target (the search's distribution) and root value in place of the ones
// recorded when an older network played it. The actions, the outcome and the positions that are not
// targets (forced actions, an opponent's) stay as recorded. The searched actions are not played:
// the tree advances along the recorded game (reusing the subtree under TreeReuse), so a reanalysed
// game costs about what playing it cost, without making a new game.

// ReanalyseOptions configures Reanalyse.
type ReanalyseOptions struct {
	// Parallel is the number of games searched at once (each its own tree, all sharing the
	// evaluator, as in Run).
	Parallel int
	// Seed seeds the searches: game k's randomness (Gumbel noise) comes from (Seed, its record ID),
	// so a game's new targets do not depend on scheduling.
	Seed uint64
	// Evaluator, if set, gives the evaluator of a game from that game's seed (rollouts seeded per
	// game, as RunOptions.Evaluator); nil uses ev.
	Evaluator func(seed uint64) mcts.Evaluator
	// OnGame receives each game's reanalysed record, with its index in recs (serialised, in the
	// order games finish; an error stops the run).
	OnGame func(k int, r *datasets.Record) error
	// Progress, if set, is called after every search with the number of searches so far (from many
	// goroutines).
	Progress func(searches int64)
}

// ReanalyseStats summarises a Reanalyse run.
type ReanalyseStats struct {
	Games, Searches, Simulations int
	Elapsed                      time.Duration
	// PolicyChange is the summed total-variation distance between each searched position's
	// recorded and new policy target (½ Σ|p − p′|, 0..1 a position); ValueChange the summed
	// |Δ(win − loss)| of its root value (0..2 a position). Divide by Searches for the means: how
	// stale the recorded targets were.
	PolicyChange, ValueChange float64
}

// ReanalyseSeed is the search seed of a reanalysed game with record ID id.
func ReanalyseSeed(seed, id uint64) uint64 { return GameSeed(seed^0x5245414e414c5953, int(id>>1)) ^ id }

// Reanalyse searches every training position of recs again with cfg's search through ev (with
// cfg.Search's playout cap off: every search is full) and hands each game on as a copy with the new
// targets (same ID, generator and actions: the caller renames it). cfg.ImprovedValue picks the root
// value recorded, as in self-play; cfg's temperature, resignation and opponents do not apply. A
// record whose actions are illegal is an error naming it.
func Reanalyse(ctx context.Context, cfg Config, ev mcts.Evaluator, recs []*datasets.Record, opts ReanalyseOptions) (ReanalyseStats, error) {
	if opts.Parallel < 1 {
		return ReanalyseStats{}, fmt.Errorf("selfplay: reanalyse: parallel %d", opts.Parallel)
	}
	sc := cfg.Search
	sc.FullFraction, sc.FastSimulations, sc.Temperature = 1, 0, 0
	if err := sc.Validate(); err != nil {
		return ReanalyseStats{}, err
	}
	start := time.Now()
	var (
		mu       sync.Mutex
		st       ReanalyseStats
		searches atomic.Int64
	)
	err := parallelTrees(ctx, sc, ev, len(recs), opts.Parallel, nil, func(ctx context.Context, tree *mcts.Tree, k int) error {
		r := recs[k]
		seed := ReanalyseSeed(opts.Seed, r.ID)
		var err error
		if opts.Evaluator != nil {
			err = tree.SetEvaluator(opts.Evaluator(seed))
		}
		var out *datasets.Record
		var gs ReanalyseStats
		if err == nil {
			out, gs, err = reanalyseGame(ctx, cfg.ImprovedValue, cfg.TreeReuse, tree, r, seed, &searches, opts.Progress)
		}
		mu.Lock()
		defer mu.Unlock()
		if err == nil && opts.OnGame != nil {
			err = opts.OnGame(k, out)
		}
		if err != nil {
			return fmt.Errorf("selfplay: reanalyse game %d (id %d): %w", k, r.ID, err)
		}
		st.Games++
		st.Simulations += gs.Simulations
		st.PolicyChange += gs.PolicyChange
		st.ValueChange += gs.ValueChange
		return nil
	})
	st.Searches = int(searches.Load())
	st.Elapsed = time.Since(start)
	if err == nil && ctx.Err() != nil && st.Games < len(recs) {
		err = context.Cause(ctx)
	}
	return st, err
}

// reanalyseGame replays r with tree, searching its training positions; it returns the copy with the
// new targets and the game's simulations and target changes.
func reanalyseGame(ctx context.Context, improved, reuse bool, tree *mcts.Tree, r *datasets.Record, seed uint64, searches *atomic.Int64, progress func(int64)) (*datasets.Record, ReanalyseStats, error) {
	var gs ReanalyseStats
	if len(r.Targets) != len(r.Actions) {
		return nil, gs, fmt.Errorf("%d targets for %d actions", len(r.Targets), len(r.Actions))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5245414e))
	out := *r
	out.Targets = make([]datasets.Target, len(r.Targets))
	s := env.NewState(r.Variant)
	tree.Reset(s)
	for i, a := range r.Actions {
		if err := ctx.Err(); err != nil {
			return nil, gs, err
		}
		old := &r.Targets[i]
		t := &out.Targets[i]
		*t = *old
		if old.IsTarget() {
			res, err := tree.Search(rng)
			if err != nil {
				return nil, gs, fmt.Errorf("ply %d: %w", i+1, err)
			}
			gs.Simulations += res.Simulations
			n := searches.Add(1)
			if progress != nil {
				progress(n)
			}
			t.RootWDL = res.WDL
			if improved {
				t.RootWDL = res.ImprovedWDL
			}
			t.Policy = nil
			for act, p := range res.Policy {
				if p > 0 {
					t.Policy = append(t.Policy, datasets.PolicyEntry{Action: uint16(act), Prob: p})
				}
			}
			gs.PolicyChange += policyDistance(old.Policy, t.Policy)
			dv := float64(t.RootWDL[0]-t.RootWDL[2]) - float64(old.RootWDL[0]-old.RootWDL[2])
			if dv < 0 {
				dv = -dv
			}
			gs.ValueChange += dv
		}
		if err := s.ApplyAction(a); err != nil {
			return nil, gs, fmt.Errorf("ply %d %s: %w", i+1, a, err)
		}
		if s.IsTerminal() {
			break
		}
		if reuse {
			if err := tree.Advance(a); err != nil {
				return nil, gs, err
			}
		} else {
			tree.Reset(s)
		}
	}
	return &out, gs, nil
}

// policyDistance is the total-variation distance ½ Σ|p − q| of two sparse policies.
func policyDistance(p, q []datasets.PolicyEntry) float64 {
	m := make(map[uint16]float64, len(p)+len(q))
	for _, e := range p {
		m[e.Action] += float64(e.Prob)
	}
	for _, e := range q {
		m[e.Action] -= float64(e.Prob)
	}
	d := 0.0
	for _, v := range m {
		if v < 0 {
			v = -v
		}
		d += v
	}
	return d / 2
}
