#!/usr/bin/env bash
# Calibrates the strength levels (selfplay/levels.go, `yinsh levels`; issue 29) against the reference
# network of VARIANT. The players form a CHAIN from weakest to strongest (random, level:1 …
# level:10, reference); every player meets the next one and the one after it (adjacent and skip-one
# pairs, so each step is measured directly and through its neighbours), and each of OTHERS
# (heuristic) meets the players of OTHERS_VS. Every pair is a match of game pairs from random
# openings (colours swapped) with searching players bounded at MOVETIME ms a decision, appended to
# DIR/results-levels.jsonl by `yinsh arena --results`; `yinsh ratings DIR --steps CHAIN` then fits
# every player's Elo with its 95% interval (random at 0) and each step of the chain with the
# interval of the difference. Copy the figures into selfplay.Levels (each level's Standard or Blitz
# Rating{Elo, Low, High}) and into BENCHMARKS.md.
#
# Cost: the levels below 10 search a fixed number of simulations (at most 1,900: under MOVETIME on 2 free cores, else MOVETIME bounds them),
# so their pairs are quick (GAMES games, about a minute each) and a loaded machine only slows them.
# Pairs with level:10 or reference (the full agent at MOVETIME) are bounded by time: TIMED_GAMES
# games each, and they need a quiet machine (keep PARALLEL at most the free cores). At the defaults
# the whole calibration takes about an hour on 2 cores (standard; blitz about 40 minutes). QUICK_ONLY=1 plays only the quick pairs
# (on a busy machine) and stops before fitting; a later run without it plays the rest.
#
# The calibration is of one reference network, nets/VARIANT.ckpt: DIR/reference.sum holds its
# SHA-256 prefix. When the reference network changes, the next run starts over (the old results are
# moved to DIR/old-SUM/); otherwise a run resumes, skipping the pairs already played (DIR/done).
#
#   bash scripts/calibrate-levels.sh                          # DIR=runs/levels
#   GAMES=40 TIMED_GAMES=20 DIR=/tmp/levels bash scripts/calibrate-levels.sh
#   CHAIN="random level:1 level:2" OTHERS= GAMES=2 MOVETIME=50 DIR=/tmp/smoke bash scripts/calibrate-levels.sh  # smoke check
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DIR:-runs/levels}
games=${GAMES:-100}
timed_games=${TIMED_GAMES:-40}
movetime=${MOVETIME:-500}
parallel=${PARALLEL:-2}
variant=${VARIANT:-standard}
chain=${CHAIN:-"random level:1 level:2 level:3 level:4 level:5 level:6 level:7 level:8 level:9 level:10 reference"}
others=${OTHERS-"heuristic"}
others_vs=${OTHERS_VS:-"level:2 level:3 level:4"}

mkdir -p "$dir"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/yinsh" ./cmd/yinsh

sum=$(sha256sum "nets/$variant.ckpt" | cut -c1-12)
if [ -f "$dir/reference.sum" ] && [ "$(cat "$dir/reference.sum")" != "$sum" ]; then
	old="$dir/old-$(cat "$dir/reference.sum")"
	echo "the reference network changed ($(cat "$dir/reference.sum") → $sum): starting over, old results in $old"
	mkdir -p "$old"
	mv "$dir"/results-levels.jsonl "$dir"/done "$old"/ 2>/dev/null || true
fi
echo "$sum" >"$dir/reference.sum"
touch "$dir/done"

# the pairs: quick ones first, then those bounded by time
read -r -a ps <<<"$chain"
pairs=()
for ((i = 0; i < ${#ps[@]}; i++)); do
	for ((j = i + 1; j <= i + 2 && j < ${#ps[@]}; j++)); do
		pairs+=("${ps[i]} ${ps[j]}")
	done
done
for o in $others; do
	for v in $others_vs; do
		pairs+=("$o $v")
	done
done
timed() { case " $1 " in *" level:10 "* | *" reference "*) return 0 ;; esac; return 1; }
ordered=()
for p in "${pairs[@]}"; do timed "$p" || ordered+=("$p"); done
for p in "${pairs[@]}"; do timed "$p" && ordered+=("$p"); done

seed=0
for p in "${ordered[@]}"; do
	read -r a b <<<"$p"
	n=$games
	if timed "$p"; then
		if [ "${QUICK_ONLY:-}" = 1 ]; then
			echo "QUICK_ONLY: the pairs bounded by time are left for a run on a quiet machine"
			exit 0
		fi
		n=$timed_games
	fi
	seed=$((seed + 1))
	pair="$a $b $n $movetime $variant"
	if grep -qxF "$pair" "$dir/done"; then
		continue
	fi
	echo "== $a vs $b ($n games, ${movetime} ms, load $(cut -d' ' -f1 /proc/loadavg), $(date +%H:%M:%S))"
	"$bin/yinsh" arena --a "$a" --b "$b" --games "$n" --movetime "$movetime" --parallel "$parallel" --threads 1 \
		--variant "$variant" --seed "$seed" --results "$dir/results-levels.jsonl" | grep -E '^(score|elo|time per move):'
	echo "$pair" >>"$dir/done"
done
# results name a player bounded by --movetime NAME@MSms (random and heuristic are not)
named() {
	case $1 in random | heuristic) echo "$1" ;; *) echo "$1@${movetime}ms" ;; esac
}
steps=()
for p in "${ps[@]}"; do steps+=("$(named "$p")"); done
anchor=$(named "${ps[0]}")
"$bin/yinsh" ratings "$dir" --anchor "$anchor" --steps "$(
	IFS=,
	echo "${steps[*]}"
)"
