#!/bin/bash
# timing-free: a killed dependency's window rejected and restarted (within 2 s: seconds of slack)
# release-only: under make asan deps_headroom.sh, agent_dep.sh and agent_run.sh reach its code but 29 lines (runner_deps.c 18, runner_window.c 5, runner.c 4), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# A dependency that dies mid-window (issue 14): a testsrv dependency exits
# 5 s after its first start (--crash-once: never again), inside the second
# 3-s window; that window is rejected for validity by dependency_headroom
# (not failed), the dependency is restarted on the same port before the
# next window, and the run goes on to its pre-registered 3 accepted
# windows. {dep.NAME.port} reaches the implementation's health URL and the
# requests (the testsrv implementation answers any path). A dependency
# that cannot start again (its second start exits at once): the run stops,
# exit 3, with one message naming it. Then a harness with a running
# dependency is SIGKILLed: no process of the dependency or of the
# implementation is alive within 2 s, and `harness resume` finishes the
# run with the dependency started again, nothing left running after it.
. "$(dirname "$0")/../lib.sh"

cat >"$T/spec.yaml" <<EOF
version: 1
name: deps-kill
slo: { threshold_ms: 50 }
dependencies:
  - name: be
    start: [$HELPERS/testsrv, --port, "{port}", --exit-after-ms, "5000", --crash-once, $T/crashed,
            --port-file, $T/be.port]
    health: { tcp: "127.0.0.1:{port}" }
    version: [$HELPERS/burn, --cpu, "0"]
implementations:
  - name: a
    start: [$HELPERS/testsrv, --port, "{port}", --port-file, "$T/a-sees-be-{dep.be.port}"]
    health: { url: "http://127.0.0.1:{port}/healthz?be={dep.be.port}" }
    restart: never
workload:
  requests: [ { name: root, path: "/x?be={dep.be.host}:{dep.be.port}" } ]
warmup: { min_s: 1, max_s: 2, trailing_s: 1, gates: [] }
window_gates: [error_rate, sut_alive, dependency_headroom]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, window_s: 3, reps: 3 }
retries: { max_per_cell: 2 }
EOF

