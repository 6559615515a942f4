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
  min_s: 0
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
