#!/usr/bin/env bash
# Calibrates the strength levels (selfplay/levels.go, `yinsh levels`; issue 29): a round robin of
# level:1 … level:10 with random, heuristic and reference, every pair GAMES games (pairs of two,
# colours swapped, random openings) with searching players at MOVETIME ms a move, appended to
# DIR/results-levels.jsonl by `yinsh arena --results`, then every player's Elo with its 95%
# interval fitted by `yinsh ratings DIR` (random anchored at 0, else the first player). Copy the figures into Levels (Elo,
# EloLow, EloHigh, EloKnown) and into BENCHMARKS.md. The ratings name the timed players
# level:N@500ms and reference@500ms (level:10@500ms should match reference@500ms).
#
# It needs a quiet machine: searching players are bounded by time, so a loaded machine weakens them.
# Keep PARALLEL at most the free cores. A full run is 78 pairs × GAMES games of standard YINSH.
#
# The calibration is of one reference network, the one of VARIANT (standard by default; blitz plays
# nets/blitz.ckpt): DIR/reference.sum holds the SHA-256 prefix of nets/VARIANT.ckpt (nets.Sum) it was
# made with. When the reference network changes, the next run
# starts over (the old results are moved to DIR/old-SUM/); otherwise a run resumes, skipping the
# pairs already played (DIR/done lists them).
#
#   bash scripts/calibrate-levels.sh                          # DIR=runs/levels, 40 games a pair, 500 ms
#   GAMES=20 PARALLEL=4 DIR=/tmp/levels bash scripts/calibrate-levels.sh
#   PLAYERS="level:1 level:2" GAMES=2 MOVETIME=50 DIR=/tmp/smoke bash scripts/calibrate-levels.sh  # smoke check
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DIR:-runs/levels}
games=${GAMES:-40}
movetime=${MOVETIME:-500}
parallel=${PARALLEL:-1}
variant=${VARIANT:-standard}
players=${PLAYERS:-"random heuristic reference level:1 level:2 level:3 level:4 level:5 level:6 level:7 level:8 level:9 level:10"}

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

read -r -a ps <<<"$players"
for ((i = 0; i < ${#ps[@]}; i++)); do
	for ((j = i + 1; j < ${#ps[@]}; j++)); do
		a=${ps[i]} b=${ps[j]}
		pair="$a $b $games $movetime $variant"
		if grep -qxF "$pair" "$dir/done"; then
			continue
		fi
		echo "== $a vs $b ($games games, ${movetime} ms, load $(cut -d' ' -f1 /proc/loadavg))"
		"$bin/yinsh" arena --a "$a" --b "$b" --games "$games" --movetime "$movetime" --parallel "$parallel" \
			--variant "$variant" --seed "$((i * 100 + j))" --results "$dir/results-levels.jsonl"
		echo "$pair" >>"$dir/done"
	done
done
# results name a player timed by --movetime NAME@MSms (random and heuristic are not timed)
anchor=${ps[0]}@${movetime}ms
case " $players " in *" random "*) anchor=random ;; esac
case ${ps[0]} in random | heuristic) anchor=${ps[0]} ;; esac
"$bin/yinsh" ratings "$dir" --anchor "$anchor"
