#!/usr/bin/env bash
# scripts/libtorch.sh — set up libtorch 2.1.x and a patched gotch for the `torch` build tag.
#
# Idempotent; everything large is cached outside the repository:
#   ${YINSH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/yinsh}/
#     wheels/torch-2.1.2-*.whl     the official PyTorch wheel from the Python package index
#     libtorch-2.1.2-cpu/          its torch/lib (CPU libraries only) and torch/include
#     libtorch-2.1.2-cuda/         the same wheel installed with its NVIDIA dependencies (YINSH_TORCH_CUDA=1)
#     torch.env                    the environment to build and run with (also printed on stdout)
# and, inside the repository, two git-ignored things:
#   third_party/gotch/             a copy of github.com/sugarme/gotch@v0.9.1 whose libtch/lib.go takes
#                                  its include and library paths from CGO_* instead of hard-coding CUDA,
#                                  with two memory-leak fixes and less per-op overhead in ts/ (below)
#   go.work                        `use .` + `replace github.com/sugarme/gotch => ./third_party/gotch`
#                                  (torch builds need it: with GOWORK=off set GOWORK=$PWD/go.work)
#
# Inputs (environment):
#   LIBTORCH           an existing libtorch 2.1.x (a directory holding lib/ and include/, e.g. the
#                      libtorch zip or a pip-installed site-packages/torch); skips the download.
#   YINSH_TORCH_CUDA   1: link the CUDA libraries too (needs a CUDA libtorch: $LIBTORCH, or the wheel
#                      installed with its NVIDIA dependencies, which this script then does);
#                      0: CPU only even if CUDA libraries are present; unset: CUDA iff $LIBTORCH has it.
#   YINSH_TORCH_VERSION  wheel version (default 2.1.2; gotch v0.9.1 targets libtorch 2.1.0).
#   YINSH_CACHE        cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/yinsh).
#   PYTHON             python used to run pip (default python3).
#
# Usage:
#   eval "$(scripts/libtorch.sh)"        # or: scripts/libtorch.sh >/dev/null; . ~/.cache/yinsh/torch.env
#   go test -tags torch ./model/torch/...
# Logs go to stderr; stdout carries only the export lines.
set -euo pipefail

