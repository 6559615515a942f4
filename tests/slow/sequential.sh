#!/usr/bin/env bash
# Sequential confirm (issue 12's acceptance): on two identical servers
# (testsrv --delay-ms 1, twice), over SEQ_RUNS (40) runs, the confirm
# stage's paired verdict (the report's, judged by the confidence sequence
# the run stopped by) calls a difference in at most the nominal 5 % plus 5
# points (4 of 40); on two servers 5 ms apart (--delay-ms 1 and 6), over
# SEQ_RUNS_SHIFT (10) runs, it stops before max_reps and finds the 5 ms.
# Each run: one 400 req/s rung, 1 s windows, confirm reps 3, until
# { half_width_pct: 50, max_reps: 10 }: 20-50 s a run.
. "$(dirname "$0")/../lib.sh"

SRV=$HELPERS/testsrv
RUNS=$T/runs
N=${SEQ_RUNS:-40}
NS=${SEQ_RUNS_SHIFT:-10}

spec() {  # spec DELAY_B
	cat <<YAML
version: 1
name: sequential-slow
seed: $2
slo: { percentile: 99, threshold_ms: 100, error_rate_max: 0.01 }
implementations:
  - name: a
    start: [$SRV, --port, "{port}", --delay-ms, "1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
  - name: b
    start: [$SRV, --port, "{port}", --delay-ms, "$1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 16
  timeout_ms: 2000
  requests:
    - { name: work, method: GET, path: /work }
stages:
  ladder: { start_rps: 400, step: 2, max_rps: 400, reps: 1, window_s: 1, discard_s: 0 }
  confirm: { reps: 3, until: { half_width_pct: 50, max_reps: 10 } }
retries: { max_per_cell: 1 }
warmup:
  rate: { fixed_rps: 100 }
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
  generator: { lateness_p99_ms: 20 }
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
compare: { metric: [p99] }
YAML
}

# one ID DELAY_B SEED: prints "blocks verdict"
one() {
	spec "$2" "$3" >"$T/$1.yaml"
	"$HARNESS" run "$T/$1.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "$1" \
		>/dev/null 2>"$T/$1.err"
	"$HARNESS" report "$1" --runs-dir "$RUNS" --format json >/dev/null 2>&1
	local b v
	b=$(sqlite3 "$RUNS/$1/run.db" "SELECT COUNT(DISTINCT block) FROM windows WHERE stage = 'confirm' AND block < 16777216")
	v=$(jq -r '.verdicts[] | select(.stage=="confirm" and .metric=="p99_ms") | .verdict' \
		"$RUNS/$1/report/report.json" 2>/dev/null | tr ' ' _)
	echo "$b ${v:-none}"
}

false_diff=0 stopped=0
for i in $(seq 1 "$N"); do
	read -r b v < <(one "same$i" 1 "$i")
	echo "# identical $i: $b blocks, $v"
	case $v in A_lower|B_lower) false_diff=$((false_diff + 1)) ;; esac
	[ "$b" -lt 10 ] && stopped=$((stopped + 1))
done
found=0 early=0
for i in $(seq 1 "$NS"); do
	read -r b v < <(one "shift$i" 6 "$((i + 100))")
	echo "# 5 ms apart $i: $b blocks, $v"
	[ "$v" = A_lower ] && found=$((found + 1))
	[ "$b" -lt 10 ] && early=$((early + 1))
done
echo "# identical servers: $false_diff of $N runs called a difference; $stopped stopped before max_reps"
echo "# 5 ms apart: found in $found of $NS; stopped before max_reps in $early of $NS"
cmp_num "identical: false differences (of $N, nominal 5 % + 5 points)" "$false_diff" "<=" $((N / 10))
cmp_num "5 ms: found (of $NS)" "$found" ">=" $((NS * 8 / 10))
cmp_num "5 ms: stopped early (of $NS)" "$early" ">=" $((NS * 8 / 10))
