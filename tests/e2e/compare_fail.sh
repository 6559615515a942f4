#!/bin/bash
# timing-free: exit codes and reasons of compare for commits that crash, do not build, answer wrong, fail every window on errors, or could not be measured (counts and states: no latency figure)
# release-only: under make asan rerun_fail.sh, interrupt.sh and oom.sh reach its code but 20 lines (runner_arm.c 5, runner.c 4, cmd_rerun.c 2), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# compare fails closed (issue 11's acceptance): pull-request branches of a
# small service (compare_repo.inc), each re-run in a fresh run with
# --with-baseline, are each a regression (exit 1) with the right reason:
# one crashes at start, one does not build, one answers 404 on the
# benchmarked path (its pre-flight refuses it), one answers 500 to 10% of
# requests (every window fails error_rate); a run that failed before
# measuring (the host could not prepare the sandbox user) exits 3, and 0
# with --inconclusive-ok. compare_branches.sh (make check-all) has the
# latency verdicts of the same service (20x slower, comment only).
. "$(dirname "$0")/../lib.sh"
# The generator gate (a window the host stalled) is left out here: these
# verdicts come from failures and error counts, which a late generator
# does not fake, and a busy host must not turn them into "no answer".
CB_WINDOW_GATES="[error_rate, achieved_vs_offered, sut_alive]"
# The baseline measures nothing (its 6 blocks are each rerun's, against
# a@base there): --stages confirm of a ladder-only spec.
CB_BASE_STAGES=confirm
. "$(dirname "$0")/compare_repo.inc"

rerun crash crash 1
verdict crash 1 "^regression: the new commit never came up healthy"
rerun nobuild nobuild 1
verdict nobuild 1 "^regression: the new commit failed to build"
[ "$(sqlite3 "$RUNS/nobuild/run.db" "SELECT status, failure_kind, failure_impl FROM runs")" = "failed|build|a" ] &&
	ok "the failed build is recorded: failed|build|a" ||
	fail "nobuild run row: $(sqlite3 "$RUNS/nobuild/run.db" "SELECT status, failure_kind, failure_impl FROM runs")"
# A 404 on the benchmarked path: its pre-flight refuses the commit before
# any window (tests/e2e/preflight.sh), which is its answer (exit 1).
rerun notfound notfound 1
verdict notfound 1 "^regression: the new commit answered its pre-flight wrong"
[ "$(sqlite3 "$RUNS/notfound/run.db" "SELECT status, failure_kind, failure_impl, preflight_passed FROM runs")" = "failed|preflight|a|0" ] &&
	ok "the refused commit is recorded: failed|preflight|a|0" ||
	fail "notfound run row: $(sqlite3 "$RUNS/notfound/run.db" "SELECT status, failure_kind, failure_impl, preflight_passed FROM runs")"
rerun err10 err10 "0|1"
verdict err10 1 "^regression: at 500 req/s new failed [0-9]+ of [0-9]+ valid windows \([^)]*error_rate"
# A run that failed before measuring: the host's fault, no answer.
# (Its one window may be rejected, exit 1: it only lends its spec.)
$NICE "$HARNESS" run "$T/spec-nosandbox.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base2 \
	>/dev/null 2>"$T/base2.err"
rc=$?
[ $rc -le 1 ] && [ "$(sqlite3 "$RUNS/base2/run.db" "SELECT status FROM runs")" = finished ] &&
	ok "second baseline (a sandbox user useradd refuses), exit $rc" ||
	fail "base2 (exit $rc): $(tail -n 2 "$T/base2.err")"
expect_exit "rerun that cannot prepare the sandbox user" 3 "$HARNESS" rerun base2 \
	--runs-dir "$RUNS" --run-id nosandbox --with-baseline --impl "a=file://$REPO#comment"
expect_exit "compare: a run that failed before measuring" 3 "$HARNESS" compare base2 nosandbox \
	--runs-dir "$RUNS" --format json --junit "$T/nosandbox.xml"
jq -r '.impls[] | select(.name=="a") | .why' "$T/out" | grep -q "run nosandbox failed (sandbox user" &&
	ok "says why: $(jq -r '.impls[0].why' "$T/out")" || fail "why: $(jq -c .impls "$T/out")"
[ "$(jq -r .new_status "$T/out")" = failed ] && ok "json names the failed run's status" ||
	fail "new_status $(jq -r .new_status "$T/out")"
python3 - "$T/nosandbox.xml" <<'PY' && ok "junit: inconclusive is an error, not skipped" || fail "junit: $(head -c 400 "$T/nosandbox.xml")"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.get("errors") == "1" and r.get("failures") == "0", r.attrib
assert r.find(".//testcase/error") is not None
PY
expect_exit "compare --inconclusive-ok: advisory" 0 "$HARNESS" compare base2 nosandbox \
	--runs-dir "$RUNS" --inconclusive-ok
[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
true
