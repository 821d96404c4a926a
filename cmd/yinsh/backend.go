package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/train"
)

// trainBackends are the network backends `yinsh train` and `yinsh selfplay` can use, built for a
// device and thread count; a backend built under a tag (torch) adds itself from its own file.
var trainBackends = map[string]func(device string, threads int) train.Backend{
	gonum.BackendName: func(string, int) train.Backend {
		return train.Backend{
			Name: gonum.BackendName,
			New:  func(cfg model.Config, seed uint64) (model.Net, error) { return gonum.New(cfg, seed) },
			Load: func(path string) (model.Net, error) { return gonum.Load(path) },
		}
	},
}

func backendFor(name, device string, threads int) (train.Backend, error) {
	mk, ok := trainBackends[name]
	if !ok {
		var have []string
		for n := range trainBackends {
			have = append(have, n)
		}
		sort.Strings(have)
		hint := ""
		if name == "torch" {
			hint = " (build with -tags torch after scripts/libtorch.sh; see docs/torch.md)"
		}
		return train.Backend{}, fmt.Errorf("backend %q is not in this build (have %s)%s", name, strings.Join(have, ", "), hint)
	}
	return mk(device, threads), nil
}

// BackendFlags are the --backend, --device and --threads flags of every command that runs a
// network (arena, play, engine, analyze, serve, search, bench, datasets generate, worker, fit).
// Commands call backend() for the train.Backend, or loader() for what loads checkpoint players'
// networks: selfplay and engine link no backend, the command injects it.
type BackendFlags struct {
	Backend string
	Device  string // cpu, cuda or cuda:N; the gonum backend runs on cpu only
	Threads int
}

func (b *BackendFlags) add(f interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
}) {
	f.StringVar(&b.Backend, "backend", gonum.BackendName, "network backend of checkpoint players: gonum (pure Go) or torch (build tag torch)")
	f.StringVar(&b.Device, "device", "cpu", "device of the network backend: cpu, cuda or cuda:N (torch only; gonum runs on cpu)")
	f.IntVar(&b.Threads, "threads", 0, "threads of the network backend (0: all cores)")
}

// backend returns the chosen backend built for the chosen device, or an error naming the flag: a
// backend this build lacks, a device that is not cpu, cuda or cuda:N, or a device other than cpu
// for gonum.
func (b BackendFlags) backend() (train.Backend, error) {
	name, device := b.Backend, b.Device
	if name == "" {
		name = gonum.BackendName
	}
	if device == "" {
		device = "cpu"
	}
	if err := checkDevice(device); err != nil {
		return train.Backend{}, fmt.Errorf("--device: %w", err)
	}
	if name == gonum.BackendName && device != "cpu" {
		return train.Backend{}, fmt.Errorf("--device %s: the gonum backend runs on cpu only (use --backend torch, built with -tags torch, for %s)", device, device)
	}
	be, err := backendFor(name, device, b.Threads)
	if err != nil {
		return train.Backend{}, fmt.Errorf("--backend: %w", err)
	}
	return be, nil
}

// loader returns what loads checkpoint players' networks on the chosen backend and device (the
// backend's Load), or backend's error.
func (b BackendFlags) loader() (func(string) (model.Net, error), error) {
	be, err := b.backend()
	if err != nil {
		return nil, err
	}
	return be.Load, nil
}

// checkDevice accepts cpu, cuda and cuda:N (N a device index).
func checkDevice(d string) error {
	if d == "cpu" || d == "cuda" {
		return nil
	}
	if n, ok := strings.CutPrefix(d, "cuda:"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && strconv.Itoa(i) == n {
			return nil
		}
	}
	return fmt.Errorf("%q: want cpu, cuda or cuda:N", d)
}
