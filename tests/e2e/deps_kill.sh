#!/bin/bash
# timing-free: a killed dependency's window rejected and restarted (within 2 s: seconds of slack)
# A dependency that dies mid-window (issue 14): a testsrv dependency exits
# 5 s after its first start (--crash-once: never again), inside the second
# 3-s window; that window is rejected for validity by dependency_headroom
# (not failed), the dependency is restarted on the same port before the
# next window, and the run goes on to its pre-registered 3 accepted
# windows. {dep.NAME.port} reaches the implementation's health URL and the
# requests (the testsrv implementation answers any path). Then a
# harness with a running dependency is SIGKILLed: no process of the
# dependency is alive within 2 s.
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

# --- SIGKILL of the harness: the dependency goes with it ---------------
alive() { local s; s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }
sed -i "s|--exit-after-ms, \"5000\", --crash-once, $T/crashed,||; s|window_s: 3, reps: 3|window_s: 30, reps: 3|" "$T/spec.yaml"
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs2" --stages ladder >"$T/out2" 2>"$T/err2" &
hp=$!
_pids+=("$hp")
for i in $(seq 1 100); do grep -q "starting dependency" "$T/err2" 2>/dev/null && break; sleep 0.1; done
sleep 1
bp=$(pgrep -f -- "--port-file $T/be.port" | head -1)
check "the dependency is running under the harness" test -n "$bp"
kill -9 "$hp"
t0=$(date +%s.%N)
for i in $(seq 1 40); do alive "${bp:-0}" || break; sleep 0.05; done
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
if alive "${bp:-0}"; then fail "the dependency ($bp) outlived the SIGKILLed harness"; else ok "no process of the dependency alive after SIGKILL of the harness"; fi
cmp_num "... within 2 s (seconds taken)" "$el" "<" 2
wait "$hp" 2>/dev/null
exit 0
