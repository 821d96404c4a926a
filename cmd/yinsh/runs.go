package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/train"
)

// RunsCheckOptions configures `yinsh runs check`.
type RunsCheckOptions struct {
	Out    io.Writer
	Dir    string
	Repair bool
}

func newRunsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Inspect training run directories",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdRunsCheck(nil), newCmdRunsPlot())
	return cmd
}

func newCmdRunsPlot() *cobra.Command {
	return &cobra.Command{
		Use:   "plot DIR",
		Short: "Redraw a run's plots (DIR/plots/*.png) from its metrics.jsonl and results.jsonl",
		Long: `Redraw a run's plots from its metrics.jsonl and results.jsonl, as yinsh train does after every
generation: after upgrading yinsh (newer plots), after adding results to the run directory (a
results-*.jsonl file of later matches; yinsh ratings reads them too), or for a run that was
stopped. Nothing else in the run is read or written; each PNG is replaced atomically.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := train.WritePlots(args[0]); err != nil {
				return fmt.Errorf("runs plot %s: %w", args[0], err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "plots:", filepath.Join(args[0], "plots"))
			return nil
		},
	}
}

func newCmdRunsCheck(runF func(*RunsCheckOptions) error) *cobra.Command {
	opts := &RunsCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check DIR [--repair]",
		Short: "Verify a run directory against its state.json without training; exit 1 on any problem",
		Long: `Verify a run directory the way yinsh train --resume does, without training or writing anything:
state.json's fields and paths, and its manifest (format 2): the committed config, every checkpoint
(run id, generation, step, sha256), every shard (games, id range, sha256), the replay window's draw
counts, the committed lines of metrics.jsonl and results.jsonl; shards written after the last commit
must hold only the games of the generation in flight, once. Every problem is printed (file, field,
both values); the exit status is 1 if there is any.

--repair fixes only what has a certain fix, and says what it did: config.yaml restored from
state.json's committed config when it does not read or changes a fixed key; lines after the last
commit of metrics.jsonl and results.jsonl dropped (resume drops them too); temporary files of a
killed write removed. A checkpoint, shard or committed line that disagrees with state.json has no
certain fix: restore it from a backup, or start a new run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Dir = cmd.OutOrStdout(), args[0]
			if runF != nil {
				return runF(opts)
			}
			return runsCheckRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Repair, "repair", false, "fix what has a certain fix (and say so), then check again")
	return cmd
}

func runsCheckRun(opts *RunsCheckOptions) error {
	if opts.Repair {
		done, err := train.RepairRun(opts.Dir)
		for _, d := range done {
			fmt.Fprintln(opts.Out, "repaired:", d)
		}
		if err != nil {
			var re *train.RunError
			if !errors.As(err, &re) {
				return err
			}
		}
		if len(done) == 0 {
			fmt.Fprintln(opts.Out, "repair: nothing with a certain fix")
		}
	}
	c := train.VerifyRun(opts.Dir)
	for _, n := range c.Notes {
		fmt.Fprintln(opts.Out, "note:", n)
	}
	for _, p := range c.Problems {
		fmt.Fprintf(opts.Out, "%s%c%s\n", opts.Dir, filepath.Separator, p.Error())
	}
	if len(c.Problems) > 0 {
		fmt.Fprintf(opts.Out, "%s: %d problem(s): yinsh train --resume refuses this run\n", opts.Dir, len(c.Problems))
		return exitError{code: 1}
	}
	st := c.State
	status := "in progress"
	if c.Finished {
		status = "finished"
	}
	total := 0
	if c.Config != nil {
		total = c.Config.Generations
	}
	fmt.Fprintf(opts.Out, "%s: ok (state.json format %d): %d of %d generations, %s; %d games, step %d, best %s\n",
		opts.Dir, st.Format, st.Generation, total, status, st.Games, st.Step, st.Best)
	return nil
}
