#!/bin/bash
# release-only: five reruns and comparisons for verdicts; rerun.sh and compare.sh drive the same code under the sanitizers
# compare fails closed (issue 11's acceptance): five pull-request branches
# of a small service, each re-run in a fresh run with --with-baseline, are
# each a regression (exit 1) with the right reason; a comment-only branch
# exits 0; a run that failed before measuring (the host could not prepare
# the sandbox user) exits 3, and 0 with --inconclusive-ok.
#
# The service is tests/helpers/testsrv.c in a git repository made here,
# built by build.sh and started by run.sh with the options in `flags`:
#   main      --delay-ms 1                    (the baseline run)
#   crash     main() aborts at once           (never comes up healthy)
#   nobuild   srv.c does not compile
#   notfound  404 on the benchmarked path /echo (health still 200):
#             refused by its pre-flight
#   err10     --error-pct 10                  (HTTP 500 to 10 %)
#   slow      --delay-ms 20                   (20x slower)
#   comment   main + a comment
. "$(dirname "$0")/../lib.sh"

NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
chmod 755 "$T"   # the sandbox user must reach its checkout under $T
RUNS=$T/runs
REPO=$T/svc
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
echo "--delay-ms 1" >"$REPO/flags"
git init -q -b main "$REPO"
g add -A && g commit -qm main

