package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/train"
)

// FitOptions configures `yinsh fit`.
type FitOptions struct {
	Out, Err  io.Writer
	Data      []string // shard directories
	Net       string   // preset, architecture YAML or checkpoint to continue
	Path      string   // checkpoint to write
	Epochs    int
	Patience  int
	Batch     int
	HoldOut   float64
	LR        float64
	ValueQMix float64
	Seed      uint64
	Variant   string
	Backend   string
	Threads   int
	Force     bool
}

func newFitCmd() *cobra.Command { return newCmdFit(nil) }

func newCmdFit(runF func(*FitOptions) error) *cobra.Command {
	opts := &FitOptions{}
	cmd := &cobra.Command{
		Use:   "fit --data DIR... --net PRESET|FILE --out CKPT [--epochs N]",
		Short: "Fit a network to recorded games (expert games, imported games, self-play shards)",
		Long: `Train a network by supervised learning on the game-record shards of --data (expert games from
yinsh datasets generate, boardspace games from yinsh datasets import-sgf, a run's games/ directory):
epochs over the training positions, each drawn once per epoch under a random board symmetry. A share
of whole games (--holdout) is kept out to measure the fit. Each epoch prints the policy loss, the
top-1 agreement with the recorded policy target and the value loss on both splits; the checkpoint
of the epoch with the lowest held-out loss is written to --out, and the fit stops early after
--patience epochs without a new low. --net is a preset, an architecture YAML file or a checkpoint
to continue. Start a training run from the result with yinsh train --init CKPT.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(opts.Data) == 0:
				return errors.New("--data DIR is required (a directory of game-record shards)")
			case opts.Path == "":
				return errors.New("--out CKPT is required")
			case !(opts.LR > 0 && opts.LR <= 10):
				return fmt.Errorf("--lr %v, want 0 < lr ≤ 10", opts.LR)
			}
			if err := checkOverwrite(opts.Path, opts.Force); err != nil {
				return err
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return fitRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Data, "data", nil, "directory of game-record shards (repeatable)")
	f.StringVar(&opts.Net, "net", "small", "architecture: preset tiny or small, a YAML file, or a checkpoint to continue")
	f.StringVar(&opts.Path, "out", "", "checkpoint to write (the best epoch's)")
	f.IntVar(&opts.Epochs, "epochs", 10, "most passes over the training positions")
	f.IntVar(&opts.Patience, "patience", 2, "stop after this many epochs without a lower held-out loss (0: never)")
	f.IntVar(&opts.Batch, "batch-size", 256, "positions per optimiser step")
	f.Float64Var(&opts.HoldOut, "holdout", 0.1, "share of games kept out of training to measure the fit")
	f.Float64Var(&opts.LR, "lr", 0.001, "learning rate (AdamW, constant)")
	f.Float64Var(&opts.ValueQMix, "value-q-mix", 0, "value target (1-m)·outcome + m·recorded root value")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the initial weights, the split and the batches")
	f.StringVar(&opts.Variant, "variant", "standard", "rules variant of the games: standard or blitz")
	f.StringVar(&opts.Backend, "backend", "gonum", "network backend: gonum (pure Go) or torch (build tag torch)")
	f.IntVar(&opts.Threads, "threads", 0, "threads of the backend (0: all cores)")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing --out")
	return cmd
}

func fitRun(ctx context.Context, opts *FitOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	v, err := parseVariant(opts.Variant)
	if err != nil {
		return err
	}
	recs, err := train.ReadGames("--data", opts.Data)
	if err != nil {
		return err
	}
	be, err := backendFor(opts.Backend, "cpu", opts.Threads)
	if err != nil {
		return err
	}
	net, err := openFitNet(be, opts.Net, opts.Seed, v)
	if err != nil {
		return err
	}
	defer net.Close()
	oc := model.DefaultAdamW()
	oc.Schedule.LR = opts.LR
	if err := net.SetOptimizer(oc); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(opts.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	origin := model.Origin{Variant: v, RunID: "fit:" + strings.TrimSuffix(filepath.Base(opts.Path), filepath.Ext(opts.Path))}
	res, err := train.Fit(ctx, train.FitOptions{
		Records: recs, Variant: v, Net: net, Epochs: opts.Epochs, Patience: opts.Patience, BatchSize: opts.Batch,
		HoldOut: opts.HoldOut, ValueQMix: opts.ValueQMix, Seed: opts.Seed, Out: opts.Out, Progress: opts.Err, Log: logger,
		Save: func(n model.Net, _ train.FitEpoch) error { return model.SaveNet(n, opts.Path, origin) },
	})
	if err != nil {
		return err
	}
	if res.Best == 0 {
		return fmt.Errorf("no epoch reached a finite loss (diverged? try a lower --lr); %s not written", opts.Path)
	}
	b := res.Epochs[res.Best-1]
	fmt.Fprintf(opts.Out, "best epoch %d of %d%s: held-out policy %.3f value %.3f top-1 %.3f (%d games, %d positions; trained on %d games, %d positions)\nwrote %s\n",
		res.Best, len(res.Epochs), map[bool]string{true: " (stopped early)"}[res.StoppedEarly],
		b.HeldOut.Policy, b.HeldOut.Value, b.HeldOut.Top1, res.HeldOutGames, res.HeldExamples, res.TrainGames, res.TrainExamples, opts.Path)
	return nil
}

// openFitNet returns the network --net names: a checkpoint to continue (its variant must be v, when
// recorded), or a new one of a preset or architecture file.
func openFitNet(be train.Backend, spec string, seed uint64, v env.Variant) (model.Net, error) {
	ext := strings.ToLower(filepath.Ext(spec))
	if fi, err := os.Stat(spec); err == nil && fi.Mode().IsRegular() && ext != ".yaml" && ext != ".yml" {
		h, err := model.ReadMetadata(spec)
		if err != nil {
			return nil, fmt.Errorf("--net: %w", err)
		}
		if h.Meta.Variant != "" && h.Meta.Variant != v.String() {
			return nil, fmt.Errorf("--net %s was trained for %s, the data is %s", spec, h.Meta.Variant, v)
		}
		return be.Load(spec)
	}
	arch, err := model.ResolveConfig(spec)
	if err != nil {
		return nil, fmt.Errorf("--net: %w", err)
	}
	return be.New(arch, seed)
}
