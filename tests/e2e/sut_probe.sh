#!/bin/bash
# `harness probe`: the implementation lifecycle end to end, against
# tests/helpers/testsrv (and small argv programs): per-second accounting
# with its backend, runtime-stats signals by JSON pointer, the minimal
# environment, and exit 3 with the right one-line message for a start argv
# that does not exist, a failing build, a never-healthy implementation and
# one that exits during the probe.
. "$(dirname "$0")/../lib.sh"
S=$HELPERS/testsrv

# spec NAME START_YAML [EXTRA_IMPL_YAML]: a two-implementation spec whose
# first implementation is NAME (the second is never started).
spec() {
	cat >"$T/$1.yaml" <<EOF
version: 1
name: sut-probe-$1
slo: { threshold_ms: 50 }
implementations:
  - name: $1
    start: $2
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: ${HEALTH_TIMEOUT:-5} }
${3:-}
$(echo_other_tail "$S")
EOF
}

# ---- a healthy server with runtime stats, under load, --json ----
spec srv "[$S, --port, \"{port}\", --burn-us, \"500\"]" '    env: { PROBE_MARK: "port-{port}" }
    stats:
      url: "http://127.0.0.1:{port}/runtime-stats"
      poll_hz: 4
      signals:
        gc_count: /gc/collections
        calls: /endpoint_calls
        deep: /nested/a/b/2/c
        tilde: /nested/tilde~0key
        absent: /no/such
        str: /nested/str'
"$HARNESS" probe "$T/srv.yaml" --impl srv --duration 3 --rate 200 --json --runs-dir "$T/runs" \
	>"$T/srv.out" 2>"$T/srv.err"
rc=$?
cmp_num "probe of a healthy server exits 0" "$rc" == 0
cmp_num "one JSON line per second" "$(wc -l <"$T/srv.out")" == 3
L=$(sed -n 2p "$T/srv.out")
B=$(jq -r .backend <<<"$L")
check "each line names its accounting backend ($B)" grep -qE '^(cgroup2|cgroup1|procfs)$' <<<"$B"
# 200 req/s x 500 us of burnt CPU per request = 0.1 s per second, plus the
# server's own parsing and syscalls: at least 0.1, and well under 0.5.
cmp_num "second 2: cpu_s covers the burnt 0.1 s" "$(jq .cpu_s <<<"$L")" ">=" 0.095
cmp_num "second 2: cpu_s not inflated" "$(jq .cpu_s <<<"$L")" "<" 0.5
# 20 at 50 ms; a sampler delayed by a loaded host skips ticks, never bursts
cmp_num "second 2: ~20 samples at 50 ms" "$(jq .samples <<<"$L")" ">=" 12
cmp_num "second 2: load completed ~200" "$(jq .load.completed <<<"$L")" ">=" 170
cmp_num "pointer into an array in an object: 3" "$(jq .stats.signals.deep <<<"$L")" == 3
cmp_num "escaped pointer ~0: 7" "$(jq .stats.signals.tilde <<<"$L")" == 7
check "absent signal recorded as missing" test "$(jq -r .stats.signals.absent <<<"$L")" = missing
check "string signal recorded as not_numeric" test "$(jq -r .stats.signals.str <<<"$L")" = not_numeric
cmp_num "object of counters: echo calls counted" "$(jq .stats.signals.calls.echo <<<"$L")" ">=" 200
cmp_num "4 Hz: 3 to 5 polls in the second" "$(jq '.stats.polls | length' <<<"$L")" ">=" 3
check "the server was stopped and said so" grep -q "probe: srv stopped" "$T/srv.err"
check "logs written under the runs dir" test -s "$(ls -d "$T"/runs/probe-*/logs | head -1)/srv.stderr.log"

# ---- the procfs backend on request; text output ----
"$HARNESS" probe "$T/srv.yaml" --impl srv --duration 2 --backend procfs --runs-dir "$T/runs" \
	>"$T/pfs.out" 2>"$T/pfs.err"
cmp_num "probe --backend procfs exits 0" "$?" == 0
check "text lines name procfs" grep -q "^\[  2s\] procfs: cpu" "$T/pfs.out"
check "text lines carry the signals" grep -q "deep=3 .*absent=(missing)" "$T/pfs.out"

# ---- stats endpoint failing: recorded per poll, the probe goes on ----
spec bad "[$S, --port, \"{port}\", --stats-mode, \"500\"]" '    stats:
      url: "http://127.0.0.1:{port}/runtime-stats"
      poll_hz: 2
      signals: { gc_count: /gc/collections }'