log() { printf 'libtorch.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${YINSH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/yinsh}"
TORCH_VERSION="${YINSH_TORCH_VERSION:-2.1.2}"
GOTCH_VERSION="v0.9.1"
PYTHON="${PYTHON:-python3}"
PATCH_ID="yinsh-gotch-patch-5" # bump when the patch below changes
mkdir -p "$CACHE"
if command -v flock >/dev/null; then # one setup at a time (CI and a developer's shell, say)
  exec 9>"$CACHE/.libtorch.lock"
  flock 9
fi

# ---- 1. libtorch -------------------------------------------------------------------------------

fetch_wheel() { # prints the wheel path
  local dir="$CACHE/wheels" whl
  mkdir -p "$dir"
  whl="$(ls "$dir"/torch-"$TORCH_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
  if [[ -z "$whl" ]]; then
    log "downloading torch==$TORCH_VERSION wheel (about 670 MB) into $dir"
    "$PYTHON" -m pip download --quiet --no-deps "torch==$TORCH_VERSION" \
      --platform manylinux1_x86_64 --python-version 3.11 --implementation cp \
      --only-binary=:all: -d "$dir" >&2 || die "pip download torch==$TORCH_VERSION failed"
    whl="$(ls "$dir"/torch-"$TORCH_VERSION"-*.whl | head -n1)"
  fi
  printf '%s\n' "$whl"
}

# CPU libtorch: torch/lib (minus the CUDA and Python libraries) and torch/include, unpacked from the wheel.
setup_cpu_libtorch() {
  local dest="$CACHE/libtorch-$TORCH_VERSION-cpu"
  if [[ -f "$dest/.complete" ]]; then printf '%s\n' "$dest"; return; fi
  local whl tmp
  whl="$(fetch_wheel)"
  tmp="$(mktemp -d "$CACHE/.libtorch-tmp.XXXXXX")"
  log "unpacking torch/lib and torch/include from $(basename "$whl")"
  "$PYTHON" - "$whl" "$tmp" <<'EOF' || { rm -rf "$tmp"; die "unpacking the wheel failed"; }
import sys, zipfile, os, stat
whl, out = sys.argv[1], sys.argv[2]
skip = ("cuda", "nvrtc", "nvfuser", "torch_python", "libshm")
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        name = info.filename
        if name.startswith("torch/include/"):
            rel = name[len("torch/"):]
        elif name.startswith("torch/lib/") and not any(s in name for s in skip):
            rel = name[len("torch/"):]
        else:
            continue
        target = os.path.join(out, rel)
        if name.endswith("/"):
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, "wb") as dst:
            while True:
                buf = src.read(1 << 20)
                if not buf:
                    break
                dst.write(buf)
        mode = (info.external_attr >> 16) & 0o777
        os.chmod(target, mode or 0o644)
EOF
  # The PyPI wheel's libtorch_cpu.so is linked against libcudart and libcupti (its profiler); both load
  # without a GPU. Take them from the NVIDIA wheels that the torch wheel pins (about 15 MB).
  local pins w
  pins="$("$PYTHON" -c '
import sys, zipfile, re
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        m = re.match(r"Requires-Dist: (nvidia-cuda-(?:runtime|cupti)-cu\d+) \(==([^)]+)\)", line)
        if m:
            print(m.group(1) + "==" + m.group(2))
' "$whl")"
  if [[ -n "$pins" ]]; then
    log "downloading $(echo $pins) for libcudart and libcupti"
    # shellcheck disable=SC2086
    "$PYTHON" -m pip download --quiet --no-deps $pins --platform manylinux1_x86_64 \
      --platform manylinux2014_x86_64 --python-version 3.11 --implementation cp --only-binary=:all: \
      -d "$CACHE/wheels" >&2 || { rm -rf "$tmp"; die "pip download $pins failed"; }
    for w in "$CACHE"/wheels/nvidia_cuda_runtime_*.whl "$CACHE"/wheels/nvidia_cuda_cupti_*.whl; do
      "$PYTHON" -c '
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        base = os.path.basename(n)
        if n.count("/") == 3 and n.split("/")[2] == "lib" and base.startswith(("libcudart.so.", "libcupti.so.")):
            out = os.path.join(sys.argv[2], base)
            with open(out, "wb") as f:
                f.write(z.read(n))
            os.chmod(out, 0o755)
' "$w" "$tmp/lib" || { rm -rf "$tmp"; die "unpacking $w failed"; }
    done
  fi
  printf 'torch %s wheel %s\n' "$TORCH_VERSION" "$(basename "$whl")" >"$tmp/VERSION.yinsh"
  touch "$tmp/.complete"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  printf '%s\n' "$dest"
}

# CUDA libtorch: the wheel installed with its NVIDIA dependencies (about 2.5 GB); torch/lib finds
# them through its RPATH ($ORIGIN/../../nvidia/*/lib).
setup_cuda_libtorch() {
  local site="$CACHE/libtorch-$TORCH_VERSION-cuda"
  if [[ -f "$site/.complete" ]]; then printf '%s\n' "$site/torch"; return; fi
  local whl tmp
  whl="$(fetch_wheel)"
  tmp="$(mktemp -d "$CACHE/.libtorch-cuda-tmp.XXXXXX")"
  log "installing $(basename "$whl") with its NVIDIA dependencies into $site (about 2.5 GB)"
  "$PYTHON" -m pip install --quiet --no-compile --target "$tmp" \
    --platform manylinux1_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --python-version 3.11 --implementation cp --only-binary=:all: "$whl" >&2 ||
    { rm -rf "$tmp"; die "pip install of the CUDA wheel failed"; }
  touch "$tmp/.complete"
  rm -rf "$site"
  mv "$tmp" "$site"
  printf '%s\n' "$site/torch"
}

if [[ -n "${LIBTORCH:-}" ]]; then
  LT="$(cd "$LIBTORCH" && pwd)" || die "LIBTORCH=$LIBTORCH is not a directory"
  log "using LIBTORCH=$LT"
elif [[ "${YINSH_TORCH_CUDA:-}" == 1 ]]; then
  LT="$(setup_cuda_libtorch)"
else
  LT="$(setup_cpu_libtorch)"
fi
[[ -f "$LT/lib/libtorch_cpu.so" && -f "$LT/lib/libc10.so" ]] ||
  die "$LT/lib has no libtorch_cpu.so and libc10.so: not a libtorch 2.x directory"
[[ -f "$LT/include/torch/csrc/api/include/torch/torch.h" ]] ||
  die "$LT/include lacks torch/csrc/api/include/torch/torch.h"
