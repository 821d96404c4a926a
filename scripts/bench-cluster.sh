#!/usr/bin/env bash
# Self-play throughput of distributed self-play against the single-process loop, on this machine:
# one generation of the quickstart config's self-play (no training, no evaluation), played by the
# plain loop, then by 1, 2 and 4 `yinsh worker` processes on an embedded server. Prints games/hour
# from each run's metrics.jsonl and the CPU seconds all its processes used per game, with the load
# average (the machine may be shared) (BENCHMARKS.md, "Distributed self-play (NATS JetStream)").
#
#   bash scripts/bench-cluster.sh                 # 32 games, workers --parallel 16, plain loop 32
#   GAMES=64 PARALLEL=8 WORKERS="1 2 4" bash scripts/bench-cluster.sh
#   STEADY_ONLY=1 PARALLEL=8 bash scripts/bench-cluster.sh   # only the steady-state part
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
timed() { local f=$1; shift; /usr/bin/time -f "%U %S" -o "$f" "$@"; }
cpu() { cat "$@" | awk '{s += $1 + $2} END {printf "%.1f", s}'; }
report() { # run dir, cpu seconds
	python3 -c 'import json,sys; m=json.loads(open(sys.argv[1]).readline())["selfplay"]; c=float(sys.argv[2]); print("%d games in %.1f s: %.0f games/hour, %.2f CPU s a game" % (m["games"], m["seconds"], m["games_per_hour"], c/m["games"]))' "$1/metrics.jsonl" "$2"
}
load() { cut -d' ' -f1 /proc/loadavg; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ -z "${STEADY_ONLY:-}" ]; then
	l0=$(load)
	timed "$out/plain.time" "$out/yinsh" train "${common[@]}" --set "selfplay.parallel=$((2 * parallel))" --run "$out/plain" >/dev/null 2>&1
	echo "plain loop, parallel $((2 * parallel)): $(report "$out/plain" "$(cpu "$out/plain.time")") (load $l0 → $(load))"

	for n in $workers; do
		run="$out/cluster-$n"
		l0=$(load)
		timed "$out/trainer-$n.time" "$out/yinsh" train "${common[@]}" --set cluster.server=embedded --set "cluster.listen=127.0.0.1:$port" \
			--set cluster.local_workers=0 --run "$run" >"$out/trainer-$n.log" 2>&1 &
		trainer=$!
		until grep -q "cluster: run" "$out/trainer-$n.log" 2>/dev/null; do sleep 0.1; done
		pids=()
		for i in $(seq "$n"); do
			timed "$out/worker-$n-$i.time" "$out/yinsh" worker --server "nats://127.0.0.1:$port" --run "$run" --parallel "$parallel" --name "w$i" >"$out/worker-$n-$i.log" 2>&1 &
			pids+=($!)
		done
		wait "$trainer"
		wait "${pids[@]}" || true
		echo "$n worker process(es), parallel $parallel each: $(report "$run" "$(cpu "$out/trainer-$n.time" "$out"/worker-"$n"-*.time)") (load $l0 → $(load))"
	done

fi

# Steady state: the workers' publish rate with warm workers (games published between WARM and
# WARM+WINDOW seconds after they started, from their --verbose logs), the trainer ingesting a
# generation larger than the window.
warm=${WARM:-30}
window=${WINDOW:-60}
for n in $workers; do
	run="$out/steady-$n"
	"$out/yinsh" train "${common[@]}" --set selfplay.games=100000 --set cluster.server=embedded --set "cluster.listen=127.0.0.1:$port" \
		--set cluster.local_workers=0 --run "$run" >"$out/steady-trainer-$n.log" 2>&1 &
	trainer=$!
	until grep -q "cluster: run" "$out/steady-trainer-$n.log" 2>/dev/null; do sleep 0.1; done
	pids=()
	l0=$(load)
	start=$(date +%s.%N)
	for i in $(seq "$n"); do
		"$out/yinsh" worker --server "nats://127.0.0.1:$port" --run "$run" --parallel "$parallel" --name "w$i" --verbose >"$out/steady-$n-$i.log" 2>&1 &
		pids+=($!)
	done
	sleep $((warm + window))
	kill "${pids[@]}" "$trainer" 2>/dev/null || true
	wait "${pids[@]}" "$trainer" 2>/dev/null || true
	python3 - "$start" "$warm" "$window" "$n" "$parallel" "$l0" "$(load)" "$out"/steady-"$n"-*.log <<'PY'
import sys, re, datetime
start, warm, window = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
n, par, l0, l1, logs = sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8:]
count = 0
for f in logs:
    for line in open(f):
        if 'msg="cluster: game published"' not in line:
            continue
        t = datetime.datetime.fromisoformat(re.search(r'time=(\S+)', line).group(1).replace("Z", "+00:00")).timestamp()
        if start + warm <= t < start + warm + window:
            count += 1
print("steady state, %s worker process(es), parallel %s each: %d games in %.0f s: %.0f games/hour (load %s → %s)" % (n, par, count, window, count * 3600 / window, l0, l1))
PY
done
