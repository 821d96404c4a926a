package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/cluster"
)

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Distributed self-play: the state of a run's workers and game stream",
	}
	cmd.AddCommand(newCmdClusterStatus(nil), newCmdClusterPermissions())
	return cmd
}

func newCmdClusterPermissions() *cobra.Command {
	var run, worker string
	cmd := &cobra.Command{
		Use:   "permissions --run NAME [--worker NAME]",
		Short: "Print the workers' permissions of a run as a nats-server config block (for a standalone server)",
		Long: `Print the permissions of a run's worker user as a nats-server config block, for a standalone
server. Without --worker: a user all the run's workers share (they may read one another's reply
inboxes, never the trainer's). With --worker NAME: the user of that one worker, which may subscribe
to its own reply inbox only; the worker then runs with --name NAME. See docs/distributed.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if run == "" {
				return errors.New("--run NAME is required")
			}
			name, err := cluster.RunName(run)
			if err != nil {
				return fmt.Errorf("--run: %w", err)
			}
			if cmd.Flags().Changed("worker") {
				if worker = strings.TrimSpace(worker); worker == "" {
					return errors.New("--worker: want the worker's name (its --name)")
				}
				worker = cluster.WorkerOfConn(cluster.WorkerConnName(worker))
			}
			fmt.Fprint(cmd.OutOrStdout(), cluster.WorkerPermissionsConfig(name, worker))
			return nil
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "the run's name, or its run directory")
	cmd.Flags().StringVar(&worker, "worker", "", "one worker's name (its --name): the permissions of that worker's own user")
	return cmd
}

// ClusterStatusOptions configures `yinsh cluster status`.
type ClusterStatusOptions struct {
	Out, Err io.Writer
	Conn     ClusterConnFlags
	// Name is the worker whose reply inbox the status connection uses (a standalone server's
	// per-worker user allows only that one); empty: its own.
	Name string
}

func newCmdClusterStatus(runF func(*ClusterStatusOptions) error) *cobra.Command {
	opts := &ClusterStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status --server URL --run NAME [--creds FILE]",
		Short: "Print a run's workers (games/hour each), stream backlog, generation and dropped games",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return clusterStatusRun(cmd.Context(), opts)
		},
	}
	opts.Conn.add(cmd)
	cmd.Flags().StringVar(&opts.Name, "name", "", "read as worker NAME (with per-worker users on a standalone server, the worker whose --creds these are)")
	return cmd
}

func clusterStatusRun(ctx context.Context, opts *ClusterStatusOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	log := slog.New(slog.NewTextHandler(opts.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	run, conn, err := opts.Conn.conn(log)
	if err != nil {
		return err
	}
	if opts.Name != "" {
		conn.Name = cluster.WorkerConnName(opts.Name)
	}
	r, err := cluster.Status(ctx, conn, run)
	if err != nil {
		return err
	}
	r.Write(opts.Out)
	return nil
}
