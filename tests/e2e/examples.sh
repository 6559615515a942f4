#!/bin/bash
# release-only: under make asan sequential.sh, http2.sh and expect.sh reach its code but 28 lines (cmd_check.c 17, spec_gates.c 6, spec_check.c 3), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# The example servers (examples/echo, examples/runtimes): their API, their
# runtime-stats signals, and the blocking cliff the echo spec is built on.
. "$(dirname "$0")/../lib.sh"
E=$ROOT/examples/echo
# Needs wrk, jq, curl, node and python3 (Debian: wrk jq curl nodejs python3);
# a missing one is a failure, not a skip.
for tool in wrk jq curl /usr/bin/node /usr/bin/python3; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done

check "examples/echo builds with -Wall -Wextra -Werror" make -s -C "$E"

post() { curl -s --max-time 5 -H 'Content-Type: application/json' -d "$2" "$1"; }

for srv in evloop threads; do
	P=$(free_port); bg env WORKERS=2 "$E/$srv" --port "$P" 2>/dev/null; wait_port "$P"
	U=http://127.0.0.1:$P
	check "$srv: echo returns the body" test "$(post "$U/echo" '{"id":42}')" = '{"id":42}'
	check "$srv: healthz" test "$(curl -s "$U/healthz")" = ok
	check "$srv: unknown path is 404" test "$(curl -s -o /dev/null -w '%{http_code}' "$U/nope")" = 404
	# 20 echoes on one keep-alive connection
	a=(); for i in $(seq 1 20); do a+=(-o /dev/null -d '{"k":1}' "$U/echo"); done
	curl -s "${a[@]}"
	# curl reports the connections it opened: one for two requests = keep-alive
	nc=$(curl -s -w '%{num_connects}\n' -o /dev/null "$U/healthz" -o /dev/null "$U/healthz" | awk '{ s += $1 } END { print s }')
	cmp_num "$srv: keep-alive (connections opened for 2 requests)" "$nc" == 1
	J=$(curl -s "$U/runtime-stats")
	cmp_num "$srv: endpoint_calls.echo counts every echo" "$(jq .endpoint_calls.echo <<<"$J")" == 21
	cmp_num "$srv: endpoint_calls.healthz" "$(jq .endpoint_calls.healthz <<<"$J")" == 3
	cmp_num "$srv: requests = all but runtime-stats" "$(jq .requests <<<"$J")" == 25
	want=2; [ "$srv" = evloop ] && want=1
	cmp_num "$srv: pool total == max == $want" "$(jq '.pool.total * 10 + .pool.max' <<<"$J")" == $((want * 11))
	r=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n' | timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$P; cat >&3; head -c 12 <&3")
	check "$srv: malformed Content-Length is 400" test "$r" = "HTTP/1.1 400"
done

# The cliff, scaled down so it is quick and unmistakable: 2 workers blocking
# 5 ms each can answer at most 2 / 5 ms = 400 req/s; the event loop waits the
# same 5 ms without blocking, so 16 connections give it ~16 / 5 ms = 3200.
cat >"$T/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"id":42,"name":"meridian"}'
wrk.headers["Content-Type"] = "application/json"
LUA
rps() { wrk -t1 -c16 -d2s -s "$T/post.lua" "http://127.0.0.1:$1/echo" | awk '/Requests\/sec/ { print $2 }'; }
P1=$(free_port); bg env WAIT_US=5000 "$E/evloop" --port "$P1" 2>/dev/null
P2=$(free_port); bg env WORKERS=2 WAIT_US=5000 "$E/threads" --port "$P2" 2>/dev/null
wait_port "$P1"; wait_port "$P2"
# busy, sampled 5 times 100 ms apart from 1 s into the load: a single
# sample can catch a worker between two requests (on a loaded box it may
# wait a few ms for a CPU after finishing one), so the pool's size is the
# highest sample (which must also not exceed it).
(sleep 1; for k in 1 2 3 4 5; do curl -s "http://127.0.0.1:$P2/runtime-stats"; echo; sleep 0.1; done >"$T/busy.jsonl") & probe=$!
rt=$(rps "$P2"); re=$(rps "$P1"); wait "$probe"
# nanosleep overshoots by ~50-100 us: 2 workers x 5.1 ms => ~390; bound 420
cmp_num "threads capped by its pool: 2 workers x 5 ms (req/s)" "$rt" "<=" 420
# a floor only against a broken pool: on a busy 2-core box wake-ups are late
cmp_num "threads still serving near its cap (req/s)" "$rt" ">=" 200
cmp_num "evloop >= 4x threads at the same wait (req/s $re vs $rt)" \
	"$(awk -v a="$re" -v b="$rt" 'BEGIN { print a / b }')" ">=" 4
