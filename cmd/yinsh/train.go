package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/cluster/natsserver"
	"github.com/yinsh-zero/yinsh/train"
)

// TrainOptions configures `yinsh train`.
type TrainOptions struct {
	Out, Err  io.Writer
	Config    string
	Run       string
	Resume    bool
	Init      string
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
A killed run continues with --resume (the run directory's config.yaml is used; --set still applies;
changes to variant, seed, net.* and selfplay.games are refused, others recorded in
config-history.jsonl; an edit of config.yaml is held to the same rules, against the config that
state.json records). Resume first verifies the run directory against state.json (see yinsh runs
check) and refuses a disagreement without writing anything. The first SIGINT or SIGTERM stops the
run after the write in progress (exit 130 or 143; resume continues it), a second one at once. --init CKPT makes a new run's gen-0000 that checkpoint (its architecture
must be the config's net), for example a network fitted to expert games by yinsh fit; the config's
pretrain section does the same fit inside the run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Run == "" {
				return fmt.Errorf("--run DIR is required")
			}
			if opts.Init != "" && opts.Resume {
				return fmt.Errorf("--init starts a new run from a checkpoint; a resumed run already has its networks")
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
	f.StringVar(&opts.Init, "init", "", "start a new run from this checkpoint (e.g. from yinsh fit) instead of a fresh network")
	f.StringArrayVar(&opts.Overrides, "set", nil, "override a config field, e.g. --set selfplay.simulations=128 (repeatable)")
	return cmd
}

func trainRun(ctx context.Context, opts *TrainOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, interrupted, stop := stopOnSignal(ctx, opts.Err)
	defer stop()
	logger := logFor(ctx, opts.Err, slog.LevelInfo) // --log-level, --log-format
	// a resumed run reads its own config.yaml unless --config names one; either way train.Train
	// compares the result with the config state.json records, refuses changes that would corrupt the
	// run and records the others in config-history.jsonl
	cfgFile := opts.Config
	if opts.Resume && cfgFile == "" {
		cfgFile = filepath.Join(opts.Run, train.ConfigFile)
	}
	if err := checkOverrides(opts.Overrides); err != nil {
		return err
	}
	cfg, err := train.LoadConfig(cfgFile, opts.Overrides)
	if err != nil {
		if opts.Resume && opts.Config == "" {
			return fmt.Errorf("%w (yinsh runs check --repair %s restores the run's config.yaml from its state.json)", err, opts.Run)
		}
		return err
	}
	be, err := backendFor(cfg.Backend, cfg.Device, cfg.Threads)
	if err != nil {
		return err
	}
	defer setThreads(cfg)()
	err = train.Train(ctx, train.Options{
		Dir: opts.Run, Config: cfg, Backend: be, Resume: opts.Resume, Init: opts.Init, Out: opts.Out, Progress: opts.Err, Log: logger,
		StartServer: natsserver.Starter,
	})
	if sig := interrupted(); sig != nil {
		if err != nil && !errors.Is(err, context.Canceled) {
			logger.Warn("stopping after the signal", "err", err)
		}
		fmt.Fprintf(opts.Err, "interrupted: resume with yinsh train --run %s --resume\n", opts.Run)
		return exitError{code: signalExitCode(sig)}
	}
	return err
}

// stopOnSignal cancels the returned context at the first SIGINT or SIGTERM, so that the run stops
// after the write in progress (every write of a run is atomic, or an fsynced line); a second signal
// exits at once (what the run wrote is still resumable: a temporary file at most is left). The
// first function reports the first signal received (nil: none); the second stops listening.
func stopOnSignal(ctx context.Context, stderr io.Writer) (context.Context, func() os.Signal, func()) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var mu sync.Mutex
	var first os.Signal
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		mu.Lock()
		first = s
		mu.Unlock()
		fmt.Fprintf(stderr, "%s: finishing the current step (a second signal stops at once)\n", signalName(s))
		cancel()
		if s, ok = <-sigs; !ok {
			return
		}
		fmt.Fprintf(stderr, "second signal (%s): stopping at once\n", signalName(s))
		os.Exit(signalExitCode(s))
	}()
	return ctx, func() os.Signal {
			mu.Lock()
			defer mu.Unlock()
			return first
		}, func() {
			signal.Stop(sigs)
			close(sigs)
			cancel()
		}
}

// signalExitCode is the shell's status for a process ended by sig: 128 + its number (SIGINT 130,
// SIGTERM 143).
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// checkOverrides checks every --set key=value on its own against the config's fields before the
// config is loaded: an unknown key, a key that names a section, or a value of the wrong type is
// reported with the key and its value (train.ParseConfig applies the overrides to the file's YAML
// first, so its own message would point at a line of the merged text, not at the --set).
func checkOverrides(overrides []string) error {
	for _, o := range overrides {
		key, val, ok := strings.Cut(o, "=")
		if !ok || key == "" {
			return fmt.Errorf("--set %q: want key=value (e.g. selfplay.simulations=128)", o)
		}
		if err := train.CheckOverride(key, val); err != nil {
			return fmt.Errorf("--set %s: %v", o, err)
		}
	}
	return nil
}

// setThreads makes the config's threads (> 0) the process's GOMAXPROCS with the pure-Go backend:
// its kernels split their work into GOMAXPROCS parts, so the thread count decides the rounding of
// the training's sums, and a run is reproducible (README.md, "Reproducibility") for a given threads
// value rather than for a given machine's core count. It also keeps self-play, rollouts and
// evaluation to that many cores. 0 keeps Go's default, all cores. (Torch gets threads itself.)
// The returned function restores the previous setting (the CLI's tests run train in process).
func setThreads(cfg train.Config) (restore func()) {
	if cfg.Threads <= 0 || cfg.Backend != "gonum" {
		return func() {}
	}
	old := runtime.GOMAXPROCS(cfg.Threads)
	return func() { runtime.GOMAXPROCS(old) }
}
