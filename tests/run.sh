#!/usr/bin/env bash
# Runs the tests in tiers and ends with "N passed, N failed": every
# unit-test program ($UNITS), the declarative CLI and spec cases
# (tests/cases/*/*.case, or the files and folders named in $CASES; "none"
# for none; none by default when $E2E names scripts) and the end-to-end
# scripts tests/e2e/*.sh (or those named in $E2E; "none" for none). It
# counts the "ok - " / "not ok - " lines they print.
#
# Which e2e scripts run is said in each script's first lines:
#   "# check-all: WHY"     runs only under `make check-all` (TIER=all). Its
#                          subject is a figure that takes minutes (a
#                          verdict over repeated comparisons, a Go build
#                          and a PostgreSQL); WHY names the scripts that
#                          drive its code paths in `make test`.
#   "# release-only: WHY"  skipped under `make asan` (RELEASE_ONLY=skip).
#                          Sanitizers are about code paths: `make asan`
#                          runs the unit tests, the cases and the scripts
#                          that reach code no other sanitized test
#                          reaches, chosen by line coverage (gcov, one
#                          GCOV_PREFIX per script): greedily by lines no
#                          sanitized test reaches yet per second, within
#                          asan's time budget (CI <= 15 min with make
#                          test), rerun.sh and run_crash.sh first. WHY
#                          names the sanitized scripts that reach this
#                          script's code and the lines only it reaches
#                          (left to the release build), or says its
#                          subject is a timing figure of the release
#                          build. A new script runs under asan unless
#                          marked; `make coverage-map` recomputes the set.
#   "# timing-free: WHY"   asserts nothing a busy CPU can move (counts,
#                          states, messages, files: no latency, rate, CPU
#                          or verdict figure): it may run beside a timed
#                          script (the lanes below).
#
# Two lanes, then three. Most e2e scripts spend their time waiting through
# measurement windows, not computing: the machine is idle most of a run.
# The first lane runs the timed scripts (those not marked timing-free),
# one at a time; the second lane runs the unit programs and the cases,
# then takes timing-free scripts from a shared queue, the longest first
# (by the seconds tests/e2e/seconds lists; one it does not list goes
# first): the last scripts taken are then short and the lanes end
# together (ordered by file length, run.sh's 43 s and compare_fail.sh's
# 31 s were among the last, the lanes ending 14 s apart). Once its timed
# scripts are done the first lane takes from the same queue too, and so
# does a third lane: what is left is timing-free.
# So a timed script runs beside at most one other program (a unit program,
# the cases or a timing-free script), never beside another timed one.
# E2E_LANES=1 runs everything in one lane, the unit programs first.
#
# The summary gives each tier's seconds against its budget (BUDGET_* below,
# for the release build on the 2-core VM CI runs on; `make asan` doubles
# them): the unit programs (one after another, in the second lane), the
# timed scripts (their sum: the first lane's floor), the timing-free
# programs (their sum, shared by the two lanes) and the lanes' wall time.
# A test that makes its tier slow shows there, with the slowest programs.
# Over budget is said, not failed: the figures move with the host's load.
set -u
cd "$(dirname "$0")/.."
export HARNESS HELPERS BUILD
export HARNESS_TEST_TMP="${HARNESS_TEST_TMP:-$(mktemp -d /tmp/harness-test.XXXXXX)}"
log="$HARNESS_TEST_TMP/test.log"
results="$HARNESS_TEST_TMP/results"  # "passed failed seconds name tier" per program
lock="$HARNESS_TEST_TMP/lock"
: > "$log"
: > "$results"
skipped=()
queue="$HARNESS_TEST_TMP/queue"      # the timing-free scripts, one a line
taken="$HARNESS_TEST_TMP/taken"      # how many of them a lane has taken
# seconds: unit programs; timed scripts; timing-free programs; lanes' wall.
# The wall's is issue 26's "make test at most 8 minutes on this VM"; the
# tiers' are 8-18 % over the highest a make test measured on it (Dec 4, up
# to 50024ae, load average up to 2.8: units 36-38 s, timed 376-379 s,
# timing-free 454-498 s, wall 414-442 s), so a script that makes its tier
# a tenth or a fifth slower shows.
BUDGET_UNIT=45 BUDGET_TIMED=420 BUDGET_FREE=540 BUDGET_WALL=480
if [ "${RELEASE_ONLY:-}" = skip ]; then
	BUDGET_UNIT=$((2 * BUDGET_UNIT)) BUDGET_TIMED=$((2 * BUDGET_TIMED))
	BUDGET_FREE=$((2 * BUDGET_FREE)) BUDGET_WALL=$((2 * BUDGET_WALL))
