#!/usr/bin/env bash
# timing-free: responses counted as unexpected, by kind
# Responses are checked (issue 13, item 1): each malformed answer of testsrv
# (wrong status, wrong body, truncated body, empty 200, wrong content
# type) is caught by the
# request's expect and counted as `unexpected`, with both transports, and
# `harness load` exits 1 above --error-rate-max; a spec's expect is read; a
# tiny run whose path 404s has every window failed (an outcome), with the
# mismatches sampled for the audit. All on 127.0.0.1; every load is 30
# requests (100 req/s for 0.3 s); the run is 1 rung x 1 rep of 2 s windows.
# Bytes and protocol per window (item 5) are checked on the same run.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

for tr in native curl; do
	srv
	load ok_$tr "http://127.0.0.1:$PORT/x" --rate 100 --duration 0.3 --transport $tr \
		--expect-status 200 --expect-body ok
	cmp_num "$tr: a good server: exit 0" "$LOAD_RC" == 0
	cmp_num "$tr: a good server: 30 requests" "$(j ok_$tr .requests)" == 30
	cmp_num "$tr: a good server: nothing unexpected" "$(j ok_$tr .unexpected)" == 0
	stop_srv
	for mode in wrong-status wrong-body truncated empty; do
		srv --mode $mode
		load ${mode}_$tr "http://127.0.0.1:$PORT/x" --rate 100 --duration 0.3 \
			--transport $tr --expect-body ok
		cmp_num "$tr: $mode: exit 1 (error rate above 0.001)" "$LOAD_RC" == 1
		cmp_num "$tr: $mode: every request unexpected" \
			"$(j ${mode}_$tr .unexpected)" == "$(j ${mode}_$tr .requests)"
		cmp_num "$tr: $mode: 30 requests" "$(j ${mode}_$tr .requests)" == 30
		cmp_num "$tr: $mode: no transport error" "$(j ${mode}_$tr '[.errors[]] | add')" == 0
		cmp_num "$tr: $mode: 3 samples kept" "$(j ${mode}_$tr '.samples | length')" == 3
		stop_srv
	done
	why() { j "$1" '.samples[0].why'; }
	check "$tr: wrong-status says so" grep -q "status 404" <<<"$(why wrong-status_$tr)"
	check "$tr: wrong-body sample shows the body" test "$(j wrong-body_$tr '.samples[0].body')" = WRONG
	check "$tr: truncated says so" grep -q "truncated" <<<"$(why truncated_$tr)"
	check "$tr: empty says 0 bytes" grep -q "0 bytes" <<<"$(why empty_$tr)"

	# Wrong content type: "ok" as text/html when text/plain is expected.
	srv --mode wrong-type
	load wt_$tr "http://127.0.0.1:$PORT/x" --rate 100 --duration 0.3 --transport $tr \
		--expect-type text/plain --expect-body ok
	cmp_num "$tr: wrong-type: exit 1" "$LOAD_RC" == 1
	cmp_num "$tr: wrong-type: every request unexpected" "$(j wt_$tr .unexpected)" == 30
	check "$tr: wrong-type says so" grep -q 'content type "text/html' <<<"$(why wt_$tr)"
	stop_srv
	srv
	load rt_$tr "http://127.0.0.1:$PORT/x" --rate 100 --duration 0.3 --transport $tr \
		--expect-type TEXT/PLAIN
	cmp_num "$tr: the right type (any case): nothing unexpected" "$(j rt_$tr .unexpected)" == 0
	stop_srv
done

# Default expectation (any 2xx or 3xx): a 404 is unexpected; latencies of
# a run where nothing completed print as -.
srv --mode wrong-status
load def "http://127.0.0.1:$PORT/nope" --rate 100 --duration 0.3
cmp_num "default expect: a 404 path exits 1" "$LOAD_RC" == 1
cmp_num "default expect: every 404 unexpected" "$(j def .unexpected)" == 30
load lax "http://127.0.0.1:$PORT/nope" --rate 100 --duration 0.3 --error-rate-max 1
cmp_num "--error-rate-max 1 accepts it" "$LOAD_RC" == 0
P=$(free_port)
"$HARNESS" load "http://127.0.0.1:$P/" --rate 100 --duration 0.2 >"$T/none.out" 2>&1
check "nothing completed: latencies print as -" grep -q "^latency ms  p50 -  p90 -" "$T/none.out"

# A spec's expect: [404] makes the 404 expected.
cat > "$T/spec.yaml" <<YAML
version: 1
name: e2e-expect
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
$(testsrv_impl a ', --mode, wrong-status')
workload:
  connections: 4
  timeout_ms: 2000
  requests:
    - { name: gone, path: /nope, expect: { status: [404], body_contains: "not found" } }
    - { name: page, path: /page, expect: { max_bytes: 4 } }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 1, window_s: 2, discard_s: 1 }
$(warmup_at 100 2 'hot_set_touched')
window_gates: [error_rate, sut_alive]
YAML
expect_exit "check accepts expect" 0 "$HARNESS" check "$T/spec.yaml"
load sp "$T/spec.yaml" --impl a --url "http://127.0.0.1:$PORT" --rate 100 --duration 0.3
cmp_num "spec expect: the listed 404 is expected" "$(j sp '.by_request.gone.unexpected')" == 0
cmp_num "spec expect: a 404 for page is not (and 10 bytes > max_bytes 4)" \
	"$(j sp '.by_request.page.unexpected')" == "$(j sp '.by_request.page.requests')"
