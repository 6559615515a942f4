#!/usr/bin/env bash
# timing-free: reset commands counted per window, block and run
# release-only: under make asan deps_headroom.sh, agent_run.sh and oom.sh reach its code but 42 lines (runner_reset.c 15, evidence_load.c 8, cmd_audit.c 6), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# State between windows (issue 13, item 6; issue 14, item 1's reset): reset
# commands run before windows, each recorded per window (window_resets),
# and a failing one rejects the window for validity (reason reset_failed),
# which is then replaced like any void window.
#
# One run: a dependency `db` (reset_every: block), implementations `a`
# (reset_every: window, the default) and `b` (reset: [false], reset_every:
# run), a ladder of one rung x 2 blocks, retries.max_per_cell 1. Each reset
# that succeeds appends its {port} to a file, so its side effect is
# counted outside the harness:
#  - a's reset ran before each of a's windows (2), with a's port;
#  - db's ran once per block: blocks 0 and 1, and b's replacement block (3);
#  - b's failed once, before b's first window (run: once per invocation),
#    which is rejected with reset_failed and replaced; the replacement,
#    with no reset due, is accepted;
#  - audit shows the failed reset; audit --recheck re-derives the status
#    from the stored exit code.
# A second run: a reset past its reset_timeout_s (1 s) is killed, and its
# window rejected the same way.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
q() { sqlite3 "$RUNS/r/run.db" "$1"; }
cat > "$T/spec.yaml" <<YAML
version: 1
name: e2e-reset
slo: { percentile: 99, threshold_ms: 50 }
dependencies:
  - name: db
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    reset: [/bin/sh, -c, 'echo "\$0" >> $T/db.count', "{port}"]
    reset_every: block
implementations:
  - name: a
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    reset: [/bin/sh, -c, 'echo "\$0 \$1" >> $T/a.count', "{port}", "{dep.db.port}"]
  - name: b
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    reset: [/bin/false]
    reset_every: run
workload:
  connections: 4
  requests:
    - { name: root, path: / }
$(quick_ladder 2 1)
YAML
expect_exit "check accepts reset and reset_every" 0 "$HARNESS" check "$T/spec.yaml"
sed 's|reset_every: block|reset_every: hourly|' "$T/spec.yaml" >"$T/bad.yaml"
expect_exit "check refuses an unknown reset_every" 2 "$HARNESS" check "$T/bad.yaml"

"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id r >/dev/null 2>"$T/run.err"
cmp_num "the run exits 0 (stderr: $(tail -n 2 "$T/run.err" | tr '\n' ' '))" "$?" == 0

na=$(q "SELECT COUNT(*) FROM windows WHERE impl = 'a' AND state = 'done'")
cmp_num "a ran 2 windows" "$na" == 2
cmp_num "a's reset ran before each of them (its file counter)" "$(wc -l <"$T/a.count")" == "$na"
ports_a=$(q "SELECT detail FROM events WHERE kind = 'sut_start' AND detail LIKE 'a started%'" |
	sed 's|.*127.0.0.1:\([0-9]*\).*|\1|' | sort -u)
port_db=$(q "SELECT detail FROM events WHERE kind = 'dep_start'" | sed 's|.*127.0.0.1:\([0-9]*\).*|\1|')
bad=$(awk -v db="$port_db" -v ok="$(echo $ports_a)" 'BEGIN { n = split(ok, p, " "); for (i = 1; i <= n; i++) a[p[i]] = 1 }
	!($1 in a) || $2 != db { print }' "$T/a.count")
check "with a's {port} and {dep.db.port} ($port_db) substituted" test -n "$port_db" -a -z "$bad"
nblocks=$(q "SELECT COUNT(DISTINCT stage || block) FROM windows WHERE state = 'done'")
cmp_num "3 blocks ran (2 + b's replacement)" "$nblocks" == 3
cmp_num "db's reset ran once per block" "$(wc -l <"$T/db.count")" == "$nblocks"
cmp_num "each reset that ran is a row (2 a + 3 db + 1 b)" "$(q "SELECT COUNT(*) FROM window_resets")" == 6
cmp_num "db's rows exited 0" "$(q "SELECT COUNT(*) FROM window_resets WHERE kind = 'dependency' AND name = 'db' AND exit_code = 0 AND duration_s >= 0")" == 3

check "b's failed reset rejected its window for validity" \
	test "$(q "SELECT w.status, w.reasons, r.exit_code FROM windows w JOIN window_resets r ON r.window_id = w.id AND r.name = 'b'")" = "rejected|reset_failed|1"
check "and was replaced by an accepted window" \
	test "$(q "SELECT status FROM windows WHERE replaces = (SELECT window_id FROM window_resets WHERE name = 'b')")" = accepted
cmp_num "an event says so" "$(q "SELECT COUNT(*) FROM events WHERE kind = 'reset_failed' AND detail LIKE 'implementation b: reset exited 1%'")" == 1
"$HARNESS" audit r --runs-dir "$RUNS" >"$T/audit.out" 2>&1
check "audit shows the failed reset" grep -q "reset    implementation b: exit 1 in" "$T/audit.out"
expect_exit "audit --recheck reproduces every status" 0 "$HARNESS" audit r --runs-dir "$RUNS" --recheck
check "0 mismatches" grep -q ", 0 mismatches" "$T/out"

# A reset that does not finish: killed after its reset_timeout_s (1 s
# here; default 300), a failed reset like any other. One window, no
# retries: rejected, reset_failed, the kill recorded (no exit code).
cat > "$T/slow.yaml" <<YAML
version: 1
name: e2e-reset-timeout
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - name: c
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    reset: [sleep, "60"]
    reset_timeout_s: 1
workload:
  connections: 4
  requests:
    - { name: root, path: / }
$(quick_ladder 1 0)
YAML
check "reset_timeout_s defaults to 300 s (the schema)" \
	jq -e '.properties.implementations.items.properties.reset_timeout_s.default == 300 and .properties.dependencies.items.properties.reset_timeout_s.default == 300' <("$HARNESS" schema)
sed 's|reset_timeout_s: 1|reset_timeout_s: 0|' "$T/slow.yaml" >"$T/bad.yaml"
expect_exit "check refuses reset_timeout_s 0" 2 "$HARNESS" check "$T/bad.yaml"
t0=$SECONDS
"$HARNESS" run "$T/slow.yaml" --allow-dirty --runs-dir "$RUNS" --run-id t >/dev/null 2>"$T/t.err"
echo "# the run with a 1 s reset timeout took $((SECONDS - t0)) s"
qt() { sqlite3 "$RUNS/t/run.db" "$1"; }
check "a reset past its timeout rejected its window (reset_failed)" \
	test "$(qt "SELECT w.status, w.reasons, r.exit_code FROM windows w JOIN window_resets r ON r.window_id = w.id")" = "rejected|reset_failed|-1"
# killed at 1 s: well under the 60 s sleep (10 s: a loaded host's slack)
cmp_num "killed after about reset_timeout_s (s)" "$(qt "SELECT CAST(duration_s AS INTEGER) FROM window_resets")" "<" 10
cmp_num "not before it" "$(qt "SELECT duration_s FROM window_resets")" ">=" 0.9
cmp_num "an event says it did not exit on its own" \
	"$(qt "SELECT COUNT(*) FROM events WHERE kind = 'reset_failed' AND detail LIKE 'implementation c: reset did not exit on its own%'")" == 1
expect_exit "audit --recheck reproduces the timed-out reset's window" 0 "$HARNESS" audit t --runs-dir "$RUNS" --recheck
