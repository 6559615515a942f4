#!/bin/bash
# harness load SPEC --impl NAME: the spec's workload (weighted request mix,
# methods, bodies, headers) against an implementation it starts itself, or
# one already listening (--url).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

cat >"$T/spec.yaml" <<YAML
version: 1
name: load-spec
seed: 42
slo: { threshold_ms: 20 }
implementations:
  - name: a
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
  - name: b
    start: [$HELPERS/testsrv, --port, "{port}", --delay-ms, "3"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload:
  connections: 16
  requests:
    - { name: echo, weight: 80, method: POST, path: /echo,
        headers: { Content-Type: application/json }, body: '{"id":42}' }
    - { name: health, weight: 20, method: GET, path: /healthz }
stages:
  ladder: { start_rps: 100, step: 1.5, max_rps: 400, window_s: 10 }
YAML

for tr in native curl; do
	# Already running: --url. 400 requests, 80/20 mix: the echo share has
	# a binomial sd of 2%, so 0.8 +- 0.08 is 4 sd.
	srv
	load mix_$tr "$T/spec.yaml" --impl a --url "http://127.0.0.1:$PORT" --rate 400 \
		--duration 1 --transport $tr
	cmp_num "$tr: spec run: 400 requests" "$(j mix_$tr .requests)" == 400
	near "$tr: spec mix: echo share" "$(j mix_$tr '.by_request.echo.requests / .requests')" \
		0.8 0.08 "weights 80/20, 4 sd"
	cmp_num "$tr: per-name counts add up" \
		"$(j mix_$tr '.by_request.echo.requests + .by_request.health.requests')" == 400
	stats=$(curl -s "http://127.0.0.1:$PORT/runtime-stats")
	cmp_num "$tr: the server saw every POST /echo" "$(jq .endpoint_calls.echo <<<"$stats")" \
		== "$(j mix_$tr .by_request.echo.completed)"
	cmp_num "$tr: the server saw every GET /healthz" "$(jq .endpoint_calls.healthz <<<"$stats")" \
		== "$(j mix_$tr .by_request.health.completed)"
	stop_srv
done

# Same seed, same spec: the same mix, request by request.
srv
load mix_again "$T/spec.yaml" --impl a --url "http://127.0.0.1:$PORT" --rate 400 --duration 1
cmp_num "seeded mix is reproducible" "$(j mix_again .by_request.echo.requests)" == \
	"$(j mix_native .by_request.echo.requests)"
stop_srv

# Without --url the implementation is started (and stopped) by harness;
# its logs go under the runs directory (issue 15: never left in $TMPDIR).
mkdir -p "$T/tmp"
TMPDIR=$T/tmp load own "$T/spec.yaml" --impl b --rate 100 --duration 1 --runs-dir "$T/runs"
check "started impl: logs under RUNS_DIR/load-*/logs" test -s "$(ls -d "$T"/runs/load-*/logs | head -1)/b.stderr.log"
check "started impl: nothing left in TMPDIR" test -z "$(ls -A "$T/tmp")"
cmp_num "started impl: all completed" "$(j own .completed)" == 100
# b sleeps 3 ms per request, a answers at once: this is b.
cmp_num "started impl b: p50 at least its 3 ms delay" "$(j own .by_request.echo.latency_ms.p50)" ">=" 3.0
cmp_num "started impl b: p50 under 5 ms" "$(j own .by_request.echo.latency_ms.p50)" "<" 5.0
expect_exit "unknown --impl exits 2" 2 "$HARNESS" load "$T/spec.yaml" --impl zz --rate 10 --duration 1
expect_exit "bad spec exits 2" 2 "$HARNESS" load /nonexistent/spec.yaml --impl a --rate 10 --duration 1
