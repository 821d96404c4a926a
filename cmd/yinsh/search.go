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
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// SearchOptions configures `yinsh search`.
type SearchOptions struct {
	BackendFlags // the backend and device of --checkpoint's network
	Out          io.Writer
	State        *env.State
	Sims         int
	Evaluator    string // uniform or rollout:N (without Checkpoint)
	Gumbel       bool
	Seed         uint64
	Top          int
	// Checkpoint is a network whose priors and values guide the search ("" for Evaluator); Mix is its
	// leaf value's mix with one random rollout, Leaves its leaves per network call.
	Checkpoint string
	Mix        float64
	Leaves     int
	AnyVariant bool
}

func newSearchCmd() *cobra.Command { return newCmdSearch(nil) }

func newCmdSearch(runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{}
	var pf positionFlags
	cmd := &cobra.Command{
		Use:   "search --sims N [--evaluator uniform|rollout:N | --checkpoint FILE] [--gumbel]",
		Short: "Search a position and print the top actions, the principal variation and `best: <token>`",
		Long: `Search a position with Monte Carlo tree search and print the most visited actions (visits, prior,
Q for the side to act, training-target probability), the principal variation, and a last line
"best: <token>".

Evaluators: "uniform" (uniform priors, value 0) or "rollout:N" (uniform priors, value from N random
playouts per leaf: pure MCTS). With --gumbel the root search is Gumbel AlphaZero's sequential halving;
since these evaluators have no prior, it considers every legal action and weighs Q with c_scale 1.

--checkpoint FILE searches with a network instead: its policy is the prior and its WDL the leaf
value (mixed with one random rollout by --rollout-mix), --leaves-in-flight leaves per network call,
exactly the search a checkpoint player runs in play and arena (no root noise; with --gumbel,
Gumbel's defaults and no Gumbel noise).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Sims < 1 || opts.Sims > 10_000_000 {
				return fmt.Errorf("--sims must be 1..10000000, got %d", opts.Sims)
			}
			if opts.Top < 1 {
				return fmt.Errorf("--top must be at least 1, got %d", opts.Top)
			}
			if opts.Checkpoint != "" {
				if cmd.Flags().Changed("evaluator") {
					return fmt.Errorf("give --checkpoint or --evaluator, not both")
				}
				if !(opts.Mix >= 0 && opts.Mix <= 1) {
					return fmt.Errorf("--rollout-mix must be in [0, 1], got %g", opts.Mix)
				}
				if opts.Leaves < 1 || opts.Leaves > 4096 {
					return fmt.Errorf("--leaves-in-flight must be in [1, 4096], got %d", opts.Leaves)
				}
			} else if cmd.Flags().Changed("rollout-mix") {
				return fmt.Errorf("--rollout-mix needs --checkpoint (a network's value to mix)")
			} else if _, err := parseEvaluator(opts.Evaluator, opts.Seed); err != nil {
				return err
			}
			s, err := pf.state()
			if err != nil {
				return err
			}
			if s.IsTerminal() {
				return fmt.Errorf("the position is terminal (%s): nothing to search", s.Outcome())
			}
			if opts.Checkpoint != "" {
				if err := checkVariant("--checkpoint", opts.Checkpoint, s.Variant(), opts.AnyVariant); err != nil {
					return err
				}
			}
			opts.State, opts.Out = s, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return searchRun(opts)
		},
	}
	opts.BackendFlags.add(cmd.Flags())
	cmd.Flags().IntVar(&opts.Sims, "sims", 800, "number of simulations")
	cmd.Flags().StringVar(&opts.Evaluator, "evaluator", "rollout:1", "leaf evaluator: uniform or rollout:N")
	cmd.Flags().BoolVar(&opts.Gumbel, "gumbel", false, "Gumbel AlphaZero root search (sequential halving)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed (search and rollouts)")
	cmd.Flags().IntVar(&opts.Top, "top", 10, "number of actions to list")
	cmd.Flags().StringVar(&opts.Checkpoint, "checkpoint", "", "search with this network's priors and values (instead of --evaluator)")
	cmd.Flags().Float64Var(&opts.Mix, "rollout-mix", 0, "with --checkpoint: leaf value (1-λ)·network + λ·one random rollout")
	cmd.Flags().IntVar(&opts.Leaves, "leaves-in-flight", 8, "with --checkpoint: leaves per network call (1: sequential search)")
	cmd.Flags().BoolVar(&opts.AnyVariant, "any-variant", false, "with --checkpoint: accept a network trained for the other variant")
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

// networkEvaluator loads a checkpoint with load (the --backend and --device; "reference" is variant
// v's reference network) and returns its evaluator (mixed with a random rollout when mix > 0) and a
// description for the search line.
func networkEvaluator(load func(string) (model.Net, error), path string, v env.Variant, mix float64, seed uint64) (mcts.Evaluator, string, func(), error) {
	file, err := nets.Resolve(path, v) // "reference": the file of v's embedded network
	if err != nil {
		return nil, "", nil, err
	}
	net, err := load(file)
	if err != nil {
		return nil, "", nil, err
	}
	var ev mcts.Evaluator = &mcts.NetEvaluator{Net: net.Predict, PolicyLogits: true, WDLLogits: true}
	if mix > 0 {
		ev = &mcts.Mix{Net: ev, Rollout: mcts.Rollout{Playouts: 1, Seed: seed}, Lambda: float32(mix)}
	}
	desc := fmt.Sprintf("network %s (%s, step %d", path, net.Config().Name, net.Step())
	if mix > 0 {
		desc += fmt.Sprintf(", rollout mix %g", mix)
	}
	return ev, desc + ")", func() { net.Close() }, nil
}

func searchRun(opts *SearchOptions) error {
	var ev mcts.Evaluator
	var cfg mcts.Config
	desc := opts.Evaluator
	if opts.Checkpoint != "" {
		var closeNet func()
		load, err := opts.loader()
		if err != nil {
			return err
		}
		if ev, desc, closeNet, err = networkEvaluator(load, opts.Checkpoint, opts.State.Variant(), opts.Mix, opts.Seed); err != nil {
			return err
		}
		defer closeNet()
		cfg = selfplay.Search{Sims: opts.Sims, Gumbel: opts.Gumbel, LeavesInFlight: opts.Leaves}.Config()
	} else {
		var err error
		if ev, err = parseEvaluator(opts.Evaluator, opts.Seed); err != nil {
			return err
		}
		cfg = mcts.DefaultConfig()
		cfg.Simulations = opts.Sims
		if opts.Gumbel {
			cfg.Gumbel = true
			cfg.GumbelConsidered = env.NumActions // every legal action
			cfg.GumbelCScale = 1
		}
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
		kind, res.Simulations, desc, opts.Seed, tree.Nodes(), elapsed.Seconds())
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
