#!/bin/bash
# The first echo story (issue 28, items 6, 3, 7), examples/echo/story.yaml
# run as it is: two servers, each serving the echo on its own path
# (implementations[].paths), one checked healthy by a TCP connection
# (health.tcp), a closed-loop saturation stage and an open-loop ladder,
# each reported under its own label (report.md sections, report.json
# `saturation` with mode closed_loop, never in `rungs` or the knees), and
# the footprint of every start. Independent readings: wrk against the same
# sync server (its pool of 4 x 1 ms bounds both), stat of the artifacts.
# Then a fixed port (implementations[].port: a count-bounded closed loop
# of exactly 300 requests, on a host HARNESS_TEST_HOST_FACTS makes tuned
# as its host.require asks; the port held by another listener: exit 3).
# About 30 s on 2 cores (the story's run about 20).
. "$(dirname "$0")/../lib.sh"
E=$ROOT/examples/echo
RUNS=$T/runs
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
command -v wrk >/dev/null || fail "wrk is not installed (Debian: wrk)"

# ---- the story, as the example spec says it
expect_exit "check accepts the story" 0 "$HARNESS" check "$E/story.yaml"
check "check shows the closed loop apart" grep -q "^  saturation closed loop, 16 connections, 2 s x 1 reps per implementation, after 1 s of warm-up; before the ladder, reported apart (not a knee)$" "$T/out"
check "check shows each arm's path and sync's TCP health" \
	bash -c "grep -q 'request sleep on /sleep-sync' '$T/out' && grep -q 'health: a TCP connection to 127.0.0.1:{port} accepted' '$T/out'"
"$HARNESS" run "$E/story.yaml" --allow-dirty --runs-dir "$RUNS" --run-id story >/dev/null 2>"$T/story.err"
rc=$?
# a rung a loaded box voids everywhere leaves a cell short: exit 1, still
# a finished, reported run (neither is what this test is about)
check "the story runs (exit 0 or 1: $rc)" test "$rc" -le 1
check "its pre-flight passed: each arm answered on its own path (a wrong path is a 404)" \
	test "$(q story "SELECT preflight_cases || '/' || preflight_passed FROM runs")" = "1/1"
check "one closed-loop row per implementation, answers and no errors" \
	test "$(q story "SELECT group_concat(impl || ':' || (requests > 100) || ':' || errors, ' ') FROM (SELECT * FROM saturation ORDER BY impl)")" = "async:1:0 sync:1:0"
check "open-loop windows for both, none in the saturation table's stage" \
	test "$(q story "SELECT COUNT(DISTINCT impl) || ':' || SUM(stage <> 'ladder') FROM windows")" = "2:0"
"$HARNESS" report story --runs-dir "$RUNS" --format md,json,csv -o "$T/rep" >/dev/null 2>&1
check "report.md: the closed loop under its own heading" grep -q "^## Closed-loop saturation (not a knee)$" "$T/rep/report.md"
check "report.md: the footprint under its own heading" grep -q "^## Footprint (measured at start, not the cost under load)$" "$T/rep/report.md"
check "report.json: saturation labelled closed_loop, a service time, for both" \
	jq -e '[.saturation[] | select(.mode == "closed_loop" and .service_ms.p99 > 0 and .throughput_rps.median > 0) | .impl] == ["async", "sync"]' "$T/rep/report.json"
check "study.csv: sections saturation (closed_loop) and footprint, apart from the rungs" \
	bash -c "grep -q '^saturation,sync,saturation,,throughput_rps,.*,closed_loop\$' '$T/rep/study.csv' && grep -q '^footprint,async,,,artifact_bytes,' '$T/rep/study.csv'"