if [[ -f "$LT/include/torch/csrc/api/include/torch/version.h" ]]; then
  vh="$LT/include/torch/csrc/api/include/torch/version.h"
  ver="$(sed -n 's/^#define TORCH_VERSION_MAJOR \([0-9]*\)/\1/p' "$vh").$(sed -n 's/^#define TORCH_VERSION_MINOR \([0-9]*\)/\1/p' "$vh").$(sed -n 's/^#define TORCH_VERSION_PATCH \([0-9]*\)/\1/p' "$vh")"
  log "libtorch version $ver"
  [[ "$ver" == 2.1.* ]] || log "warning: libtorch $ver found; gotch $GOTCH_VERSION is built for 2.1.x"
fi

# Official wheels (and the "pre-cxx11" libtorch zips) use the old libstdc++ ABI; the cxx11 zips the new.
ABI=0
if [[ -f "$LT/share/cmake/Torch/TorchConfig.cmake" ]] &&
  grep -q '_GLIBCXX_USE_CXX11_ABI=1' "$LT/share/cmake/Torch/TorchConfig.cmake"; then
  ABI=1
fi

CUDA=0
case "${YINSH_TORCH_CUDA:-}" in
1) [[ -f "$LT/lib/libtorch_cuda.so" ]] || die "YINSH_TORCH_CUDA=1 but $LT/lib has no libtorch_cuda.so"; CUDA=1 ;;
0) CUDA=0 ;;
*) [[ -f "$LT/lib/libtorch_cuda.so" ]] && CUDA=1 ;;
esac

# ---- 2. patched gotch --------------------------------------------------------------------------

GOTCH_DIR="$REPO/third_party/gotch"
if [[ "$(cat "$GOTCH_DIR/.yinsh-patch" 2>/dev/null || true)" != "$GOTCH_VERSION $PATCH_ID" ]]; then
  command -v go >/dev/null || die "go not found"
  src="$(cd "$CACHE" && GOWORK=off GO111MODULE=on go mod download -json "github.com/sugarme/gotch@$GOTCH_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$src" && -d "$src" ]] || die "go mod download github.com/sugarme/gotch@$GOTCH_VERSION gave no directory"
  log "copying gotch $GOTCH_VERSION from $src to $GOTCH_DIR and patching libtch/lib.go"
  tmp="$(mktemp -d "$REPO/third_party/.gotch-tmp.XXXXXX" 2>/dev/null ||
    { mkdir -p "$REPO/third_party" && mktemp -d "$REPO/third_party/.gotch-tmp.XXXXXX"; })"
  # example/ (60 MB) and gen/ (the OCaml generator) are not needed to build the library.
  (cd "$src" && tar --exclude=./example --exclude=./gen -cf - .) | (cd "$tmp" && tar -xf -)
  chmod -R u+w "$tmp"
  cat >"$tmp/libtch/lib.go" <<'EOF'
package libtch

// Patched by yinsh-zero scripts/libtorch.sh: the upstream file hard-codes CUDA libraries and
// /usr/local paths. Include and library directories (and, for CUDA, the CUDA libraries) come from
// CGO_CXXFLAGS and CGO_LDFLAGS as written by that script.

// #cgo CFLAGS: -I${SRCDIR} -O2 -Wall -Wno-unused-variable -Wno-deprecated-declarations -Wno-sign-compare -Wno-unused-function
// #cgo CXXFLAGS: -std=c++17 -I${SRCDIR} -O2 -Wno-deprecated-declarations -Wno-unused-variable
// #cgo LDFLAGS: -ltorch_cpu -lc10 -lstdc++
import "C"
EOF
  # Upstream bug 1: every op's wrapper lets libtorch write its result pointer(s) (up to 7) into
  # C.malloc(0) and never frees it: a leak of one small heap chunk per op (RSS grows without bound
  # over long inference runs) and a heap overrun for ops with more than two outputs. Allocate room
  # for 8 pointers and free it when the wrapper returns (the pointer values are copied out first).
  "$PYTHON" - "$tmp/ts/tensor-generated.go" "$tmp/ts/tensor.go" "$tmp/ts/patch.go" <<'PYEOF' ||