stop_srv

# JSON pointers (RFC 6901) into the body: testsrv echoes a POST's body, so
# each request says what comes back; the second's /id is wrong.
cat > "$T/json.yaml" <<YAML
version: 1
name: e2e-json
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - name: a
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload:
  requests:
    - { name: good, method: POST, path: /echo, body: '{"id": 42, "tags": ["x", "y"], "ok": true}',
        expect: { json: { /id: 42, /tags/1: "y", /ok: true } } }
    - { name: bad, method: POST, path: /echo, body: '{"id": 43}', expect: { json: { /id: 42 } } }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, window_s: 20 }
YAML
expect_exit "check accepts json pointers" 0 "$HARNESS" check "$T/json.yaml"
sed 's|/tags/1: "y"|tags: "y"|' "$T/json.yaml" > "$T/badptr.yaml"
expect_exit "check refuses a json key that is no pointer" 2 "$HARNESS" check "$T/badptr.yaml"
srv
for tr in native curl; do
	load js_$tr "$T/json.yaml" --impl a --url "http://127.0.0.1:$PORT" --rate 100 --duration 0.3 \
		--transport $tr
	cmp_num "$tr: json: the matching body is expected" "$(j js_$tr '.by_request.good.unexpected')" == 0
	cmp_num "$tr: json: the wrong /id is unexpected" "$(j js_$tr '.by_request.bad.unexpected')" "==" \
		"$(j js_$tr '.by_request.bad.requests')"
	check "$tr: json: the sample says what /id was" \
		grep -q "/id is 43, expected 42" <<<"$(j js_$tr '.samples[0].why')"
done
stop_srv

sed 's/status: \[404\], //; s/max_bytes: 4/max_bytes: 4000/' "$T/spec.yaml" > "$T/run.yaml"
sed -i 's/max_bytes: 4000/status: [200, 200]/' "$T/run.yaml"
expect_exit "check refuses a status listed twice" 2 "$HARNESS" check "$T/run.yaml"
sed -i 's/status: \[200, 200\]/status: [200]/' "$T/run.yaml"

# A run whose paths 404 (default and explicit expectations): every window
# is a valid measurement that failed the SLO, never accepted. (Its
# pre-flight would refuse it, tests/e2e/preflight.sh; recorded only here.)
RUNS="$T/runs"
sed -i 's/^  timeout_ms: 2000$/  timeout_ms: 2000\n  preflight: { enforce: false }/' "$T/run.yaml"
"$HARNESS" run "$T/run.yaml" --allow-dirty --runs-dir "$RUNS" --run-id nf >"$T/run.out" 2>"$T/run.err"
q() { sqlite3 "$RUNS/nf/run.db" "$1"; }
cmp_num "404 run: a window was measured" "$(q "SELECT COUNT(*) FROM windows WHERE state = 'done'")" ">=" 1
cmp_num "404 run: every done window failed (stderr: $(tail -n 2 "$T/run.err" | tr '\n' ' '))" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND status != 'failed'")" == 0
cmp_num "404 run: err_unexpected counts the page requests" \
	"$(q "SELECT MIN(err_unexpected > 0) FROM windows WHERE state = 'done'")" == 1
cmp_num "404 run: samples stored (<= 3 per phase)" \
	"$(q "SELECT COUNT(*) FROM unexpected_samples WHERE phase = 'measured'")" "==" \
	"$(q "SELECT 3 * COUNT(*) FROM windows WHERE state = 'done'")"
wid=$(q "SELECT MIN(id) FROM windows WHERE state = 'done'")
"$HARNESS" audit nf --runs-dir "$RUNS" --window "$wid" >"$T/audit.out" 2>&1
check "audit --window shows what came back" grep -q "page: status 404" "$T/audit.out"
expect_exit "audit --recheck reproduces the verdicts" 0 "$HARNESS" audit nf --runs-dir "$RUNS" --recheck

# What went over the wire (issue 13, item 5): the native transport speaks
# HTTP/1.1; a GET of these paths is 60..200 bytes, the 404 answer
# "not found\n" with its headers 70..300 bytes; both per completed request
# of the measured part (the engine counts bytes as they move, so a request
# in flight at a second's edge may shift a few bytes: ranges, not equalities).
cmp_num "404 run: protocol recorded per window" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND protocol = 'HTTP/1.1'")" "==" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state = 'done'")"
per() { q "SELECT CAST(MIN($1 * 1.0 / completed) AS INTEGER) FROM windows WHERE state = 'done'"; }
cmp_num "404 run: bytes sent per request >= 60" "$(per bytes_sent)" ">=" 60
cmp_num "404 run: bytes sent per request <= 200" "$(per bytes_sent)" "<=" 200
cmp_num "404 run: bytes received per request >= 70" "$(per bytes_received)" ">=" 70
cmp_num "404 run: bytes received per request <= 300" "$(per bytes_received)" "<=" 300
"$HARNESS" report nf --runs-dir "$RUNS" --format csv,json -o "$T/rep" >/dev/null 2>&1
check "windows.csv: protocol and bytes columns" \
	grep -q ",unexpected,protocol,bytes_sent,bytes_received,knee_ms,run_id," "$T/rep/windows.csv"
check "report.json: each window's protocol" \
	jq -e '[.windows[] | select(.done) | .protocol] | all(. == "HTTP/1.1")' "$T/rep/report.json"
