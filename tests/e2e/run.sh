#!/usr/bin/env bash
# timing-free: counts and states of a run that goes right (the slow arm, 4 connections x 8 ms = 500 req/s at most, crosses its 20 ms p99 by 450 req/s on any host: a busier one crosses sooner, and with stop.rungs_past_knee 2 the ladder runs its 3 rungs wherever it crosses)
# release-only: under make asan agent_run.sh, deps_headroom.sh and recheck_rules.sh reach its code but 14 lines (evidence_load.c 10, runner_stages.c 3, report_ratio.c 1), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# End-to-end: `harness run` / `status` / `audit` against two testsrv
# implementations on 127.0.0.1 (issue 5's acceptance list): every planned
# window done once, orders counterbalanced, every gate result stored and
# rechecked. run_crash.sh has an implementation that crashes,
# run_resume.sh kill -9 and `resume`, run_fail.sh the runs that fail.
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/run_common.inc"

# ---------------------------------------------------------------- main run
STOP_PAST=2 write_spec "$T/main.yaml" e2e-main '--delay-ms, "8"' \
	'start_rps: 200, step: 1.5, max_rps: 450, reps: 1' \
	'  confirm: { reps: 2, window_s: 2, discard_s: 1 }'
"$HARNESS" run "$T/main.yaml" --allow-dirty --runs-dir "$RUNS" >"$T/run.out" 2>"$T/run.err"
rc=$?
id=$(head -n 1 "$T/run.out")
check "run exits 0 (rc $rc)" test "$rc" -eq 0
check "first stdout line is the run id" test -f "$RUNS/$id/run.db"
n=$(q "$id" "SELECT COUNT(*) FROM windows")
nd=$(q "$id" "SELECT COUNT(DISTINCT stage || '/' || block || '/' || impl) FROM windows WHERE state = 'done'")
cmp_num "every planned window done exactly once" "$nd" "==" "$n"
# Pre-registered windows (replacements of rejected ones come on top).
cmp_num "ladder windows: 3 rungs x 2 implementations" "$(q "$id" "SELECT COUNT(*) FROM windows WHERE stage='ladder' AND replaces IS NULL")" "==" 6
nc=$(q "$id" "SELECT COUNT(*) FROM windows WHERE stage='confirm' AND replaces IS NULL")
check "confirm windows: reps 2 x 2 arms x (1..4 rates) ($nc)" test "$nc" -ge 4 -a "$nc" -le 16 -a $((nc % 4)) -eq 0
# Counterbalanced: over each stage's blocks each arm is first equally often.
for st in ladder confirm; do
	a=$(q "$id" "SELECT COUNT(*) FROM windows WHERE stage='$st' AND slot=0 AND impl='fast' AND replaces IS NULL")
	b=$(q "$id" "SELECT COUNT(*) FROM windows WHERE stage='$st' AND slot=0 AND impl='slow' AND replaces IS NULL")
	d=$((a - b)); d=${d#-}
	check "$st orders counterbalanced (fast first $a, slow first $b)" test "$d" -le 1
done
# The CPU accounting's span is stored per window (schema 20, the
# acct_span gate's evidence): the measured seconds and the drain.
cmp_num "every done window stores its accounting span" \
	"$(q "$id" "SELECT COUNT(*) FROM windows WHERE state = 'done' AND acct_span_s IS NULL")" "==" 0
echo "# accounting span / measured seconds: $(q "$id" "SELECT printf('%.3f..%.3f', MIN(acct_span_s / duration_s), MAX(acct_span_s / duration_s)) FROM windows WHERE state = 'done'")"
ng=$(q "$id" "SELECT COUNT(*) FROM gate_results WHERE phase='window'")
# the spec's 3 window gates and idle_arms_quiet (always judged)
cmp_num "every window gate result stored" "$ng" "==" $((n * 4))
nw=$(q "$id" "SELECT COUNT(DISTINCT window_id) FROM gate_results WHERE phase='warmup'")
cmp_num "warm-up gate results stored for every window" "$nw" "==" "$n"
nsec=$(q "$id" "SELECT COUNT(*) FROM seconds WHERE phase='measured'")
cmp_num "one measured second per window second" "$nsec" "==" "$n"
check "blocks store their order and rate" test "$(q "$id" "SELECT COUNT(*) FROM blocks WHERE order_json LIKE '[%]'")" -ge 5
"$HARNESS" audit "$id" --runs-dir "$RUNS" --recheck >"$T/audit.out" 2>&1
rc=$?
check "audit --recheck finds no mismatch (rc $rc)" grep -q "0 mismatches" "$T/audit.out"
cmp_num "audit --recheck exit" "$rc" "==" 0
checked=$(sed -n 's/^recheck: \([0-9]*\) stored.*/\1/p' "$T/audit.out")
# every gate result stored (3 window gates and idle_arms_quiet, 2 warm-up
# gates and the 2 default head gates per window) and every window's status
stored=$(q "$id" "SELECT COUNT(*) FROM gate_results")
cmp_num "gate results: 4 window + 2 warm-up + 2 head gates per window" "$stored" "==" $((n * 8))
cmp_num "recheck recomputed every stored verdict and window status" "$checked" "==" $((stored + n))
"$HARNESS" status "$id" --runs-dir "$RUNS" --json >"$T/status.json"
s=$?
check "status --json: finished, done == planned" jq -e '.finished == true and .done == .planned and .accepted + .failed + .rejected == .done' "$T/status.json"
cmp_num "status of a finished run exits 0" "$s" "==" 0
check "window p99 from intended send recorded" test -n "$(q "$id" "SELECT p99_ms FROM windows WHERE p99_ms > 0 LIMIT 1")"
check "cpu accounted by the kernel per window" test -n "$(q "$id" "SELECT cpu_s FROM windows WHERE acct_backend IS NOT NULL AND cpu_s > 0 LIMIT 1")"
check "host facts recorded" test "$(q "$id" "SELECT COUNT(*) FROM host_facts")" -ge 5
# each arm's cgroup weight raised and in the provenance (docs/DESIGN.md,
# "An arm's CPU weight"); procfs accounting has no cgroup and no fact
case $(q "$id" "SELECT acct_backend FROM windows WHERE acct_backend IS NOT NULL LIMIT 1") in
cgroup1 | cgroup2)
	cmp_num "each arm's CPU weight raised, recorded as a host fact" "$(q "$id" "SELECT COUNT(*) FROM host_facts
		WHERE key IN ('arm.fast.cpu_weight', 'arm.slow.cpu_weight') AND value IN
		('cgroup1 cpu.shares 10240 at harness/ and its cgroup',
		 'cgroup2 cpu.weight 1000 at harness/ and its cgroup')")" "==" 2 ;;
esac
"$HARNESS" audit "$id" --runs-dir "$RUNS" --window 1 >"$T/w1.out" 2>&1
check "audit --window shows the Mann-Kendall figures" grep -q "Mann-Kendall" "$T/w1.out"
cmp_num "no implementation left running" "$(pgrep -f "$SRV" | wc -l)" "==" 0
