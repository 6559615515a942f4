#!/usr/bin/env bash
# Confirm windows back the knee (issue 11's acceptance, against a real
# server): with ladder reps 3 and confirm reps 10, the run's knee is
# inferential, and its interval is narrower than the one the ladder's
# windows alone give (refitted by `harness knee --windows` from the run's
# windows.csv, ladder rows only, with the same SLO, seed and min-reps:
# non-inferential). tests/unit/test_knee.c confirm_windows_make_it_inferential
# checks the same on made-up windows in CI; this is the real thing, too long
# for CI (26 windows, about a minute a run).
#
# Server: testsrv --tail-above 500 --tail-every 50 --tail-ms 400 (as in
# tests/e2e/slo_percentile.sh): nothing slow below 500 req/s, ~5 requests
# of 400 ms in a 1 s window at 800 (0.6%). SLO p99.9 <= 200 ms; ladder 400,
# 800 (3 reps); the p99.9 knee is a point between them, interpolated from
# the rungs' means, so its interval is the spread of the windows' p99.9s
# (at 400 req/s this VM's stalls, 1-60 ms) seen through the interpolation:
# 3 windows a rung (ladder) or 13 (ladder + confirm).
# CONFIRM_RUNS (default 5) runs. Every run: crossed and inferential with
# confirm, non-inferential without. "Narrower" is NOT asserted here: it is
# not a property of every run on a real server. Three quiet ladder windows
# resample to an interval of almost nothing (a 3-window bootstrap knows no
# spread it has not seen), and ten confirm windows then meet the stall the
# ladder missed: measured over 7 runs, with confirm 0.14, 25.6, 27.6,
# 17.9, 5.6, 6.2, 16.8 req/s; the ladder alone 0.17, 0.96, 146, 55.8, 5.9,
# 2.2, 3.7 (narrower with confirm in 4 of 7), and three of the narrow
# ladder-only intervals excluded the knee that 13 windows a rung found
# (with the plain window bootstrap, the rule then). Since the t draw
# (knee.h; docs/STATISTICS.md "The knee's interval"), 7 runs: ladder-only
# widths 18.4, 4.2, 4.1, 2.1, 2.8, 15.6, 7.6 req/s, containing the
# 13-window knee in 6 of 7 (the same windows gave 3 of 7 with the plain
# bootstrap); the miss had 2 stalled confirm windows at 400 req/s that
# the 3 ladder windows did not show. Counted and printed, not asserted
# (a 95% interval misses sometimes). The widths are printed; the
# "narrower" half is asserted where the spread is fixed, in
# tests/unit/test_knee.c confirm_windows_make_it_inferential.
. "$(dirname "$0")/../lib.sh"

RUNS=${KEEP_RUNS:-$T/runs}
N=${CONFIRM_RUNS:-5}
narrower=0
covers=0
for i in $(seq 1 "$N"); do
	cat >"$T/spec.yaml" <<YAML
