#!/usr/bin/env bash
# scripts/bench-torch.sh — the network's throughput in four implementations, side by side in one run:
#   gonum    yinsh bench model --backend gonum  (pure Go: the AVX2+FMA assembly kernel where the CPU has it)
#   generic  the same with YINSH_KERNEL=gonum   (pure Go: gonum's generic BLAS, the fallback path)
#   torch    yinsh bench model --backend torch  (gotch on libtorch 2.1.x)
#   pytorch  scripts/bench_pytorch.py           (the same network in PyTorch 2.1.x, same wheel)
# with the same net, batch, thread count and measurement protocol. The three alternate for REPS
# repetitions so that load from other processes falls on all of them; the table shows the median of
# each and the ratios torch/pytorch and torch/gonum.
#
# Environment: NET (small), BATCH (256), THREADS ($(nproc)), TIME (per measurement, 5s), REPS (3),
# DEVICE (cpu; cuda for the GPU build: gonum still runs on the CPU), IMPLS (which of the four to run,
# default all: "gonum generic torch pytorch"; leaving pytorch out skips its venv).
# PyTorch comes from a venv under the cache directory with torch==$YINSH_TORCH_VERSION installed by
# pip (with its NVIDIA dependencies, about 2.5 GB: the PyPI wheel cannot be imported without them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NET="${NET:-small}"
BATCH="${BATCH:-256}"
THREADS="${THREADS:-$(getconf _NPROCESSORS_ONLN)}"
TIME="${TIME:-5s}"
REPS="${REPS:-3}"
DEVICE="${DEVICE:-cpu}"
IMPLS="${IMPLS:-gonum generic torch pytorch}"
CACHE="${YINSH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/yinsh}"
VER="${YINSH_TORCH_VERSION:-2.1.2}"

eval "$(scripts/libtorch.sh)"
# The torch build needs the go.work that points gotch at the patched copy, even where the caller
# turned workspaces off for the default build (.ci/run exports GOWORK=off).
export GOWORK="$PWD/go.work"

VENV="$CACHE/venv-torch-$VER"
if [[ " $IMPLS " == *" pytorch "* && ! -f "$VENV/.complete" ]]; then
  echo "bench-torch.sh: creating $VENV with torch==$VER (pip, about 2.5 GB)" >&2
  rm -rf "$VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --find-links "$CACHE/wheels" "torch==$VER" "numpy<2" >&2
  touch "$VENV/.complete"
fi

BIN="$(mktemp -d)"
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/yinsh-gonum" ./cmd/yinsh
go build -tags torch -o "$BIN/yinsh-torch" ./cmd/yinsh

secs="${TIME%s}"
export OMP_NUM_THREADS="$THREADS" GOMAXPROCS="$THREADS"
run() { # name → prints the four values on one line
  case "$1" in
  gonum) "$BIN/yinsh-gonum" bench model --backend gonum --net "$NET" --batch "$BATCH" --time "$TIME" ;;
  generic) YINSH_KERNEL=gonum "$BIN/yinsh-gonum" bench model --backend gonum --net "$NET" --batch "$BATCH" --time "$TIME" ;;
  torch) YINSH_TORCH_DEVICE="$DEVICE" YINSH_TORCH_THREADS="$THREADS" \
    "$BIN/yinsh-torch" bench model --backend torch --net "$NET" --batch "$BATCH" --time "$TIME" 2>/dev/null ;;
  pytorch) "$VENV/bin/python" scripts/bench_pytorch.py --net "$NET" --batch "$BATCH" --time "$secs" \
    --threads "$THREADS" --device "$DEVICE" 2>/dev/null ;;
  esac | awk -F': ' '{v[$1]=$2} END {print v["positions/s"], v["train-samples/s"], v["gflops"], v["sgemm-gflops"]}'
}

echo "net $NET, batch $BATCH, threads $THREADS, device $DEVICE, $TIME per measurement, $REPS repetitions"
echo "machine: $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "columns: positions/s train-samples/s gflops sgemm-gflops; gonum kernel: $("$BIN/yinsh-gonum" bench model --net tiny --batch 1 --time 1ms | awk -F': ' '$1 == "kernel" {print $2}')"
declare -A results
for ((r = 1; r <= REPS; r++)); do
  order="$IMPLS"
  ((r % 2 == 0)) && order="$(printf '%s\n' $IMPLS | tac | xargs)" # alternate who goes first
  for impl in $order; do
    line="$(run "$impl")"
    results[$impl]+="$line"$'\n'
    echo "rep $r $impl: $line (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done

# Other processes' load moves every figure (the raw matmul, same library in both, is the control).
# Summaries: the best repetition of each (closest to an idle machine), the median, and the median of
# the per-repetition ratios torch/pytorch (the two run back to back in each repetition).
stat() { # values(newline separated) kind(best|median)
  printf '%s' "$1" | awk 'NF' | sort -g | awk -v k="$2" '{a[NR]=$1} END {
    if (k == "best") print a[NR]; else print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2) }'
}
col() { printf '%s' "${results[$1]}" | awk -v c="$2" 'NF {print $c}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
for kind in best median; do
  printf '\n%-7s %-8s %14s %16s %10s %14s\n' "$kind" impl positions/s train-samples/s gflops sgemm-gflops
  for impl in $IMPLS; do
    printf '%-7s %-8s %14s %16s %10s %14s\n' "" "$impl" "$(stat "$(col $impl 1)" $kind)" "$(stat "$(col $impl 2)" $kind)" \
      "$(stat "$(col $impl 3)" $kind)" "$(stat "$(col $impl 4)" $kind)"
  done
done
echo
# Paired ratios: the two implementations ran back to back in each repetition.
pair() { # a b column → "best ratio, median of paired ratios"
  local paired
  paired="$(paste <(col "$1" "$3") <(col "$2" "$3") | awk '$2 > 0 {print $1 / $2}')"
  printf 'best %s, median of paired ratios %.2f' "$(ratio "$(stat "$(col "$1" "$3")" best)" "$(stat "$(col "$2" "$3")" best)")" "$(stat "$paired" median)"
}
has() { [[ " $IMPLS " == *" $1 "* ]]; }
for c in 1 2; do
  what=inference
  [[ $c == 2 ]] && what=training
  has torch && has pytorch && echo "$what: torch/pytorch $(pair torch pytorch $c)"
  has gonum && has torch && echo "$what: gonum/torch $(pair gonum torch $c)"
  has gonum && has generic && echo "$what: gonum/generic $(pair gonum generic $c)"
done
