package train

import "github.com/yinsh-zero/yinsh/model"

// Backend creates and loads networks of one implementation (model/gonum, model/torch). The CLI picks
// it from the config's backend field; train itself imports no backend.
type Backend struct {
	Name string
	// New returns a freshly initialised network (deterministic for a seed).
	New func(cfg model.Config, seed uint64) (model.Net, error)
	// Load reads a training checkpoint written by any backend.
	Load func(path string) (model.Net, error)
}
