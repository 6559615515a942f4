#!/usr/bin/env bash
# End-to-end: `harness run` / `resume` / `status` / `audit` against two
# testsrv implementations on 127.0.0.1 (issue 5's acceptance list).
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
SRV="$HELPERS/testsrv"

# write_spec FILE NAME SLOW_ARGS LADDER CONFIRM [EXTRA_WINDOW_GATES]
write_spec() {
	cat > "$1" <<YAML
version: 1
name: $2
seed: 7
slo: { percentile: 99, threshold_ms: 20, error_rate_max: 0.01 }
implementations:
  - name: fast
    start: [$SRV, --port, "{port}", --delay-ms, "1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    stats:
      url: "http://127.0.0.1:{port}/runtime-stats"
      poll_hz: 2
      signals: { pool_total: /pool/total, pool_max: /pool/max, calls: /endpoint_calls }
    restart: never
  - name: slow
    start: [$SRV, --port, "{port}", $3]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    stats:
      url: "http://127.0.0.1:{port}/runtime-stats"
      poll_hz: 2
      signals: { pool_total: /pool/total, pool_max: /pool/max, calls: /endpoint_calls }
    restart: never
workload:
  arrival: poisson
  connections: 4
  backlog_max: 10000
  timeout_ms: 2000
  requests:
    - { name: echo, weight: 3, method: POST, path: /echo, body: "hi" }
    - { name: healthz, weight: 1, method: GET, path: /healthz }
stages:
  ladder: { $4, window_s: 2, discard_s: 1, stop: { rungs_past_knee: ${STOP_PAST:-1} } }
$5
warmup:
  rate: { fixed_rps: 100 }
  min_s: 1
  max_s: 3
  trailing_s: 1
  gates: [hot_set_touched, pools_warm]
gates:
  pools_warm: { total: pool_total, max: pool_max }
  achieved_vs_offered: { tolerance_pct: 25 }
  error_rate: { max: ${6:-0.01} }
window_gates: [error_rate, achieved_vs_offered, sut_alive]
accounting: { backend: auto, sample_ms: 50 }
YAML
}

q() { sqlite3 "$RUNS/$1/run.db" "$2"; }

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
cmp_num "every window gate result stored" "$ng" "==" $((n * 3))
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
# every gate result stored (3 window gates, 2 warm-up gates and the 2
# default head gates per window) and every window's status
stored=$(q "$id" "SELECT COUNT(*) FROM gate_results")
cmp_num "gate results: 3 window + 2 warm-up + 2 head gates per window" "$stored" "==" $((n * 7))
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
cmp_num "status of a run killed mid-way (still 'running') exits 1" "$s" "==" 1
check "status --json of it: running, not finished" jq -e '.status == "running" and .finished == false' "$T/ks.json"
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

# ---------------------------------------------- a gate that always fails
write_spec "$T/fail.yaml" e2e-fail '--error-pct, "1"' \
	'start_rps: 200, step: 2, max_rps: 200, reps: 2' '' 0
"$HARNESS" run "$T/fail.yaml" --allow-dirty --runs-dir "$RUNS" --run-id failing >/dev/null 2>"$T/f.err"
rc=$?
# Failed windows are valid measurements (above the SLO): the stage measured
# something for every arm, so the run exits 0.
cmp_num "run whose one arm failed every window exits 0 (failed is measured)" "$rc" "==" 0
cmp_num "every window of the 1%-500s arm failed (error_rate is an outcome gate)" "$(q failing "SELECT COUNT(*) FROM windows WHERE impl='slow' AND status='failed' AND reasons LIKE '%error_rate%'")" "==" 2
"$HARNESS" audit failing --runs-dir "$RUNS" --json >"$T/fa.json"
check "audit lists each failed window with its statistic" jq -e '[.windows[] | select(.impl=="slow") | .gates[] | select(.gate=="error_rate") | .statistic > 0.005 and .threshold == 0] | length == 2 and all' "$T/fa.json"
"$HARNESS" knee failing --runs-dir "$RUNS" --json >"$T/fk.json"
check "its knee is a bracket at the first rung, never '>='" jq -e '.fits[] | select(.impl=="slow") | .kind == "bracket" and .at_first_rung and .crossed' "$T/fk.json"

# ------------------------------- a validity gate that always fails
# The generator's lateness can never be <= 0 ms: every window of every arm
# is void (rejected), so the stage measured nothing usable: exit 1.
write_spec "$T/void.yaml" e2e-void '--delay-ms, "1"' \
	'start_rps: 200, step: 2, max_rps: 200, reps: 1' ''
sed -i 's/^window_gates: \[error_rate, achieved_vs_offered, sut_alive\]$/window_gates: [error_rate, achieved_vs_offered, sut_alive, generator]/;
	s/^gates:$/gates:\n  generator: { lateness_p99_ms: 0 }/' "$T/void.yaml"
"$HARNESS" run "$T/void.yaml" --allow-dirty --runs-dir "$RUNS" --run-id void >/dev/null 2>"$T/v.err"
rc=$?
cmp_num "run with nothing usable for its arms exits 1" "$rc" "==" 1
# 2 pre-registered windows, each cell replaced retries.max_per_cell (3) times.
cmp_num "every window rejected by the generator gate (validity), replacements too" "$(q void "SELECT COUNT(*) FROM windows WHERE status='rejected' AND reasons LIKE '%generator%'")" "==" 8
cmp_num "3 replacements per cell" "$(q void "SELECT COUNT(*) FROM windows WHERE replaces IS NOT NULL")" "==" 6
"$HARNESS" status void --runs-dir "$RUNS" >"$T/fs.out"
s=$?
check "status says the run measured nothing usable" grep -q "nothing usable" "$T/fs.out"
cmp_num "status exit" "$s" "==" 1

# -------------------------------------------------------- provenance
git init -q "$T/repo" && cp "$T/fail.yaml" "$T/repo/spec.yaml"
git -C "$T/repo" add spec.yaml && git -C "$T/repo" -c user.email=t@t -c user.name=t commit -qm spec
echo "# edited" >> "$T/repo/spec.yaml"
expect_exit "a dirty spec without --allow-dirty" 2 "$HARNESS" run "$T/repo/spec.yaml" --runs-dir "$RUNS"
check "the message names the file" grep -q "spec.yaml" "$T/err"
git -C "$T/repo" -c user.email=t@t -c user.name=t commit -qam edit
"$HARNESS" run "$T/repo/spec.yaml" --runs-dir "$RUNS" --run-id edited >/dev/null 2>&1 &
hp=$!
sleep 2.5
kill -TERM "$hp"; wait "$hp"
rc=$?
check "SIGTERM: the run stops and says resume (rc $rc)" test "$(q edited "SELECT status FROM runs")" = interrupted
"$HARNESS" status edited --runs-dir "$RUNS" >/dev/null
s=$?
cmp_num "status of an interrupted run exits 1" "$s" "==" 1
echo "# edited again" >> "$T/repo/spec.yaml"
expect_exit "resume refuses a spec edited after the run started" 2 "$HARNESS" resume edited --runs-dir "$RUNS"
check "the refusal names the spec" grep -q "changed since the run started" "$T/err"

# ------------------------------------------------ a run that failed: status 1
sed 's|^    restart: never|    build: [/bin/false]\n    restart: never|' "$T/fail.yaml" > "$T/nobuild.yaml"
"$HARNESS" run "$T/nobuild.yaml" --allow-dirty --runs-dir "$RUNS" --run-id nobuild >/dev/null 2>&1
rc=$?
cmp_num "a run whose build fails exits 3" "$rc" "==" 3
"$HARNESS" status nobuild --runs-dir "$RUNS" --json >"$T/nb.json"
s=$?
cmp_num "status of a failed run exits 1" "$s" "==" 1
check "status --json of it: failed, not finished" jq -e '.status == "failed" and .finished == false' "$T/nb.json"
