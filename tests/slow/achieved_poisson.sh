#!/usr/bin/env bash
# achieved_vs_offered judges the requests answered against the requests
# that were due (issue 24 item 4's acceptance). Poisson arrivals at 300
# req/s, 2 s measured windows: the count due in a window is Poisson, sd
# sqrt(600) = 24.5 requests, 4% of the nominal 600, so judged against the
# nominal rate (the rule before) about a third of a healthy server's
# windows were "off" by more than the 2% tolerance and failed. Judged
# against what was due, a healthy server (testsrv, no delay) fails 0 of
# ACHIEVED_WINDOWS (default 50) windows; the count the old rule would have
# failed is printed from the same windows. A server of capacity 250 req/s
# (1 worker x 4 ms) at 300 offered still fails it: about 17% short.
# Default gates (stationarity aside: 2 s) and tolerance (2%); the SLO is 50 ms, so the generator's
# lateness limit is 5 ms (a tenth of it).
# Measured Dec 4: 12:47 (load 5.0-6.4, the in-flight allowance on the
# median latency, 929c204): healthy 0 of 55 failed (largest shortfall
# 0.32%; the old rule would have failed 37), but the capacity-250 server
# read 11.1, 10.6 and 4.4% short (its median latency 338 ms allowed 103 in
# flight of its 32 connections): this script failed. 13:04 (load 4.7-10.2,
# the allowance on the median service time, 03efb23): healthy 0 of 50
# failed (largest 0.34%; the old rule 34), capacity 250: 12.5, 20.7 and
# 16.2% short with 31-32 in flight: ok.
# Dec 5 02:08-02:11 (48a6ccc), beside two clean-clone CIs and
# compare_branches.sh, load 12.3 at the end: healthy 0 of 51 failed
# (largest 0.18 %; the old rule 35); capacity 250: 11.2, 18.6, 16.6 % short.
. "$(dirname "$0")/../lib.sh"

N=${ACHIEVED_WINDOWS:-50}
RUNS=$T/runs
spec() { # name reps extra-start-args...
	local name=$1 reps=$2
	shift 2
	local args=""
	for a in "$@"; do args="$args, \"$a\""; done
	cat <<YAML
version: 1
name: $name
seed: 24
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.001 }
implementations:
  - name: srv
    start: [$HELPERS/testsrv, --port, "{port}"$args]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  arrival: poisson
  connections: 32
  timeout_ms: 2000
  requests:
    - { name: work, path: /work }
stages:
  ladder: { start_rps: 300, step: 2, max_rps: 300, reps: $reps, window_s: 2, discard_s: 0 }
warmup:
  rate: { fixed_rps: 300 }
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 1
  trailing_s: 1
  gates: []
# the default window gates but stationarity (a 2 s window has 2 of the
# 3 seconds it needs at least)
window_gates: [error_rate, achieved_vs_offered, throttled, oom, generator, sut_alive]
YAML
}
spec healthy "$N" >"$T/healthy.yaml"
"$HARNESS" run "$T/healthy.yaml" --allow-dirty --runs-dir "$RUNS" --run-id healthy \
	>"$T/run.out" 2>"$T/run.err"
echo "# healthy run exits $? ($(tail -n 1 "$T/run.err"))"
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
judged=$(q healthy "SELECT COUNT(*) FROM gate_results g JOIN windows w ON w.id = g.window_id
		    WHERE g.gate = 'achieved_vs_offered' AND g.phase = 'window'")
fails=$(q healthy "SELECT COUNT(*) FROM gate_results g JOIN windows w ON w.id = g.window_id
		   WHERE g.gate = 'achieved_vs_offered' AND g.phase = 'window' AND g.status <> 'pass'")
old=$(q healthy "SELECT COUNT(*) FROM windows WHERE state = 'done'
		 AND ABS(achieved_rps - 300) / 300 * 100 > 2")
due=$(q healthy "SELECT MIN(due) || '..' || MAX(due) FROM windows WHERE state = 'done'")
short=$(q healthy "SELECT printf('%.2f', MAX(g.statistic)) FROM gate_results g
		   WHERE g.gate = 'achieved_vs_offered' AND g.phase = 'window'")
echo "# healthy: $judged windows judged, due per window $due, largest shortfall $short%"
echo "# healthy: the old rule (|achieved - 300| / 300 > 2%) would have failed $old of them"
cmp_num "healthy server: windows judged by achieved_vs_offered" "$judged" ">=" "$N"
cmp_num "healthy server: windows failing achieved_vs_offered" "$fails" "==" 0

spec wall 3 --workers 1 --delay-ms 4 >"$T/wall.yaml"
"$HARNESS" run "$T/wall.yaml" --allow-dirty --runs-dir "$RUNS" --run-id wall \
	>"$T/run.out" 2>"$T/run.err"
echo "# wall run exits $? ($(tail -n 1 "$T/run.err"))"
q wall "SELECT g.status, printf('%.1f', g.statistic), g.evidence FROM gate_results g
	WHERE g.gate = 'achieved_vs_offered' AND g.phase = 'window'" | sed 's/^/# wall: /'
wj=$(q wall "SELECT COUNT(*) FROM gate_results WHERE gate = 'achieved_vs_offered' AND phase = 'window'")
wf=$(q wall "SELECT COUNT(*) FROM gate_results WHERE gate = 'achieved_vs_offered' AND phase = 'window'
	     AND status = 'fail' AND statistic > 10")
cmp_num "capacity 250 at 300 offered: windows judged" "$wj" ">=" 3
cmp_num "capacity 250 at 300 offered: every judged window fails, over 10% short" "$wf" "==" "$wj"