g checkout -q -b crash
python3 - "$REPO/srv.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("int main(int argc, char **argv)\n{\n", "int main(int argc, char **argv)\n{\n\tabort();\n", 1)
open(p, "w").write(s)
PY
g commit -qam "crash at start" && g checkout -q main
g checkout -q -b nobuild && echo "this is not C;" >>"$REPO/srv.c" &&
	g commit -qam "does not build" && g checkout -q main
g checkout -q -b notfound
python3 - "$REPO/srv.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
a = s.count("int status = 200;"); b = s.count("if (status == 500)\n\t\treturn respond(fd, 500,")
s = s.replace("int status = 200;", 'int status = strcmp(path, "/echo") ? 200 : 404;', 1)
s = s.replace("if (status == 500)\n\t\treturn respond(fd, 500,", "if (status != 200)\n\t\treturn respond(fd, status,", 1)
assert a == 1 and b == 1, (a, b)
open(p, "w").write(s)
PY
g commit -qam "404 on /echo" && g checkout -q main
g checkout -q -b err10 && echo "--delay-ms 1 --error-pct 10" >"$REPO/flags" &&
	g commit -qam "500 to 10%" && g checkout -q main
g checkout -q -b slow && echo "--delay-ms 20" >"$REPO/flags" &&
	g commit -qam "20x slower" && g checkout -q main
g checkout -q -b comment && sed -i '1s|^|/* a comment-only change */\n|' "$REPO/srv.c" &&
	g commit -qam "comment only" && g checkout -q main
[ "$(git -C "$REPO" branch | wc -l)" -eq 7 ] && ok "service repository with 6 branches" ||
	{ fail "branches: $(git -C "$REPO" branch)"; exit 0; }

# Sizing (each window costs ~2 s: 1 s of warm-up, the least there is, and
# 1 s measured): 500 req/s (a window's p99 is its 5th slowest request),
# one rung, 6 blocks of one implementation (a; a rerun adds a@base: 12
# windows, ~30 s). compare needs 3 valid pairs
# at a rate (min_pairs) and, for "no change", 4 accepted pairs at alpha 0.1
# (its 80 % signed-rank interval; at the default 0.05 it takes 5). The
# margin (90 % of a ~1.1 ms median) is far below every regression here
# (+19 ms, or failing windows) and above the paired noise of two
# identical servers. The generator gate rejects windows where the load generator
# itself ran 20 ms behind (a stall of the host, not of the code; a
# shared 2-core VM runs 2-5 ms behind at times, which is noise here). 32
# connections keep even the 20x slower branch (20 ms a request: 1600
# req/s with 32 connections) within the generator's reach, so its windows
# are valid and its latency crosses the 10 ms SLO.
# The SLO (and so compare's latency cells and the knee) is on the median,
# not p99: a 1 s window at 500 req/s has its p99 in its 5th slowest
# request, which one host stall of 30 ms sets in both arms alike. Beside a
# second test suite, 3 of 6 runs of this script came out inconclusive
# on p99 (the comment-only branch three times running, or the 20x slower
# branch's +125% "not confirmed", p 0.31), which is the right answer for
# such data and the wrong data for testing these verdicts. p99's verdicts
# under noise are tested by rerun.sh, compare.sh and tests/slow/holm.sh.
spec() {  # spec USER REPS
	cat <<YAML
version: 1
name: compare-branches
seed: 5
slo: { percentile: 50, threshold_ms: 10, error_rate_max: 0.01 }
implementations:
  - name: a
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 5 }
    restart: never
workload:
  connections: 32
  timeout_ms: 2000
  requests:
    - { name: echo, path: /echo, method: POST, body: "hi" }
stages:
  ladder: { start_rps: 500, step: 2, max_rps: 500, reps: $2, window_s: 1, discard_s: 0 }
warmup:
  rate: { fixed_rps: 250 }
  min_s: 0
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
  generator: { lateness_p99_ms: 20, cpu_max_pct: 95 }
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
sandbox: { user: $1 }
compare: { margin_pct: 90, metric: [p99], min_pairs: 3, alpha: 0.1 }
YAML
}
spec harness-sut 6 >"$T/spec.yaml"
# sandbox.user passes the spec's name check but not useradd's, so a rerun
# of this run fails before measuring, through no fault of the code.
spec No.Such.User 1 >"$T/spec-nosandbox.yaml"

$NICE "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base \
	>"$T/base.out" 2>"$T/base.err"
rc=$?
[ $rc -eq 0 ] && ok "baseline run" ||
	{ fail "baseline run (rc $rc): $(tail -n 3 "$T/base.err")"; exit 0; }

# rerun ID BRANCH WANT_RC: a fresh run of a's BRANCH with a@base interleaved;
# WANT_RC a regex (a branch whose every window fails may have measured
# "nothing usable", exit 1, depending on the stage's rule; compare judges).
rerun() {
	$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id "$1" --with-baseline \
		--impl "a=file://$REPO#$2" >"$T/$1.out" 2>"$T/$1.err"
	local rc=$?
	echo "$rc" | grep -Eqx "$3" && [ "$(head -n1 "$T/$1.out")" = "$1" ] && ok "rerun $2 (exit $rc)" ||
		fail "rerun $2: exit $rc, want $3: $(tail -n 3 "$T/$1.err" | tr '\n' ' ')"
}
# verdict ID WANT_RC WHY_REGEX [quiet]: compare base ID, exit and reason of
# a; returns 1 on a mismatch (reported unless quiet).
verdict() {
	"$HARNESS" compare base "$1" --runs-dir "$RUNS" --format json --junit "$T/$1.xml" \
		>"$T/$1.json" 2>"$T/$1.cerr"
	local rc=$? why
	why=$(jq -r '.impls[] | select(.name=="a") | .verdict + ": " + .why' "$T/$1.json" 2>/dev/null)
	echo "# $1: exit $rc: $why"
	if [ $rc -eq "$2" ] && echo "$why" | grep -Eq "$3"; then
		ok "compare $1: exit $rc, $(echo "$why" | cut -c1-150)"
		return 0
	fi
	[ -z "${4:-}" ] && fail "compare $1: exit $rc (want $2), a: $why; $(head -c 300 "$T/$1.cerr")"
	# what decided it, for the log: per rate the counts, cells and knees
	echo "# $1: rates $(jq -c '[.impls[] | select(.name=="a") | .rates[]?]' "$T/$1.json" 2>/dev/null | cut -c1-1500)"
	echo "# $1: knees $(jq -c '[.impls[] | select(.name=="a") | .knee_base, .knee_new]' "$T/$1.json" 2>/dev/null | cut -c1-600)"
	return 1
}

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
rerun slow slow "0|1"
verdict slow 1 "^regression: .*(knee: new crosses the SLO at 500 req/s|failed [0-9]+ of|latency \+)"

# Comment only: "no change" needs 4 accepted pairs inside the margin. A
# window the host stalled (this VM stalls 10-30 ms every few seconds, far
# more when it is shared) is rejected by the generator gate or swings one
# pair, and can leave the answer undecided: exit 3, never 0 or 1 on a guess.
# Two more reruns are allowed for that, and only for that.
for try in 1 2 3; do
	rerun comment$try comment 0
	quiet=; [ $try != 3 ] && quiet=quiet
	verdict comment$try 0 "^(no change|no regression|improvement): " $quiet && break
	[ $try != 3 ] && [ "$(jq -r .exit "$T/comment$try.json")" = 3 ] ||
		{ [ $try != 3 ] && fail "comment-only: $(jq -c '.impls[0]' "$T/comment$try.json")"; break; }
	echo "# attempt $try inconclusive (host stalls): $(jq -c '.impls[0].rates' "$T/comment$try.json")"
done

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
