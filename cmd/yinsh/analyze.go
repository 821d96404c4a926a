package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// AnalyzeOptions configures `yinsh analyze --json`.
type AnalyzeOptions struct {
	BackendFlags
	In     io.Reader
	Out    io.Writer
	Player string
	// Search is the player's search settings (--sims, --gumbel, --leaves-in-flight,
	// --rollout-mix): the one type every command builds players with; analysis searches with it.
	selfplay.Search
	Variant  env.Variant
	Seed     uint64
	Parallel int
	// AnyVariant accepts a checkpoint trained for another variant than --variant.
	AnyVariant bool
}

func newAnalyzeCmd() *cobra.Command { return newCmdAnalyze(nil) }

func newCmdAnalyze(runF func(*AnalyzeOptions) error) *cobra.Command {
	opts := &AnalyzeOptions{}
	var variant string
	var asJSON bool
	var mix float64
	cmd := &cobra.Command{
		Use:   "analyze --json --player PLAYER [--sims N] [--parallel N] [--variant standard|blitz]",
		Short: "Analyse positions sent as JSON requests on stdin, one JSON answer a line on stdout",
		Long: "Read analysis requests from stdin, one JSON object a line ({\"id\":..., \"moves\":[...] or\n" +
			"\"position\":\"TEXT\", \"variant\":..., \"sims\":N or \"movetime\":MS, \"top\":K}), search up to\n" +
			"--parallel of them at once (a checkpoint's leaves share one network batcher) and write one JSON\n" +
			"answer a line, with the same id, as each finishes. Bad requests get {\"id\":...,\"error\":...}.\n" +
			"See docs/engine-protocol.md, \"JSON analysis\".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !asJSON {
				return errors.New("analyze: give --json (the only mode: JSON requests on stdin, answers on stdout)")
			}
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			if err := checkVariant("--player", opts.Player, v, opts.AnyVariant); err != nil {
				return err
			}
			if err := checkSearchFlags(mix, opts.Sims, 0, opts.LeavesInFlight); err != nil {
				return err
			}
			if opts.Parallel < 1 || opts.Parallel > 1024 {
				return fmt.Errorf("--parallel must be in [1, 1024], got %d", opts.Parallel)
			}
			opts.RolloutMix = float32(mix)
			opts.Variant, opts.In, opts.Out = v, cmd.InOrStdin(), cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return analyzeRun(cmd.Context(), opts)
		},
	}
	opts.BackendFlags.add(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "JSON requests on stdin, one JSON answer a line on stdout (required)")
	cmd.Flags().StringVar(&opts.Player, "player", "rollout:200", "player: rollout:N or a checkpoint file (searched, with statistics), or random, heuristic, level:N, engine:\"CMD\"")
	cmd.Flags().IntVar(&opts.Sims, "sims", engine.DefaultSims, "simulations of checkpoint players for requests without sims or movetime (rollout:N uses N)")
	cmd.Flags().Float64Var(&mix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	cmd.Flags().BoolVar(&opts.Gumbel, "gumbel", false, "checkpoint players search with Gumbel AlphaZero's root (else PUCT), in analysis as in play")
	cmd.Flags().IntVar(&opts.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint player's search sends per network call (1: sequential search)")
	cmd.Flags().IntVar(&opts.Parallel, "parallel", engine.DefaultJSONParallel, "requests searched at once")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed of the searches")
	cmd.Flags().StringVar(&variant, "variant", "standard", "variant of requests that name none: standard or blitz")
	cmd.Flags().BoolVar(&opts.AnyVariant, "any-variant", false, "let the player's network search requests of the other variant than it was trained for (else: an error answer)")
	return cmd
}

func analyzeRun(ctx context.Context, opts *AnalyzeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	load, err := opts.loader()
	if err != nil {
		return err
	}
	return engine.RunJSON(ctx, opts.In, opts.Out, engine.JSONOptions{
		Player: opts.Player, Search: opts.Search, Variant: opts.Variant, AnyVariant: opts.AnyVariant, Seed: opts.Seed, Parallel: opts.Parallel, Load: load,
	})
}
