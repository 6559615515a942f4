#!/bin/bash
# timing-free: refusals, exit codes, stored states and files of reruns that fetch nothing, answer wrong, do not build or whose every window a test hook voids
# rerun end to end, the reruns that end before any window (issue 7's and
# issue 25's acceptance): refs and repositories that cannot be fetched, a
# commit that answers its pre-flight differently from its @base, one
# whose every window is void (a test hook stalls the generator), and an
# untrusted build that fails after trying to write every database and
# checkout it can reach, fetched over http from a URL with a password.
# rerun.sh has the reruns that measure (rerun_repo.inc: the service).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rerun_repo.inc"

# One block: the reruns here stop before their first window.
run_base 1 lends

# ------------------------------------------------------------ bad input
expect_exit "a ref that does not exist" 2 "$HARNESS" rerun base --runs-dir "$RUNS" \
	--impl "a=file://$REPO#no-such-branch"
[ "$(wc -l <"$T/err" )" -le 2 ] && grep -q "no ref 'no-such-branch'" "$T/err" &&
	ok "missing ref: one clear line" || fail "missing ref message: $(cat "$T/err")"
expect_exit "a repository that cannot be fetched" 2 "$HARNESS" rerun base --runs-dir "$RUNS" \
	--impl "a=file://$T/nowhere#main"
grep -q "nowhere: cannot fetch" "$T/err" && ok "unfetchable: one clear line" ||
	fail "unfetchable message: $(cat "$T/err")"
expect_exit "an implementation the run does not have" 2 "$HARNESS" rerun base \
	--runs-dir "$RUNS" --impl "zz=file://$REPO#slow"
[ "$(ls "$RUNS" | wc -l)" -eq "$nbase" ] && ok "failed fetches leave no run directory" ||
	fail "left behind: $(ls "$RUNS")"
[ "$(dump)" = "$BASESUM" ] && ok "baseline untouched by failed reruns" || fail "baseline changed"

# ------------------------------------------------------------ rerun --plan
# What compare could decide from a rerun of base, before any is made: its
# plan (1 rate x 1 block: 1 pair a metric) can never decide, so --plan
# refuses it (exit 2) with the numbers, unless it is sequential.
expect_exit "rerun --plan of a 1-pair plan: refused" 2 "$HARNESS" rerun base --runs-dir "$RUNS" --plan
grep -q "^base: compare: 1 pairs a metric at most (1 rate x 1 reps) can never decide: the pooled test's smallest p, 2^-1 = 0.5, is above its first step" "$T/err" &&
	ok "rerun --plan: the refusal names the pairs and the level" || fail "rerun --plan: $(cat "$T/err")"
expect_exit "rerun --plan --until-decided: not refused" 0 "$HARNESS" rerun base --runs-dir "$RUNS" \
	--plan --until-decided
grep -q "latency: pooled signed-rank test at .* needs [0-9]* pairs: cannot at the plan's n (compare.sequential: reruns add blocks --until-decided)" "$T/out" &&
	ok "rerun --plan --until-decided: says the sequence adds blocks" || fail "plan: $(cat "$T/out")"
"$HARNESS" rerun base --runs-dir "$RUNS" --plan --until-decided --json >"$T/plan.json" 2>"$T/err" &&
	[ "$(jq -r '.can_decide, .sequential, .pairs_max' "$T/plan.json" | tr '\n' ' ')" = "false true 1 " ] &&
	ok "rerun --plan --json" || fail "rerun --plan --json: $(cat "$T/plan.json" "$T/err")"
[ "$(ls "$RUNS" | wc -l)" -eq "$nbase" ] && ok "rerun --plan makes no run" || fail "left: $(ls "$RUNS")"

# ------------------------------------------------------------ other answers
# A commit that answers 200 with another body is a regression, told by the
# pre-flight against its @base (workload.preflight.base: strict, the
# default), before any window: rerun 1, compare 1, the difference shown on
# stderr, in compare's reason and in the run's events.
expect_exit "a commit answering MERIDIAN for meridian: rerun" 1 "$HARNESS" rerun base \
	--runs-dir "$RUNS" --run-id upper --with-baseline --impl "a=file://$REPO#upper"
