#!/bin/bash
# bench/sandbox.sh: what the bubblewrap sandbox costs a measured server.
#
# One `harness run` of two implementations of the same nginx (bench/
# nginx.conf, 1 worker): "plain" as the spec's own code runs, and "sbx"
# with `sandbox: always` (bwrap, its own uid, network namespace; the load,
# health checks and stats reach it through setns, harness/sandbox/netns.h). Their
# windows are interleaved in blocks at one rate, so both see the same host.
# Per implementation: the median over its windows of the server's CPU per
# completed request (its cgroup's cpu_s / completed) and of the window p99.
# The issue's target: the sandbox within noise of plain.
#
# Prints its lines and appends them to $BENCH_OUT (default
# build/bench/sandbox.txt). Called by bench/bench.sh; runs alone as
# `bash bench/sandbox.sh` after `make`. Knobs: SANDBOX_BENCH_RATE (2000),
# SANDBOX_BENCH_WINDOW_S (5), SANDBOX_BENCH_REPS (4). Needs root (the
# sandbox's uid and the setns).
. "$(dirname "$0")/lib.sh"
RATE=${SANDBOX_BENCH_RATE:-2000}
WIN=${SANDBOX_BENCH_WINDOW_S:-5}
REPS=${SANDBOX_BENCH_REPS:-4}
OUT=${BENCH_OUT:-build/bench/sandbox.txt}
mkdir -p "$(dirname "$OUT")"
command -v nginx >/dev/null || { echo "sandbox bench: nginx not found" >&2; exit 3; }
[ -x /usr/bin/bwrap ] || { echo "sandbox bench: bwrap not found (apt-get install bubblewrap)" >&2; exit 3; }
chmod 755 "$W"   # the sandbox's uid reaches the repo below it
mkdir -p "$W/repo" "$W/plain"
cp bench/nginx.conf "$W/repo/nginx.conf"
# NGX_DIR: a writable prefix (the sandbox's private /tmp, or a scratch dir)
cat >"$W/repo/run.sh" <<'SH'
#!/bin/sh
mkdir -p "$NGX_DIR/tmp" || exit 1
sed "s/127\.0\.0\.1:18980/127.0.0.1:$1/" nginx.conf >"$NGX_DIR/nginx.conf" || exit 1
exec nginx -e stderr -p "$NGX_DIR" -c "$NGX_DIR/nginx.conf" -g "pid $NGX_DIR/nginx.pid;"
SH
impl() { # name sandbox dir
	cat <<YAML
  - name: $1
    repo: $W/repo
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/", timeout_s: 10 }
    restart: never
    sandbox: $2
    env: { NGX_DIR: $3 }
YAML
}
cat >"$W/spec.yaml" <<YAML
version: 1
name: bench-sandbox
seed: 1
slo: { percentile: 99, threshold_ms: 50 }
implementations:
$(impl plain auto "$W/plain")
$(impl sbx always /tmp/ngx)
workload:
  connections: 8
  requests: [ { name: root, path: / } ]
stages:
  ladder: { start_rps: $RATE, step: 2, max_rps: $RATE, reps: $REPS, window_s: $WIN, discard_s: 0 }
warmup: { rate: { fixed_rps: $RATE }, min_s: 1, max_s: 1, trailing_s: 1, gates: [] }
window_gates: [error_rate, sut_alive]
YAML
if ! "$HARNESS" run "$W/spec.yaml" --allow-dirty --runs-dir "$W/runs" --run-id b \
	>"$W/out" 2>"$W/err"; then
	echo "sandbox bench: run failed: $(tail -n 3 "$W/err")" >&2
	exit 1
fi
db=$W/runs/b/run.db
if [ "$(sqlite3 "$db" "SELECT COUNT(*) FROM events WHERE kind = 'sandbox_argv' AND detail LIKE 'sbx start: /usr/bin/bwrap %'")" != 1 ]; then
	echo "sandbox bench: sbx did not run under bwrap" >&2
	exit 1
fi
med() { # impl column-expression
	sqlite3 "$db" "SELECT $2 FROM windows WHERE impl = '$1' AND state = 'done' AND completed > 0 ORDER BY 1" |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m }'
}
p_us=$(med plain "cpu_s * 1e6 / completed"); s_us=$(med sbx "cpu_s * 1e6 / completed")
p_99=$(med plain "p99_ms"); s_99=$(med sbx "p99_ms")
n=$(sqlite3 "$db" "SELECT COUNT(*) FROM windows WHERE impl = 'sbx' AND state = 'done'")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
line1="sandbox: nginx at $RATE req/s, $n x ${WIN} s windows each, interleaved: CPU per request plain $p_us us, sandboxed $s_us us ($(ratio "$s_us" "$p_us")x)"
line2="sandbox: p99 plain $p_99 ms, sandboxed $s_99 ms ($(ratio "$s_99" "$p_99")x) (medians over windows; load average $(cut -d' ' -f1 /proc/loadavg))"
for l in "$line1" "$line2"; do
	echo "$l"
	echo "$(date -u +%FT%TZ) $l" >>"$OUT"
done
