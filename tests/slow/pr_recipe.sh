#!/usr/bin/env bash
# The README's pull-request recipe decides (issue 24's acceptance): one
# small C server (tests/helpers/testsrv.c, 2 ms a request) in a git
# repository, a baseline run, then PR_RUNS (10) times `harness rerun
# --with-baseline` of a branch adding 5 ms a request and `harness compare`:
# a regression (exit 1) every time, without --until-decided. The spec is
# the PR size of the README: ladder 200 -> 400 req/s (2 rates), reps 3,
# 3 s windows, the default window gates and compare settings (margin 5 %,
# floors 1 ms / 2 us, alpha 0.05, Holm); only the warm-up is short (no
# warm-up gates, at most 2 s), which decides nothing compare reads, and
# the stationarity gate judges from 3 points (its 10 default would refuse
# a 3 s window: `check` says so).
#
# Why it can decide: 6 pairs a metric, all the same direction, give the
# pooled signed-rank test p = 2^-6 = 0.0156, and weighted Holm asks 0.4 x
# 0.05 = 0.02 of the first of the two pooled metrics (docs/STATISTICS.md,
# "One family"); the cells alone (3 pairs each) never could. A rerun takes
# ~1-2 minutes here (12 windows of 3 s, warm-ups, the build).
#
# Measured (docs/STATISTICS.md "Pooled evidence"): Dec 3, load 2-9, 2 of
# 10 (before replacements held their partner); Dec 4, load 5-20 (seven
# other sessions), 0 of 10, every rerun inconclusive (exit 3): the
# generator gate voided 19-28 of each rerun's 26-32 windows (the host
# left the generator 7-28 ms late at p99, median per rerun, against its
# 5 ms limit), leaving 0-3 valid pairs at a rate. Dec 4 12:07, quiet (load
# 0.1-0.4): 3 of 3, 51 s a rerun. Dec 4 12:38, the generator SCHED_FIFO,
# load 1.9-5.5: 8 of 10 (0-1 window rejected a rerun; the 2 inconclusive
# had a base window a VM stall inflated to p99 9-12 ms). Dec 4 12:55,
# requests the host held back void too, load 4.3-9.2: 6 of 10, 54 s a
# rerun; each inconclusive one had a window whose implementation was slow
# with the generator on time (service p99 50-146 ms against ~3): one pair
# against leaves p >= 0.09 (docs/STATISTICS.md "Pooled evidence").
# Dec 4 16:07-16:18 (binary 98e89fc; beside a `make test` of a clean
# clone, nice 10, and the lead's four until_decided series; load after
# each run 7.5, 8.1, 9.8, 10.9, 10.6, 14.2, 12.4, 7.2, 5.4, 15.6): 8 of
# 10, 57 s a rerun + compare; every rerun exit 0 (it measures, compare
# judges), compare 1, 1, 3, 1, 1, 3, 1, 1, 1, 1; latency +93..+204 %
# where called, p 0.016 -> 0.031 (all 6 pairs up). 0 of 120 windows
# rejected (schedule lag p99 median 0.03-0.46 ms a rerun). Both misses
# are a base window the host slowed with the generator on time, all 12
# windows accepted: run 3 a@base p99 19.0 ms against a's 12.0 at 200 req/s
# (p 0.094 -> 0.19), run 6 a@base 67.6 ms (service p99 67.6 ms, its
# threads' CPU wait 45 ms in the 3 s) against 8.5 at 400 (p 0.19 -> 0.38).
# Six pairs leave no room for one contrary pair at Holm's first 0.02
# (2/64 = 0.031 even at the smallest rank); the acceptance's 10 of 10
# beside other work is not met.
# Dec 4 18:21-18:33 (main 17d63db, before host_held; beside a `make test`
# of main at nice 10 and the lead's until_decided series, load 3.5-20):
# 8 of 10 again. Run 8's two @base windows at 400 req/s read p99 16.2 and
# 16.4 ms against 3-5 with the generator on time; their threads waited
# 495-753 ms for a CPU other work had. gates/host_held.c (8e6e3ad,
# 54d8f8c; docs/DESIGN.md "Host-held windows") voids a window whose
# threads the host held (their run-queue wait in the share of the CPU that
# went to work outside the arm and the harness) beyond the percentile's
# floor and 3 x the arm's usual, the host's share of that wait over a
# half. Binary 54d8f8c, beside a `make test` (nice 10, suite lock),
# compare_branches.sh and the lead's series:
# - 19:36-19:46, load after each run 5.8, 4.9, 4.2, 3.9, 3.1, 4.8, 5.3,
#   6.9, 5.4, 11.2: 9 of 10, 56 s a rerun + compare; 4 of 126 windows
#   voided by host_held (0-2 a rerun). The miss (run 7): a host burst over
#   four windows at 400 req/s: @base's (p99 7.1 ms, held 415 ms) and the
#   branch's (20.3 ms, 711 ms) voided, @base's replacement (11.3 ms
#   against 2.6-4.5, held 456 ms) within 3 x its usual (170 ms): one
#   contrary pair of six, p 0.047 -> 0.094.
# - 19:46-19:58, load 3.4-8.9: 9 of 10, 62 s; 7 of 136 windows voided by
#   host_held, 1 by the generator gate. The miss (run 8): two windows of
#   one cell void (the branch's, generator 41.7 ms late; @base's, p99 35.9
#   ms, held 1080 ms against an usual of 136) and one replacement block:
#   5 pairs, p 0.031 -> 0.062.
# So 18 of 20; without host_held 8 of 10 here. The acceptance's 10 of 10
# beside other work is still not met: a host burst longer than a window
# pair, and a cell that loses two pairs, each leave fewer than six
# agreeing pairs.
# Dec 4 23:15-23:23 (main 32abab9, the 1 s warm-up; an idle host, load
# 0.02-0.22: nothing else ran): 10 of 10, 51 s a rerun + compare; latency
# +210..+227 %, all 6 pairs up in each (p 0.016 -> 0.031); 120 of 120
# windows accepted (0 host_held, 0 generator). Not yet re-measured beside
# a suite with host_held: 18 of 20 at load 3-11 (above).
# Dec 5 01:48-01:58 (binary 48a6ccc), beside two clean-clone CIs for
# their first 8 minutes, load at the runs' ends 0.4-14.3: 9 of 10. The
# miss ended at load 14.3 (both CIs installing and building): host_held
# voided 4 of its 16 windows and left 5 pairs, p 0.031 -> 0.062 for
# +217 % [+197, +239]; 138 windows in all, 126 accepted, 13 host_held, 1
# generator. At 5 pairs (or one contrary pair of 6) no exact test reaches
# Holm's first 0.02: 10 of 10 beside other work needs six clean pairs a
# cell within the replacement budget.
# Dec 5 03:12-03:23 (binary 29a7aa4: a rerun's replacement rounds give back
# every pair lost, X and X@base void in different blocks replaced in two
# rounds, each beside its partner), beside two clean-clone CIs for the
# whole series, load at the runs' ends 4.7-16.4: 8 of 10, 65 s a rerun +
# compare; latency +113..+227 % where called, all 6 pairs up. Run 2 (at
# 400 req/s a's two windows voided by host_held, then @base's partner in
# the first replacement round: three rounds gave the three pairs back)
# missed on one contrary pair at 200 req/s: @base p99 11.21 ms against
# its 6.0-6.65 (its threads' CPU wait 1 ms; held 0.22 s, under 3 x its
# usual 0.11, so valid) and the branch's 10.16: p 0.047 -> 0.094. Run 9
# (7 pairs) read +39 % [-19, +139], p 0.17: the host's noise on a 2 ms
# server's p99 (3-11 ms at this load) as large as the +5 ms. Not kept
# (KEEP unset). Beside two suites so, 6 pairs leave no room: s37 9 of 10,
# this series 8 of 10.
# Dec 5 05:27-05:37 (binary f58f672), beside ONE clean-clone CI (ci16) for
# the whole series, load at the runs' ends 1.1-6.2: 10 of 10, 56 s a rerun
# + compare; latency +142..+203 %, all 6 pairs up in each (p 0.016 ->
# 0.031). 132 windows, 125 accepted, 7 voided by host_held, 0 by the
# generator gate; run 2 lost 4 windows to host_held and its replacement
# rounds gave all 6 pairs back (18 windows).
. "$(dirname "$0")/../lib.sh"

