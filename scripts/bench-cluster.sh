#!/usr/bin/env bash
# Self-play throughput of distributed self-play against the single-process loop, on this machine:
# one generation of the quickstart config's self-play (no training, no evaluation), played by the
# plain loop, then by 1, 2 and 4 `yinsh worker` processes on an embedded server. Prints games/hour
# from each run's metrics.jsonl (BENCHMARKS.md, "Distributed self-play (NATS JetStream)").
#
#   bash scripts/bench-cluster.sh                 # 32 games, workers --parallel 16
#   GAMES=64 PARALLEL=8 WORKERS="1 2 4" bash scripts/bench-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."
games=${GAMES:-32}
parallel=${PARALLEL:-16}
workers=${WORKERS:-"1 2 4"}
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/yinsh" ./cmd/yinsh
common=(--config configs/quickstart.yaml --set generations=1 --set "selfplay.games=$games"
	--set training.min_positions=100000000 --set evaluation.baseline_games=0 --set evaluation.ladder_games=0
	--set evaluation.anchor_games=0 --set evaluation.games=0)
rate() { python3 -c 'import json,sys; m=json.loads(open(sys.argv[1]).readline())["selfplay"]; print("%d games in %.1f s: %.0f games/hour" % (m["games"], m["seconds"], m["games_per_hour"]))' "$1/metrics.jsonl"; }

"$out/yinsh" train "${common[@]}" --set "selfplay.parallel=$((2 * parallel))" --run "$out/plain" >/dev/null 2>&1
echo "plain loop, parallel $((2 * parallel)): $(rate "$out/plain")"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for n in $workers; do
	run="$out/cluster-$n"
	"$out/yinsh" train "${common[@]}" --set cluster.server=embedded --set "cluster.listen=127.0.0.1:$port" \
		--set cluster.local_workers=0 --run "$run" >"$out/trainer-$n.log" 2>&1 &
	trainer=$!
	until grep -q "cluster: run" "$out/trainer-$n.log" 2>/dev/null; do sleep 0.1; done
	pids=()
	for i in $(seq "$n"); do
		"$out/yinsh" worker --server "nats://127.0.0.1:$port" --run "$run" --parallel "$parallel" --name "w$i" >"$out/worker-$n-$i.log" 2>&1 &
		pids+=($!)
	done
	wait "$trainer"
	wait "${pids[@]}" || true
	echo "$n worker process(es), parallel $parallel each: $(rate "$run")"
done
