#!/usr/bin/env bash
# Installs what the full test suite needs beyond Go, so that no test skips:
#   - Debian packages: chromium (the web board's browser tests), nats-server (the distributed
#     self-play suite against a standalone server)
#   - Python packages, in a virtual environment .venv/ (never the system interpreter): pyarrow
#     (reads our Parquet), onnxruntime and numpy (run our ONNX export; numpy also re-checks the
#     statistics reference), bochscpu-python 0.3.1 (emulates an AVX-512 CPU for internal/sgemm's
#     AVX-512 kernels; 0.4.0's wheel needs glibc 2.38 and Debian 12 has 2.36)
# Without them those tests skip with a message saying what is missing (go test -v ./... | grep SKIP).
#
#   bash scripts/test-deps.sh                     # install (apt needs root or sudo)
#   export PATH="$PWD/.venv/bin:$PATH"            # then the tests find the venv's python3
#   go test ./...
#
# .ci/run sources it (YINSH_DEPS_QUIET=1) and runs the suite with every prerequisite required.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

apt_install() {
	local missing=()
	for pkg in "$@"; do
		command -v "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
	echo "installing Debian packages: ${missing[*]}" >&2
	$sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
		{ $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; }
}
apt_install chromium nats-server

if [ ! -x .venv/bin/python3 ]; then
	echo "creating the Python virtual environment .venv" >&2
	python3 -m venv .venv || {
		apt_install python3-venv
		python3 -m venv .venv
	}
fi
.venv/bin/python3 -m pip install --quiet --disable-pip-version-check pyarrow onnxruntime numpy bochscpu-python==0.3.1

if [ "${YINSH_DEPS_QUIET:-}" != 1 ]; then
	echo "chromium: $(command -v chromium) ($(chromium --version 2>/dev/null || echo '?'))"
	echo "nats-server: $(command -v nats-server) ($(nats-server --version 2>/dev/null || echo '?'))"
	echo "python: $PWD/.venv/bin/python3 ($(.venv/bin/python3 --version))"
	echo "now: export PATH=\"$PWD/.venv/bin:\$PATH\""
fi
