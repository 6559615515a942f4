#!/bin/bash
# release-only: checks the helper server, which is built without sanitizers in both builds
# Quick checks of the test helper server itself (tests/helpers/testsrv.c):
# other tests trust its delay, error injection, stats JSON and failure modes.
. "$(dirname "$0")/../lib.sh"
S=$HELPERS/testsrv

# ---- plain server: routes, echo, stats JSON, ephemeral port ----
bg "$S" --port 0 --port-file "$T/port" 2>"$T/log"
for i in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.05; done
P=$(cat "$T/port" 2>/dev/null)
check "port-file written and port listening" wait_port "$P"
U=http://127.0.0.1:$P
check "healthz says ok" test "$(curl -s "$U/healthz")" = ok
check "echo returns the body" test "$(curl -s -d '{"a":1}' "$U/echo")" = '{"a":1}'
check "empty body answers ok" test "$(curl -s "$U/anything")" = ok
# n more requests on one keep-alive connection (curl reuses it across URLs)
many() { local u=$1 n=$2 a=() i; for i in $(seq 1 "$n"); do a+=(-o /dev/null "$u"); done; curl -s "${a[@]}"; }
many "$U/x" 11
J=$(curl -s "$U/runtime-stats")
# 3 above + 11 = 14 requests (runtime-stats itself not counted): pool total 14/7
cmp_num "stats pool total = requests/7 before 50" "$(jq .pool.total <<<"$J")" == 2
many "$U/x" 86
J=$(curl -s "$U/runtime-stats")
cmp_num "stats requests counts every non-stats request" "$(jq .requests <<<"$J")" == 100
cmp_num "stats pool total == max after 50 requests" "$(jq .pool.total <<<"$J")" == 8
cmp_num "stats gc collections = requests/100" "$(jq .gc.collections <<<"$J")" == 1
cmp_num "stats heap committed 64 MiB" "$(jq .gc.heap_committed_bytes <<<"$J")" == 67108864
cmp_num "stats echo counter" "$(jq .endpoint_calls.echo <<<"$J")" == 1
cmp_num "stats nested pointer value" "$(jq '.nested.a.b[2].c' <<<"$J")" == 3
cmp_num "stats tilde key" "$(jq '.nested["tilde~key"]' <<<"$J")" == 7
check "start-up logged, nothing per request" test "$(wc -l <"$T/log")" -eq 1

# ---- delay: 100 ms fixed delay shows up in the total time ----
P=$(free_port); bg "$S" --port "$P" --delay-ms 100 2>/dev/null; wait_port "$P"
t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$P/x")
# the delay is a floor; loopback and curl add well under 40 ms
cmp_num "delay 100 ms is a floor (seconds)" "$t" ">=" 0.1
cmp_num "delay 100 ms plus < 40 ms overhead (seconds)" "$t" "<" 0.14

# ---- stall: everything due in [0, 800) ms after start is held until 800 ms ----
P=$(free_port); bg "$S" --port "$P" --stall-at-ms 0 --stall-ms 800 2>/dev/null; t0=$(date +%s.%N)
wait_port "$P"
t1=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$P/x")
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
# answered no earlier than 0.8 s after the start (minus exec time), not much later
cmp_num "stalled response arrives after the stall end (s)" "$t" ">=" 0.78
cmp_num "stalled response released promptly (s)" "$t" "<" 1.2
t=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$P/x")
cmp_num "after the stall: fast again (s, was $t1)" "$t" "<" 0.05

# ---- error-pct: exactly 10 of 100 requests get 500 ----
P=$(free_port); bg "$S" --port "$P" --error-pct 10 2>/dev/null; wait_port "$P"
a=(); for i in $(seq 1 100); do a+=(-o /dev/null "http://127.0.0.1:$P/x"); done
n500=$(curl -s -w '%{http_code}\n' "${a[@]}" | grep -c '^500$')
cmp_num "error-pct 10 gives exactly 10 of 100" "$n500" == 10
check "healthz exempt from error-pct" test "$(curl -s "http://127.0.0.1:$P/healthz")" = ok

# ---- reset: half a response, then RST: curl fails with a transport error ----
P=$(free_port); bg "$S" --port "$P" --mode reset 2>/dev/null; wait_port "$P"
curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$P/x"; rc=$?
# 18 partial file, 56 recv failure (connection reset); never 0, never 28 (timeout)
check "reset mode fails the transfer (curl rc $rc)" test "$rc" -eq 18 -o "$rc" -eq 56

# ---- hang: no answer within the timeout ----
P=$(free_port); bg "$S" --port "$P" --mode hang 2>/dev/null; wait_port "$P"
curl -s -o /dev/null --max-time 0.5 "http://127.0.0.1:$P/x"; rc=$?
check "hang mode times out (curl rc $rc)" test "$rc" -eq 28

# ---- stats modes ----
P=$(free_port); bg "$S" --port "$P" --stats-mode malformed 2>/dev/null; wait_port "$P"
check "malformed stats are not JSON" bash -c "! curl -s http://127.0.0.1:$P/runtime-stats | jq . >/dev/null 2>&1"

# ---- crash-once: first start exits 1 after 200 ms, second runs normally ----
P=$(free_port)
expect_exit "crash after 200 ms exits 1" 1 "$S" --port "$P" --exit-after-ms 200 --crash-once "$T/crashed"
bg "$S" --port "$P" --exit-after-ms 200 --crash-once "$T/crashed" 2>/dev/null; pid=$!
wait_port "$P"; sleep 0.4
check "second start with crash-once file keeps running" kill -0 "$pid"

# ---- SIGTERM exits 0 promptly ----
P=$(free_port); "$S" --port "$P" 2>/dev/null & pid=$!; _pids+=($pid); wait_port "$P"
kill -TERM "$pid"; wait "$pid"; rc=$?
check "SIGTERM exits 0" test "$rc" -eq 0
