package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train"
)

// SelfplayOptions configures `yinsh selfplay`.
type SelfplayOptions struct {
	Out, Err   io.Writer
	Config     string
	Checkpoint string
	Games      int
	OutDir     string
	Overrides  []string
	AnyVariant bool // play a checkpoint trained for another variant than the config's
}

func newSelfplayCmd() *cobra.Command {
	opts := &SelfplayOptions{}
	cmd := &cobra.Command{
		Use:   "selfplay --config FILE --checkpoint FILE --games N --out DIR",
		Short: "Play self-play games with a network and record them as dataset shards",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Config == "" || opts.Checkpoint == "" || opts.OutDir == "" {
				return fmt.Errorf("--config, --checkpoint and --out are required")
			}
			if opts.Games < 1 {
				return fmt.Errorf("--games must be at least 1, got %d", opts.Games)
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return selfplayRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Config, "config", "", "YAML config (its selfplay section and backend are used)")
	f.StringVar(&opts.Checkpoint, "checkpoint", "", "network checkpoint")
	f.IntVar(&opts.Games, "games", 100, "games to play")
	f.StringVar(&opts.OutDir, "out", "", "directory for the game shards (a restart continues numbering)")
	f.StringArrayVar(&opts.Overrides, "set", nil, "override a config field (repeatable)")
	f.BoolVar(&opts.AnyVariant, "any-variant", false, "play a checkpoint trained for another variant than the config's")
	return cmd
}

func selfplayRun(ctx context.Context, opts *SelfplayOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := checkOverrides(opts.Overrides); err != nil {
		return err
	}
	cfg, err := train.LoadConfig(opts.Config, opts.Overrides)
	if err != nil {
		return err
	}
	if h, err := model.ReadMetadata(opts.Checkpoint); err == nil && !opts.AnyVariant {
		if v, ok := h.Meta.VariantValue(); ok && v != cfg.VariantValue() {
			return fmt.Errorf("checkpoint %s was trained for %s; the config's variant is %s (pass --set variant=%s, or --any-variant to play it anyway)",
				opts.Checkpoint, v, cfg.VariantValue(), v)
		}
	}
	be, err := backendFor(cfg.Backend, cfg.Device, cfg.Threads)
	if err != nil {
		return err
	}
	net, err := be.Load(opts.Checkpoint)
	if err != nil {
		return err
	}
	defer net.Close()
	w, err := datasets.NewWriter(opts.OutDir, datasets.WriterOptions{GamesPerShard: max(opts.Games/8, 16), Recover: true})
	if err != nil {
		return err
	}
	// games already in the directory keep their numbers: a restart plays the first --games numbers
	// whose seeds are not recorded there (so a game recovered from a killed run is not played again)
	have, err := datasets.RecordedIDs(opts.OutDir)
	if err != nil {
		return err
	}
	var todo []int
	for i := 0; len(todo) < opts.Games; i++ {
		if !have[selfplay.GameSeed(cfg.Seed, i)] {
			todo = append(todo, i)
		}
	}
	gen := strings.TrimSuffix(filepath.Base(opts.Checkpoint), filepath.Ext(opts.Checkpoint))
	st, err := train.PlaySelfPlay(ctx, train.SelfPlayOptions{
		Config: &cfg, Net: net, Generator: gen, Indices: todo, Seed: cfg.Seed, Writer: w, Progress: opts.Err,
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "games: %d\npositions: %d\ngames/hour: %.1f\npositions/s: %.1f\nmean batch: %.2f\nshards: %s\n",
		st.Games, st.Positions, st.GamesPerHour(), float64(st.Evaluations)/st.Elapsed.Seconds(), st.MeanBatch, strings.Join(w.Shards(), " "))
	return nil
}
