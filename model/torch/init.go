//go:build torch

package torch

import "github.com/yinsh-zero/yinsh/model"

// initCheckpoint returns freshly initialised weights: model.InitCheckpoint, shared with model/gonum,
// so a seed gives the same net in both backends and on every device.
func initCheckpoint(cfg model.Config, seed uint64) *model.Checkpoint {
	return model.InitCheckpoint(cfg, seed, BackendName)
}