cmp_num "threads: 5 samples of its stats under load" "$(jq -s length "$T/busy.jsonl")" == 5
cmp_num "threads: pool busy under load reaches its size (highest of 5 samples)" \
	"$(jq -s 'map(.pool.busy) | max' "$T/busy.jsonl")" == 2
cmp_num "threads: the queue holds the rest of 16 connections" \
	"$(jq -s 'map(.queue) | max' "$T/busy.jsonl")" ">=" 8

# Runtimes: same API, real GC counters.
R=$ROOT/examples/runtimes
P=$(free_port); bg /usr/bin/node "$R/node/server.js" --port "$P" 2>/dev/null
Q=$(free_port); bg /usr/bin/python3 "$R/python/server.py" --port "$Q" 2>/dev/null
wait_port "$P"; wait_port "$Q"
for u in "http://127.0.0.1:$P" "http://127.0.0.1:$Q"; do
	name=node; [ "$u" = "http://127.0.0.1:$Q" ] && name=python
	check "$name: echo returns the same JSON" \
		test "$(post "$u/echo" '{"id": 42, "name": "x"}' | jq -c .)" = '{"id":42,"name":"x"}'
	check "$name: invalid JSON is 400" test "$(curl -s -o /dev/null -w '%{http_code}' -d '{' "$u/echo")" = 400
	check "$name: healthz" test "$(curl -s "$u/healthz")" = ok
	g0=$(curl -s "$u/runtime-stats" | jq .gc.collections)
	wrk -t1 -c8 -d2s -s "$T/post.lua" "$u/echo" >"$T/wrk.$name" 2>&1
	J=$(curl -s "$u/runtime-stats")
	# wrk counts completed requests; up to its 8 connections' last requests
	# were sent but not counted when it stopped; plus our 2 echoes above
	n=$(( $(jq .endpoint_calls.echo <<<"$J") - $(awk '/requests in/ { print $1 + 2 }' "$T/wrk.$name") ))
	cmp_num "$name: echo counter - wrk's completed count (0..8)" "$n" ">=" 0
	cmp_num "$name: echo counter - wrk's completed count (0..8)" "$n" "<=" 8
	cmp_num "$name: heap_committed_bytes is a real figure (> 1 MB)" \
		"$(jq .gc.heap_committed_bytes <<<"$J")" ">" 1000000
	cmp_num "$name: gc.pause_ms is a number" "$(jq '.gc.pause_ms | numbers' <<<"$J")" ">=" 0
	if [ $name = node ]; then
		# V8 scavenges every few MB of young generation: thousands of echoes
		# cannot pass without a minor GC
		cmp_num "node: GC collections grew under load ($g0 before)" \
			"$(jq .gc.collections <<<"$J")" ">" "$g0"
	else
		# CPython's collector runs on net container allocations, which an echo
		# does not leave behind: the counter is real but may stand still
		cmp_num "python: GC collections never go down ($g0 before)" \
			"$(jq .gc.collections <<<"$J")" ">=" "$g0"
		check "python: heap figure from mallinfo2" test "$(jq -r .gc.heap_source <<<"$J")" = mallinfo2
	fi
done

# The shipped specs stay valid as the spec language evolves.
for s in examples/echo/spec.yaml examples/runtimes/spec.yaml specs/templates/overnight.yaml; do
	check "$s passes harness check" "$HARNESS" check "$ROOT/$s"
done
# The template spec uses what issue 12 asks of it: a refine stage and
# the discard head's flatness gates enforced.
check "specs/templates/overnight.yaml: a refine stage and enforced head gates" \
	jq -e '.stages.refine.max_steps > 0 and .warmup.head_enforce and (.warmup.head_gates | length) > 0' \
	<("$HARNESS" check "$ROOT/specs/templates/overnight.yaml" --json)