diff='request root (POST /echo): a@base and a differ: bodies differ at byte 0 (8 vs 8 bytes): "meridian" vs "MERIDIAN"'
grep -qF "harness: pre-flight: $diff" "$T/err" && ok "the difference on stderr" ||
	fail "stderr: $(grep pre-flight "$T/err")"
[ "$(q "$RUNS/upper/run.db" "SELECT status, failure_kind, failure_impl FROM runs")" = "failed|preflight|a" ] &&
	[ "$(q "$RUNS/upper/run.db" "SELECT COUNT(*) FROM windows")" = 0 ] &&
	ok "recorded: failed by its pre-flight, no window run" ||
	fail "upper run: $(q "$RUNS/upper/run.db" "SELECT status, failure_kind, failure_impl, failure FROM runs")"
[ "$(q "$RUNS/upper/run.db" "SELECT detail FROM events WHERE kind = 'preflight_failure'")" = "$diff" ] &&
	ok "the difference in the run's events" ||
	fail "events: $(q "$RUNS/upper/run.db" "SELECT kind, detail FROM events WHERE kind LIKE 'preflight%'")"
expect_exit "compare base upper" 1 "$HARNESS" compare base upper --runs-dir "$RUNS" --format json
jq -r '.impls[0].why' "$T/out" | grep -qF "answered its pre-flight wrong" &&
	jq -r '.impls[0].why' "$T/out" | grep -qF "$diff" &&
	ok "compare's reason shows the difference" || fail "compare why: $(jq -c '.impls[0] | {verdict, why}' "$T/out")"
"$HARNESS" report upper --runs-dir "$RUNS" --format md >/dev/null 2>&1
grep -qF "$diff" "$RUNS/upper/report/report.md" && ok "the report shows the difference" ||
	fail "report: $(grep -i pre-flight "$RUNS/upper/report/report.md")"

# ------------------------------------------------------------ every window void
# A rerun whose commit's every window is void (the generator stalls in
# each: the generator gate, a validity gate, rejects it; no fault of the
# commit) has no answer about the commit: rerun 3, as compare reads the
# same run (DESIGN.md, Exit codes: 3, no answer), never 1, a regression.
HARNESS_TEST_STALL_GENERATOR="ladder:a:*:all" \
	expect_exit "a rerun whose every window of a is void: no answer" 3 "$HARNESS" rerun base \
	--runs-dir "$RUNS" --run-id void --stages ladder --impl "a=file://$REPO#comment"
[ "$(q "$RUNS/void/run.db" "SELECT COUNT(*) FROM windows WHERE impl = 'a' AND status <> 'rejected'")" = 0 ] &&
	[ "$(q "$RUNS/void/run.db" "SELECT COUNT(*) FROM windows WHERE impl = 'a'")" -ge 1 ] &&
	ok "... a's windows all rejected ($(q "$RUNS/void/run.db" "SELECT COUNT(*) FROM windows WHERE impl = 'a'"))" ||
	fail "void windows: $(q "$RUNS/void/run.db" "SELECT impl, status, reasons FROM windows" | tr '\n' ' ')"
grep -q "no valid ladder window for a" "$T/err" && ok "... said on stderr" || fail "void stderr: $(tail -n 3 "$T/err")"
expect_exit "compare base void --impl a: the same answer" 3 "$HARNESS" compare base void --runs-dir "$RUNS" --impl a

