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
	cmd := groupCmd("model", "Create and inspect network checkpoints")
	cmd.AddCommand(newCmdModelInit(nil), newCmdModelInfo(nil), newCmdModelAverage(nil))
	return cmd
}

// ModelInitOptions configures `yinsh model init`.
type ModelInitOptions struct {
	Out     io.Writer
	Net     string // preset name or YAML file
	Seed    uint64
	Path    string // checkpoint to write
	Force   bool   // overwrite an existing file
	Variant string // the variant recorded in the metadata ("" unknown)
}

func newCmdModelInit(runF func(*ModelInitOptions) error) *cobra.Command {
	opts := &ModelInitOptions{}
	cmd := &cobra.Command{
		Use:   "init --net tiny|small|FILE.yaml --seed S --out FILE",
		Short: "Write a freshly initialised network checkpoint",
		Long: `Write a freshly initialised training checkpoint (safetensors + metadata, written atomically).
--net is a preset (tiny, small) or an architecture YAML file (see configs/net-*.yaml). The same seed
gives the same weights. --variant records the variant the network is meant for (players then
refuse it under the other one); without it the variant is unknown. An existing --out file is kept
unless --force is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Path == "" {
				return errors.New("--out is required")
			}
			if opts.Variant != "" {
				if _, err := parseVariant(opts.Variant); err != nil {
					return err
				}
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
	f.StringVar(&opts.Variant, "variant", "", "record the rules variant the network is for: standard or blitz (default: unknown)")
	return cmd
}

// checkOverwrite refuses to replace an existing file unless force (the one rule of every command
// that writes a file).
func checkOverwrite(path string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists (pass --force to overwrite it)", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func modelInitRun(opts *ModelInitOptions) error {
	cfg, err := model.ResolveConfig(opts.Net)
	if err != nil {
		return err
	}
	if err := checkOverwrite(opts.Path, opts.Force); err != nil {
		return err
	}
	net, err := gonum.New(cfg, opts.Seed)
	if err != nil {
		return err
	}
	ck, err := net.Checkpoint()
	if err != nil {
		return err
	}
	if opts.Variant != "" {
		ck.Meta.Variant = opts.Variant
	}
	if err := model.WriteCheckpoint(opts.Path, ck); err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "wrote %s: net %s (%d blocks x %d channels, %d parameters), seed %d\n",
		opts.Path, cfg.Name, cfg.Blocks, cfg.Channels, model.ParamCount(cfg, model.KindTraining), opts.Seed)
	return nil
}

// ModelInfoOptions configures `yinsh model info`.
type ModelInfoOptions struct {
	Out  io.Writer
	Path string
}

func newCmdModelInfo(runF func(*ModelInfoOptions) error) *cobra.Command {
	opts := &ModelInfoOptions{}
	cmd := &cobra.Command{
		Use:   "info FILE",
		Short: "Describe a checkpoint: variant, run, step, architecture, parameters, FLOPs, checksum, size",
		Long: `Print what a checkpoint (or an exported inference safetensors file) says about itself: kind, rules
variant, run id and generation, training step, observation encoding version, architecture,
trainable parameters, FLOPs per position (one forward pass, 2 per multiply-add), optimiser, writer
backend, checksum (verified against the content) and file size. Fields a checkpoint does not
record (older checkpoints) are shown as unknown.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path, opts.Out = args[0], cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return modelInfoRun(opts)
		},
	}
	return cmd
}

