package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// BenchMCTSOptions configures `yinsh bench mcts`.
type BenchMCTSOptions struct {
	Out       io.Writer
	Sims      int
	Positions int
	Seed      uint64
	Variant   env.Variant
	Gumbel    bool
}

func newCmdBenchMCTS(runF func(*BenchMCTSOptions) error) *cobra.Command {
	opts := &BenchMCTSOptions{}
	var variant string
	cmd := &cobra.Command{
		Use:   "mcts",
		Short: "Search mid-game positions with the uniform evaluator on one goroutine; report sims/s and bytes/node",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			if opts.Sims < 1 || opts.Sims > 10_000_000 {
				return fmt.Errorf("--sims must be 1..10000000, got %d", opts.Sims)
			}
			if opts.Positions < 1 || opts.Positions > 100_000 {
				return fmt.Errorf("--positions must be 1..100000, got %d", opts.Positions)
			}
			opts.Variant, opts.Out = v, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return benchMCTSRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Sims, "sims", 800, "simulations per search")
	cmd.Flags().IntVar(&opts.Positions, "positions", 16, "number of mid-game positions searched")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed for the positions and the search")
	cmd.Flags().StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	cmd.Flags().BoolVar(&opts.Gumbel, "gumbel", false, "Gumbel root search instead of PUCT")
	return cmd
}

// midgamePositions plays random placements and 14..28 random actions per position, keeping positions
// where the side to act is to move a ring.
func midgamePositions(n int, seed uint64, v env.Variant) []*env.State {
	r := rand.New(rand.NewPCG(seed, 0x6d696467))
	buf := make([]env.Action, 0, 256)
	var out []*env.State
	for len(out) < n {
		s := env.NewState(v)
		plies := 10 + 14 + 2*(len(out)%8)
		for i := 0; i < plies && !s.IsTerminal(); i++ {
			buf = s.LegalActions(buf)
			if err := s.ApplyAction(buf[r.IntN(len(buf))]); err != nil {
				panic(err) // a legal action refused: an env bug
			}
		}
		if !s.IsTerminal() && s.Phase() == env.PhaseMove {
			out = append(out, s)
		}
	}
	return out
}

func benchMCTSRun(opts *BenchMCTSOptions) error {
	cfg := mcts.DefaultConfig()
	cfg.Simulations, cfg.Gumbel = opts.Sims, opts.Gumbel
	tree, err := mcts.NewTree(cfg, mcts.Uniform{})
	if err != nil {
		return err
	}
	ps := midgamePositions(opts.Positions, opts.Seed, opts.Variant)
	rng := rand.New(rand.NewPCG(opts.Seed, 0x62656e63))
	var sims, nodes, bytes int
	var elapsed time.Duration
	for _, s := range ps {
		tree.Reset(s)
		start := time.Now()
		res, err := tree.Search(rng)
		if err != nil {
			return err
		}
		elapsed += time.Since(start)
		sims += res.Simulations
		nodes += tree.Nodes()
		bytes += tree.Bytes()
	}
	fmt.Fprintf(opts.Out, "positions: %d\n", len(ps))
	fmt.Fprintf(opts.Out, "simulations: %d\n", sims)
	fmt.Fprintf(opts.Out, "nodes/search: %.1f\n", float64(nodes)/float64(len(ps)))
	fmt.Fprintf(opts.Out, "bytes/node: %.1f\n", float64(bytes)/float64(nodes))
	fmt.Fprintf(opts.Out, "sims/s: %.1f\n", float64(sims)/elapsed.Seconds())
	return nil
}
