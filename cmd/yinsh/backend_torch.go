//go:build torch

package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/torch"
	"github.com/yinsh-zero/yinsh/train"
)

// The libtorch backend joins `yinsh bench model --backend torch` in builds with -tags torch.
// bench model has no device or thread flags, so two environment variables stand in:
// YINSH_TORCH_DEVICE (cpu, cuda, cuda:N; default cpu) and YINSH_TORCH_THREADS (libtorch intra-op
// threads; default GOMAXPROCS, the gonum backend's parallelism, so both run on the same cores).
func init() {
	modelBenchers[torch.BackendName] = func(cfg model.Config, batch int, d time.Duration) (ModelBenchResult, error) {
		o := torch.Options{Device: os.Getenv("YINSH_TORCH_DEVICE"), Threads: runtime.GOMAXPROCS(0)}
		if s := os.Getenv("YINSH_TORCH_THREADS"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return ModelBenchResult{}, fmt.Errorf("YINSH_TORCH_THREADS=%q: want a positive integer", s)
			}
			o.Threads = n
		}
		r, err := torch.Bench(cfg, batch, d, o)
		if err == nil {
			slog.Info("torch bench", "device", r.Device, "threads", r.Threads, "net", cfg.Name, "batch", batch)
		}
		return ModelBenchResult{r.PositionsPerSec, r.TrainSamplesPerSec, r.GFLOPS, r.SgemmGFLOPS, "libtorch " + r.Device}, err
	}
}

// The libtorch backend for `yinsh train` and `yinsh selfplay` (config fields backend: torch, device,
// threads).
func init() {
	trainBackends[torch.BackendName] = func(device string, threads int) train.Backend {
		o := torch.Options{Device: device, Threads: threads}
		return train.Backend{
			Name: torch.BackendName,
			New:  func(cfg model.Config, seed uint64) (model.Net, error) { return torch.New(cfg, seed, o) },
			Load: func(path string) (model.Net, error) { return torch.Load(path, o) },
		}
	}
}