version: 1
name: confirm-knee
seed: $((40 + i))
slo: { percentile: 99.9, threshold_ms: 200, error_rate_max: 0.01 }
implementations:
  - name: tail
    start: [$HELPERS/testsrv, --port, "{port}", --tail-above, "500", --tail-every, "50",
            --tail-ms, "400"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  arrival: constant
  connections: 32
  timeout_ms: 2000
  requests:
    - { name: root, path: / }
stages:
  ladder: { start_rps: 400, step: 2, max_rps: 800, reps: 3, window_s: 1, discard_s: 0 }
  confirm: { reps: 10, window_s: 1, discard_s: 0 }
warmup:
  rate: { fixed_rps: 200 }
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 25 }
window_gates: [error_rate, achieved_vs_offered, sut_alive]
YAML
	t0=$SECONDS
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "c$i" \
		>"$T/run.out" 2>"$T/run.err"
	rc=$?
	cmp_num "run $i exits 0 in $((SECONDS - t0)) s ($(tail -n 1 "$T/run.err"))" "$rc" "==" 0
	"$HARNESS" knee "c$i" --runs-dir "$RUNS" --json >"$T/all.json" 2>/dev/null
	C=$RUNS/c$i/report/windows.csv
	awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "stage") s = k; print; next }
		 $s == "ladder"' "$C" >"$T/ladder.csv"
	"$HARNESS" knee --windows "$T/ladder.csv" --percentile 99.9 --slo-ms 200 \
		--error-rate-max 0.01 --min-reps 10 --seed $((40 + i)) --json \
		>"$T/lad.json" 2>"$T/lad.err"
	all=$(jq -c '.fits[0] | [.kind, (.knee_rps | floor), .interval_rps, .inferential, .accepted + .failed]' "$T/all.json")
	lad=$(jq -c '.fits[0] | [.kind, (.knee_rps | floor), .interval_rps, .inferential, .accepted + .failed]' "$T/lad.json")
	echo "# run $i: ladder + confirm $all; ladder alone $lad"
	check "run $i: with confirm, the knee is crossed and inferential" \
		jq -e '.fits[0] | .crossed and .inferential' "$T/all.json"
	check "run $i: the ladder alone is not inferential (3 < 10 windows per rung)" \
		jq -e '.fits[0] | .crossed and (.inferential | not)' "$T/lad.json"
	wa=$(jq '.fits[0].interval_rps | .[1] - .[0]' "$T/all.json")
	wl=$(jq '.fits[0].interval_rps | .[1] - .[0]' "$T/lad.json")
	if awk -v a="$wa" -v l="$wl" 'BEGIN { exit !(a != "" && l != "" && a < l) }'; then
		narrower=$((narrower + 1))
	fi
	echo "# run $i: interval width with confirm $wa req/s, ladder alone $wl"
	k13=$(jq '.fits[0].knee_rps' "$T/all.json")
	if jq -e --argjson k "$k13" '.fits[0].interval_rps | .[0] <= $k and $k <= .[1]' \
		"$T/lad.json" >/dev/null; then
		covers=$((covers + 1))
		echo "# run $i: the ladder-only interval contains the 13-window knee $k13"
	else
		echo "# run $i: the ladder-only interval EXCLUDES the 13-window knee $k13"
	fi
done
echo "# interval with confirm narrower than the ladder's alone in $narrower of $N runs (not asserted: see above)"
echo "# the ladder-only interval contains the knee of ladder + confirm in $covers of $N runs"

# --- confirm where the decision is (issue 24 item 6) ----------------------
# A walled server: testsrv with 2 workers x 1 ms (closed-loop capacity
# ~1750 req/s on this VM, measured each run with wrk), ladder 500 x 1.5^k,
# refine (5%, 4 steps) and confirm.reps 10. Confirm's windows are knee
# evidence and can move the crossing off the refined bracket (before
# confirm followed it: confirm at 1414 and 1450 req/s, then the knee
# between 1450 and 1525, a rate of 3 windows: non-inferential). Every run:
# crossed, inferential (both bracketing rates have >= 10 valid windows),
# the interval within 10% (hi <= lo x 1.10) and holding wrk's capacity
# (before and after the run: it moves beside other work) up to what a 2 s
# window resolves (lo - 10%, hi + 5%, as refine.sh: past the
# wall the queue's wait reaches the 50 ms SLO only ~2.5% beyond it, and
# the VM's stalls make a server queue past it below). WALL_RUNS (default
# 3) runs of 3-6 minutes.
# Measured Dec 4 15:21-15:35 UTC (WALL_RUNS=5, beside the lead's two
# until_decided series; load average 1-min 2.4-13.2, mostly 3-6): 5 of 5
# crossed and inferential, every confirm rate 10 valid windows.
#   run  knee (kind)      interval          width  wrk before/after
#   1    1868 (bracket)   [1814.3, 1868]    2.96%  1805.6 / 1802.8
#   2    1814.0 (point)   [1799.3, 1868]    3.82%  1783.9 / 1694.4
#   3    1796.6 (point)   [1789.6, 1805.7]  0.90%  1735.7 / 1789.7
#   4    1800.0 (point)   [1761.0, 1868]    6.08%  1769.1 / 1727.8
#   5    1868 (bracket)   [1811.0, 1868]    3.15%  1812.7 / 1741.8
# Refine ran 2067, 1868, 1775, 1821 req/s; confirm at the refined bracket
# and followed the refit once in runs 2 and 5 (confirm_follow to 1775 and
# to 1868). The interval holds one of the two wrk figures strictly in 3
# of 5; in runs 1 and 2 its lower end is 0.5% and 0.9% above the higher
# wrk figure (wrk: 8 closed-loop connections; an open-loop 2 s window
# crosses a 50 ms p99 only past the wall). Before (issue 24): knee 1737,
# [1727, 1868], non-inferential, confirm at 1687.5, 1731 and 2531 req/s
# with the refined bracket (1731, 1775].
W=${WALL_RUNS:-3}
for i in $(seq 1 "$W"); do
	port=$(free_port)
	"$HELPERS/testsrv" --port "$port" --workers 2 --delay-ms 1 2>/dev/null &
	pid=$!
	wait_port "$port"
	cap=$(wrk -t1 -c8 -d3s "http://127.0.0.1:$port/work" 2>/dev/null | awk '/^Requests\/sec:/ { print $2 }')
	cat >"$T/wall.yaml" <<YAML
