package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/train"
)

// trainBackends are the network backends `yinsh train` and `yinsh selfplay` can use, built for a
// device and thread count; a backend built under a tag (torch) adds itself from its own file.
var trainBackends = map[string]func(device string, threads int) train.Backend{
	gonum.BackendName: func(string, int) train.Backend {
		return train.Backend{
			Name: gonum.BackendName,
			New:  func(cfg model.Config, seed uint64) (model.Net, error) { return gonum.New(cfg, seed) },
			Load: func(path string) (model.Net, error) { return gonum.Load(path) },
		}
	},
}

func backendFor(name, device string, threads int) (train.Backend, error) {
	mk, ok := trainBackends[name]
	if !ok {
		var have []string
		for n := range trainBackends {
			have = append(have, n)
		}
		sort.Strings(have)
		hint := ""
		if name == "torch" {
			hint = " (build with -tags torch after scripts/libtorch.sh; see docs/torch.md)"
		}
		return train.Backend{}, fmt.Errorf("backend %q is not in this build (have %s)%s", name, strings.Join(have, ", "), hint)
	}
	return mk(device, threads), nil
}

// TrainOptions configures `yinsh train`.
type TrainOptions struct {
	Out, Err  io.Writer
	Config    string
	Run       string
	Resume    bool
	Overrides []string
}

func newTrainCmd() *cobra.Command { return newCmdTrain(nil) }

func newCmdTrain(runF func(*TrainOptions) error) *cobra.Command {
	opts := &TrainOptions{}
	cmd := &cobra.Command{
		Use:   "train --config FILE --run DIR [--resume] [--set key=value ...]",
		Short: "Train an agent from zero by self-play: generations of self-play, training, evaluation",
		Long: `Train an agent from zero: each generation plays self-play games with the best network, trains
on the replay window, evaluates the new network against the best (and promotes it by the gate) and
against the baselines, and writes checkpoints, metrics.jsonl and plots into the run directory.
A killed run continues with --resume (the run directory's config.yaml is used; --set still applies).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Run == "" {
				return fmt.Errorf("--run DIR is required")
			}
			if opts.Config == "" && !opts.Resume {
				return fmt.Errorf("--config FILE is required (e.g. configs/quickstart.yaml)")
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return trainRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Config, "config", "", "YAML config (see configs/)")
	f.StringVar(&opts.Run, "run", "", "run directory (created; holds checkpoints, games, metrics, plots)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --run")
	f.StringArrayVar(&opts.Overrides, "set", nil, "override a config field, e.g. --set selfplay.simulations=128 (repeatable)")
	return cmd
}

func trainRun(ctx context.Context, opts *TrainOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(opts.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfgFile := opts.Config
	if opts.Resume {
		saved := filepath.Join(opts.Run, train.ConfigFile)
		if _, err := os.Stat(saved); err == nil {
			if opts.Config != "" {
				logger.Info("resuming: using the run's saved config, not --config", "config", saved)
			}
			cfgFile = saved
		}
	}
	cfg, err := train.LoadConfig(cfgFile, opts.Overrides)
	if err != nil {
		return err
	}
	be, err := backendFor(cfg.Backend, cfg.Device, cfg.Threads)
	if err != nil {
		return err
	}
	return train.Train(ctx, train.Options{
		Dir: opts.Run, Config: cfg, Backend: be, Resume: opts.Resume, Out: opts.Out, Progress: opts.Err, Log: logger,
	})
}

// SelfplayOptions configures `yinsh selfplay`.
type SelfplayOptions struct {
	Out, Err   io.Writer
	Config     string
	Checkpoint string
	Games      int
	OutDir     string
	Overrides  []string
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
	return cmd
}

func selfplayRun(ctx context.Context, opts *SelfplayOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := train.LoadConfig(opts.Config, opts.Overrides)
	if err != nil {
		return err
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
	// games already in the directory count towards numbering, so a restart plays new games
	done := 0
	if err := datasets.ScanDir(opts.OutDir, func(string, int, *datasets.Record) error { done++; return nil }); err != nil {
		return err
	}
	gen := strings.TrimSuffix(filepath.Base(opts.Checkpoint), filepath.Ext(opts.Checkpoint))
	st, err := train.PlaySelfPlay(ctx, train.SelfPlayOptions{
		Config: &cfg, Net: net, Generator: gen, Games: opts.Games, FirstGame: done, Seed: cfg.Seed, Writer: w, Progress: opts.Err,
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