func modelInfoRun(opts *ModelInfoOptions) error {
	st, err := os.Stat(opts.Path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a checkpoint file", opts.Path)
	}
	if err := notCheckpoint(opts.Path); err != nil {
		return err
	}
	// the full read verifies the checksum and every tensor's shape
	ck, err := model.ReadCheckpoint(opts.Path)
	if err != nil {
		return err
	}
	h, err := model.ReadMetadata(opts.Path)
	if err != nil {
		return err
	}
	m, cfg, o := ck.Meta, ck.Meta.Net, opts.Out
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	fmt.Fprintf(o, "file: %s\n", opts.Path)
	fmt.Fprintf(o, "size: %d bytes (%s)\n", st.Size(), humanBytes(st.Size()))
	fmt.Fprintf(o, "kind: %s\n", checkpointKind(m))
	fmt.Fprintf(o, "variant: %s\n", unknown(m.Variant))
	if m.Run != nil {
		fmt.Fprintf(o, "run: %s\ngeneration: %d\n", unknown(m.Run.ID), m.Run.Generation)
	} else {
		fmt.Fprintf(o, "run: unknown\ngeneration: unknown\n")
	}
	fmt.Fprintf(o, "step: %d\n", m.Step)
	fmt.Fprintf(o, "encoding version: %d\n", m.EncodingVersion)
	gpool := ""
	if cfg.GlobalPool {
		gpool = ", global pooling"
	}
	if cfg.ScoreHead {
		gpool += ", score head"
	}
	fmt.Fprintf(o, "net: %s: %s x %s, policy head %s, value head %s x %d hidden, %s%s\n",
		unknown(cfg.Name), plural(cfg.Blocks, "block"), plural(cfg.Channels, "channel"), plural(cfg.PolicyChannels, "channel"),
		plural(cfg.ValueChannels, "channel"), cfg.ValueHidden, plural(cfg.InputPlanes, "input plane"), gpool)
	fmt.Fprintf(o, "parameters: %d\n", model.ParamCount(cfg, m.Kind))
	flops := cfg.FLOPsPerPosition()
	fmt.Fprintf(o, "flops per position: %d (%.2f MFLOP)\n", flops, float64(flops)/1e6)
	if m.Optimizer != nil {
		fmt.Fprintf(o, "optimizer: %s (state stored)\n", m.Optimizer.Kind)
	} else {
		fmt.Fprintf(o, "optimizer: none stored\n")
	}
	fmt.Fprintf(o, "backend: %s\n", unknown(m.Backend))
	fmt.Fprintf(o, "tensors: %d\n", h.Tensors)
	fmt.Fprintf(o, "sha256: %s (verified)\n", h.SHA256)
	return nil
}

// checkpointKind says what kind of network file m describes: a training checkpoint with or without its
// optimiser state (an exported --format weights file, or the reference network, has none: it plays
// and can be fine-tuned, with fresh optimiser moments), or a batch-norm-folded inference file.
func checkpointKind(m model.Metadata) string {
	switch {
	case m.Kind == model.KindTraining && m.Optimizer != nil:
		return "training (weights and optimiser state: resumes training exactly)"
	case m.Kind == model.KindTraining:
		return "training weights (no optimiser state: plays, and trains on with fresh optimiser moments)"
	case m.Kind == model.KindInference:
		return "inference (batch norm folded: plays, does not train)"
	}
	return m.Kind
}

// plural is "1 channel", "16 channels".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// notCheckpoint names what the file at path is when it is recognisably something else than a
// network file (a dataset shard, a game record, Parquet, zstd data), so that model info does not
// answer with a format error about a file that was never a checkpoint.
func notCheckpoint(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	switch kind := sniffKind(head[:n]); kind {
	case kindShard:
		return fmt.Errorf("%s is a dataset shard, not a checkpoint: use yinsh datasets games %s", path, path)
	case kindText:
		return fmt.Errorf("%s is a text file, not a checkpoint (game records and token files: yinsh replay %s)", path, path)
	case kindZstd, kindParquet:
		return fmt.Errorf("%s is %s, not a checkpoint", path, kind)
	}
	return nil
}

// humanBytes formats a size in KiB, MiB or GiB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ExportOptions configures `yinsh export`.
type ExportOptions struct {
	Out        io.Writer
	Checkpoint string
	Format     string // "onnx", "safetensors", "weights" or "web"
	Path       string
	Force      bool // replace an existing Path
	// Wasm and WasmExec (--format web) are a prebuilt cmd/yinsh-wasm and its toolchain's
	// wasm_exec.js; "": built (found) with the go toolchain from the source tree.
	Wasm, WasmExec string
}

