#!/usr/bin/env bash
# Runs every native Go fuzz target of the module (every `func FuzzXxx(f *testing.F)` in a _test.go
# file), each for FUZZTIME (default 30s), one after the other; stops at the first failure, whose
# failing input Go writes under the package's testdata/fuzz/FuzzXxx/ (commit it as a regression case
# once fixed). Prints one line per target with its exec count.
#
#   bash scripts/fuzz.sh                 # make fuzz
#   FUZZTIME=3s bash scripts/fuzz.sh     # CI: a short run of each
#   bash scripts/fuzz.sh ./train         # only these packages
#   FUZZMINEXECS=3000 bash scripts/fuzz.sh   # CI: a target that ran fewer inputs than this in
#                                        # FUZZTIME runs again for the missing count (-fuzztime Nx)
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	mapfile -t pkgs < <(grep -l --include='*_test.go' -r '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' . | xargs -n1 dirname | sort -u)
fi
# count_execs LOG prints the last execs count of a fuzz log, or "baseline" when the run ended while
# still replaying its corpus (a large cached corpus on a slow machine can outlast a short -fuzztime);
# it must not fail, or set -e would end the script without saying why.
count_execs() {
	local n
	n=$(grep -o 'execs: [0-9]*' "$1" | tail -1 | cut -d' ' -f2 || true)
	echo "${n:-baseline}"
}
total=0
for pkg in "${pkgs[@]}"; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing.F)' "$pkg"/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u); do
		log=$(mktemp)
		corpus="$pkg/testdata/fuzz/$target"
		# a target without a committed corpus has no such folder: ls fails, which pipefail and set -e
		# must not turn into a silent exit
		before=$(ls "$corpus" 2>/dev/null | sort || true)
		# -fuzzminimizetime bounds the minimisation of each new input (60 s by default, during which
		# nothing else is executed); -parallel 2 matches the machines this runs on
		if ! go test "$pkg" -run XXX -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s -parallel "${FUZZPARALLEL:-2}" >"$log" 2>&1; then
			after=$(ls "$corpus" 2>/dev/null | sort || true)
			# Go's fuzz coordinator can fail a run at the -fuzztime deadline with "context deadline
			# exceeded" and no failing input (golang/go#75804, unfixed in Go 1.26): a crash writes
			# its input under testdata/fuzz; without one, that message is the coordinator's race
			if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$log"; then
				execs=$(count_execs "$log")
				printf '%-28s %-28s %10s execs in %s (ended by golang/go#75804, no failing input)\n' "$pkg" "$target" "$execs" "$fuzztime"
				rm -f "$log"
				total=$((total + 1))
				continue
			fi
			cat "$log"
			echo "FAIL $pkg $target"
			rm -f "$log"
			exit 1
		fi
		execs=$(count_execs "$log")
		ran="$fuzztime"
		# a slow target (or one whose cached corpus took the time) runs on for the missing inputs
		have=${execs/baseline/0}
		if [ "${FUZZMINEXECS:-0}" -gt "$have" ]; then
			more=$((FUZZMINEXECS - have))
			if ! go test "$pkg" -run XXX -fuzz "^$target\$" -fuzztime "${more}x" -fuzzminimizetime 2s -parallel "${FUZZPARALLEL:-2}" >"$log" 2>&1; then
				cat "$log"
				echo "FAIL $pkg $target (the run for the missing $more inputs)"
				rm -f "$log"
				exit 1
			fi
			extra=$(count_execs "$log")
			execs=$((have + ${extra/baseline/0}))
			ran="$fuzztime + ${more}x"
		fi
		printf '%-28s %-28s %10s execs in %s\n' "$pkg" "$target" "$execs" "$ran"
		rm -f "$log"
		total=$((total + 1))
	done
done
echo "$total fuzz targets passed"
