#!/usr/bin/env bash
# Runs every unit-test program ($UNITS) and every end-to-end script in
# tests/e2e/*.sh (or those named in $E2E; "none" for none), counts the
# "ok - " / "not ok - " lines they print, and ends with "N passed, N failed".
#
# Two lanes. Most e2e scripts spend their time waiting through measurement
# windows, not computing: the machine is idle most of a run. A script whose
# first lines hold "# timing-free: WHY" asserts nothing a busy CPU can move
# (counts, states, messages, files: no latency, rate, CPU or verdict
# figure) and runs in a second lane beside the others; every other script
# runs in the first lane, one at a time, as if alone. E2E_LANES=1 runs
# everything in one lane.
#
# RELEASE_ONLY=skip (set by `make asan`): an e2e script whose first lines
# hold "# release-only: WHY" is skipped and named. Such a script's subject
# is a statistical figure (a knee bracket, a verdict over repeated
# comparisons) measured through code that other scripts also drive under
# the sanitizers; it takes minutes and its figure is the release build's.
set -u
cd "$(dirname "$0")/.."
export HARNESS HELPERS BUILD
export HARNESS_TEST_TMP="${HARNESS_TEST_TMP:-$(mktemp -d /tmp/harness-test.XXXXXX)}"
log="$HARNESS_TEST_TMP/test.log"
results="$HARNESS_TEST_TMP/results"  # "passed failed seconds name" per program
lock="$HARNESS_TEST_TMP/lock"
: > "$log"
: > "$results"
skipped=()

run_one() { # name, command...
	local name=$1; shift
	local out rc t0=$SECONDS err="$HARNESS_TEST_TMP/$name.$BASHPID.err"
	out=$("$@" 2>"$err"); rc=$?
	local p f
	p=$(printf '%s\n' "$out" | grep -c '^ok - ' || true)
	f=$(printf '%s\n' "$out" | grep -c '^not ok - ' || true)
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		out+=$'\n'"not ok - $name: exited with status $rc"
		f=1
	fi
	# one program's output, stderr and result at a time, whatever the lane
	{
		flock 9
		printf '%s\n' "$out"
		{ echo "== $name"; cat "$err"; echo "== $name: $((SECONDS - t0)) s, exit $rc"; } >>"$log"
		echo "$p $f $((SECONDS - t0)) $name" >>"$results"
	} 9>"$lock"
	rm -f "$err"
}

timing_free() { head -n 12 "$1" | grep -q '^# timing-free: '; }

run_lane() { # scripts...
	local s
	for s in "$@"; do
		run_one "$(basename "$s")" bash "$s"
	done
}

for u in ${UNITS:-}; do
	run_one "$(basename "$u")" "$u"
done
lane1=(); lane2=()
if [ "${E2E:-}" != none ]; then
	for s in ${E2E:-tests/e2e/*.sh}; do
		[ -f "$s" ] || continue
		why=$(head -n 12 "$s" | sed -n 's/^# release-only: //p')
		if [ "${RELEASE_ONLY:-}" = skip ] && [ -n "$why" ]; then
			skipped+=("$(basename "$s") ($why)")
		elif [ "${E2E_LANES:-2}" != 1 ] && timing_free "$s"; then
			lane2+=("$s")
		else
			lane1+=("$s")
		fi
	done
fi
run_lane "${lane2[@]}" &
lane2_pid=$!
run_lane "${lane1[@]}"
wait "$lane2_pid"

passed=$(awk '{ s += $1 } END { print s + 0 }' "$results")
failed=$(awk '{ s += $2 } END { print s + 0 }' "$results")
echo "# time per program (slowest first; ${#lane2[@]} timing-free scripts ran in a second lane):"
awk '{ print $3 " s  " $4 }' "$results" | sort -rn | head -8 | sed 's/^/#   /'
for k in "${skipped[@]}"; do
	echo "# skipped, release-only: $k"
done
failures=$(awk '$2 > 0 { printf "%s ", $4 }' "$results")
if [ -n "$failures" ]; then
	echo "# failing: ${failures% } (stderr in $log)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