expect_exit "run with a dependency that dies once" 0 \
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder
db=$(ls -d "$T"/runs/*/run.db | head -1)
q() { sqlite3 "$db" "$1"; }
port=$(cat "$T/be.port")
cmp_num "dependency_headroom rejected exactly the window it died in" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE '%dependency_headroom%'")" == 1
cmp_num "no window failed (a dead dependency is not the implementation's fault)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'failed'")" == 0
cmp_num "the run went on: 3 accepted windows" "$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 3
cmp_num "window_deps records the exit" "$(q "SELECT COUNT(*) FROM window_deps WHERE exited = 1")" == 1
check "the gate's evidence names the exit" \
	grep -q "be exited during the window" <(q "SELECT evidence FROM gate_results WHERE gate = 'dependency_headroom' AND status = 'fail'")
cmp_num "restarted once (dep_restart event)" "$(q "SELECT COUNT(*) FROM events WHERE kind = 'dep_restart'")" == 1
check "restarted on the port bound into the spec ($port)" \
	grep -q "127.0.0.1:$port" <(q "SELECT detail FROM events WHERE kind = 'dep_restart'")
check "its version output is recorded" grep -q "^be: ready" <(q "SELECT detail FROM events WHERE kind = 'dep_version'")
check "{dep.be.port} was substituted in the implementation's start argv" test -f "$T/a-sees-be-$port"

# --- a dependency that cannot be restarted: the run stops, clearly ------
# Its first start touches a mark and serves 5 s; any later start finds the
# mark and exits 1 before it is healthy.
sed -e "s|start: \[$HELPERS/testsrv, --port, \"{port}\", --exit-after-ms, \"5000\", --crash-once, $T/crashed,|start: [sh, -c, 'test -e \"\$0.mark\" \&\& exit 1; touch \"\$0.mark\"; exec \"\$@\"', $T/once, $HELPERS/testsrv, --port, \"{port}\", --exit-after-ms, \"5000\",|" \
	"$T/spec.yaml" >"$T/once.yaml"
grep -q "once.mark\|\$0.mark" "$T/once.yaml" || fail "once.yaml: the start was not rewritten"
expect_exit "a dependency that cannot start again: the run stops (exit 3)" 3 \
	"$HARNESS" run "$T/once.yaml" --allow-dirty --runs-dir "$T/runs1" --stages ladder --run-id once
check "... one message naming it" grep -q "^harness: dependency be could not be restarted; the run stops" "$T/err"
check "... and why (it exited before it was healthy)" grep -q "^harness: dependency be exited.* before it was healthy" "$T/err"
q1() { sqlite3 "$T/runs1/once/run.db" "$1"; }
check "the run is recorded failed, its kind dependency" test "$(q1 "SELECT status || '|' || failure_kind FROM runs")" = "failed|dependency"
cmp_num "the window it died in rejected (dependency_headroom)" \
	"$(q1 "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE '%dependency_headroom%'")" == 1
cmp_num "... and no window failed" "$(q1 "SELECT COUNT(*) FROM windows WHERE status = 'failed'")" == 0

# --- SIGKILL of the harness: the dependency goes with it, resume ends the run
alive() { local s; s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }
# (1 s windows, no warm-up: what is checked is what is left running and
# what resume does, not the windows; 3 s windows and 1 s warm-ups took
# 16 s of this script's 37)
sed -i -e "s|--exit-after-ms, \"5000\", --crash-once, $T/crashed,||" \
	-e "s|^warmup: .*|$(no_warmup)|" -e "s|window_s: 3, reps: 3|window_s: 1, reps: 3|" "$T/spec.yaml"
grep -q "window_s: 1, reps: 3" "$T/spec.yaml" && grep -q "min_s: 0" "$T/spec.yaml" ||
	fail "spec.yaml: not rewritten to 1 s windows without a warm-up"
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs2" --stages ladder --run-id k >"$T/out2" 2>"$T/err2" &
hp=$!
_pids+=("$hp")
# killed mid-run: after its first measured window, in its second
for i in $(seq 1 400); do
	[ "$(sqlite3 "$T/runs2/k/run.db" "SELECT COUNT(*) FROM windows WHERE state = 'done'" 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
bp=$(pgrep -f -- "--port-file $T/be.port" | head -1)
ap=$(pgrep -f -- "--port-file $T/a-sees-be-" | head -1)
check "the dependency is running under the harness" test -n "$bp"
check "the implementation is running under the harness" test -n "$ap"
kill -9 "$hp"
t0=$(date +%s.%N)
for i in $(seq 1 40); do alive "${bp:-0}" || alive "${ap:-0}" || break; sleep 0.05; done
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
if alive "${bp:-0}"; then fail "the dependency ($bp) outlived the SIGKILLed harness"; else ok "no process of the dependency alive after SIGKILL of the harness"; fi
if alive "${ap:-0}"; then fail "the implementation ($ap) outlived the SIGKILLed harness"; else ok "no process of the implementation alive after SIGKILL of the harness"; fi
cmp_num "... within 2 s (seconds taken)" "$el" "<" 2
{ wait "$hp"; } 2>/dev/null
q2() { sqlite3 "$T/runs2/k/run.db" "$1"; }
before=$(q2 "SELECT COUNT(*) FROM windows WHERE state = 'done'")
cmp_num "killed after its first window (windows done)" "$before" ">=" 1
cmp_num "... and before its last" "$before" "<" 3
expect_exit "resume after the SIGKILL" 0 "$HARNESS" resume k --runs-dir "$T/runs2"
cmp_num "resume: the run's 3 windows accepted" "$(q2 "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 3
cmp_num "resume: the dependency started once per invocation (dep_start events)" \
	"$(q2 "SELECT COUNT(*) FROM events WHERE kind = 'dep_start'")" == 2
cmp_num "resume: no window of the resumed part rejected for the dependency" \
	"$(q2 "SELECT COUNT(*) FROM windows WHERE reasons LIKE '%dependency_headroom%'")" == 0
cmp_num "resume: every measured window accounted the dependency" \
	"$(q2 "SELECT COUNT(*) FROM window_deps WHERE name = 'be' AND exited = 0")" == "$(q2 "SELECT COUNT(*) FROM windows WHERE state = 'done'")"
check "resume: the run is finished" test "$(q2 "SELECT status FROM runs")" = finished
left=$(pgrep -f -- "--port-file $T/" | tr '\n' ' ')
[ -z "$left" ] && ok "nothing of the dependency or the implementation left after resume" ||
	fail "left running after resume: $left"
exit 0
