package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Create and inspect network checkpoints",
	}
	cmd.AddCommand(newCmdModelInit(nil))
	return cmd
}

// ModelInitOptions configures `yinsh model init`.
type ModelInitOptions struct {
	Out   io.Writer
	Net   string // preset name or YAML file
	Seed  uint64
	Path  string // checkpoint to write
	Force bool   // overwrite an existing file
}

func newCmdModelInit(runF func(*ModelInitOptions) error) *cobra.Command {
	opts := &ModelInitOptions{}
	cmd := &cobra.Command{
		Use:   "init --net tiny|small|FILE.yaml --seed S --out FILE",
		Short: "Write a freshly initialised network checkpoint",
		Long: `Write a freshly initialised training checkpoint (safetensors + metadata, written atomically).
--net is a preset (tiny, small) or an architecture YAML file (see configs/net-*.yaml). The same seed
gives the same weights. An existing --out file is kept unless --force is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Path == "" {
				return errors.New("--out is required")
			}
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return modelInitRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Net, "net", "tiny", "architecture: preset tiny or small, or a YAML file")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed of the initial weights")
	f.StringVar(&opts.Path, "out", "", "checkpoint file to write")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing checkpoint")
	return cmd
}

func modelInitRun(opts *ModelInitOptions) error {
	cfg, err := model.ResolveConfig(opts.Net)
	if err != nil {
		return err
	}
	if !opts.Force {
		if _, err := os.Stat(opts.Path); err == nil {
			return fmt.Errorf("%s exists; use --force to overwrite it", opts.Path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	net, err := gonum.New(cfg, opts.Seed)
	if err != nil {
		return err
	}
	if err := net.Save(opts.Path); err != nil {
		return err
	}
	var params int
	for _, s := range model.Specs(cfg, model.KindTraining) {
		if s.Trainable {
			n := 1
			for _, d := range s.Shape {
				n *= d
			}
			params += n
		}
	}
	fmt.Fprintf(opts.Out, "wrote %s: net %s (%d blocks x %d channels, %d parameters), seed %d\n",
		opts.Path, cfg.Name, cfg.Blocks, cfg.Channels, params, opts.Seed)
	return nil
}

// ExportOptions configures `yinsh export`.
type ExportOptions struct {
	Out        io.Writer
	Checkpoint string
	Format     string // "onnx" or "safetensors"
	Path       string
}

func newExportCmd() *cobra.Command { return newCmdExport(nil) }

func newCmdExport(runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --checkpoint FILE --format onnx|safetensors --out FILE",
		Short: "Export a checkpoint's network for game clients (ONNX or inference safetensors)",
		Long: `Export a network for game clients, with batch norm folded into the convolutions.
  onnx         inputs planes [N,15,11,11] float32 and mask [N,2142] bool; outputs policy [N,2142]
               (probabilities, illegal actions 0) and wdl [N,3] (win, draw, loss for the side to
               act); opset 13; metadata_props yinsh.* name the encoding version and action layout.
  safetensors  folded weights and metadata, for the pure-Go client package model/policy.
The output is written atomically (an existing file is replaced).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Checkpoint == "":
				return errors.New("--checkpoint is required")
			case opts.Path == "":
				return errors.New("--out is required")
			case opts.Format != "onnx" && opts.Format != "safetensors":
				return fmt.Errorf("--format must be onnx or safetensors, got %q", opts.Format)
			}
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return exportRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Checkpoint, "checkpoint", "", "checkpoint file to export")
	f.StringVar(&opts.Format, "format", "onnx", "output format: onnx or safetensors")
	f.StringVar(&opts.Path, "out", "", "file to write")
	return cmd
}

func exportRun(opts *ExportOptions) error {
	if a, b := filepath.Clean(opts.Checkpoint), filepath.Clean(opts.Path); a == b {
		return fmt.Errorf("--out %s is the checkpoint itself", opts.Path)
	}
	ck, err := model.ReadCheckpoint(opts.Checkpoint)
	if err != nil {
		return err
	}
	switch opts.Format {
	case "onnx":
		err = model.WriteONNX(opts.Path, ck)
	default:
		err = model.WriteInference(opts.Path, ck)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "wrote %s (%s, net %s, step %d, encoding version %d)\n",
		opts.Path, opts.Format, ck.Meta.Net.Name, ck.Meta.Step, ck.Meta.EncodingVersion)
	return nil
}
