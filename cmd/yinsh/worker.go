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
	"syscall"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/train"
)

// ClusterConnFlags are the flags that reach a run on a NATS server (yinsh worker, yinsh cluster).
type ClusterConnFlags struct {
	Server  string
	Run     string
	Creds   string
	TLSCA   string
	TLSCert string
	TLSKey  string
}

func (c *ClusterConnFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.Server, "server", "", "NATS server URL of the run, e.g. nats://trainer-host:4222 (yinsh train prints it; a comma-separated list for a NATS cluster)")
	f.StringVar(&c.Run, "run", "", "the run's name (yinsh train prints it), or its run directory when on the same disk")
	f.StringVar(&c.Creds, "creds", "", "credentials file: token, user and password, or nkey_seed lines (or a NATS .creds file)")
	f.StringVar(&c.TLSCA, "tls-ca", "", "PEM file of the CA that signed the server's certificate")
	f.StringVar(&c.TLSCert, "tls-cert", "", "PEM client certificate (with --tls-key)")
	f.StringVar(&c.TLSKey, "tls-key", "", "PEM key of --tls-cert")
}

// conn resolves the flags into the run's name and connection options.
func (c *ClusterConnFlags) conn(log *slog.Logger) (string, cluster.ConnOptions, error) {
	if c.Server == "" {
		return "", cluster.ConnOptions{}, errors.New("--server URL is required (e.g. nats://trainer-host:4222)")
	}
	if c.Run == "" {
		return "", cluster.ConnOptions{}, errors.New("--run NAME is required (the name yinsh train prints, or the run directory)")
	}
	run, err := cluster.RunName(c.Run)
	if err != nil {
		return "", cluster.ConnOptions{}, fmt.Errorf("--run: %w", err)
	}
	// a run directory on this disk: its config may name the run (cluster.run)
	if fi, err := os.Stat(c.Run); err == nil && fi.IsDir() {
		if cfg, err := train.LoadConfig(filepath.Join(c.Run, train.ConfigFile), nil); err == nil && cfg.Cluster.Run != "" {
			run = cfg.Cluster.Run
		}
	}
	o := cluster.ConnOptions{URL: c.Server, TLS: cluster.TLS{CA: c.TLSCA, Cert: c.TLSCert, Key: c.TLSKey}, Log: log}
	if c.Creds != "" {
		if o.Creds, err = cluster.LoadCreds(c.Creds); err != nil {
			return "", o, fmt.Errorf("--creds: %w", err)
		}
	}
	return run, o, nil
}

// WorkerOptions configures `yinsh worker`.
type WorkerOptions struct {
	Out, Err io.Writer
	Conn     ClusterConnFlags
	Parallel int
	Name     string
	Backend  BackendFlags
	Verbose  bool
}

func newWorkerCmd() *cobra.Command { return newCmdWorker(nil) }

func newCmdWorker(runF func(*WorkerOptions) error) *cobra.Command {
	opts := &WorkerOptions{}
	cmd := &cobra.Command{
		Use:   "worker --server URL --run NAME [--parallel N] [--backend gonum|torch] [--creds FILE]",
		Short: "Play self-play games for a training run over NATS JetStream (distributed self-play)",
		Long: `Join a training run (yinsh train with a cluster section) as a self-play worker: watch the run's
generation, fetch its network when it changes (checksum verified), play games with the run's
settings and publish each finished game. The worker exits when the run finishes, or on SIGINT/SIGTERM
(the game in progress is lost; every published game is kept). See docs/distributed.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if opts.Parallel < 0 {
				return fmt.Errorf("--parallel %d: want 0 (the run's selfplay.parallel) or more", opts.Parallel)
			}
			if runF != nil {
				return runF(opts)
			}
			return workerRun(cmd.Context(), opts)
		},
	}
	opts.Conn.add(cmd)
	f := cmd.Flags()
	f.IntVar(&opts.Parallel, "parallel", 0, "games played at once (0: the run's selfplay.parallel)")
	f.StringVar(&opts.Name, "name", "", "the worker's name in the run's status and its reply inbox (default HOST-PID; with a per-worker user on a standalone server, that user's: yinsh cluster permissions --worker NAME)")
	f.BoolVar(&opts.Verbose, "verbose", false, "log every published game")
	opts.Backend.add(f)
	return cmd
}

func workerRun(ctx context.Context, opts *WorkerOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	level := slog.LevelInfo
	if opts.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(opts.Err, &slog.HandlerOptions{Level: level}))
	run, conn, err := opts.Conn.conn(log)
	if err != nil {
		return err
	}
	name := opts.Backend.Backend
	if name == "" {
		name = gonum.BackendName
	}
	be, err := backendFor(name, "cpu", opts.Backend.Threads)
	if err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	err = cluster.RunWorker(ctx, cluster.WorkerOptions{
		Conn: conn, Run: run, Name: opts.Name, Parallel: opts.Parallel, Load: be.Load, Play: train.WorkerPlay, Log: log,
	})
	if errors.Is(err, cluster.ErrRunFinished) {
		fmt.Fprintf(opts.Out, "run %s finished\n", run)
		return nil
	}
	return err
}
