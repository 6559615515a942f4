#!/usr/bin/env bash
# timing-free: exit codes, window states and counts of runs that fail a gate, are void, are interrupted or do not build (no latency or rate figure)
# release-only: under make asan agent_run.sh, oom.sh and http2.sh reach its code but 35 lines (cmd_audit.c 23, runner.c 7, cmd_status.c 2), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# End-to-end: how `harness run`, `status`, `audit` and `knee` treat runs
# that go wrong (issue 5's and issue 11's acceptance lists); run.sh has the
# run that goes right, kill -9 / resume and a crash (which window a crash
# timed in milliseconds lands in is timing).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/run_common.inc"

# ---------------------------------------------- a gate that always fails
# (this run and the void one below: no warm-up, WARMUP=none; the warm-up
# gates are run.sh's subject)
WARMUP=none write_spec "$T/fail.yaml" e2e-fail '--error-pct, "1"' \
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

# --------------------------------------- an implementation that answers nothing
# Every benchmarked request waits 1.5 s (testsrv's /delay/N) and the window
# measures 1 s: requests are due, none is answered in it (the first sent
# is answered 0.5 s after its end: a sleep ends no sooner on a loaded
# host), no transport error either (the timeout is 3 s). No pre-flight:
# its one request would wait the 1.5 s too, and it is not this run's
# subject (it was 2.5 s, with a pre-flight: 9.7 s of run, now about 5). The spec lists no gate that looks at
# answers (only sut_alive): the window is still failed, reason no_answer,
# and the knee crosses at the rung. The answers that come after the window
# (its drain, docs/DESIGN.md "The drain") are in its evidence, with their
# 1.5 s latencies, but are not answers within it.
cat >"$T/mute.yaml" <<YAML
version: 1
name: e2e-mute
seed: 7
slo: { percentile: 99, threshold_ms: 20, error_rate_max: 0.01 }
implementations:
  - name: mute
    start: [$SRV, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 64
  timeout_ms: 3000
  preflight: { sends: 0 }
  requests:
    - { name: slow, method: GET, path: /delay/1500 }
stages:
  ladder: { start_rps: 40, step: 2, max_rps: 40, reps: 1, window_s: 1, discard_s: 0 }
$(warmup_at 20 1)
window_gates: [sut_alive]
YAML
"$HARNESS" run "$T/mute.yaml" --allow-dirty --runs-dir "$RUNS" --run-id mute >/dev/null 2>"$T/m.err"
rc=$?
cmp_num "run whose implementation answers nothing exits 0 (failed is measured)" "$rc" "==" 0
check "its window is failed, reason no_answer ($(q mute "SELECT status, reasons, due, completed FROM windows"))" \
	test "$(q mute "SELECT status || ':' || reasons || ':' || (due > 0) FROM windows")" = "failed:no_answer:1"
cmp_num "none answered in its measured second" \
	"$(q mute "SELECT SUM(completed) FROM seconds WHERE phase = 'measured'")" "==" 0
check "every one answered in its drain, in its totals and its p99 ($(q mute "SELECT due, completed, p99_ms FROM windows"))" \
	test "$(q mute "SELECT (completed = due) || (p99_ms >= 1500) || (completed = (SELECT completed FROM seconds WHERE phase = 'drain')) FROM windows")" = 111
"$HARNESS" knee mute --runs-dir "$RUNS" --json >"$T/mk.json"
check "its knee is crossed at the first rung, never '>='" jq -e '.fits[0].crossed and .fits[0].kind != "floor"' "$T/mk.json"
expect_exit "audit --recheck reproduces no_answer" 0 "$HARNESS" audit mute --runs-dir "$RUNS" --recheck

# ------------------------- an implementation that answers 1 in 10, hangs the rest
# One request in ten is answered at once (/healthz), nine wait 2.5 s
# (/delay/2500) past the 1.5 s timeout, which is longer than the 1 s
# window: they time out after it, in the load's drain. They are errors of
# the window (its evidence is its seconds plus its drain), so error_rate
# fails it, though the spec lists no achieved_vs_offered; before the drain
# was kept the window was accepted with an error rate of 0. The same
# through a load agent (workload.generators, `local`: the agent's drain
# comes back with its DONE frame).
cat >"$T/tenth.yaml" <<YAML
version: 1
name: e2e-tenth
seed: 7
slo: { percentile: 99, threshold_ms: 20, error_rate_max: 0.01 }
implementations:
  - name: tenth
    start: [$SRV, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 64
  timeout_ms: 1500
  preflight: { sends: 0 }   # the hung request would fail it (1.5 s)
  requests:
    - { name: quick, weight: 1, method: GET, path: /healthz }
    - { name: hang, weight: 9, method: GET, path: /delay/2500 }
stages:
  ladder: { start_rps: 40, step: 2, max_rps: 40, reps: 1, window_s: 1, discard_s: 0 }
$(warmup_at 10 1)
window_gates: [error_rate, sut_alive]
YAML
sed 's/^  connections: 64$/  connections: 64\n  generators: [{ host: local }]/' "$T/tenth.yaml" >"$T/tenth-agent.yaml"
for id in tenth tenth-agent; do
	"$HARNESS" run "$T/$id.yaml" --allow-dirty --runs-dir "$RUNS" --run-id $id >/dev/null 2>"$T/$id.err"
	rc=$?
	cmp_num "$id: run exits 0 (failed is measured)" "$rc" "==" 0
	check "$id: its window is failed by error_rate ($(q $id "SELECT status, reasons, due, completed, err_timeout FROM windows"))" \
		test "$(q $id "SELECT status || ':' || reasons FROM windows")" = "failed:error_rate"
	check "$id: every hung request is a timeout of the window: due = completed + timeouts, 1 in 10 answered" \
		test "$(q $id "SELECT (due = completed + err_timeout + dropped) || (dropped = 0) || (completed > 0) || (err_timeout > 4 * completed) FROM windows")" = 1111
	check "$id: the timeouts came in the drain row, seconds + drain = the window's counts" \
		test "$(q $id "SELECT (SELECT SUM(errors) FROM seconds WHERE phase = 'measured') || ':' ||
			((SELECT errors FROM seconds WHERE phase = 'drain') = err_timeout) || ':' ||
			((SELECT SUM(completed) FROM seconds WHERE phase IN ('measured', 'drain')) = completed) FROM windows")" = "0:1:1"
	check "$id: the per-request counts hold the timeouts too" \
		test "$(q $id "SELECT errors > 0 AND errors = (SELECT err_timeout FROM windows) FROM window_requests WHERE phase = 'measured' AND name = 'hang'")" = 1
	expect_exit "$id: audit --recheck agrees" 0 "$HARNESS" audit $id --runs-dir "$RUNS" --recheck
	wid=$(q $id "SELECT id FROM windows")
	"$HARNESS" audit $id --runs-dir "$RUNS" --window "$wid" --json >"$T/$id-a.json"
	check "$id: audit --window shows the drain's timeouts" \
		jq -e --argjson n "$(q $id "SELECT err_timeout FROM windows")" '.windows[0].series.drain.errors == $n and $n > 0' "$T/$id-a.json"
done

# ------------------------------- a validity gate that always fails
# The generator's lateness can never be <= 0 ms: every window of every arm
# is void (rejected), so the stage measured nothing usable: exit 1. Its
# 6 windows measure 1 s each, no head (what is counted here is windows,
# replacements and events: 31 s of the script with 2 s windows, 21 s with
# 10 windows at retries.max_per_cell 3, the default; replace.sh counts
# max_per_cell 2 without the extra time).
WARMUP=none write_spec "$T/void.yaml" e2e-void '--delay-ms, "1"' \
	'start_rps: 200, step: 2, max_rps: 200, reps: 1' ''
sed -i 's/^window_gates: \[error_rate, achieved_vs_offered, sut_alive\]$/window_gates: [error_rate, achieved_vs_offered, sut_alive, generator]/;
	s/^gates:$/gates:\n  generator: { lateness_p99_ms: 0 }/;
	s/window_s: 2, discard_s: 1,/window_s: 1, discard_s: 0,/' "$T/void.yaml"
echo "retries: { max_per_cell: 1 }" >>"$T/void.yaml"
"$HARNESS" run "$T/void.yaml" --allow-dirty --runs-dir "$RUNS" --run-id void >/dev/null 2>"$T/v.err"
rc=$?
cmp_num "run with nothing usable for its arms exits 1" "$rc" "==" 1
# 2 pre-registered windows, each cell replaced retries.max_per_cell (1)
# time, then once more within the run's extra time (retries.extra_time_pct,
# default 25% of the time the pre-registered windows took: checked before
# each round, the first extra round starts at 0 spent and costs about as
# much as the 2 pre-registered windows, so no second one starts).
cmp_num "every window rejected by the generator gate (validity), replacements too" "$(q void "SELECT COUNT(*) FROM windows WHERE status='rejected' AND reasons LIKE '%generator%'")" "==" 6
cmp_num "1 replacement per cell, and one within the extra time" "$(q void "SELECT COUNT(*) FROM windows WHERE replaces IS NOT NULL")" "==" 4
cmp_num "the 2 past max_per_cell say so, with the time spent and the budget" \
	"$(q void "SELECT COUNT(*) FROM events WHERE kind = 'replacement' AND detail LIKE '%past max_per_cell 1, within the run''s extra time, 0 of % s spent%'")" "==" 2
"$HARNESS" status void --runs-dir "$RUNS" >"$T/fs.out"
s=$?
check "status says the run measured nothing usable" grep -q "nothing usable" "$T/fs.out"
cmp_num "status exit" "$s" "==" 1

# -------------------------------------------------------- provenance
git init -q "$T/repo" && cp "$T/fail.yaml" "$T/repo/spec.yaml"
git -C "$T/repo" add spec.yaml && git -C "$T/repo" -c user.email=t@t -c user.name=t commit -qm spec
echo "# edited" >> "$T/repo/spec.yaml"
# Issue 29: check says up front what run will refuse.
expect_exit "check of an edited spec: valid (a warning)" 0 "$HARNESS" check "$T/repo/spec.yaml"
check "check warns that run will refuse the uncommitted spec" \
	grep -q "spec.yaml: warning: not committed .*\`harness run\` will refuse it" "$T/err"
check "check --json: spec_committed false" \
	bash -c "'$HARNESS' check '$T/repo/spec.yaml' --json 2>/dev/null | jq -e '.spec_committed == false'"
expect_exit "a dirty spec without --allow-dirty" 2 "$HARNESS" run "$T/repo/spec.yaml" --runs-dir "$RUNS"
check "the message names the file" grep -q "spec.yaml" "$T/err"
git -C "$T/repo" -c user.email=t@t -c user.name=t commit -qam edit
# An untracked file (a CI job's output) dirties nothing (git describe --dirty).
echo out >"$T/repo/rerun.out"
expect_exit "check of the committed spec beside an untracked file" 0 "$HARNESS" check "$T/repo/spec.yaml"
check "no warning about committing" bash -c "! grep -q 'not committed' '$T/err'"
"$HARNESS" run "$T/repo/spec.yaml" --runs-dir "$RUNS" --run-id edited >/dev/null 2>&1 &
hp=$!
sleep 2.5
kill -TERM "$hp"; wait "$hp"
rc=$?
check "SIGTERM: the run stops and says resume (rc $rc)" test "$(q edited "SELECT status FROM runs")" = interrupted
check "the run's spec is recorded clean beside the untracked file" \
	test "$(q edited "SELECT spec_dirty FROM runs")" = 0
"$HARNESS" status edited --runs-dir "$RUNS" >/dev/null
s=$?
cmp_num "status of an interrupted run exits 1" "$s" "==" 1
# Issue 29: status of an interrupted run shows its plan (1 rung x 2 reps x
# 2 arms = 4 pre-registered, 2 x 3 replacements at most), not only the
# windows stored before the signal.
"$HARNESS" status edited --runs-dir "$RUNS" >"$T/st.txt"
"$HARNESS" status edited --runs-dir "$RUNS" --json >"$T/st.json"
check "status: the plan, 4 windows pre-registered (+6 replacements at most)" \
	grep -q "^  plan: 4 windows pre-registered (+6 replacements at most); [0-9]* done, 0 of them replacements" "$T/st.txt"
check "status: the total's planned column is the plan's 4" grep -q "^  total    planned    4  done" "$T/st.txt"
check "status --json: plan and replacements" \
	jq -e '.plan.windows == 4 and .plan.replacements_max == 6 and .replacements == 0' "$T/st.json"
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

# ------------------------------------- a start that ignores {port} (issue 29)
# nginx with a fixed listen port another server already holds: nginx exits
# on "Address already in use" while the health check (fixed port too)
# passes against the other server. check warns that start never uses
# {port}; run names nginx, that it exited, and why, before any pre-flight.
if command -v nginx >/dev/null; then
	HP=$(free_port)
	bg "$SRV" --port "$HP"
	wait_port "$HP"
	mkdir -p "$T/ng/tmp"
	cat >"$T/ng/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log stderr warn;
pid nginx.pid;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path tmp/body; proxy_temp_path tmp/proxy;
	fastcgi_temp_path tmp/fastcgi; uwsgi_temp_path tmp/uwsgi; scgi_temp_path tmp/scgi;
	server { listen 127.0.0.1:$HP; location / { return 200 "ok\n"; } }
}
CONF
	sed -e "s|^  - name: fast|  - name: ng\n    repo: $T/ng\n    start: [nginx, -p, ., -c, nginx.conf]\n    health: { url: \"http://127.0.0.1:$HP/healthz\" }\n  - name: fast|" \
		"$T/fail.yaml" >"$T/ng.yaml"
	expect_exit "check: a start that never uses {port} is valid (a warning)" 0 "$HARNESS" check "$T/ng.yaml"
	check "check warns that ng's start and env never use {port}" \
		grep -q "ng.yaml:[0-9]*:[0-9]*: warning: implementations\[0\].start: never uses {port}" "$T/err"
	expect_exit "run: nginx exited on a port held by another server" 3 \
		"$HARNESS" run "$T/ng.yaml" --allow-dirty --runs-dir "$RUNS" --run-id fixedport
	# nginx gives up binding after 5 tries 500 ms apart; its health URL is
	# answered by the port's holder, so it is healthy at once and then
	# found exited before listening, with nginx's reason on that line. On
	# a host at load 10 (this suite at nice 10) that answer once came
	# after nginx had given up: then it exited before becoming healthy, a
	# line naming ng and that it exited, nginx's stderr after it.
	if grep -q "^harness: impl ng exited with status 1 before becoming healthy at " "$T/err"; then
		check "run: a line names ng and that it exited before its health answered (load $(cut -d' ' -f1 /proc/loadavg)), nginx's reason after it" \
			grep -q "Address already in use" "$T/err"
	else
		check "run: one line names ng, that it exited, and why (nginx's own last line)" \
			grep -q "^harness: impl ng exited with status 1 before listening on its assigned port [0-9]*: .*Address already in use" "$T/err"
	fi
	check "run: no pre-flight was sent" bash -c "! grep -qi 'pre-flight' '$T/err'"
	check "status names the start failure" \
		test "$(q fixedport "SELECT status FROM runs")" = failed
fi