"$HARNESS" probe "$T/bad.yaml" --impl bad --duration 2 --json --runs-dir "$T/runs" >"$T/bad.out" 2>"$T/bad.err"
cmp_num "HTTP 500 stats do not stop the probe" "$?" == 0
check "polls recorded as http_error" test "$(jq -r '.stats.polls[0]' <"$T/bad.out" | head -1)" = http_error
check "the signal is missing, not zero" test "$(jq -r .stats.signals.gc_count <"$T/bad.out" | head -1)" = missing

# ---- the implementation sees only the minimal environment + its env ----
spec envp "[/bin/sh, -c, 'env > $T/env.txt; exec $S --port \"\$1\"', sh, \"{port}\"]" \
	'    env: { PROBE_MARK: "port-{port}" }'
SECRET_TOKEN=hunter2 "$HARNESS" probe "$T/envp.yaml" --impl envp --duration 1 --runs-dir "$T/runs" \
	>/dev/null 2>"$T/envp.err"
cmp_num "env probe exits 0" "$?" == 0
check "the harness's own variables do not leak" bash -c "! grep -q SECRET_TOKEN $T/env.txt"
check "impl env present with {port} substituted" grep -qE '^PROBE_MARK=port-[0-9]+$' "$T/env.txt"
extra=$(cut -d= -f1 "$T/env.txt" | grep -vxE 'PATH|HOME|USER|LOGNAME|LANG|LC_ALL|TZ|TMPDIR|PROBE_MARK|PWD|SHLVL|_' | tr '\n' ' ')
check "nothing beyond the documented minimal set (extra: '$extra')" test -z "$extra"

# ---- start argv that does not exist: exit 3, one line ----
spec nope "[./no-such-server, --port, \"{port}\"]"
expect_exit "missing start argv" 3 "$HARNESS" probe "$T/nope.yaml" --impl nope --duration 1 --runs-dir "$T/runs"
cmp_num "missing start argv: exactly one line" "$(wc -l <"$T/err")" == 1
check "the line names the program" grep -q "no-such-server" "$T/err"

# ---- never healthy: exit 3 after the timeout, last stderr lines shown ----
HEALTH_TIMEOUT=1 spec sick "[/bin/sh, -c, 'echo starting >&2; echo fatal: cannot open config.toml >&2; exec sleep 31.7']"
t0=$(date +%s.%N)
expect_exit "never-healthy implementation" 3 "$HARNESS" probe "$T/sick.yaml" --impl sick --runs-dir "$T/runs"
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
near "gave up after the 1 s health timeout" "$el" 1.3 0.8 "1 s timeout + start and stop"
check "message says not healthy" grep -q "not healthy after 1.0 s" "$T/err"
check "message carries the last stderr line" grep -q "fatal: cannot open config.toml" "$T/err"
check "its sleep was stopped with it" bash -c "! pgrep -f '^sleep 31[.]7$' >/dev/null"

# ---- exits during the probe ----
spec dies "[$S, --port, \"{port}\", --exit-after-ms, \"1500\"]"
expect_exit "implementation that exits during the probe" 3 "$HARNESS" probe "$T/dies.yaml" --impl dies --duration 5 --runs-dir "$T/runs"
check "message says it exited with status 1" grep -q "exited with status 1 during the probe" "$T/err"

# ---- build: failing build is exit 3 with the log's tail ----
spec bld "[$S, --port, \"{port}\"]" "    build: [/bin/sh, -c, 'echo compiling main.c; echo main.c:3: error: expected ; >&2; exit 2']"
expect_exit "failing build" 3 "$HARNESS" probe "$T/bld.yaml" --impl bld --duration 1 --runs-dir "$T/runs"
check "build failure names the exit status" grep -q "build (/bin/sh) failed: exited with status 2" "$T/err"
check "build failure shows the log's tail" grep -q "main.c:3: error: expected" "$T/err"
spec bld2 "[$S, --port, \"{port}\"]" "    build: [/bin/sh, -c, 'echo built > $T/built.txt']"
expect_exit "succeeding build then probe" 0 "$HARNESS" probe "$T/bld2.yaml" --impl bld2 --duration 1 --runs-dir "$T/runs"
check "the build ran in the implementation's directory" test -s "$T/built.txt"

# ---- bad usage ----
expect_exit "unknown implementation" 2 "$HARNESS" probe "$T/srv.yaml" --impl nosuch
expect_exit "no --impl" 2 "$HARNESS" probe "$T/srv.yaml"
