#!/usr/bin/env bash
# timing-free: asserts scheduling policies, a host fact, a warning and an event; no latency, rate or verdict figure
# The generator's threads run SCHED_FIFO and nothing else does (issue 24:
# a generator that keeps its schedule on a busy host, base/rtsched.h).
# During a tiny run, every thread named harness-gen (the load engine's
# workers) is read from /proc/PID/task/TID/stat (field 41 the policy, 1
# SCHED_FIFO; field 40 the real-time priority): FIFO at priority 1, while
# the harness's main thread and every thread of the implementation it
# forked are SCHED_OTHER (0). The run records the host fact
# generator_sched=fifo and audit shows it. Refused (HARNESS_TEST_NO_RT, as
# a host without CAP_SYS_NICE), the same run warns once, records
# generator_sched=other and a generator_sched event, and its generator
# threads are SCHED_OTHER. Bounded: two runs of 2 x 1 s windows.
. "$(dirname "$0")/../lib.sh"

RUNS=$T/runs
tiny_spec e2e-rt "error_rate, sut_alive" >"$T/spec.yaml"
sed -i 's/window_s: 1, discard_s: 0/window_s: 2, discard_s: 0/' "$T/spec.yaml"

# policy of /proc/P/task/T: "POLICY PRIORITY" (after the comm's ')')
# (nothing when the thread is gone; the engine names its threads only
# once their policy is set, load.c)
policy() { sed 's/.*) //' "$1/stat" 2>/dev/null | awk '{ print $39, $38 }'; }

# descends PID ANCESTOR: 0 when ANCESTOR is PID or one of its ancestors
descends() {
	local p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = "$2" ] && return 0
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	done
	return 1
}

# watch HARNESS_PID OUT: until the harness exits, every 50 ms, append
# "gen POLICY PRIO", "main POLICY PRIO" and "sut POLICY PRIO" lines
watch_policies() {
	local h=$1 out=$2 t p
	while kill -0 "$h" 2>/dev/null; do
		for t in /proc/$h/task/*; do
			if [ "$(cat "$t/comm" 2>/dev/null)" = harness-gen ]; then
				echo "gen $(policy "$t")"
			elif [ "${t##*/}" = "$h" ]; then
				echo "main $(policy "$t")"
			fi
		done | grep ' [0-9]' >>"$out"
		for p in $(pgrep -f "$HELPERS/testsrv"); do
			descends "$p" "$h" || continue
			for t in /proc/$p/task/*; do echo "sut $(policy "$t")"; done |
				grep ' [0-9]' >>"$out"
		done
		sleep 0.05
	done
}

# run ID [ENV...]: a run in the background, its policies watched
run() {
	local id=$1
	shift
	env "$@" "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "$id" \
		>"$T/$id.out" 2>"$T/$id.err" &
	local h=$!
	: >"$T/$id.pol"
	watch_policies "$h" "$T/$id.pol"
	wait "$h"
	echo $?
}
count() { grep -c "$2" "$T/$1.pol"; }
fact() { sqlite3 "$RUNS/$1/run.db" "SELECT value FROM host_facts WHERE key = 'generator_sched'"; }

# A probe of its own: on a host that refuses real-time (not root, no
# CAP_SYS_NICE), the real-time half has nothing to show.
rc=$(run rt)
cmp_num "a run exits 0 (stderr: $(tail -n 2 "$T/rt.err" | tr '\n' ' '))" "$rc" == 0
if [ "$(fact rt)" != fifo ]; then
	skip "this host refuses real-time scheduling (generator_sched=$(fact rt))"
else
	cmp_num "generator threads seen during the run" "$(count rt '^gen ')" ">" 0
	cmp_num "every generator thread SCHED_FIFO at priority 1 (seen: $(grep '^gen ' "$T/rt.pol" | sort | uniq -c | tr '\n' ' '))" \
		"$(count rt '^gen 1 1$')" == "$(count rt '^gen ')"
	cmp_num "the implementation's threads seen during the run" "$(count rt '^sut ')" ">" 0
	cmp_num "every thread of the implementation SCHED_OTHER (seen: $(grep '^sut ' "$T/rt.pol" | sort | uniq -c | tr '\n' ' '))" \
		"$(count rt '^sut 0 0$')" == "$(count rt '^sut ')"
	cmp_num "the harness's main thread SCHED_OTHER" "$(count rt '^main 0 0$')" == "$(count rt '^main ')"
	cmp_num "no warning about the generator's scheduling" "$(grep -c "SCHED_OTHER" "$T/rt.err")" == 0
	"$HARNESS" audit rt --runs-dir "$RUNS" >"$T/audit.out" 2>&1
	check "audit says the generator ran SCHED_FIFO" grep -q "^generator threads: SCHED_FIFO (real-time)" "$T/audit.out"
fi

rc=$(run other HARNESS_TEST_NO_RT=1)
cmp_num "refused real-time: the run still exits 0" "$rc" == 0
check "refused real-time: the host fact says other" test "$(fact other)" = other
cmp_num "refused real-time: one warning" "$(grep -c "generator threads run SCHED_OTHER, not SCHED_FIFO" "$T/other.err")" == 1
cmp_num "refused real-time: a generator_sched event" \
	"$(sqlite3 "$RUNS/other/run.db" "SELECT count(*) FROM events WHERE kind = 'generator_sched'")" == 1
cmp_num "refused real-time: generator threads seen" "$(count other '^gen ')" ">" 0
cmp_num "refused real-time: every generator thread SCHED_OTHER" "$(count other '^gen 0 0$')" == "$(count other '^gen ')"
"$HARNESS" audit other --runs-dir "$RUNS" --json >"$T/audit.json" 2>&1
check "audit --json: generator_sched other" test "$(jq -r .generator_sched "$T/audit.json")" = other
