#!/usr/bin/env bash
# scripts/test-torch.sh — run the libtorch backend's tests (build tag `torch`).
#
# Sets up libtorch 2.1.x and the patched gotch copy (scripts/libtorch.sh: cached, idempotent), checks
# that the CLI builds with the tag (it registers `yinsh bench model --backend torch`), then runs
#   go test -tags torch ./model/torch/...
# Extra arguments go to go test, e.g. scripts/test-torch.sh -short -v -run Predict.
# CUDA tests skip themselves on machines without a GPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
eval "$(scripts/libtorch.sh)"
# The torch build needs the go.work that points gotch at the patched copy, even where the caller
# turned workspaces off for the default build (.ci/run exports GOWORK=off).
export GOWORK="$PWD/go.work"
go vet -tags torch ./model/torch/...
go build -tags torch -o /dev/null ./cmd/yinsh
go test -tags torch -timeout 30m "$@" ./model/torch/...