check "report.json: the rungs are the open loop's only" jq -e '[.rungs[].stage] | all(. == "ladder")' "$T/rep/report.json"
sat_sync=$(jq '.saturation[] | select(.impl == "sync") | .throughput_rps.median' "$T/rep/report.json")
sat_async=$(jq '.saturation[] | select(.impl == "async") | .throughput_rps.median' "$T/rep/report.json")
# which server gets through more is the servers' story, not the harness's:
# on a quiet box async (16 connections / 1 ms, CPU-bound) far above sync
# (4 workers / 1 ms); on a box 20 processes deep async's CPU is what its
# neighbours leave it. Said, not asserted.
echo "# closed loop: async $sat_async req/s, sync $sat_sync req/s"
# sync's 4 workers hold each request for 1 ms: at most ~4 / 1.05 ms
cmp_num "sync within its pool's bound, 4 / 1 ms (req/s)" "$sat_sync" "<=" 4000
a_bytes=$(stat -c %s "$E/evloop"); s_bytes=$(stat -c %s "$E/threads")
check "footprint: artifact bytes are stat's ($a_bytes, $s_bytes)" \
	jq -e --argjson a "$a_bytes" --argjson s "$s_bytes" '[.footprint[] | .artifact_bytes] == [$a, $s]' "$T/rep/report.json"
check "footprint: every start read, exec to healthy and PSS <= RSS" \
	jq -e '[.footprint[] | select(.starts >= 2 and .startup_ms.median > 0 and .startup_ms.max < 10000 and .pss_bytes.max <= .rss_bytes.max and .rss_bytes.min > 100000)] | length == 2' "$T/rep/report.json"
cmp_num "footprint rows: one per start (sut_start events)" \
	"$(q story "SELECT COUNT(*) FROM footprint")" == "$(q story "SELECT COUNT(*) FROM events WHERE kind = 'sut_start'")"

# wrk's closed loop on the same sync server: the pool bounds both, so the
# two agree within what a shared 2-core box moves a 2 s run by. wrk runs
# SCHED_FIFO at priority 1 where permitted, as the harness's generator
# threads do. Beside other suites' real-time generators a closed loop can
# be starved (the story's read async 195 and sync 53 req/s, wrk 3440 right
# after), and a stall only takes requests away (the pool bounds each
# reading from above): when the two disagree, the harness's closed loop on
# sync alone (a spec of it, --stages saturation) and wrk are measured
# again, back to back, at most 3 times more, and each tool's highest
# reading is compared. A harness that miscounts its closed loop disagrees
# every time; its highest reading stays under the pool's bound (above).
P=$(free_port)
bg env WORKERS=4 WAIT_US=1000 ECHO_PATH=/sleep-sync taskset -c 1 "$E/threads" --port "$P" 2>/dev/null
wait_port "$P"
printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' \
	"'{\"id\":42,\"name\":\"meridian\"}'" >"$T/post.lua"
rt=; chrt -f 1 true 2>/dev/null && rt="chrt -f 1"
wrk_sync() {
	$rt taskset -c 0 wrk -t1 -c16 -d2s -s "$T/post.lua" "http://127.0.0.1:$P/sleep-sync" | awk '/Requests\/sec/ { print $2 }'
}
agree() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && a / b < 1.6 && b / a < 1.6) }'; }
cat >"$T/sync.yaml" <<YAML
version: 1
name: e2e-sync-closed
slo: { threshold_ms: 20 }
implementations:
  - name: sync
    start: [$E/threads, --port, "{port}"]
    env: { WORKERS: "4", WAIT_US: "1000", ECHO_PATH: /sleep-sync }
    health: { tcp: true, timeout_s: 10 }
    cpus: "1"
workload:
  cpus: "0"
  transport: native
  requests:
    - { name: sleep, method: POST, path: /sleep-sync, headers: { Content-Type: application/json },
        body: '{"id":42,"name":"meridian"}' }
stages:
  saturation: { connections: 16, duration_s: 2, reps: 1, warmup_s: 1 }
  ladder: { start_rps: 50, step: 2, max_rps: 50, reps: 1, window_s: 1 }
