package mcts

import (
	"fmt"
	"math"
	"time"
)

// Config is the search configuration. DefaultConfig gives usable values; the zero value is invalid.
type Config struct {
	// Simulations is the number of new simulations per search (the full budget). The root's own
	// evaluation and visits kept from tree reuse do not count.
	Simulations int
	// MoveTime, when positive, also bounds a search by wall-clock time: it stops at the first
	// simulation batch that starts after MoveTime has passed since Search began (so it overruns by at
	// most one batch of LeavesInFlight simulations), or at Simulations, whichever comes first. At
	// least one batch runs. A timed search is not reproducible; self-play and training stay bounded
	// by simulations (leave MoveTime 0), time controls are for play and evaluation. A timed Gumbel
	// search halves on time as well as on simulations: each of the ceil(log2 m) phases of its
	// sequential halving (m = GumbelConsidered, or fewer legal actions) ends at the latest, at the
	// end of a round of visits, once its share MoveTime/ceil(log2 m) of the time has passed. Its
	// schedule is so sized for the simulations the time allows, however large Simulations is (a
	// purely timed search passes a huge cap), and takes constant memory; where the time does not
	// bind, it is the untimed search exactly. Stopped by the clock during its last phase, it plays
	// the better of its two finalists; stopped earlier (when one round of visits takes longer than
	// a phase's share), the best of the actions it still considers.
	MoveTime time.Duration
	// CPUCT is the PUCT exploration constant: score = Q + CPUCT·P·sqrt(ΣN)/(1+N), Q in [-1, 1].
	CPUCT float64
	// FPUReduction and RootFPUReduction: an unvisited child's Q is its parent's Q less the reduction
	// times sqrt(the prior mass of the visited children) (lc0 / KataGo first-play urgency).
	FPUReduction     float64
	RootFPUReduction float64
	// DirichletAlpha and DirichletFraction mix Dirichlet noise into the root priors of full PUCT
	// searches: P' = (1-fraction)·P + fraction·Dir(alpha). Fraction 0 disables the noise.
	DirichletAlpha    float64
	DirichletFraction float64
	// LeavesInFlight is the number of leaves gathered per evaluator call by one tree, kept apart by
	// virtual loss (1: plain sequential search).
	LeavesInFlight int
	// VirtualLoss is the value, as a loss, that each in-flight simulation counts for in PUCT selection.
	VirtualLoss float64
	// Temperature is for choosing the action: 0 takes the most visited (Gumbel: the sequential-
	// halving winner), T > 0 samples proportionally to visits^(1/T) (Gumbel: to the improved
	// policy^(1/T), the training target, restricted to the actions with visits: the improved policy
	// of an unvisited action rests on its completed value, a guess, and is never sampled).
	Temperature float64

	// Gumbel selects Gumbel AlphaZero (Danihelka et al. 2022, mctx gumbel_muzero_policy): Gumbel-top-k
	// with sequential halving at the root, the deterministic improved-policy selection below it, and
	// the improved policy softmax(logits + σ(completed Q)) as the training target.
	Gumbel bool
	// GumbelConsidered is the number of root actions sampled by Gumbel-top-k (mctx
	// max_num_considered_actions).
	GumbelConsidered int
	// GumbelScale scales the Gumbel noise (0: deterministic, for evaluation games).
	GumbelScale float64
	// GumbelCVisit and GumbelCScale define σ(q) = (CVisit + max N)·CScale·q for q rescaled to [0, 1]
	// (mctx maxvisit_init and value_scale).
	GumbelCVisit float64
	GumbelCScale float64
	// GumbelSigmaNewVisits makes σ's max N at the root count only the visits of the current search,
	// not those its children kept from earlier searches by tree reuse (Tree.Advance). Off (mctx, and
	// the default), σ(q) = (CVisit + max N)·CScale·q grows with the reused visits, so the improved
	// policy, the training target, is sharper the more of the tree was reused, and root selection
	// weighs Q more against the Gumbel noise and the logits. On, a search of n simulations has the
	// same σ scale whatever it reused, as a search from a fresh tree would (q̂, the completed Q, still
	// uses every visit: a reused child's Q is evidence). Below the root nothing changes: σ there counts
	// all of a node's visits, kept ones included, as before (it sets no training target). A search
	// from a fresh root (no visits kept) is the same either way.
	GumbelSigmaNewVisits bool

	// Playout-cap randomisation (KataGo): with 0 < FullFraction < 1 and FastSimulations > 0, a search
	// is full with probability FullFraction (budget Simulations, root noise, Result.Full set: record
	// it as a training target) and fast otherwise (budget FastSimulations, no noise).
	FullFraction    float64
	FastSimulations int

	// ShuffleChildren orders a node's children at random (from the search's rng) when it is
	// expanded, instead of by action id. Selection and the final choice break ties by child order, so
	// with equal priors (pure MCTS) the action numbering would otherwise decide which unvisited child
	// goes first and which equally visited one is played: a move-generation-order bias. OpenSpiel's
	// MCTSBot shuffles for the same reason.
	ShuffleChildren bool
}

