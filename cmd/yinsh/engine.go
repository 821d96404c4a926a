package main

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// EngineOptions configures `yinsh engine`.
type EngineOptions struct {
	BackendFlags
	In     io.Reader
	Out    io.Writer // the protocol
	Log    *slog.Logger
	Player string
	// Search is the player's search settings (--sims and whether it was given, --movetime,
	// --gumbel, --leaves-in-flight, --rollout-mix): the one type every command builds players with.
	selfplay.Search
	Seed    uint64
	Variant env.Variant
	// AnyVariant accepts a checkpoint trained for another variant than --variant.
	AnyVariant bool
}

func newEngineCmd() *cobra.Command { return newCmdEngine(nil) }

func newCmdEngine(runF func(*EngineOptions) error) *cobra.Command {
	opts := &EngineOptions{}
	var variant, logLevel string
	var movetime int
	var mix float64
	cmd := &cobra.Command{
		Use:   "engine [--player PLAYER] [--sims N] [--variant standard|blitz] [--seed S]",
		Short: "Speak the YINSH engine protocol (GTP-style) on stdin/stdout for game clients",
		Long: "Speak the YINSH engine protocol on stdin/stdout: one command a line, answers '=[id] result' or\n" +
			"'?[id] error' followed by an empty line, as in GTP. Logs go to stderr. See docs/engine-protocol.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			if err := checkSearchFlags(mix, opts.Sims, movetime, opts.LeavesInFlight); err != nil {
				return err
			}
			opts.MoveTime, opts.SimsSet = time.Duration(movetime)*time.Millisecond, cmd.Flags().Changed("sims")
			opts.RolloutMix = float32(mix)
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level: %w", err)
			}
			if opts.Player == "" {
				opts.Player = engine.DefaultPlayer(v)
			}
			if err := checkVariant("--player", opts.Player, v, opts.AnyVariant); err != nil {
				return err
			}
			opts.Variant, opts.In, opts.Out = v, cmd.InOrStdin(), cmd.OutOrStdout()
			opts.Log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			if runF != nil {
				return runF(opts)
			}
			return engineRun(opts)
		},
	}
	opts.BackendFlags.add(cmd.Flags())
	cmd.Flags().StringVar(&opts.Player, "player", "",
		"player: reference, level:N, random, heuristic, rollout:N or a checkpoint file (default: reference, the variant's embedded network)")
	cmd.Flags().Float64Var(&mix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	cmd.Flags().BoolVar(&opts.Gumbel, "gumbel", false, "checkpoint players search with Gumbel AlphaZero's root (else PUCT)")
	cmd.Flags().IntVar(&opts.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint player's search sends per network call (1: sequential search)")
	cmd.Flags().IntVar(&opts.Sims, "sims", engine.DefaultSims, "simulations per decision for checkpoint players (rollout:N uses N)")
	cmd.Flags().IntVar(&movetime, "movetime", 0, "milliseconds per decision for searching players (0: bounded by --sims; with it, --sims caps only if given)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "random seed of the player (same seed and commands, same answers)")
	cmd.Flags().StringVar(&variant, "variant", "standard", "rules variant of the first game: standard or blitz")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	cmd.Flags().BoolVar(&opts.AnyVariant, "any-variant", false, "accept a checkpoint trained for another variant than --variant")
	return cmd
}

func engineRun(opts *EngineOptions) error {
	load, err := opts.loader()
	if err != nil {
		return err
	}
	e, err := engine.New(engine.Options{Load: load, Player: opts.Player, Search: opts.Search, Seed: opts.Seed, Variant: opts.Variant,
		Log: opts.Log, AnyVariant: opts.AnyVariant})
	if err != nil {
		return err
	}
	defer e.Close()
	opts.Log.Debug("engine ready", "player", opts.Player, "sims", opts.Sims, "seed", opts.Seed, "variant", opts.Variant.String())
	return e.Run(opts.In, opts.Out)
}
