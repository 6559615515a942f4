#!/bin/bash
# timing-free: signals read from /metrics by probe
# Runtime stats in Prometheus text (issue 15, item 5): `stats.format:
# prometheus` polls tests/helpers/testsrv's /metrics (client_golang's
# layout) and reads each signal by its metric selector; `harness check`
# refuses a signal of the other kind. ~5 s.
. "$(dirname "$0")/../lib.sh"
S=$HELPERS/testsrv

spec() {   # spec FILE FORMAT SIGNALS_FILE
	cat >"$T/$1" <<EOF
version: 1
name: stats-prom
slo: { threshold_ms: 50 }
implementations:
  - name: srv
    start: [$S, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    stats:
      url: "http://127.0.0.1:{port}/metrics"
      format: $2
      poll_hz: 4
      signals:
$(sed 's/^/        /' "$T/$3")
$(echo_other_tail "$S")
EOF
}

cat >"$T/sig.prom" <<'EOF'
gc_count: testsrv_gc_collections_total
gc_bare: testsrv_gc_collections
pool_busy: 'testsrv_pool_connections{state="busy"}'
pool_max: 'testsrv_pool_connections{pool="main",state="max"}'
calls: testsrv_requests_total
ratio: testsrv_ratio
absent: 'testsrv_pool_connections{state="gone"}'
EOF
spec prom.yaml prometheus sig.prom
expect_exit "check: prometheus selectors accepted" 0 "$HARNESS" check -q "$T/prom.yaml"

"$HARNESS" probe "$T/prom.yaml" --impl srv --duration 3 --rate 200 --json --runs-dir "$T/runs" \
	>"$T/out" 2>"$T/err"
cmp_num "probe exits 0" "$?" == 0
L=$(sed -n 3p "$T/out")
check "every poll ok" test "$(jq -r '.stats.polls | unique | join(",")' <<<"$L")" = ok
# 200 req/s for 2-3 s: 400+ requests, one GC per 100 (testsrv's rule)
cmp_num "counter with _total: gc cycles" "$(jq .stats.signals.gc_count <<<"$L")" ">=" 3
check "the same counter named without _total" \
	test "$(jq .stats.signals.gc_bare <<<"$L")" = "$(jq .stats.signals.gc_count <<<"$L")"
cmp_num "label selector: busy pool connections (8 once past 50 requests)" \
	"$(jq '.stats.signals.pool_busy' <<<"$L")" == 8
cmp_num "two labels: pool max" "$(jq '.stats.signals.pool_max' <<<"$L")" == 8
cmp_num "several series: counters by their free label (echo)" \
	"$(jq '.stats.signals.calls.echo' <<<"$L")" ">=" 400
cmp_num "several series: healthz counted apart" "$(jq '.stats.signals.calls.healthz' <<<"$L")" ">=" 1
check "NaN recorded as not_numeric" test "$(jq -r .stats.signals.ratio <<<"$L")" = not_numeric
check "no matching series recorded as missing" test "$(jq -r .stats.signals.absent <<<"$L")" = missing

# The kind of each signal follows the format.
echo 'gc_count: /gc/collections' >"$T/sig.ptr"
spec ptr.yaml prometheus sig.ptr
expect_exit "prometheus format, JSON pointer: refused" 2 "$HARNESS" check -q "$T/ptr.yaml"
grep -q 'stats.signals.gc_count: stats.format is prometheus: want a metric selector' "$T/err" &&
	ok "names the signal and what it wants" || fail "pointer: $(cat "$T/err")"
echo 'gc_count: testsrv_gc_collections_total' >"$T/sig.sel"
spec sel.yaml json sig.sel
expect_exit "json format, selector: refused" 2 "$HARNESS" check -q "$T/sel.yaml"
grep -q 'stats.format is json: want a JSON pointer' "$T/err" && ok "says json wants a pointer" ||
	fail "selector: $(cat "$T/err")"
echo 'gc_count: "rate(x[5m])"' >"$T/sig.bad"
spec bad.yaml prometheus sig.bad
expect_exit "neither a pointer nor a selector" 2 "$HARNESS" check -q "$T/bad.yaml"

# Derived signals (issue 28): "= EXPR" over the polled ones, checked at
# `harness check` with the column of the mistake.
cat "$T/sig.prom" - >"$T/sig.der" <<'EOF'
pool_total: "= pool_busy + pool_max"
gc_rate: "= rate(gc_count)"
echo_share: "= delta(calls) / (delta(calls) + delta(gc_count))"
EOF
spec der.yaml prometheus sig.der
expect_exit "check: derived signals accepted" 0 "$HARNESS" check -q "$T/der.yaml"
for bad in "\"= delta(nope)\"|column 7: 'nope' is not a polled signal" \
	   '"= gc_count / delta(calls)"|outside a window function' \
	   '"= mean(delta(calls))"|a window function inside another' \
	   "\"= (gc_count + 1\"|column 14: ')' expected"; do
	printf 'x: %s\n' "${bad%%|*}" | cat "$T/sig.prom" - >"$T/sig.bad2"
	spec bad2.yaml prometheus sig.bad2
	expect_exit "check: derived ${bad%%|*} refused" 2 "$HARNESS" check -q "$T/bad2.yaml"
	grep -qF "${bad#*|}" "$T/err" && grep -q "stats.signals.x: " "$T/err" &&
		ok "names the signal and the mistake (${bad#*|})" || fail "derived ${bad%%|*}: $(cat "$T/err")"
done

# A JSON stats body read as Prometheus text: every poll malformed, with
# the line it failed at; the probe goes on.
spec wrong.yaml prometheus sig.sel
sed -i 's|/metrics|/runtime-stats|' "$T/wrong.yaml"
"$HARNESS" probe "$T/wrong.yaml" --impl srv --duration 1 --json --runs-dir "$T/runs" >"$T/out" 2>"$T/err"
cmp_num "probe of a JSON endpoint as prometheus exits 0" "$?" == 0
L=$(head -1 "$T/out")
check "polls malformed" test "$(jq -r '.stats.polls | unique | join(",")' <<<"$L")" = malformed
jq -r '.stats.last_error' <<<"$L" | grep -q '^not Prometheus text: line 1: ' &&
	ok "the error names the line" || fail "error: $(jq -c .stats <<<"$L")"