N=${PR_RUNS:-10}
NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
chmod 755 "$T"   # the sandbox user must reach its checkout under $T
RUNS=$T/runs
REPO=$T/svc
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }

mkdir -p "$REPO"
cp "$ROOT/tests/helpers/testsrv.c" "$REPO/srv.c"
printf '#!/bin/sh\nexec cc -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o srv srv.c\n' >"$REPO/build.sh"
printf '#!/bin/sh\nexec ./srv --port "$1" $(cat flags)\n' >"$REPO/run.sh"
echo "--delay-ms 2" >"$REPO/flags"
git init -q -b main "$REPO"
g add -A && g commit -qm main
g checkout -q -b slow5 && echo "--delay-ms 7" >"$REPO/flags" &&
	g commit -qam "5 ms more a request" && g checkout -q main

cat >"$T/spec.yaml" <<YAML
version: 1
name: pr-recipe
seed: 24
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - name: a
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
workload:
  requests:
    - { name: echo, path: /echo, method: POST, body: "hi" }
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 400, reps: 3, window_s: 3 }
gates:
  stationarity: { min_points: 3 }
warmup:
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 2
  trailing_s: 1
  gates: []
  head_gates: []
YAML

"$HARNESS" check -q "$T/spec.yaml" || { fail "check refuses the spec"; exit 0; }
# The baseline: a host so loaded that every window is void (the generator
# gate) measures nothing (exit 1); up to UD_BASE_TRIES (3) runs, each said.
for try in $(seq 1 "${UD_BASE_TRIES:-3}"); do
	rm -rf "$RUNS/base"
	$NICE "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base \
		>"$T/base.out" 2>"$T/base.err"
	rc=$?
	echo "# baseline try $try: exit $rc, load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'run quality' "$T/base.err" | cut -c1-200)"
	[ $rc -eq 0 ] && break
