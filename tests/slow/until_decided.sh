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
# same).
#
# Sizing: one implementation (testsrv.c in a git repository made here:
# --delay-ms 2 --burn-us 200 on main: 2 ms of waiting and 200 us of CPU a
# request, like a small service calling a database), ladder 200 -> 400
# req/s (2 rungs), reps 2, 2 s windows after a warm-up of at most 1 s:
# a block (NEW and @base) costs ~6 s, a round (both rates) ~12 s. The
# pre-registered part is 8 windows (~25 s). The stationarity gate needs
# 10 s windows and is left out; the generator may run 5 ms late (a tenth
# of the 50 ms SLO: latency is timed from the intended send) where its
# default is 1 ms, which this shared host's stalls exceed in most windows. CPU is the slow metric: a
# window's CPU per request spreads by a few % on this host, so "no change"
# within 5 % takes 10-30 rounds. The SLO is on p90, not p99: a window of
# 400-800 requests has its p99 in its 4th-8th slowest, which this shared
# host's stalls (10-50 ms, every few seconds) set: over 22 rounds of a
# comment-only branch at p99 the round statistic spread by ~0.3 in log
# ratio (the sequence still +-40 % wide after 10 minutes), so p99 measures
# the neighbours, not the code.
# Measured (Dec 3, load 1.3-6.3, UD_RUNS 2-3, UD_SAME 8): every run decided
# as expected within 10 minutes; medians: comment 205 s, half 360 s,
# cpu25 97 s, identical 182 s (docs/STATISTICS.md "Sequential rerun").
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

cat >"$T/spec.yaml" <<YAML
version: 1
name: until-decided
seed: 24
slo: { percentile: 90, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
  - name: a
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 5 }
    restart: never
workload:
  connections: 16
  timeout_ms: 2000
  requests:
    - { name: echo, path: /echo, method: POST, body: "hi" }
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 400, reps: 2, window_s: 2, discard_s: 0 }
warmup:
  rate: { fixed_rps: 100 }
  min_s: 0
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  generator: { lateness_p99_ms: 5 }
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
YAML
$NICE "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base \
	>"$T/base.out" 2>"$T/base.err"
rc=$?
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
	echo "# $1: rerun exit $rc, compare exit $crc ($v), ${t} s: $(grep 'sequential a: [a-z]' "$T/$1.err" | tail -n 1 | cut -c1-300)"
	[ "$rc" = "$crc" ] || fail "$1: rerun exit $rc but compare exit $crc ($v)"
	echo "$v $crc $t" >>"$T/tally.$2"
}

# tally BRANCH VERDICT_REGEX MIN: how many of the runs had that verdict
count() { grep -Ec "^($2) " "$T/tally.$1" || true; }
median_t() { awk '{ print $NF }' "$T/tally.$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

for b in $BRANCHES; do
	ref=$b; n=$N
	[ "$b" = same ] && { ref=main; n=$NSAME; }
	: >"$T/tally.$ref"
	for i in $(seq 1 "$n"); do one "$b$i" "$ref"; done
	echo "# $b: $(awk '{ print $1 " " $2 }' "$T/tally.$ref" | sort | uniq -c | tr '\n' ';') median ${n:+$(median_t "$ref")} s"
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
