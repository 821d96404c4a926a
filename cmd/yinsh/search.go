package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// SearchOptions configures `yinsh search`.
type SearchOptions struct {
	Out       io.Writer
	State     *env.State
	Sims      int
	Evaluator string // uniform or rollout:N
	Gumbel    bool
	Seed      uint64
	Top       int
}

func newSearchCmd() *cobra.Command { return newCmdSearch(nil) }

func newCmdSearch(runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{}
	var pf positionFlags
	cmd := &cobra.Command{
		Use:   "search --sims N [--evaluator uniform|rollout:N] [--gumbel]",
		Short: "Search a position and print the top actions, the principal variation and `best: <token>`",
		Long: `Search a position with Monte Carlo tree search and print the most visited actions (visits, prior,
Q for the side to act, training-target probability), the principal variation, and a last line
"best: <token>".

Evaluators: "uniform" (uniform priors, value 0) or "rollout:N" (uniform priors, value from N random
playouts per leaf: pure MCTS). With --gumbel the root search is Gumbel AlphaZero's sequential halving;
since these evaluators have no prior, it considers every legal action and weighs Q with c_scale 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Sims < 1 || opts.Sims > 10_000_000 {
				return fmt.Errorf("--sims must be 1..10000000, got %d", opts.Sims)
			}
			if opts.Top < 1 {
				return fmt.Errorf("--top must be at least 1, got %d", opts.Top)
			}
			if _, err := parseEvaluator(opts.Evaluator, opts.Seed); err != nil {
				return err
			}
			s, err := pf.state()
			if err != nil {
				return err
			}
			if s.IsTerminal() {
				return fmt.Errorf("the position is terminal (%s): nothing to search", s.Outcome())
			}
			opts.State, opts.Out = s, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return searchRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Sims, "sims", 800, "number of simulations")
	cmd.Flags().StringVar(&opts.Evaluator, "evaluator", "rollout:1", "leaf evaluator: uniform or rollout:N")
	cmd.Flags().BoolVar(&opts.Gumbel, "gumbel", false, "Gumbel AlphaZero root search (sequential halving)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed (search and rollouts)")
	cmd.Flags().IntVar(&opts.Top, "top", 10, "number of actions to list")
	pf.add(cmd)
	return cmd
}

// parseEvaluator turns "uniform" or "rollout:N" into an evaluator.
func parseEvaluator(spec string, seed uint64) (mcts.Evaluator, error) {
	if spec == "uniform" {
		return mcts.Uniform{}, nil
	}
	if n, ok := strings.CutPrefix(spec, "rollout:"); ok {
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 || k > 10000 {
			return nil, fmt.Errorf("--evaluator %q: want rollout:N with N in 1..10000", spec)
		}
		return mcts.Rollout{Playouts: k, Seed: seed}, nil
	}
	return nil, fmt.Errorf("--evaluator %q: want uniform or rollout:N", spec)
}

func searchRun(opts *SearchOptions) error {
	ev, err := parseEvaluator(opts.Evaluator, opts.Seed)
	if err != nil {
		return err
	}
	cfg := mcts.DefaultConfig()
	cfg.Simulations = opts.Sims
	if opts.Gumbel {
		cfg.Gumbel = true
		cfg.GumbelConsidered = env.NumActions // every legal action
		cfg.GumbelCScale = 1
	}
	tree, err := mcts.NewTree(cfg, ev)
	if err != nil {
		return err
	}
	tree.Reset(opts.State)
	start := time.Now()
	res, err := tree.Search(rand.New(rand.NewPCG(opts.Seed, 0x79696e7368)))
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	s := opts.State
	w := opts.Out
	fmt.Fprintf(w, "position: %s\n", s.Text())
	fmt.Fprintf(w, "to act: %s (%s), %d legal actions\n", s.CurrentPlayer(), s.Phase(), len(res.Children))
	kind := "puct"
	if opts.Gumbel {
		kind = "gumbel"
	}
	fmt.Fprintf(w, "search: %s, %d simulations, evaluator %s, seed %d, %d nodes, %.3fs\n",
		kind, res.Simulations, opts.Evaluator, opts.Seed, tree.Nodes(), elapsed.Seconds())
	fmt.Fprintf(w, "value: %+.3f (win %.3f draw %.3f loss %.3f for %s)\n", res.Value+0, res.WDL[0], res.WDL[1], res.WDL[2], s.CurrentPlayer())
	cs := append([]mcts.ChildStats(nil), res.Children...)
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Visits != cs[j].Visits {
			return cs[i].Visits > cs[j].Visits
		}
		return cs[i].Policy > cs[j].Policy
	})
	fmt.Fprintf(w, "%-10s %8s %8s %7s %8s\n", "action", "visits", "prior", "q", "policy")
	for _, c := range cs[:min(opts.Top, len(cs))] {
		q := "-"
		if c.Visits > 0 {
			q = fmt.Sprintf("%+.3f", c.Q+0) // +0 prints -0 as +0.000
		}
		fmt.Fprintf(w, "%-10s %8d %8.4f %7s %8.4f\n", c.Action, c.Visits, c.Prior, q, c.Policy)
	}
	pv := make([]string, len(res.PV))
	for i, a := range res.PV {
		pv[i] = a.String()
	}
	fmt.Fprintf(w, "pv: %s\n", strings.Join(pv, " "))
	fmt.Fprintf(w, "best: %s\n", res.Action)
	return nil
}