done
[ $rc -eq 0 ] && ok "baseline run" ||
	{ fail "baseline run (rc $rc): $(tail -n 3 "$T/base.err")"; exit 0; }
"$HARNESS" check "$T/spec.yaml" --base base --runs-dir "$RUNS" 2>/dev/null |
	grep -E "pairs a metric|needs [0-9]+ pairs|could call" | sed 's/^/# check: /'

reg=0 t0=$(date +%s)
for i in $(seq 1 "$N"); do
	$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id "slow$i" --with-baseline \
		--impl "a=file://$REPO#slow5" >"$T/slow$i.out" 2>"$T/slow$i.err"
	rrc=$?
	"$HARNESS" compare base "slow$i" --runs-dir "$RUNS" --format json >"$T/slow$i.json" \
		2>"$T/slow$i.cerr"
	rc=$?
	[ $rc -eq 1 ] && reg=$((reg + 1))
	echo "# run $i (load $(cut -d' ' -f1-3 /proc/loadavg)): rerun exit $rrc, compare exit $rc: $(jq -r '.impls[] | select(.name=="a") |
		.verdict + " (decided by " + (.decided_by // "-") + "): " + .why' \
		"$T/slow$i.json" 2>/dev/null | cut -c1-400)"
	echo "#   pooled: $(jq -c '[.impls[] | select(.name=="a") | .pooled[]? |
		{metric, verdict, pairs, shift_pct: (.shift_pct|floor), p_rise, p_rise_adjusted}]' \
		"$T/slow$i.json" 2>/dev/null)"
	# (reasons is NULL on an accepted window: coalesce, or the sum and
	# with it the whole line is NULL)
	echo "#   windows: $(sqlite3 "$RUNS/slow$i/run.db" "SELECT count(*) || ' windows, ' ||
		coalesce(sum(status = 'accepted'), 0) || ' accepted, ' ||
		coalesce(sum(coalesce(reasons, '') LIKE '%generator%'), 0) ||
		' rejected by the generator gate, ' ||
		coalesce(sum(coalesce(reasons, '') LIKE '%host_held%'), 0) ||
		' by host_held (schedule lag p99 median ' ||
		coalesce((SELECT round(sched_lag_p99_ms, 2) FROM windows WHERE state = 'done'
			ORDER BY sched_lag_p99_ms LIMIT 1 OFFSET
			(SELECT count(*) / 2 FROM windows WHERE state = 'done')), '-') ||
		' ms, max ' || coalesce(round(max(sched_lag_p99_ms), 2), '-') || ' ms)'
		FROM windows WHERE state = 'done'")"
done
echo "# +5 ms a request: $reg of $N regressions, $(( ($(date +%s) - t0) / N )) s per rerun + compare"
[ "$reg" -eq "$N" ] && ok "+5 ms a request is a regression in $reg of $N runs" ||
	fail "+5 ms a request is a regression in only $reg of $N runs"
[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