warmup: { rate: { fixed_rps: 50 }, min_s: 0, max_s: 1, trailing_s: 0.5, gates: [] }
window_gates: [sut_alive]
YAML
w=$(wrk_sync)
hi_h=$sat_sync hi_w=${w:-0} again=0
hi() { awk -v a="$1" -v b="${2:-0}" 'BEGIN { print (b > a ? b : a) }'; }
while ! agree "$hi_h" "$hi_w" && [ $again -lt 3 ]; do
	again=$((again + 1))
	echo "# harness $hi_h vs wrk $hi_w req/s at best on sync (load $(cut -d' ' -f1 /proc/loadavg)): both again ($again)"
	"$HARNESS" run "$T/sync.yaml" --stages saturation --allow-dirty --runs-dir "$RUNS" \
		--run-id sync$again >/dev/null 2>"$T/sync.err"
	hi_h=$(hi "$hi_h" "$(q sync$again "SELECT throughput_rps FROM saturation WHERE impl = 'sync'")")
	hi_w=$(hi "$hi_w" "$(wrk_sync)")
done
check "harness's closed loop agrees with wrk's on sync ($hi_h vs $hi_w req/s, within x1.6$([ $again = 0 ] || echo ", the highest of $((again + 1)) readings each"))" \
	agree "$hi_h" "$hi_w"
cmp_num "sync's highest closed-loop reading within its pool's bound, 4 / 1 ms (req/s)" "$hi_h" "<=" 4000

# ---- a fixed port, and a closed loop bounded by a count
P=$(free_port)
cat >"$T/fixed.yaml" <<YAML
version: 1
name: e2e-fixed
slo: { threshold_ms: 50 }
implementations:
  - name: a
    start: [$E/evloop, --port, "$P"]
    env: { WAIT_US: "100" }
    port: $P
    health: { tcp: true, timeout_s: 10 }
    artifact: $E/evloop
workload:
  requests: [ { name: echo, method: POST, path: /echo, body: '{"id":1}' } ]
stages:
  saturation: { connections: 4, requests: 300, duration_s: 20, reps: 1, warmup_s: 0 }
  ladder: { start_rps: 50, step: 2, max_rps: 50, reps: 1, window_s: 1 }
warmup: { rate: { fixed_rps: 50 }, min_s: 0, max_s: 1, trailing_s: 0.5, gates: [] }
window_gates: [sut_alive]
host: { require: [governor_performance, smt_off] }
YAML
# on a host tuned as host.require asks (tests/cases/check/host-require.case: refused on one that is not)
HARNESS_TEST_HOST_FACTS=governor=performance,smt=off "$HARNESS" run "$T/fixed.yaml" --stages saturation \
	--allow-dirty --runs-dir "$RUNS" --run-id fixed >/dev/null 2>"$T/fixed.err"
cmp_num "a fixed port and a count on a tuned host: the closed loop alone runs (exit 0)" "$?" == 0
check "the facts it ran on, and the hook, recorded" \
	test "$(q fixed "SELECT value FROM host_facts WHERE key = 'governor'"):$(q fixed "SELECT COUNT(*) FROM events WHERE kind = 'test_host_facts'")" = "performance:1"
check "exactly 300 requests answered, on the fixed port" \
	bash -c "test \"\$(sqlite3 '$RUNS/fixed/run.db' \"SELECT requests FROM saturation\")\" = 300 && grep -q 'started on http://127.0.0.1:$P ' <(sqlite3 '$RUNS/fixed/run.db' \"SELECT detail FROM events WHERE kind = 'sut_start'\")"
bg python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $P)); s.listen(); time.sleep(30)"
holder=$!
wait_port "$P"
HARNESS_TEST_HOST_FACTS=governor=performance,smt=off "$HARNESS" run "$T/fixed.yaml" --stages saturation --allow-dirty --runs-dir "$RUNS" --run-id taken >/dev/null 2>"$T/taken.err"
cmp_num "its port held by another listener: exit 3" "$?" == 3
check "saying so" grep -q "^harness: impl a: its port $P (implementations\[\].port) is in use on 127.0.0.1$" "$T/taken.err"
kill "$holder"; wait "$holder" 2>/dev/null || true