# ------------------------------------------------------------ untrusted build
# The commit under test does not build: its own negative answer (exit 1),
# recorded as such for compare (runs.failure_kind).
# ... and another run's checkouts (those still on disk: a run that ended
# removed its own) are out of its reach
# It is fetched over smart HTTP (git http-backend behind python's CGI
# server, which runs it as nobody) from a URL with credentials in it: the
# password must not reach stderr, run.db, the run directory or a report
# (issue 25 item 8). The server asks for none, so they are never sent.
# a's uid in the upper run (built, then refused by its pre-flight)
A_UID=$(uid_of "$RUNS/upper/run.db" a)
others() { for f in "$RUNS"/pr*/src/*/delay; do [ -e "$f" ] && echo "$f $(cat "$f")"; done; }
OTHERS=$(others)
mkdir -p "$T/www/cgi-bin" "$T/nobody"
ln -s /usr/lib/git-core/git-http-backend "$T/www/cgi-bin/git"
chmod 777 "$T/nobody"
HPORT=$(free_port)
bg env HOME="$T/nobody" GIT_PROJECT_ROOT="$T" GIT_HTTP_EXPORT_ALL=1 GIT_CONFIG_COUNT=1 \
	GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' \
	python3 -m http.server --cgi --bind 127.0.0.1 --directory "$T/www" "$HPORT" >"$T/http.log" 2>&1
wait_port "$HPORT" || fail "the git http server did not start: $(cat "$T/http.log")"
SECRET=s3cretPW
expect_exit "a build that fails" 1 "$HARNESS" rerun base --runs-dir "$RUNS" --run-id evil \
	--impl "a=http://bob:$SECRET@127.0.0.1:$HPORT/cgi-bin/git/impl/.git#evil"
grep -q "fetching a from http://bob:\*\*\*@127.0.0.1:$HPORT/" "$T/err" &&
	ok "the fetch is announced with the password redacted" || fail "fetch line: $(grep fetching "$T/err")"
"$HARNESS" report evil --runs-dir "$RUNS" >"$T/leak.out" 2>&1
"$HARNESS" compare base evil --runs-dir "$RUNS" >>"$T/leak.out" 2>&1
leaks=$( { grep -l "$SECRET" "$T/err" "$T/leak.out"; grep -rl "$SECRET" "$RUNS/evil";
	sqlite3 "$RUNS/evil/run.db" .dump | grep -c "$SECRET" | grep -v '^0$'; } 2>/dev/null)
[ -z "$leaks" ] && [ -s "$RUNS/evil/report/report.md" ] &&
	ok "the password is in no message, no stored field, no file of the run or its report" ||
	fail "the password leaked: $leaks"
[ "$(q "$RUNS/evil/run.db" "SELECT remote_url FROM impls WHERE name='a'")" = "http://127.0.0.1:$HPORT/cgi-bin/git/impl/.git" ] &&
	ok "the URL is recorded without its credentials" ||
	fail "remote_url $(q "$RUNS/evil/run.db" "SELECT remote_url FROM impls WHERE name='a'")"
[ "$(q "$RUNS/evil/run.db" "SELECT failure_kind, failure_impl FROM runs")" = "build|a" ] &&
	ok "recorded: failure_kind build, failure_impl a" ||
	fail "failure_kind: $(q "$RUNS/evil/run.db" "SELECT failure_kind, failure_impl FROM runs")"
grep -q "build" "$T/err" && ok "build failure said on stderr" || fail "build failure: $(cat "$T/err")"
[ "$(q "$RUNS/evil/run.db" "SELECT status FROM runs")" = failed ] &&
	ok "the failed rerun is recorded as failed: $(q "$RUNS/evil/run.db" "SELECT failure FROM runs")" ||
	fail "evil status $(q "$RUNS/evil/run.db" "SELECT status, failure FROM runs")"
E_UID=$(uid_of "$RUNS/evil/run.db" a)
[ -n "$E_UID" ] && grep -qx "BUILD_UID $E_UID" "$RUNS/evil/logs/build-a.log" && [ "$E_UID" != "$A_UID" ] &&
	ok "evil build ran as its own uid, not another run's" || fail "evil build uid"
[ "$(others)" = "$OTHERS" ] && ! grep -q "wrote" "$RUNS/evil/logs/build-a.log" &&
	ok "evil build could not modify another run's checkouts ($(printf "%s" "$OTHERS" | grep -c .) delay files on disk)" ||
	fail "another run's checkout changed: $(others | tr '\n' ' ') / $(grep wrote "$RUNS/evil/logs/build-a.log" | tr '\n' ' ')"
databases_intact
[ ! -e "$RUNS/pwned" ] && ok "nothing written into the runs directory" || fail "runs/pwned exists"
grep -rl pwned "$RUNS"/*/run.db >/dev/null 2>&1 && fail "a database holds the evil bytes" ||
	ok "no database holds the evil bytes"