version: 1
name: confirm-wall
seed: $((60 + i))
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.001 }
implementations:
  - name: w2d1
    start: [$HELPERS/testsrv, --port, "{port}", --workers, "2", --delay-ms, "1"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  arrival: constant
  connections: 32
  timeout_ms: 2000
  requests:
    - { name: work, path: /work }
stages:
  ladder: { start_rps: 500, step: 1.5, max_rps: 4000, reps: 3, window_s: 2, discard_s: 0,
            stop: { rungs_past_knee: 0 } }
  refine: { reps: 3, resolution_pct: 5, max_steps: 4 }
  confirm: { reps: 10 }
warmup:
  rate: { fixed_rps: 200 }
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 1
  trailing_s: 1
  gates: []
# the default window gates but stationarity (a 2 s window has 2 of the 3
# seconds it needs at least)
window_gates: [error_rate, achieved_vs_offered, throttled, oom, generator, sut_alive]
YAML
	t0=$SECONDS
	"$HARNESS" run "$T/wall.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "w$i" \
		>"$T/run.out" 2>"$T/run.err"
	rc=$?
	# the capacity again after the run: beside other work it moves by
	# 10-20% within minutes (1367..1523 req/s over one hour here), so the
	# interval is held against the higher and lower of the two
	cap2=$(wrk -t1 -c8 -d3s "http://127.0.0.1:$port/work" 2>/dev/null | awk '/^Requests\/sec:/ { print $2 }')
	kill "$pid"
	wait "$pid" 2>/dev/null
	cmp_num "walled run $i exits 0 in $((SECONDS - t0)) s ($(tail -n 1 "$T/run.err"))" "$rc" "==" 0
	"$HARNESS" knee "w$i" --runs-dir "$RUNS" --json >"$T/w.json" 2>/dev/null
	sqlite3 "$RUNS/w$i/run.db" "SELECT stage, rate, COUNT(*), SUM(status IN ('accepted', 'failed'))
		FROM windows GROUP BY stage, rate ORDER BY MIN(id)" | tr '\n' ' ' | sed 's/^/# windows (stage|rate|n|valid): /'
	echo
	sqlite3 "$RUNS/w$i/run.db" "SELECT detail FROM events WHERE kind = 'confirm_follow'" | sed 's/^/# /'
	echo "# run $i (load $(cut -d' ' -f1-3 /proc/loadavg)): wrk capacity $cap req/s before, $cap2 after; knee $(jq -c '.fits[0] | [.kind, .knee_rps, .lo_rps, .hi_rps, .interval_rps, .inferential]' "$T/w.json")"
	check "walled run $i: crossed and inferential" jq -e '.fits[0] | .crossed and .inferential' "$T/w.json"
	ilo=$(jq -r '.fits[0].interval_rps[0]' "$T/w.json")
	ihi=$(jq -r '.fits[0].interval_rps[1]' "$T/w.json")
	check "walled run $i: interval [$ilo, $ihi] within 10%" \
		awk -v l="$ilo" -v h="$ihi" 'BEGIN { exit !(l + 0 > 0 && h <= l * 1.10) }'
	check "walled run $i: interval [$ilo, $ihi] holds wrk's $cap..$cap2 req/s (lo - 10%, hi + 5%)" \
		awk -v l="$ilo" -v h="$ihi" -v a="$cap" -v b="$cap2" 'BEGIN {
			lo = a < b ? a : b; hi = a < b ? b : a
			exit !(l + 0 > 0 && l * 0.90 < hi && lo <= h * 1.05) }'
done
