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
CB_RECIPE=1
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/compare_repo.inc"

MAXMIN=${CB_MAX_MINUTES:-8}
load() { cut -d' ' -f1-3 /proc/loadavg; }

rerun slow slow "1" --until-decided --max-minutes "$MAXMIN"
echo "# slow: $(grep 'sequential a: [a-z]* (' "$T/slow.err" | tail -n 1 | cut -c1-300); load $(load)"
verdict slow 1 "^regression: .*(knee: new crosses|failed [0-9]+ of|latency \+|sequential \(decided)"

rerun comment comment "0" --until-decided --max-minutes "$MAXMIN"
echo "# comment: $(grep 'sequential a: [a-z]* (' "$T/comment.err" | tail -n 1 | cut -c1-300); load $(load)"
verdict comment 0 "^no change: sequential \(decided"

[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
