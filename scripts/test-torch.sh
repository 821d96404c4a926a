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

# End to end on the torch backend: a one-generation training run, a fit, a match, the engine and the
# JSON analysis, each with checkpoint players on libtorch (skipped with -run or other go test args).
if [ $# -eq 0 ]; then
	bin=$(mktemp -d)/yinsh-torch
	go build -tags torch -o "$bin" ./cmd/yinsh
	work=$(mktemp -d)
	trap 'rm -rf "$work" "$(dirname "$bin")"' EXIT
	"$bin" train --config configs/quickstart.yaml --run "$work/run" --set backend=torch --set generations=1 \
		--set selfplay.games=4 --set selfplay.simulations=16 --set training.min_positions=10 --set training.steps_per_generation=4 \
		--set evaluation.games=2 --set evaluation.baseline_games=2 --set evaluation.ladder_games=0 --set evaluation.anchor_games=0 >"$work/train.out" 2>"$work/train.err" \
		|| { cat "$work/train.err"; exit 1; }
	grep -q "gen 1/1" "$work/train.out" || { cat "$work/train.out" "$work/train.err"; exit 1; }
	ck="$work/run/checkpoints/gen-0001.ckpt"
	"$bin" fit --backend torch --data "$work/run/games" --net tiny --variant blitz --epochs 1 --batch-size 16 --holdout 0 --out "$work/fit.ckpt" >/dev/null 2>&1 \
		|| { echo "fit --backend torch failed"; exit 1; }
	"$bin" arena --backend torch --a "$ck" --b random --games 2 --sims 8 --variant blitz --results "" >/dev/null 2>&1 \
		|| { echo "arena --backend torch failed"; exit 1; }
	printf 'newgame blitz\ngenmove\nquit\n' | "$bin" engine --backend torch --player "$ck" --sims 8 --variant blitz | grep '^= ' >/dev/null \
		|| { echo "engine --backend torch failed"; exit 1; }
	echo '{"id":1,"moves":[],"sims":8}' | "$bin" analyze --json --backend torch --player "$ck" --variant blitz | grep '"best"' >/dev/null \
		|| { echo "analyze --backend torch failed"; exit 1; }
	printf 'quit\n' | "$bin" play --backend torch --checkpoint "$ck" --sims 8 --variant blitz --as black >/dev/null 2>&1 \
		|| { echo "play --backend torch failed"; exit 1; }
	echo "torch backend end to end: train, fit, arena, engine, analyze, play ok"
fi
