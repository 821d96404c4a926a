package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/model"
)

// ModelAverageOptions configures `yinsh model average`.
type ModelAverageOptions struct {
	Out   io.Writer
	Paths []string // training checkpoints, oldest first
	Path  string   // checkpoint to write
	Force bool     // overwrite an existing file
}

func newCmdModelAverage(runF func(*ModelAverageOptions) error) *cobra.Command {
	opts := &ModelAverageOptions{}
	cmd := &cobra.Command{
		Use:   "average --out FILE CHECKPOINT...",
		Short: "Write the element-wise mean of training checkpoints of one architecture (weight averaging)",
		Long: `Average the weights of training checkpoints of one network architecture and variant (SWA-style
weight averaging, for example a run's last generations:
  yinsh model average --out avg.ckpt RUN/checkpoints/gen-013{1..9}.ckpt RUN/checkpoints/gen-0140.ckpt).
Every tensor is averaged, the batch-norm running statistics included; the optimiser state is
dropped, and the metadata (variant, run, generation, step) is the last file's. The result plays as
any checkpoint (arena --a avg.ckpt). An existing --out file is kept unless --force is given.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Path == "" {
				return errors.New("--out is required")
			}
			opts.Paths, opts.Out = args, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return modelAverageRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Path, "out", "", "checkpoint file to write")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing checkpoint")
	return cmd
}

func modelAverageRun(opts *ModelAverageOptions) error {
	if err := checkOverwrite(opts.Path, opts.Force); err != nil {
		return err
	}
	cks := make([]*model.Checkpoint, len(opts.Paths))
	for i, p := range opts.Paths {
		if err := notCheckpoint(p); err != nil {
			return err
		}
		ck, err := model.ReadCheckpoint(p)
		if err != nil {
			return err
		}
		cks[i] = ck
	}
	avg, err := model.Average(cks)
	if err != nil {
		return fmt.Errorf("%w (files: %v)", err, opts.Paths)
	}
	if err := model.WriteCheckpoint(opts.Path, avg); err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "wrote %s: the mean of %d checkpoints (net %s, step %d of the last)\n",
		opts.Path, len(cks), avg.Meta.Net.Name, avg.Meta.Step)
	return nil
}
