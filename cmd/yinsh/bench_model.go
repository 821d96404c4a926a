package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// ModelBenchResult is what `yinsh bench model` prints.
type ModelBenchResult struct {
	PositionsPerSec    float64 // inference
	TrainSamplesPerSec float64
	GFLOPS             float64 // achieved in inference
	SgemmGFLOPS        float64 // the backend's raw float32 GEMM on the tower convolution's shape
	Kernel             string  // the backend's compute kernel (gonum: avx512, avx2+fma or gonum; torch: libtorch's device)
}

// modelBenchers are the backends `yinsh bench model --backend` knows; a backend built under a tag
// (model/torch) adds itself from an init function in its own file.
var modelBenchers = map[string]func(cfg model.Config, batch int, d time.Duration) (ModelBenchResult, error){
	gonum.BackendName: func(cfg model.Config, batch int, d time.Duration) (ModelBenchResult, error) {
		r, err := gonum.Bench(cfg, batch, d)
		return ModelBenchResult{r.PositionsPerSec, r.TrainSamplesPerSec, r.GFLOPS, r.SgemmGFLOPS, r.Kernel}, err
	},
}

// BenchModelOptions configures `yinsh bench model`.
type BenchModelOptions struct {
	Out     io.Writer
	Backend string
	Net     string // preset or YAML file
	Batch   int
	Time    time.Duration // per measurement
}

func newCmdBenchModel(runF func(*BenchModelOptions) error) *cobra.Command {
	opts := &BenchModelOptions{}
	cmd := &cobra.Command{
		Use:   "model [--backend gonum] [--net tiny|small] [--batch N]",
		Short: "Measure network inference and training throughput",
		Long: `Measure a freshly initialised network on random positions and print exactly:
  positions/s: <float>       inference (batched Predict)
  train-samples/s: <float>   training steps
  gflops: <float>            achieved in inference (convolutions and fully connected layers)
  sgemm-gflops: <float>      the backend's raw float32 GEMM on the 3x3 tower convolution's shape
                             (channels x 9*channels times 9*channels x batch*121), same run
  kernel: <name>             the compute kernel: for gonum avx512 or avx2+fma (Go assembly, chosen
                             from the CPU's features; YINSH_KERNEL=avx2 picks AVX2 on an AVX-512
                             CPU) or gonum (generic Go; forced with YINSH_KERNEL=gonum)
Inference and the raw GEMM are measured in alternating rounds, best round of each.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, ok := modelBenchers[opts.Backend]; !ok {
				return fmt.Errorf("--backend %q is not available in this build (have %s)", opts.Backend, strings.Join(benchBackendNames(), ", "))
			}
			if opts.Batch < 1 || opts.Batch > 4096 {
				return fmt.Errorf("--batch must be in [1, 4096], got %d", opts.Batch)
			}
			if opts.Time <= 0 {
				return fmt.Errorf("--time must be positive, got %v", opts.Time)
			}
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return benchModelRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Backend, "backend", gonum.BackendName, "network backend")
	f.StringVar(&opts.Net, "net", "small", "architecture: preset tiny or small, or a YAML file")
	f.IntVar(&opts.Batch, "batch", 64, "batch size")
	f.DurationVar(&opts.Time, "time", 3*time.Second, "time spent on each of inference and training")
	return cmd
}

func benchBackendNames() []string {
	var names []string
	for n := range modelBenchers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func benchModelRun(opts *BenchModelOptions) error {
	cfg, err := model.ResolveConfig(opts.Net)
	if err != nil {
		return err
	}
	r, err := modelBenchers[opts.Backend](cfg, opts.Batch, opts.Time)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "positions/s: %.1f\n", r.PositionsPerSec)
	fmt.Fprintf(opts.Out, "train-samples/s: %.1f\n", r.TrainSamplesPerSec)
	fmt.Fprintf(opts.Out, "gflops: %.2f\n", r.GFLOPS)
	fmt.Fprintf(opts.Out, "sgemm-gflops: %.2f\n", r.SgemmGFLOPS)
	if r.Kernel != "" {
		fmt.Fprintf(opts.Out, "kernel: %s\n", r.Kernel)
	}
	return nil
}
