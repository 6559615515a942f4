#!/usr/bin/env bash
# harness rerun --until-decided (issue 24, item 3): paired blocks after the
# pre-registered ones until Robbins' normal-mixture confidence sequence of
# every metric decides (docs/STATISTICS.md "Sequential rerun"). With
# --max-minutes 10, per branch of a small service, UD_RUNS (10) reruns:
#   comment  main + a comment:      "no change" (exit 0) in >= 8, regression in 0
#   cpu25    +25 % CPU per request (--burn-us 200 -> 260, about +25 % of
#            the ~240 us a request costs), latency within the margin:
#            regression (exit 1) in >= 8
#   half     half the service time (--delay-ms 2 -> 1): improvement (exit 0)
#            in >= 8
# and UD_SAME (20) reruns of main itself (identical commits): regression or
# improvement in at most 1. Each rerun's exit is checked against `harness
# compare`'s (which judges a sequential run by its sequence, method
# confidence_sequence); the median time to a decision is printed per
# branch. UD_BRANCHES picks the branches (default all: comment cpu25 half
# same); UD_RUNS_<branch> (e.g. UD_RUNS_half=10) one branch's count. UD_METHOD and UD_MARGIN_MS (unset: the defaults) set
# compare.sequential.method and compare.margin_ms; UD_LOG, a file each
# rerun's line is appended to as it ends (the runs are in $T until the end).
#
# Sizing: the README's recipe exactly as tests/slow/pr_recipe.sh runs it
# (one implementation, testsrv.c in a git repository made here, ladder
# 200 -> 400 req/s, reps 3, 3 s windows, the SLO on p99, the default
# window gates, generator lateness and compare settings; only the warm-up
# is short, and the stationarity gate judges from 3 points as `check`
# asks of a 3 s window), main at --delay-ms 2 --burn-us 200: 2 ms of
# waiting and 200 us of CPU a request, like a small service calling a
# database. A block (NEW and @base) costs ~10 s, a round (both rates)
# ~20 s; the pre-registered part 12 windows.
# The runs go round-robin over the branches (run i of each, then i + 1),
# so a series cut short by its time still has every branch; each run's
# line states the host's load average (uptime) when it ended.
# Measured Dec 4 at these settings, load 6-18 beside seven other sessions:
# 6 runs (comment, cpu25, half, same, comment, cpu25), none decided within
# 10 minutes (0-11 rounds; the generator gate voided most windows), none
# wrong, rerun's exit = compare's (3) in each (docs/STATISTICS.md
# "Sequential rerun"). Earlier (Dec 3, SLO p90, 2 s windows, generator
# lateness 5 ms, load 1.3-6.3): 16 of 16 decided as expected.
# Dec 4 13:07-13:59, the generator SCHED_FIFO and host-held requests void
# (03efb23), UD_RUNS=2 UD_SAME=1, load 5-18: +25% CPU a regression in 2
# of 2 (53, 54 s, 3 rounds); comment only 2, half 2, identical 1 all
# inconclusive at 10 minutes (30-33 rounds; CPU "no change" in each;
# latency undecided, MDE 47-78%; half 2 at -29.5% [-39.7, -17.6] against
# an edge of -20.6%); none wrong; the generator gate rejected 1-6 of
# 134-142 windows a run. What holds p99 now is the implementation's own
# stalls on the loaded host (window p99 2-726 ms for a ~3 ms service).
# Dec 4 21:29-23:15 (binary 199046f: host_held, median_cs's guard on a
# rise of NEW's tail; one stream, beside three helper sessions' builds
# and single e2e scripts at nice 19, one `make test` at the end; load
# 0.1-6.4 at the runs' ends), 31 runs in round-robin order:
#   comment  no change 8 of 8, regression 0; 84-487 s, median 240 s
#   cpu25    regression 8 of 8; 51-93 s, median 52 s (CPU +17..+25 %)
#   half     improvement 6 of 8, inconclusive 2 (10 minutes: -27..-30 %
#            [-38, -11] against an edge of -17 %: the half branch's p99
#            shift, ~0.9 ms, is little more than the 0.75 ms floor, and
#            34 % of its pairs fall inside the margin); decided in
#            84-312 s, median 144 s
#   same     no change 7 of 7 (0 regression or improvement); 135-327 s,
#            median 185 s
# rerun's exit = compare's in all 31. An offline replay of these and
# the stored earlier runs (15 identical/comment, 6 half; the lead's
# session log) found no rule with the median as its target that decides
# the half branch more often (smoothed p99s: the pairs' spread is between
# windows, IQR 0.35 of log ratio, not the 6th-slowest request's noise).
# Dec 5 00:25-01:31 (binary 48a6ccc: a shift is called when the sequence
# excludes 0 in its direction and the estimate is beyond the margin, the
# fixed-n cells' rule; no change unchanged), one stream, UD_BRANCHES="half
# same comment cpu25" UD_RUNS=2 UD_RUNS_half=10 UD_SAME=13, beside three
# helper sessions' builds and single e2e scripts at nice 19 (load at the
# runs' ends 0.07-2.3), 27 runs:
#   half     improvement 10 of 10; 83-235 s, median 126 s (-19..-45 %)
#   same     no change 13 of 13 (0 regression or improvement); 83-267 s,
#            median 150 s
#   comment  no change 2 of 2; 167, 294 s
#   cpu25    regression 2 of 2; 67, 84 s (3-4 rounds)
# rerun's exit = compare's in all 27. The Dec 4 series replayed exactly
# under this rule (a rule that calls whatever the old one called decides
# no later on the same data; docs/STATISTICS.md "Measured: what the rule
# does"): comment 8 of 8 no change, cpu25 8 of 8, half 8 of 8 (was 6),
# same 7 of 7, no call changed otherwise. Together: comment-only no
# change 10 of 10, +25 % CPU regression 10 of 10, identical commits 20 of
# 20 no change (0 called).
. "$(dirname "$0")/../lib.sh"

NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
chmod 755 "$T"
RUNS=$T/runs
REPO=$T/svc
N=${UD_RUNS:-10}
NSAME=${UD_SAME:-20}
BRANCHES=${UD_BRANCHES:-comment cpu25 half same}
MAXMIN=${UD_MAX_MINUTES:-10}
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }

mkdir -p "$REPO"
cp "$ROOT/tests/helpers/testsrv.c" "$REPO/srv.c"
cat >"$REPO/build.sh" <<'SH'
#!/bin/sh
exec cc -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o srv srv.c
SH
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
exec ./srv --port "$1" $(cat flags)
SH
echo "--delay-ms 2 --burn-us 200" >"$REPO/flags"
git init -q -b main "$REPO"
g add -A && g commit -qm main
g checkout -q -b comment && sed -i '1s|^|/* a comment-only change */\n|' "$REPO/srv.c" &&
	g commit -qam "comment only" && g checkout -q main
g checkout -q -b cpu25 && echo "--delay-ms 2 --burn-us 260" >"$REPO/flags" &&
	g commit -qam "+25% CPU a request" && g checkout -q main
g checkout -q -b half && echo "--delay-ms 1 --burn-us 200" >"$REPO/flags" &&
	g commit -qam "half the service time" && g checkout -q main

METHOD_LINE=
COMPARE=
[ -n "${UD_METHOD:-}" ] && COMPARE="sequential: { method: $UD_METHOD }"
[ -n "${UD_MARGIN_MS:-}" ] && COMPARE="$COMPARE${COMPARE:+, }margin_ms: $UD_MARGIN_MS"
[ -n "$COMPARE" ] && METHOD_LINE="compare: { $COMPARE }"
cat >"$T/spec.yaml" <<YAML
version: 1
name: until-decided
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
$METHOD_LINE
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

# one ID REF: a rerun until decided and compare's reading of it; prints
# "verdict exit seconds" and checks the two agree.
one() {
	local t0=$(date +%s.%N) rc crc v t
	$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id "$1" --with-baseline \
		--until-decided --max-minutes "$MAXMIN" --impl "a=file://$REPO#$2" \
		>"$T/$1.out" 2>"$T/$1.err"
	rc=$?
	t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
	"$HARNESS" compare base "$1" --runs-dir "$RUNS" --format json >"$T/$1.json" 2>"$T/$1.cerr"
	crc=$?
	v=$(jq -r '.impls[] | select(.name=="a") | .verdict' "$T/$1.json" 2>/dev/null)
	echo "# $1: rerun exit $rc, compare exit $crc ($v), ${t} s, load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'sequential a: [a-z]' "$T/$1.err" | tail -n 1 | cut -c1-400)"
	[ -n "${UD_LOG:-}" ] && echo "$(date -u +%T) $1: $v rerun $rc compare $crc ${t} s load $(cut -d' ' -f1-3 /proc/loadavg): $(grep 'sequential a: [a-z]' "$T/$1.err" | tail -n 1 | cut -c1-400)" >>"$UD_LOG"
	[ "$rc" = "$crc" ] || fail "$1: rerun exit $rc but compare exit $crc ($v)"
	echo "$v $crc $t" >>"$T/tally.$2"
}

# tally BRANCH VERDICT_REGEX MIN: how many of the runs had that verdict
count() { grep -Ec "^($2) " "$T/tally.$1" || true; }
median_t() { awk '{ print $NF }' "$T/tally.$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

ref_of() { [ "$1" = same ] && echo main || echo "$1"; }
# UD_RUNS_<branch> (e.g. UD_RUNS_half=10) overrides a branch's count
runs_of() { local v="UD_RUNS_$1"; [ -n "${!v:-}" ] && echo "${!v}" && return; [ "$1" = same ] && echo "$NSAME" || echo "$N"; }
max=0; for b in $BRANCHES; do [ "$(runs_of "$b")" -gt "$max" ] && max=$(runs_of "$b"); done
for b in $BRANCHES; do : >"$T/tally.$(ref_of "$b")"; done
for i in $(seq 1 "$max"); do
	for b in $BRANCHES; do
		[ "$i" -le "$(runs_of "$b")" ] && one "$b$i" "$(ref_of "$b")"
	done
done
for b in $BRANCHES; do
	ref=$(ref_of "$b"); n=$(wc -l <"$T/tally.$ref")
	echo "# $b: $(awk '{ print $1 " " $2 }' "$T/tally.$ref" | sort | uniq -c | tr '\n' ';') median $(median_t "$ref") s (of $n)"
	case $b in
	comment)
		cmp_num "comment-only: no change (exit 0) in >= 8 of 10 (here of $n)" "$(count comment 'no change')" ">=" $((n * 8 / 10))
		cmp_num "comment-only: regression in 0" "$(count comment 'regression')" "==" 0 ;;
	cpu25)
		cmp_num "+25% CPU: regression in >= 8 of 10 (here of $n)" "$(count cpu25 'regression')" ">=" $((n * 8 / 10)) ;;
	half)
		cmp_num "half the service time: improvement (exit 0) in >= 8 of 10 (here of $n)" \
			"$(grep -Ec '^improvement 0 ' "$T/tally.half" || true)" ">=" $((n * 8 / 10)) ;;
	same)
		cmp_num "identical commits: regression or improvement in <= 1 of 20 (here of $n)" \
			"$(count main 'regression|improvement')" "<=" $(( (n + 19) / 20 )) ;;
	esac
done
[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
