#!/usr/bin/env bash
# release-only: knee brackets against wrk and a token bucket on two servers; knee.sh and refine.sh drive the knee code under the sanitizers
# Issue 11 acceptance: servers of known capacity under a full ladder with
# every default window gate enforced. The knee must be reported crossed,
# with its bracket (a bracket's (lo, hi], a point's bracketing rungs)
# containing the capacity a closed-loop tool (wrk) measures against the same
# server in the same test; a server answering 503 above a token-bucket rate
# must have that rate in its bracket. `harness knee RUN` gives the knees the
# report shows.
#
# Servers (tests/helpers/testsrv):
#   w7d12  7 workers holding each request 12 ms: capacity 7 / 12 ms = 583 req/s
#   tb390  a token bucket of 390 req/s answering 503 above it
# (refine.sh measures a third, w7d8: 7 / 8 ms = 875 req/s, against wrk on
# the same ladder, and narrows its bracket.)
# Each worker also spends ~0.1-0.4 ms per request on this VM (wake-ups,
# parsing), so the real capacity is ~565-580 req/s: wrk
# measures them closed-loop with 4 connections per worker (so no worker
# idles between a response and the next request; with one connection per
# worker the round trip would count as capacity lost; lib.sh wrk_capacity).
# Ladder 324 x 1.45^k: 324, 470, 681, 988 (1432 if a rung was void). Each
# capacity sits mid-interval, the rung below it at ~80% of it and the rung
# above at ~115% (w7d12: 470 and 681; tb390: 324 and 470): a rung within a few percent of the wall is a coin toss in
# a 3 s window (at 91% of its capacity, under `make test`'s load, a server
# here queued past the 50 ms SLO), which no rule can call. Constant
# arrivals: the token bucket's 39-token burst then never empties below its
# rate.
. "$(dirname "$0")/../lib.sh"

SRV=$HELPERS/testsrv
RUNS=$T/runs

cap_b=$(wrk_capacity 28 --workers 7 --delay-ms 12)
echo "# wrk capacity: w7d12 $cap_b req/s (7/12 ms = 583)"
# wrk's own figure is the reference the bracket is checked against; these
# bounds catch a server or a wrk that did not run or a server that does
# not hold its workers x delay: at most 7 / 12 ms (+2% for wrk's clock),
# above the ladder's rung below it (470), which the bracket needs.
cmp_num "wrk measured w7d12 (7 x 12 ms) at most 583 req/s (+2%)" "$cap_b" "<=" 595
cmp_num "wrk measured w7d12 above the rung below it" "$cap_b" ">" 470

cat >"$T/spec.yaml" <<YAML
version: 1
name: capacity
seed: 11
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.001 }
implementations:
  - name: w7d12
    start: [$SRV, --port, "{port}", --workers, "7", --delay-ms, "12"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
  - name: tb390
    start: [$SRV, --port, "{port}", --rate-limit, "390", --delay-ms, "1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
$(work_ladder)
$(no_warmup)
# Defaults everywhere, except: stationarity judges the 3 seconds it has, and
# the generator may lag 25 ms at p99 (this 2-core VM, shared with the three
# servers and other jobs, stalls 10-30 ms every few seconds: at 1 ms a third
# of the windows were void, at 5 ms under a load average of 6 still half).
# The knees here are made by failures (under-delivery, 503s), which a late
# generator does not fake: achieved and errors count answers, not timing.
gates:
  stationarity: { min_points: 3 }
  generator: { lateness_p99_ms: 25 }
YAML
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id cap >"$T/run.out" 2>"$T/run.err"
rc=$?
check "run exits 0 (rc $rc)" test "$rc" -eq 0
dg=$(sqlite3 "$RUNS/cap/run.db" "SELECT COUNT(DISTINCT gate) FROM gate_results WHERE phase = 'window' AND enforced = 1")
cmp_num "every default window gate enforced (error_rate, achieved_vs_offered, stationarity, throttled, oom, generator, sut_alive, idle_arms_quiet, acct_span, host_held)" "$dg" "==" 10
sqlite3 "$RUNS/cap/run.db" "SELECT impl, rate, status, COALESCE(reasons, '') FROM windows ORDER BY impl, rate" |
	sed 's/^/# /'

"$HARNESS" knee cap --runs-dir "$RUNS" --json >"$T/knee.json" 2>"$T/knee.err"
check "harness knee RUN exits 0" test -s "$T/knee.json"
sed 's/^/# /' "$T/knee.json" | grep '"impl"' | cut -c1-400

# in_bracket IMPL CAPACITY: crossed, and lo < capacity <= hi (a bracket at
# the first valid rung has no lo: 0; the rungs below were void, which the
# output above shows).
in_bracket() {
	jq -e --arg i "$1" --argjson c "$2" '.fits[] | select(.impl == $i) |
		.crossed and (.kind == "bracket" or .kind == "point")
		and ((.lo_rps // 0) < $c) and ($c <= .hi_rps)' "$T/knee.json" >/dev/null
}
br() { jq -r --arg i "$1" '.fits[] | select(.impl == $i) | "\(.kind) (\(.lo_rps), \(.hi_rps)] \(.reason)"' "$T/knee.json"; }
check "w7d12: crossed, bracket $(br w7d12) contains wrk's $cap_b req/s" in_bracket w7d12 "$cap_b"
check "tb390: crossed, bracket $(br tb390) contains its 390 req/s" in_bracket tb390 390
check "tb390: its crossing is made by failure (503s): a bracket, not a point" \
	jq -e '.fits[] | select(.impl == "tb390") | .kind == "bracket"' "$T/knee.json"

# The report of the run shows the same knees (one rule, one fit).
R=$RUNS/cap/report
for i in w7d12 tb390; do
	rk=$(jq --arg i "$i" '.impls[] | select(.name == $i) | [.knee.kind, .knee.lo_rps, .knee.hi_rps, .knee.knee_rps]' "$R/report.json" | tr -d ' \n')
	kk=$(jq --arg i "$i" '.fits[] | select(.impl == $i) | [.kind, .lo_rps, .hi_rps, .knee_rps]' "$T/knee.json" | tr -d ' \n')
	check "$i: harness knee RUN = the report's knee ($kk)" test "$rk" = "$kk"
done
# ... and the report's windows.csv refitted by harness knee --windows too.
"$HARNESS" knee --windows "$R/windows.csv" --slo-ms 50 --json >"$T/csv.json" 2>/dev/null
check "harness knee --windows on the run's windows.csv: the same knees" \
	jq -e --slurpfile k "$T/knee.json" '[.fits[] | [.impl, .kind, .lo_rps, .hi_rps]] | sort == ([$k[0].fits[] | [.impl, .kind, .lo_rps, .hi_rps]] | sort)' "$T/csv.json"
# audit --recheck reproduces every stored verdict, failed windows included.
"$HARNESS" audit cap --runs-dir "$RUNS" --recheck >"$T/audit.out" 2>&1
check "audit --recheck: 0 mismatches over accepted and failed windows" grep -q " 0 mismatches" "$T/audit.out"
nf=$(sqlite3 "$RUNS/cap/run.db" "SELECT COUNT(*) FROM windows WHERE status = 'failed'")
cmp_num "failed windows were rechecked (the walls)" "$nf" ">=" 2
