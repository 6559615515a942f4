#!/usr/bin/env bash
# Sequential confirm (issue 12, item 3): after confirm's reps blocks, one
# block at a time until every paired confidence sequence (Robbins' normal
# mixture, docs/STATISTICS.md) is narrower than half_width_pct of its pair's
# mean, or max_reps. Two servers 5 ms apart (testsrv --delay-ms 1 and 6):
# the run stops before max_reps, says why (event sequential_confirm), the
# report judges the confirm pair by the sequence ("CS") and finds the 5 ms,
# and `check` counts max_reps in its worst case.
#
# Sizing: one rung at 400 req/s (a window's p99 is its 4th slowest of 400),
# 1 s windows after a warm-up of at most 1 s, confirm reps 3 (2 arms: 6
# windows), max_reps 7. On a quiet host the p99s sit near 1-3 and 6-8 ms
# and the per-block difference spreads by ~1 ms, so the sequence's
# half-width (about 2-3 sd / sqrt(n) at n 3-6, tuned for n = 3) is under
# 30 % of the pair's ~4.5 ms mean after a few blocks. (Stopping says the
# interval is narrow, not that it excludes 0: on a loaded host the p99s
# are the host's stalls, 8-9 ms on both, and the 5 ms shrinks to 1-2;
# finding the 5 ms is tests/slow/sequential.sh's job.) A host stall widens
# it; max_reps bounds the run (at most 16 windows of ~2 s).
. "$(dirname "$0")/../lib.sh"

SRV=$HELPERS/testsrv
RUNS=$T/runs
NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
cat >"$T/spec.yaml" <<YAML
version: 1
name: sequential
seed: 12
slo: { percentile: 99, threshold_ms: 100, error_rate_max: 0.01 }
implementations:
  - name: fast
    start: [$SRV, --port, "{port}", --delay-ms, "1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
  - name: slow
    start: [$SRV, --port, "{port}", --delay-ms, "6"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 16
  timeout_ms: 2000
  requests:
    - { name: work, method: GET, path: /work }
stages:
  ladder: { start_rps: 400, step: 2, max_rps: 400, reps: 1, window_s: 1, discard_s: 0 }
  confirm: { reps: 3, until: { half_width_pct: 30, max_reps: 7 } }
retries: { max_per_cell: 0 }
warmup:
  rate: { fixed_rps: 100 }
  min_s: 0
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
  generator: { lateness_p99_ms: 20 }
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
compare: { metric: [p99] }
YAML
expect_exit "check accepts confirm.until" 0 "$HARNESS" check "$T/spec.yaml"
check "check counts max_reps in the worst case: 1 rate x 7 blocks x 2" \
	grep -Eq "confirm +14 +\(1 bracketing rates x up to 7 blocks \(3 reps \+ sequential\)" "$T/out"
sed 's/max_reps: 7/max_reps: 2/' "$T/spec.yaml" >"$T/bad.yaml"
expect_exit "max_reps below reps is refused" 2 "$HARNESS" check "$T/bad.yaml"
grep -q "stages.confirm.until.max_reps: must be >= stages.confirm.reps (3), got 2" "$T/err" &&
	ok "says which key and why" || fail "max_reps message: $(cat "$T/err")"

$NICE "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id sq \
	>"$T/run.out" 2>"$T/run.err"
rc=$?
# 0, or 1 when a window the host stalled left a cell short (no retries here)
check "run finishes (rc $rc: $(tail -n 2 "$T/run.err" | tr '\n' ' '))" test "$rc" -le 1 -a \
	"$(sqlite3 "$RUNS/sq/run.db" "SELECT status FROM runs")" = finished
q() { sqlite3 "$RUNS/sq/run.db" "$1"; }
q "SELECT stage, block, impl, status, printf('%.2f', p99_ms) FROM windows ORDER BY id" | sed 's/^/# /'
ev=$(q "SELECT detail FROM events WHERE kind = 'sequential_confirm'")
echo "# $ev"
blocks=$(q "SELECT COUNT(DISTINCT block) FROM windows WHERE stage = 'confirm'")
cmp_num "confirm ran at least its 3 reps" "$blocks" ">=" 3
cmp_num "and at most max_reps (7)" "$blocks" "<=" 7
# A loaded host (p99s of 50-150 ms, windows the generator gate rejects)
# may keep the sequences wide until max_reps: then the event says so and
# the rest is checked as far as it can be.
if echo "$ev" | grep -q "stopped after"; then
	# Narrowing exactly at the last allowed block is a stop by the
	# sequence too (seen at load 7.5: 7 blocks, half-width 29.6%); how
	# early it stops is measured by tests/slow/sequential.sh.
	cmp_num "stopped by the sequence, at or before max_reps (7)" "$blocks" "<=" 7
	echo "$ev" | grep -Eq "^at 400 req/s: stopped after $blocks blocks \(3 planned \+ $((blocks - 3)) sequential; max_reps 7\): widest: fast - slow latency, half-width [0-9.]+% of the mean" &&
		ok "event says where, how many blocks and the widest sequence" || fail "event: $ev"
	w=$(echo "$ev" | sed -n 's/.*half-width \([0-9.]*\)% of the mean.*/\1/p')
	cmp_num "the widest half-width is under half_width_pct" "$w" "<" 30
else
	echo "$ev" | grep -Eq "^at 400 req/s: max_reps reached after 7 blocks \(3 planned \+ 4 sequential" &&
		ok "max_reps reached (host too noisy to narrow): the event says so" || fail "event: $ev"
	cmp_num "max_reps reached: 7 blocks" "$blocks" "==" 7
fi

"$HARNESS" report sq --runs-dir "$RUNS" --format all >/dev/null 2>"$T/r.err"
J=$RUNS/sq/report/report.json
v=$(jq -r '.verdicts[] | select(.stage=="confirm" and .metric=="p99_ms") | "\(.method) \(.correction)"' "$J")
[ "$v" = "confidence_sequence holm" ] && ok "report: the confirm pair judged by the sequence" ||
	fail "report verdict: $(jq -c '.verdicts[] | select(.stage=="confirm")' "$J")"
grep -Eq '^\| confirm \| 400 .*\| CS \| ' "$RUNS/sq/report/report.md" &&
	ok "markdown: method CS beside the verdict" || fail "md: $(grep '^| confirm' "$RUNS/sq/report/report.md")"
# The report's interval is the sequence the run stopped by: when it
# stopped, its half-width is under 30 % of the pair's mean there too.
jq -e '.verdicts[] | select(.stage=="confirm" and .metric=="p99_ms") |
	(.interval[1] - .interval[0]) / 2 < 0.30 * (.mean_a + .mean_b) / 2' "$J" >/dev/null
narrow=$?
if echo "$ev" | grep -q "stopped after"; then
	[ $narrow = 0 ] && ok "the report's sequence is the narrow one the run stopped by" ||
		fail "report interval: $(jq -c '.verdicts[] | select(.stage=="confirm")' "$J")"
else
	[ $narrow != 0 ] && ok "the report's sequence is still wide (max_reps)" || fail "narrow at max_reps"
fi
