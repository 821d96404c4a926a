// Package torch is the libtorch backend of model.Net, through gotch v0.9.x (libtorch 2.1.x), on the
// CPU or a CUDA device. It builds the same architecture from the same model.Config as model/gonum,
// runs the same training step (losses, SGD / AdamW update rules, batch-norm statistics) and reads and
// writes the same checkpoint files, so a checkpoint moves freely between the backends.
//
// Everything but this file needs the build tag `torch` and libtorch: run scripts/libtorch.sh once
// (see docs/torch.md), then
//
//	eval "$(scripts/libtorch.sh)"
//	go test -tags torch ./model/torch/...
//
// Without the tag the package is empty and the default build needs no cgo.
package torch
