#!/bin/bash
# check-all: latency verdicts of the README's pull-request recipe over two reruns --until-decided (minutes); rerun.sh has the same subject in make test (+5 ms: a p99 regression; a comment-only branch: no change), and compare_fail.sh this service's failure verdicts
# release-only: reruns and comparisons for latency verdicts; rerun.sh and compare.sh drive the same code under the sanitizers
# compare's latency verdicts (issue 11's and issue 24's acceptance): the
# README's pull-request recipe, run as written (compare_repo.inc, CB_RECIPE:
# ladder 200 -> 400 req/s, 3 blocks, 3 s windows, the SLO on p99, every
# gate, margin and alpha at its default), on branches of a small service,
# each re-run in a fresh run with --with-baseline --until-decided: the 20x
# slower branch (+19 ms a request on ~1 ms) is a regression (exit 1) with
# the right reason; the comment-only branch is "no change" (exit 0) by the
# sequence. No second attempt: a rerun the host's noise leaves undecided
# within its budget answers inconclusive (exit 3), and that is a failure
# here (tests/slow/until_decided.sh has the rates over many reruns).
# compare_fail.sh has the branches that crash, do not build, answer wrong
# or fail on errors.
# Measured Dec 4 (issue 24's "5 runs of 5 beside a second test suite"),
# each run beside a full `make test` (a clean clone's, nice 10, or
# another session's) and the lead's until_decided
# series (two, then four): nothing loosened (above: margins, alpha, gates,
# the method at their defaults, mean_cs; no second attempt).
# - binary 7930468 (margin_ms 1), 15:35-15:54, load 2.9-10.7: 0 of 2. The
#   20x slower branch a regression after 3 rounds both times (+954 %,
#   +929 %); comment-only inconclusive at 8 minutes both times: 26 rounds,
#   -13.7 % [-36.2 %, +16.7 %] against -34.4/+52.5 %; 28 rounds, -4.9 %
#   [-30.8 %, +30.7 %] against -27.9/+38.7 %.
# - binary 98e89fc (margin_ms 0.75), 16:18-16:46, load after each run
#   3.9, 2.9, 2.9, 7.9, 5.4 (11.3 in a progress line): 4 of 5. 20x slower a
#   regression after 3-4 rounds (50-116 s; +604 .. +1353 %); comment-only
#   "no change" after 3, 24, 7 and 3 rounds (2-8 min a script run);
#   run 4 inconclusive at 8 minutes: 19 rounds, +23.9 % [-15.2 %, +81.1 %]
#   against -26.2/+35.6 %, 14 of 100 windows rejected by the generator
#   gate (load 12). Its windows judged by median_cs (the stored rule's
#   method changed in a copy, then compare): also undecided (+12.8 %
#   [-15.9 %, +51.8 %]); run 2's, which mean_cs called "no change" after
#   24 rounds: median_cs's guard held it (merged-histogram p99 +45.1 %
#   against +-42.6 %).
# So 4 of 7 runs passed, not 5 of 5. The suites beside: 2261 passed, 3
# failed (refine.sh, one wrk reading of 367 req/s, since read as the best
# of two); 2275 passed, 0 failed; 2269 passed, 6 failed (test_rtstats
# poller_modes: 2 polls of a hanging endpoint in 0.65 s; capacity.sh and
# refine.sh: wrk at nice 10 read 435 and 105 req/s of 583 and 875).
# - binary 54d8f8c (host_held, gates/host_held.c), Dec 4 19:36-20:02,
#   beside a `make test` of main (nice 10, suite lock; it ended 19:56:
#   2295 passed, 4 failed), tests/slow/pr_recipe.sh and the lead's
#   series, load 5.0-8.6: 1 of 3. 20x slower a regression after 4 rounds
#   every time (+703 .. +968 %); comment-only "no change" after 16 rounds
#   in run 1, then inconclusive at 8 minutes twice: 22 rounds, -1.0 %
#   [-16.9 %, +28.6 %] against -20.9/+26.4 % (110 windows, 12 rejected,
#   8 of them by host_held, 4 cells a window short); 26 rounds, -10.2 %
#   [-24.8 %, +10.1 %] against -20.1/+25.2 % (4 rejected, 3 by
#   host_held). The void windows are few; what misses is the sequence's
#   width at 8 minutes on this host, not a window it judged. Run 4
#   (20:02-20:10, beside the lead's series only, the suite over; load
#   3.7-7.5): passed, comment-only "no change" after 17 rounds. 2 of 4,
#   not 5 of 5.
# - Dec 5 02:07-02:35 (binary 132b969 + the 10-minute budget, the direction
#   rule 48a6ccc), beside pairs of clean-clone CIs (runs 1 and 4 the whole
#   time, runs 2, 3 and 5 for 2.5, 5.5 and 0.8 minutes; load up to 20):
#   5 of 5. 20x slower a regression after 4 rounds each (74-123 s, +1022
#   .. +1450 %); comment-only "no change" after 10, 4, 21, 17 and 4 rounds.
# - Dec 5 03:46-04:25 (binary a7fdc34, the pair-giving replacement rounds
#   29a7aa4), every run beside two clean-clone CIs started together (and
#   run 1 beside two helper sessions' builds too; load at the runs' ends
#   20.2, 4.1, 3.9, 4.2, 3.2): 3 of 5. 20x slower a regression after 4
#   rounds in all 5 (91-92 s in runs 1 and 3; +737 .. +1089 %).
#   Comment-only "no change" after 6, 11 and 13 rounds in runs 2, 4, 5; in
#   runs 1 and 3 inconclusive at the budget (31 rounds, 594 s): run 1's
#   sequence +2.7 % [-18.8, +29.1] against the margin's +25.9 % (13 of 146
#   windows voided by host_held); run 3's [-13.3, +16.2] inside it, but
#   the guard held "no change": the merged histograms' p99 (each arm's
#   worst window set aside) +43.5 % against +29.9 %, as when two or more
#   of NEW's windows and fewer of BASE's were slowed by the host. So the
#   guard, robust to one stalled window an arm, is the next thing to make
#   robust to a few (docs/STATISTICS.md "median_cs").
# - Dec 5 04:37-05:01 (binary b124928), each run beside ONE clean-clone CI
#   (ci11, then ci12) for its whole length, the acceptance's condition;
#   load at the runs' ends 0.8-2.4: 5 of 5. 20x slower a regression after
#   4 rounds (66-90 s, +643 .. +1248 %); comment-only "no change" after 11,
#   11, 8, 6 and 10 rounds; 3.6-5.2 minutes a run, both reruns.
CB_RECIPE=1
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/compare_repo.inc"

# The budget: issue 24's for a sequential rerun (--max-minutes 10); 8
# minutes until Dec 5, when 2 of 4 runs beside a suite ran out of it.
MAXMIN=${CB_MAX_MINUTES:-10}
load() { cut -d' ' -f1-3 /proc/loadavg; }

rerun slow slow "1" --until-decided --max-minutes "$MAXMIN"
echo "# slow: $(grep 'sequential a: [a-z ]* (' "$T/slow.err" | tail -n 1 | cut -c1-300); load $(load)"
verdict slow 1 "^regression: .*(knee: new crosses|failed [0-9]+ of|latency \+|sequential \(decided)"

rerun comment comment "0" --until-decided --max-minutes "$MAXMIN"
echo "# comment: $(grep 'sequential a: [a-z ]* (' "$T/comment.err" | tail -n 1 | cut -c1-300); load $(load)"
verdict comment 0 "^no change: sequential \(decided"

[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
