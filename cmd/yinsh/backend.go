package main

import (
	"fmt"
	"sort"
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

// BackendFlags are the --backend and --threads flags of the commands that play checkpoint players
// (arena, play, engine, analyze, datasets generate).
type BackendFlags struct {
	Backend string
	Threads int
}

func (b *BackendFlags) add(f interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
}) {
	f.StringVar(&b.Backend, "backend", gonum.BackendName, "network backend of checkpoint players: gonum (pure Go) or torch (build tag torch)")
	f.IntVar(&b.Threads, "threads", 0, "threads of the network backend (0: all cores)")
}

// loader returns what loads checkpoint players' networks on the chosen backend: nil for gonum (the
// players' default), the backend's Load otherwise, or an error for a backend this build lacks.
func (b BackendFlags) loader() (func(string) (model.Net, error), error) {
	if b.Backend == "" || b.Backend == gonum.BackendName {
		return nil, nil
	}
	be, err := backendFor(b.Backend, "cpu", b.Threads)
	if err != nil {
		return nil, fmt.Errorf("--backend: %w", err)
	}
	return be.Load, nil
}