func newExportCmd() *cobra.Command { return newCmdExport(nil) }

func newCmdExport(runF func(*ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --checkpoint FILE --format onnx|safetensors|weights --out FILE | export --format web --out DIR",
		Short: "Export a checkpoint's network for game clients (ONNX, inference safetensors), as bare weights, or the agent as a static web site",
		Long: `Export a network: for game clients (onnx, safetensors: batch norm folded into the
convolutions), or as weights.
  onnx         inputs planes [N,15,11,11] float32 and mask [N,2142] bool; outputs policy [N,2142]
               (probabilities, illegal actions 0) and wdl [N,3] (win, draw, loss for the side to
               act); opset 13; metadata_props yinsh.* name the encoding version, action layout,
               architecture, step, and the variant, run id and generation when known.
  safetensors  folded weights and metadata, for the pure-Go client package model/policy.
  weights      the training checkpoint without its optimiser state (a third of an AdamW
               checkpoint's size): what every yinsh command that takes a checkpoint loads, and
               how nets/standard.ckpt and nets/blitz.ckpt, the reference networks, are made.
  web          a static site in the directory --out (no --checkpoint): yinsh serve's play and
               analyse pages with the agent (rules, search and the reference networks, built for
               WebAssembly) running in the browser in a Web Worker; any static file server serves
               it, and it fetches nothing from elsewhere. Open index.html?player=level:N (or
               reference, heuristic, …)&variant=blitz to choose the agent. The wasm binary is built
               from the source tree with the go toolchain (GOOS=js GOARCH=wasm go build
               ./cmd/yinsh-wasm), or given prebuilt with --wasm FILE (and --wasm-exec, the
               wasm_exec.js of the Go that built it, when no go toolchain is on the PATH).
The output is written atomically; an existing --out file is kept unless --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Format == "web":
				switch {
				case opts.Checkpoint != "":
					return errors.New("--format web plays the reference networks built into the wasm binary (package nets): it takes no --checkpoint")
				case opts.Path == "":
					return errors.New("--out DIR is required")
				}
				opts.Out = cmd.OutOrStdout()
				if runF != nil {
					return runF(opts)
				}
				return exportWebRun(opts)
			case opts.Wasm != "" || opts.WasmExec != "":
				return errors.New("--wasm and --wasm-exec go with --format web only")
			case opts.Checkpoint == "":
				return errors.New("--checkpoint is required")
			case opts.Path == "":
				return errors.New("--out is required")
			case opts.Format != "onnx" && opts.Format != "safetensors" && opts.Format != "weights":
				return fmt.Errorf("--format must be onnx, safetensors, weights or web, got %q", opts.Format)
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
	f.StringVar(&opts.Format, "format", "onnx", "output format: onnx, safetensors, weights or web")
	f.StringVar(&opts.Path, "out", "", "file to write (--format web: the site's directory)")
	f.BoolVar(&opts.Force, "force", false, "replace an existing --out file (--format web: the site's files)")
	f.StringVar(&opts.Wasm, "wasm", "", "--format web: a prebuilt yinsh.wasm (GOOS=js GOARCH=wasm go build ./cmd/yinsh-wasm) instead of building it")
	f.StringVar(&opts.WasmExec, "wasm-exec", "", "--format web: the wasm_exec.js of the Go that built --wasm (default: the go toolchain's)")
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
	if err := checkOverwrite(opts.Path, opts.Force); err != nil {
		return err
	}
	switch opts.Format {
	case "onnx":
		err = model.WriteONNX(opts.Path, ck)
	case "weights":
		var w *model.Checkpoint
		if w, err = ck.WithoutOptimizer(); err == nil {
			err = model.WriteCheckpoint(opts.Path, w)
		}
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