import re, sys
pat = re.compile(r"^(\s*)(\w+) := \(\*lib\.Ctensor\)\(unsafe\.Pointer\(C\.malloc\(0\)\)\)\s*$")
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    out, n = [], 0
    for i, line in enumerate(lines):
        m = pat.match(line)
        if not m:
            out.append(line)
            continue
        ind, var = m.group(1), m.group(2)
        out.append(f"{ind}{var} := (*lib.Ctensor)(unsafe.Pointer(C.malloc(64)))")
        if not (i + 1 < len(lines) and "C.free" in lines[i + 1] and not lines[i + 1].lstrip().startswith("//")):
            out.append(f"{ind}defer C.free(unsafe.Pointer({var}))")
        n += 1
    # Upstream bug 2: in-place wrappers (Relu_, Add_, ...) replace ts.ctensor with the new handle that
    # libtorch returns and never free the old one, which keeps the tensor's storage alive forever.
    m = 0
    for i, line in enumerate(out):
        if line == "  ts.ctensor = *ptr":
            out[i] = "  lib.AtFree(ts.ctensor)\n  ts.ctensor = *ptr"
            m += 1
    # Not a bug, a cost: each tensor handle carries a 100 KB Go array so that the Go GC feels the C
    # memory behind it and runs finalizers sooner; allocating and zeroing it is most of gotch's
    # per-op overhead (small batches ran 1.6x slower than PyTorch). This project frees every tensor
    # explicitly, so the array shrinks to 8 bytes.
    k = 0
    for i, line in enumerate(out):
        if line.strip() == "lots [1e5]byte // 100k - always on host memory.":
            out[i] = line.replace("[1e5]byte // 100k - always on host memory.", "[8]byte // yinsh-zero: was 100 KB (GC pressure for finalizer-freed tensors); tensors are freed explicitly")
            k += 1
    open(path, "w").write("\n".join(out))
    print(f"{path}: patched {n} result-pointer allocations, {m} in-place handle leaks, {k} GC ballast", file=sys.stderr)
PYEOF
    { rm -rf "$tmp"; die "patching gotch's ts package failed"; }
  printf '%s %s\n' "$GOTCH_VERSION" "$PATCH_ID" >"$tmp/.yinsh-patch"
  rm -rf "$GOTCH_DIR"
  mv "$tmp" "$GOTCH_DIR"
fi

# ---- 3. go.work ------------------------------------------------------------------------------

GOWORK_FILE="$REPO/go.work"
gover="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$REPO/go.mod" | head -n1)"
want="// Written by scripts/libtorch.sh (git-ignored): builds gotch from the patched copy.
go $gover

use .

replace github.com/sugarme/gotch => ./third_party/gotch"
if [[ -f "$GOWORK_FILE" ]] && ! grep -q 'scripts/libtorch.sh' "$GOWORK_FILE"; then
  grep -q 'third_party/gotch' "$GOWORK_FILE" ||
    die "$GOWORK_FILE exists and was not written by this script; add: replace github.com/sugarme/gotch => ./third_party/gotch"
elif [[ "$(cat "$GOWORK_FILE" 2>/dev/null || true)" != "$want" ]]; then
  printf '%s\n' "$want" >"$GOWORK_FILE"
  log "wrote $GOWORK_FILE"
fi

# ---- 4. environment -------------------------------------------------------------------------

inc="-I$LT/include -I$LT/include/torch/csrc/api/include -D_GLIBCXX_USE_CXX11_ABI=$ABI"
ldflags="-L$LT/lib -Wl,-rpath,$LT/lib"
libpath="$LT/lib"
if [[ "$CUDA" == 1 ]]; then
  # --no-as-needed: nothing references libtorch_cuda directly, but loading it registers the CUDA kernels.
  ldflags="$ldflags -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed"
  for d in "$LT"/../nvidia/*/lib; do [[ -d "$d" ]] && libpath="$libpath:$(cd "$d" && pwd)"; done
fi
envfile="$CACHE/torch.env"
{
  printf 'export LIBTORCH=%q\n' "$LT"
  printf 'export CGO_ENABLED=1\n'
  printf 'export CGO_CFLAGS=%q\n' "-O2 $inc"
  printf 'export CGO_CXXFLAGS=%q\n' "-O2 $inc"
  printf 'export CGO_LDFLAGS=%q\n' "$ldflags"
  printf 'export LD_LIBRARY_PATH=%q"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n' "$libpath"
  printf 'export YINSH_TORCH_CUDA_LINKED=%s\n' "$CUDA"
} >"$envfile.tmp"
mv "$envfile.tmp" "$envfile"
log "libtorch: $LT (cuda linked: $CUDA, cxx11 abi: $ABI); environment in $envfile"
cat "$envfile"
