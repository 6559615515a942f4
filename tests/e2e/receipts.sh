#!/usr/bin/env bash
# timing-free: counts only: the report's receipts against the server's own count of what it served (no latency, rate or CPU figure)
# The receipts (issue 28, item 4) against an independent count: testsrv's
# own (--count-file: every request it received other than /healthz and
# /runtime-stats, and those it answered 500 by --error-pct, kept in a
# file that outlives it). One implementation, one path, 1% of its answers
# 500, two windows of 2 s at 100 req/s (constant arrival, no discard
# second) each after a warm-up of exactly 1 s, no warm-up gate. The server
# serves the pre-flight on a start of its own (the file is that start's),
# so its count for the run's start is the warm-ups' requests and the
# windows': the receipts' answered must be the server's count less the
# warm-ups' (the one figure taken from the harness, window_requests phase
# warmup), exactly, with no request left unanswered (a 10 s timeout
# against a server with no delay); their 5xx the server's 500s less the
# warm-ups' (seconds phase warmup); and the server's 500s floor(1% of its
# count) (its sequence rule: the file is consistent).
. "$(dirname "$0")/../lib.sh"

cat >"$T/r.yaml" <<YAML
version: 1
name: e2e-receipts
seed: 5
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.05 }
implementations:
$(testsrv_impl solo ", --error-pct, \"1\", --count-file, \"$T/counts\"")
workload:
  arrival: constant
  connections: 8
  timeout_ms: 10000
  requests:
    - { name: echo, method: POST, path: /echo, body: "hi" }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 2, window_s: 2, discard_s: 0 }
warmup: { rate: { fixed_rps: 100 }, min_s: 1, max_s: 1, trailing_s: 1, gates: [] }
window_gates: [sut_alive]
YAML
expect_exit "a run of two windows against a server that answers 1% 500" 0 \
	"$HARNESS" run "$T/r.yaml" --allow-dirty --runs-dir "$T/runs" --run-id r
J=$T/runs/r/report/report.json
q() { sqlite3 "$T/runs/r/run.db" "$1"; }
read -r work s500 _ < <(od -An -t u8 "$T/counts")
cmp_num "the server was started twice (the pre-flight's, the run's)" \
	"$(q "SELECT COUNT(*) FROM events WHERE kind = 'sut_start'")" == 2
cmp_num "two measured windows in the receipts" "$(jq .receipts.windows.measured "$J")" == 2
cmp_num "every window done (none interrupted: its requests would be the server's only)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state != 'done'")" == 0
cmp_num "no request left unanswered (receipts: errors, timeouts, dropped)" \
	"$(jq '.receipts | .connect_errors + .resets + .timeouts + .parse_errors + .other_errors + .dropped' "$J")" == 0
warm=$(q "SELECT SUM(completed) FROM window_requests WHERE phase = 'warmup'")
# the warm-up's 500s from its whole-phase record, as its answers: the
# per-second rows hold whole seconds only, and a 500 in the warm-up's
# last part-second (a loaded host stretches it) is in none of them
# (once, beside two suites: 6 from the server, 1 in the seconds, 4
# measured)
warm5=$(q "SELECT SUM(unexpected) FROM window_requests WHERE phase = 'warmup'")
echo "# the server's count: $work requests, $s500 answered 500; the warm-ups': $warm answered, $warm5 500"
cmp_num "receipts: answered = the server's requests less the warm-ups' ($work - $warm)" \
	"$(jq .receipts.answered "$J")" == "$((work - warm))"
cmp_num "receipts: 5xx = the server's 500s less the warm-ups' ($s500 - $warm5)" \
	"$(jq .receipts.status_5xx "$J")" == "$((s500 - warm5))"
cmp_num "the server's 500s are floor(1% of its requests) (--error-pct's sequence)" "$s500" == "$((work / 100))"
cmp_num "receipts: 2xx = answered less 5xx" "$(jq .receipts.status_2xx "$J")" == \
	"$(jq '.receipts.answered - .receipts.status_5xx' "$J")"
cmp_num "receipts: each 500 unexpected (the default expect is 2xx)" "$(jq .receipts.unexpected "$J")" == \
	"$(jq .receipts.status_5xx "$J")"
cmp_num "receipts: sent = answered (every request sent was answered)" "$(jq .receipts.sent "$J")" == \
	"$(jq .receipts.answered "$J")"
check "report: the receipts paragraph says the server's figures" \
	grep -q "^Receipts: over 2 measured windows.* $((work - warm)) answered" "$T/runs/r/report/report.md"
exit 0