fi

run_one() { # tier, name, command...
	local tier=$1 name=$2; shift 2
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
		echo "$p $f $((SECONDS - t0)) $name $tier" >>"$results"
	} 9>"$lock"
	rm -f "$err"
}

marked() { head -n 12 "$1" | sed -n "s/^# $2: //p"; } # script, marker -> WHY

run_lane() { # tier, scripts...
	local tier=$1 s; shift
	for s in "$@"; do
		run_one "$tier" "$(basename "$s")" bash "$s"
	done
}

take() { # the next timing-free script from the queue, or nothing
	local n
	{
		flock 9
		n=$(cat "$taken")
		echo $((n + 1)) >"$taken"
		sed -n "$((n + 1))p" "$queue"
	} 9>"$queue.lock"
}

run_free() { # timing-free scripts from the queue until it is empty
	local s
	while s=$(take) && [ -n "$s" ]; do
		run_one free "$(basename "$s")" bash "$s"
	done
}

run_units() { # the unit programs, one after another
	local u
	for u in ${UNITS:-}; do
		run_one unit "$(basename "$u")" "$u"
	done
}

lane2_run() { # the cases, then timing-free scripts
	if [ "${CASES-$([ -n "${E2E:-}" ] && echo none)}" != none ]; then
		# shellcheck disable=SC2086
		run_one free cases python3 tests/cases/run.py ${CASES:-}
	fi
	run_free
}

t_start=$SECONDS
timed=(); free=()
if [ "${E2E:-}" != none ]; then
	for s in ${E2E:-tests/e2e/*.sh}; do
		[ -f "$s" ] || continue
		why=$(marked "$s" check-all)
		if [ "${TIER:-}" != all ] && [ -n "$why" ]; then
			skipped+=("check-all: $(basename "$s") ($why)")
			continue
		fi
		why=$(marked "$s" release-only)
		if [ "${RELEASE_ONLY:-}" = skip ] && [ -n "$why" ]; then
			skipped+=("release-only: $(basename "$s") ($why)")
		elif [ -n "$(marked "$s" timing-free)" ]; then
			free+=("$s")
		else
			timed+=("$s")
		fi
	done
fi
# the longest first (tests/e2e/seconds; unlisted: first), so that the
# queue's tail is short scripts
secs=tests/e2e/seconds
[ -f "$secs" ] || secs=/dev/null
for s in "${free[@]}"; do
	echo "$(awk -v n="$(basename "$s")" '$2 == n { print $1; f = 1 } END { if (!f) print 100000 }' "$secs") $s"
done | sort -k1,1nr -k2 | cut -d' ' -f2 >"$queue"
echo 0 >"$taken"
t_lanes=$SECONDS
if [ "${E2E_LANES:-2}" != 1 ]; then
	{ run_units; lane2_run; } &
	lane2_pid=$!
	run_lane timed "${timed[@]}"
	run_free &
	lane3_pid=$!
	run_free
	wait "$lane2_pid" "$lane3_pid"
else
	run_units
	run_lane timed "${timed[@]}"
	lane2_run
fi

t_end=$SECONDS
passed=$(awk '{ s += $1 } END { print s + 0 }' "$results")
failed=$(awk '{ s += $2 } END { print s + 0 }' "$results")
tier_s() { awk -v t="$1" '$5 == t { s += $3 } END { print s + 0 }' "$results"; }
budget() { # name, seconds, budget
	printf '#   %-40s %4d s of %4d s%s\n' "$1" "$2" "$3" "$([ "$2" -gt "$3" ] && echo '  OVER BUDGET')"
}
echo "# time per program (slowest first):"
awk '{ print $3 " s  " $4 }' "$results" | sort -rn | head -8 | sed 's/^/#   /'
echo "# time per tier (budgets: tests/run.sh):"
budget "unit programs, one at a time (lane 2)" "$(tier_s unit)" "$BUDGET_UNIT"
budget "timed e2e, one at a time (${#timed[@]})" "$(tier_s timed)" "$BUDGET_TIMED"
budget "cases + timing-free e2e (${#free[@]})" "$(tier_s free)" "$BUDGET_FREE"
budget "the lanes' wall time" "$((t_end - t_lanes))" "$BUDGET_WALL"
echo "#   total $((t_end - t_start)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for k in "${skipped[@]}"; do
	echo "# skipped, $k"
done
failures=$(awk '$2 > 0 { printf "%s ", $4 }' "$results")
if [ -n "$failures" ]; then
	echo "# failing: ${failures% } (stderr in $log)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