// DefaultConfig returns a configuration for analysis: 800 simulations, no noise, greedy choice.
func DefaultConfig() Config {
	return Config{
		Simulations:      800,
		CPUCT:            1.25,
		FPUReduction:     0.25,
		RootFPUReduction: 0.1,
		DirichletAlpha:   0.2,
		LeavesInFlight:   8,
		VirtualLoss:      1,
		GumbelConsidered: 16,
		GumbelScale:      1,
		GumbelCVisit:     50,
		GumbelCScale:     0.1,
		FullFraction:     1,
	}
}

// Validate reports the first field out of range, by name.
func (c *Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("mcts: config: %s is %v, want %s", field, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Simulations < 1:
		return bad("Simulations", c.Simulations, "at least 1")
	case c.MoveTime < 0:
		return bad("MoveTime", c.MoveTime, "0 (no time limit) or positive")
	case !(c.CPUCT >= 0) || !finite(c.CPUCT):
		return bad("CPUCT", c.CPUCT, "a finite number >= 0")
	case !(c.FPUReduction >= 0) || !finite(c.FPUReduction):
		return bad("FPUReduction", c.FPUReduction, "a finite number >= 0")
	case !(c.RootFPUReduction >= 0) || !finite(c.RootFPUReduction):
		return bad("RootFPUReduction", c.RootFPUReduction, "a finite number >= 0")
	case !(c.DirichletFraction >= 0 && c.DirichletFraction <= 1):
		return bad("DirichletFraction", c.DirichletFraction, "0..1")
	case c.DirichletFraction > 0 && !(c.DirichletAlpha > 0 && finite(c.DirichletAlpha)):
		return bad("DirichletAlpha", c.DirichletAlpha, "> 0 when DirichletFraction > 0")
	case c.LeavesInFlight < 1 || c.LeavesInFlight > 4096:
		return bad("LeavesInFlight", c.LeavesInFlight, "1..4096")
	case !(c.VirtualLoss >= 0) || !finite(c.VirtualLoss):
		return bad("VirtualLoss", c.VirtualLoss, "a finite number >= 0")
	case !(c.Temperature >= 0) || !finite(c.Temperature):
		return bad("Temperature", c.Temperature, "a finite number >= 0")
	case c.Gumbel && c.GumbelConsidered < 1:
		return bad("GumbelConsidered", c.GumbelConsidered, "at least 1")
	case !(c.GumbelScale >= 0) || !finite(c.GumbelScale):
		return bad("GumbelScale", c.GumbelScale, "a finite number >= 0")
	case !(c.GumbelCVisit >= 0) || !finite(c.GumbelCVisit):
		return bad("GumbelCVisit", c.GumbelCVisit, "a finite number >= 0")
	case !(c.GumbelCScale >= 0) || !finite(c.GumbelCScale):
		return bad("GumbelCScale", c.GumbelCScale, "a finite number >= 0")
	case !(c.FullFraction >= 0 && c.FullFraction <= 1):
		return bad("FullFraction", c.FullFraction, "0..1")
	case c.FastSimulations < 0:
		return bad("FastSimulations", c.FastSimulations, ">= 0")
	}
	return nil
}

// playoutCap reports whether playout-cap randomisation is on.
func (c *Config) playoutCap() bool {
	return c.FullFraction < 1 && c.FastSimulations > 0
}
