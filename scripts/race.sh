#!/usr/bin/env bash
# The race detector over the concurrent packages: one list, used by `make race` and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t pkgs < <(go list ./mcts/... ./selfplay/... ./datasets/... ./train/... ./engine/... ./model/gonum/... \
	./web/... ./cluster/... ./internal/... ./cmd/...)
go test -race -short "$@" "${pkgs[@]}"
