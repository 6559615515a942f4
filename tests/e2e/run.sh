#!/usr/bin/env bash
# End-to-end: `harness run` / `resume` / `status` / `audit` against two
# testsrv implementations on 127.0.0.1 (issue 5's acceptance list).
. "$(dirname "$0")/../lib.sh"

. "$(dirname "$0")/run_common.inc"

# ---------------------------------------------------------------- main run
write_spec "$T/main.yaml" e2e-main '--delay-ms, "8"' \
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
"$HARNESS" audit "$id" --runs-dir "$RUNS" --window 1 >"$T/w1.out" 2>&1
check "audit --window shows the Mann-Kendall figures" grep -q "Mann-Kendall" "$T/w1.out"
cmp_num "no implementation left running" "$(pgrep -f "$SRV" | wc -l)" "==" 0

# ------------------------------------------------- kill -9 and resume
# The whole ladder runs whatever the knees (on a loaded VM the fast arm can
# cross 20 ms too, and an early stop would change the count this test is
# about: resume completing exactly what was planned).
STOP_PAST=100 write_spec "$T/kill.yaml" e2e-kill '--delay-ms, "8"' \
	'start_rps: 200, step: 1.5, max_rps: 450, reps: 2' ''
"$HARNESS" run "$T/kill.yaml" --allow-dirty --runs-dir "$RUNS" --run-id killme >"$T/k.out" 2>"$T/k.err" &
hp=$!
sleep "$(awk 'BEGIN { srand(); printf "%.1f", 4 + rand() * 6 }')"
kill -9 "$hp"
wait "$hp" 2>/dev/null
sleep 0.5
left=$(pgrep -f "$SRV" | wc -l)
sleep 2
left2=$(pgrep -f "$SRV" | wc -l)
check "no implementation alive 2 s after kill -9 of the harness ($left2)" test "$left2" -eq 0
before=$(q killme "SELECT COUNT(*) FROM windows WHERE state='done'")
"$HARNESS" status killme --runs-dir "$RUNS" --json >"$T/ks.json"
s=$?
cmp_num "status of a run killed mid-way exits 1" "$s" "==" 1
# Stored 'running', but its lock died with it: abandoned, never 'running'.
check "status --json of it: abandoned, not finished" jq -e '.status == "abandoned" and .finished == false' "$T/ks.json"
"$HARNESS" resume killme --runs-dir "$RUNS" >"$T/r.out" 2>"$T/r.err"
rc=$?
cmp_num "resume exits 0" "$rc" "==" 0
n=$(q killme "SELECT COUNT(*) FROM windows")
nd=$(q killme "SELECT COUNT(*) FROM windows WHERE state='done'")
nu=$(q killme "SELECT COUNT(DISTINCT stage || '/' || block || '/' || impl) FROM windows")
cmp_num "after resume every planned window is done ($before done before)" "$nd" "==" "$n"
cmp_num "and each exists exactly once" "$nu" "==" "$n"
cmp_num "the whole ladder: 3 rungs x 2 reps x 2 arms" "$(q killme "SELECT COUNT(*) FROM windows WHERE replaces IS NULL")" "==" 12
check "resume recorded" test "$(q killme "SELECT COUNT(*) FROM events WHERE kind='resume'")" -eq 1

# ----------------------------------------- an implementation that crashes
rm -f "$T/crashed"
write_spec "$T/crash.yaml" e2e-crash "--exit-after-ms, \"2500\", --crash-once, \"$T/crashed\"" \
	'start_rps: 200, step: 2, max_rps: 200, reps: 2' ''
# --crash-once crashes the first start: the pre-flight's would take it.
sed -i 's/^  timeout_ms: 2000$/  timeout_ms: 2000\n  preflight: { sends: 0 }/' "$T/crash.yaml"
"$HARNESS" run "$T/crash.yaml" --allow-dirty --runs-dir "$RUNS" --run-id crash >/dev/null 2>"$T/c.err"
rc=$?
check "run goes on after a crash (rc $rc)" test "$rc" -le 1
cmp_num "crashed window failed sut_exited (an outcome: its own death)" "$(q crash "SELECT COUNT(*) FROM windows WHERE impl='slow' AND status='failed' AND reasons LIKE '%sut_exited%'")" "==" 1
cmp_num "the implementation was restarted" "$(q crash "SELECT COUNT(*) FROM events WHERE kind='sut_start' AND detail LIKE 'slow%'")" ">=" 2
cmp_num "the other windows of it were accepted" "$(q crash "SELECT COUNT(*) FROM windows WHERE impl='slow' AND status='accepted'")" "==" 1
