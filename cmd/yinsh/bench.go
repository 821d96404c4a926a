package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
)

func newBenchCmd() *cobra.Command {
	cmd := groupCmd("bench", "Measure the speed of the rules engine, search and networks")
	cmd.AddCommand(
		newCmdBenchPlayouts(nil),
		newCmdBenchSelfplay(),
		newCmdBenchModel(nil),
		newCmdBenchMCTS(nil),
	)
	return cmd
}

// BenchPlayoutsOptions configures `yinsh bench playouts`.
type BenchPlayoutsOptions struct {
	Out     io.Writer
	Games   int
	Seed    uint64
	Variant env.Variant
}

func newCmdBenchPlayouts(runF func(*BenchPlayoutsOptions) error) *cobra.Command {
	opts := &BenchPlayoutsOptions{}
	var variant string
	cmd := &cobra.Command{
		Use:   "playouts",
		Short: "Play uniformly random games on one goroutine and report games/s and results",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			if opts.Games < 1 {
				return fmt.Errorf("--games must be at least 1, got %d", opts.Games)
			}
			opts.Variant = v
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return benchPlayoutsRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Games, "games", 10000, "number of games to play")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed")
	cmd.Flags().StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	return cmd
}

// PlayoutStats summarises a batch of random games.
type PlayoutStats struct {
	Games, Actions     int
	White, Black, Draw int
	Elapsed            time.Duration
}

// randomGames plays n uniformly random games from the empty board on the calling goroutine.
func randomGames(n int, seed uint64, v env.Variant) PlayoutStats {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	buf := make([]env.Action, 0, 256)
	var st PlayoutStats
	start := time.Now()
	root := env.NewState(v)
	for i := 0; i < n; i++ {
		s := *root
		st.Actions += env.RandomPlayout(&s, r, buf)
		switch s.Outcome() {
		case env.WhiteWins:
			st.White++
		case env.BlackWins:
			st.Black++
		default:
			st.Draw++
		}
	}
	st.Elapsed = time.Since(start)
	st.Games = n
	return st
}

func benchPlayoutsRun(opts *BenchPlayoutsOptions) error {
	st := randomGames(opts.Games, opts.Seed, opts.Variant)
	g := float64(st.Games)
	fmt.Fprintf(opts.Out, "games/s: %.1f\n", g/st.Elapsed.Seconds())
	fmt.Fprintf(opts.Out, "actions/game: %.2f\n", float64(st.Actions)/g)
	fmt.Fprintf(opts.Out, "white: %.4f\n", float64(st.White)/g)
	fmt.Fprintf(opts.Out, "black: %.4f\n", float64(st.Black)/g)
	fmt.Fprintf(opts.Out, "draw: %.4f\n", float64(st.Draw)/g)
	return nil
}
