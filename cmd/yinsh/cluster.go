package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

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
	var run string
	cmd := &cobra.Command{
		Use:   "permissions --run NAME",
		Short: "Print the workers' permissions of a run as a nats-server config block (for a standalone server)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if run == "" {
				return errors.New("--run NAME is required")
			}
			name, err := cluster.RunName(run)
			if err != nil {
				return fmt.Errorf("--run: %w", err)
			}
			fmt.Fprint(cmd.OutOrStdout(), cluster.WorkerPermissionsConfig(name))
			return nil
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "the run's name, or its run directory")
	return cmd
}

// ClusterStatusOptions configures `yinsh cluster status`.
type ClusterStatusOptions struct {
	Out, Err io.Writer
	Conn     ClusterConnFlags
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
	r, err := cluster.Status(ctx, conn, run)
	if err != nil {
		return err
	}
	r.Write(opts.Out)
	return nil
}
