#!/usr/bin/env bash
# The templates' real runs (issue 29's acceptance): specs/templates/quick.yaml
# as shipped but for its implementation (testsrv, 1 ms a request), timed
# from `run` to the report; then specs/templates/pull-request.yaml the way
# its header says: a baseline run on main, and `rerun --with-baseline
# --until-decided` of a comment-only branch, then `compare`: a decision
# (exit 0 no change, or 1) within 10 minutes, never inconclusive. Both
# wall times are printed (the README quotes none: they are this host's).
# tests/e2e/templates.sh checks and runs all three cut to seconds.
# The PR branch's server: testsrv at --delay-ms 2 --burn-us 200, 2 ms of
# waiting and ~250 us of CPU a request (as tests/slow/until_decided.sh).
# Without --burn-us its ~45 us a request, nearly all kernel time in the
# socket calls, varied 7-9 % per pair of windows (5 s and 10 s windows
# alike, 400-1600 req/s), so CPU per request's 5 % margin was never
# decided in 10 minutes; with it ~2 %.
# Measured Dec 4 beside the lead's until_decided series (load = uptime's
# 1-minute average at start and end of the rerun):
#  - 15:21, old template (2 rates x 3, mean_cs, max_minutes 8), no burn:
#    rerun + compare 475 s, inconclusive, 19 rounds, CPU undecided (+2.8 %,
#    MDE +12.2 %); latency "no change"; load 6.6 -> 8.9
#  - 15:44, 2 rates, median_cs, max_minutes 9, burn: 534 s inconclusive,
#    21 rounds: CPU "no change" at round 5, then one @base window whose
#    CPU accounting covered 1.23 s of its 4 s (the coordinator held back:
#    84 us a request against 257) widened CPU's mean sequence to +-20 %;
#    latency [-28.2 %, +22.4 %] against -18.8 %/+23.1 %; load 5.4 -> 15
#  - 15:57, the same: 529 s inconclusive, 21 rounds, CPU "no change",
#    latency undecided (MDE +61 %); quick 86 s; load 12.2 -> 6.1
#  - 16:08, the shipped template (1 rate x 6, median_cs, max_minutes 9):
#    quick 86 s (12/12 accepted), baseline 37 s, rerun + compare 422 s:
#    "no change" (exit 0) after 33 rounds, latency +7.2 % [-13.9, +20.7]
#    margin -18.4 %/+22.6 %, CPU +1.3 % [-1.9, +4.6]; load 13 -> 15
#  - 16:25, the same: quick 86 s, baseline 37 s, rerun + compare 547 s,
#    inconclusive: latency "no change" (+4.4 % [-7.7, +12.0]), CPU
#    undecided (+2.0 % [-1.9, +6.0], MDE +10.9 %, 41 rounds): 5 of 84
#    windows' CPU accounting covered 2.85-3.6 s of their 4 s (pair log
#    ratios to +-0.33 where the rest spread +-0.03); load 2.1 -> 18
#  - 16:42: baseline 37 s, rerun + compare 159 s, "no change" (exit 0)
#    after 13 rounds, latency +0.0 % [-10.4, +6.1], CPU +0.1 % [-1.9,
#    +2.1]; load 7.3 -> 1.5. Its quick run exited 2 at once (its stderr
#    went with $T; rerun by hand at 16:49 it ran, 86 s, 12/12): a failing
#    run's stderr tail is now printed.
# The PR template's decision within 10 minutes therefore rests on the
# runner: until a window's CPU accounting covers its measured seconds
# however late the load's coordinator runs, a loaded host can leave CPU
# per request undecided.
. "$(dirname "$0")/../lib.sh"

NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
chmod 755 "$T"   # the sandbox user must reach its checkout under $T
RUNS=$T/runs
REPO=$T/svc
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }'; }

# Dec 5 01:31-01:48 (binary 48a6ccc), three runs on a light host (load
# 0.05-0.3): quick 86, 86, 86 s (12/12 accepted); baseline 37 s each;
# rerun + compare "no change" in 110, 135 and 269 s (9, 11, 22 rounds).
# ------------------------------------------------------------ quick
printf '#!/bin/sh\nexec "%s" --delay-ms 1 "$@"\n' "$HELPERS/testsrv" >"$T/srv1"
chmod +x "$T/srv1"
python3 "$ROOT/tests/helpers/template_fill.py" "$ROOT/specs/templates/quick.yaml" "$T/quick.yaml" "$T/srv1"
t0=$(date +%s.%N)
$NICE "$HARNESS" run "$T/quick.yaml" --allow-dirty --runs-dir "$RUNS" --run-id quick \
	>"$T/quick.out" 2>"$T/quick.err"
rc=$?
tq=$(secs "$t0")
echo "# quick.yaml: run exit $rc in $tq s: $(grep -E 'knee|finished:' "$T/quick.err" | tail -n 2 | tr '\n' ' ')"
[ "$rc" = 0 ] || tail -n 3 "$T/quick.err" | sed 's/^/#   /'
cmp_num "quick.yaml runs (exit 0)" "$rc" == 0
cmp_num "quick.yaml: run to report in under 5 minutes ($tq s)" "$tq" "<" 300

# ----------------------------------------------------- pull-request
mkdir -p "$REPO"
cp "$ROOT/tests/helpers/testsrv.c" "$REPO/srv.c"
printf '#!/bin/sh\nexec cc -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o srv srv.c\n' >"$REPO/build.sh"
printf '#!/bin/sh\nexec ./srv --port "$1" --delay-ms 2 --burn-us 200\n' >"$REPO/run.sh"
git init -q -b main "$REPO"
g add -A && g commit -qm main
g checkout -q -b comment && sed -i '1s|^|/* a comment-only change */\n|' "$REPO/srv.c" &&
	g commit -qam "comment only" && g checkout -q main
python3 "$ROOT/tests/helpers/template_fill.py" "$ROOT/specs/templates/pull-request.yaml" \
	"$T/pr.yaml" "$HELPERS/testsrv" --repo "$REPO"
t0=$(date +%s.%N)
$NICE "$HARNESS" run "$T/pr.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base \
	>"$T/base.out" 2>"$T/base.err"
rc=$?
tb=$(secs "$t0")
echo "# pull-request.yaml baseline: exit $rc in $tb s"
[ "$rc" = 0 ] || tail -n 3 "$T/base.err" | sed 's/^/#   /'
cmp_num "pull-request.yaml: the baseline runs" "$rc" == 0
t0=$(date +%s.%N)
$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id pr --with-baseline --until-decided \
	--impl "mine=file://$REPO#comment" >"$T/pr.out" 2>"$T/pr.err"
rrc=$?
"$HARNESS" compare base pr --runs-dir "$RUNS" --format json >"$T/pr.json" 2>"$T/pr.cerr"
crc=$?
tr=$(secs "$t0")
v=$(jq -r '.impls[] | select(.name=="mine") | .verdict' "$T/pr.json" 2>/dev/null)
echo "# pull-request.yaml rerun --until-decided + compare: rerun exit $rrc, compare exit $crc ($v) in $tr s"
echo "#   $(grep 'sequential mine: [a-z]' "$T/pr.err" | tail -n 1 | cut -c1-300)"
check "pull-request.yaml: a decision, not inconclusive (compare exit $crc: $v)" test "$crc" = 0 -o "$crc" = 1
cmp_num "pull-request.yaml: rerun and compare within 10 minutes ($tr s)" "$tr" "<" 600
check "rerun's exit is compare's" test "$rrc" = "$crc"
[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
