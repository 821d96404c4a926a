#!/usr/bin/env bash
# Runs every native Go fuzz target of the module (every `func FuzzXxx(f *testing.F)` in a _test.go
# file), each for FUZZTIME (default 30s), one after the other; stops at the first failure, whose
# failing input Go writes under the package's testdata/fuzz/FuzzXxx/ (commit it as a regression case
# once fixed). Prints one line per target with its exec count.
#
#   bash scripts/fuzz.sh                 # make fuzz
#   FUZZTIME=3s bash scripts/fuzz.sh     # CI: a short run of each
#   bash scripts/fuzz.sh ./train         # only these packages
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	mapfile -t pkgs < <(grep -l --include='*_test.go' -r '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' . | xargs -n1 dirname | sort -u)
fi
total=0
for pkg in "${pkgs[@]}"; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' "$pkg"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u); do
		log=$(mktemp)
		# -fuzzminimizetime bounds the minimisation of each new input (60 s by default, during which
		# nothing else is executed); -parallel 2 matches the machines this runs on
		if ! go test "$pkg" -run XXX -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s -parallel "${FUZZPARALLEL:-2}" >"$log" 2>&1; then
			cat "$log"
			echo "FAIL $pkg $target"
			rm -f "$log"
			exit 1
		fi
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		printf '%-28s %-28s %10s execs in %s\n' "$pkg" "$target" "${execs:-0}" "$fuzztime"
		rm -f "$log"
		total=$((total + 1))
	done
done
echo "$total fuzz targets passed"
