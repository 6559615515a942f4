#!/bin/bash
# rerun + compare end to end (issue 7's acceptance), with git repositories
# made here and file:// URLs. Both implementations, "a" and "b", are
# tests/helpers/testsrv.c built from one repository by build.sh and started
# by run.sh with --delay-ms from the file `delay`. One rerun replaces a with
# the slow branch and b with the comment-only branch, each with its
# baseline commit interleaved ("@base"), so both comparisons are paired:
#   main     delay 2 ms            (the baseline run)
#   slow     delay 7 ms            (+5 ms per request)
#   comment  main + a comment      (no change)
#   evil     build.sh tries to write the harness's databases, then fails
#   upper    main, answering the echo upper-cased ("meridian" -> "MERIDIAN")
. "$(dirname "$0")/../lib.sh"

# The measured runs get a higher CPU priority (nice -10, inherited by the
# implementations): p99 over 2 s windows is at the mercy of any stall, and
# this suite shares 2 cores with others. Root can raise it; otherwise 0.
NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
# The sandbox user must be able to reach its checkout under $T.
chmod 755 "$T"
RUNS=$T/runs
REPO=$T/impl
q() { sqlite3 "$1" "$2"; }
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }

mkdir -p "$REPO"
cp "$ROOT/tests/helpers/testsrv.c" "$REPO/srv.c"
cat >"$REPO/build.sh" <<'SH'
#!/bin/sh
# build the server
id -u >uid.txt
echo "BUILD_UID $(id -u)"
exec cc -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o srv srv.c
SH
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
# what its checkout holds, seen from inside (the checkout is removed with
# its disk when the run ends)
echo "CHECKOUT $(stat -c %u .) GIT $(stat -c %u .git) SRV $(stat -c %u srv) DELAY $(cat delay)"
exec ./srv --port "$1" --delay-ms "$(cat delay)"
SH
echo 2 >"$REPO/delay"
git init -q -b main "$REPO"
g add -A && g commit -m A
A=$(git -C "$REPO" rev-parse HEAD)
g checkout -b slow && echo 7 >"$REPO/delay"
# ...and its build tries to make its baseline (and every other checkout
# of every run) 20 ms slower: its sandbox shows it none of them.
cat >"$REPO/build.sh" <<SH
#!/bin/sh
id -u >uid.txt
echo "BUILD_UID \$(id -u)"
for d in ../a@base ../b@base ../b "$RUNS"/*/src/*; do
	[ "\$d" -ef . ] || { echo 22 >"\$d/delay" 2>/dev/null && echo "wrote \$d/delay"; }
done
exec cc -std=gnu11 -D_GNU_SOURCE -O1 -pthread -o srv srv.c
SH
g commit -am "B: +5 ms per request (and a build that tries to slow the baseline)"
B=$(git -C "$REPO" rev-parse HEAD)
g checkout main && g checkout -b comment
sed -i 's/^# build the server/# build the server (a comment-only change)/' "$REPO/build.sh"
g commit -am "comment only"
C=$(git -C "$REPO" rev-parse HEAD)
g checkout main && g checkout -b evil
cat >"$REPO/build.sh" <<SH
#!/bin/sh
id -u >uid.txt
echo "BUILD_UID \$(id -u)"
for f in "$RUNS"/*/run.db; do printf 'pwned' >>"\$f" 2>/dev/null && echo "wrote \$f"; done
for d in "$RUNS"/*/src/*; do
	[ "\$d" -ef . ] || { echo 22 >"\$d/delay" 2>/dev/null && echo "wrote \$d/delay"; }
done
touch "$RUNS/pwned" 2>/dev/null && echo "wrote $RUNS/pwned"
echo "evil build done" >&2
exit 1
SH
g commit -am "evil build"
g checkout main && g checkout -b upper
sed -i 's/--delay-ms/--mode upper --delay-ms/' "$REPO/run.sh"
g commit -am "upper-cased answers"
g checkout main

cat >"$T/spec.yaml" <<YAML
version: 1
name: rerun-e2e
seed: 11
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
  - name: a
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
  - name: b
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 8
  timeout_ms: 2000
  requests:
    - { name: root, path: /echo, method: POST, body: "meridian" }
stages:
  ladder: { start_rps: 1000, step: 2, max_rps: 1000, reps: 6, window_s: 1, discard_s: 0 }
warmup:
  rate: { fixed_rps: 500 }
  min_s: 0
  max_s: 1
  trailing_s: 0.5
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
  generator: { lateness_p99_ms: 5, cpu_max_pct: 95 }
# generator: a window in which the host stalled the load generator itself
# (its schedule lag p99 > 5 ms; ~0.2 ms on a quiet box, 2-4 ms when the box
# is shared: requests sent late
# read as slow, since latency runs from the intended send time) is rejected
# rather than measured. On this VM such stalls (10-30 ms) come every few
# seconds and move a window's p99 by 5+ ms, as much as the effect tested.
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
compare: { margin_pct: 60, metric: [p99], alpha: 0.1 }
YAML

# ------------------------------------------------------------ baseline
$NICE "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base \
	>"$T/base.out" 2>"$T/base.err"
rc=$?
if [ $rc -ne 0 ] || [ "$(head -n1 "$T/base.out")" != base ]; then
	fail "baseline run (rc $rc): $(tail -n 3 "$T/base.err") $(sqlite3 "$RUNS/base/run.db" "SELECT impl, status, reasons, sent, completed, duration_s, s2xx, s4xx, err_connect FROM windows; SELECT gate, evidence FROM gate_results LIMIT 3" 2>&1 | tr "\n" " ")"
	exit 0
fi
ok "baseline run"
BASEDB=$RUNS/base/run.db
dump() { sqlite3 "$BASEDB" .dump | sha256sum; }
BASESUM=$(dump)
nbase=$(ls "$RUNS" | wc -l)

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

# ------------------------------------------------------------ +5 ms and comment
# Sizing: 6 blocks of 1 s windows at 1000 req/s (a window's p99 is its
# 10th slowest of 1000 requests; windows the host stalled are rejected by
# the generator gate and their blocks do not pair); compare's Hodges-Lehmann
# interval decides from 4 accepted pairs at alpha 0.1 (80 % signed-rank
# interval: one-sided tests at 10 %); the margin (60 % of a 3-5 ms p99 on a
# 2-core box) sits between the paired noise and the 5 ms signal.
# b's first window is voided on purpose (the generator stalls 500 ms in it,
# HARNESS_TEST_STALL_GENERATOR): its replacement block must hold b@base
# too, or the replacement pairs with nothing (checked below).
for try in 1 2; do
	id=pr$try
	HARNESS_TEST_STALL_GENERATOR="ladder:b:*:1" \
	$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id $id --with-baseline \
		--impl "a=file://$REPO#slow" --impl "b=$REPO#comment" >"$T/pr.out" 2>"$T/pr.err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(head -n1 "$T/pr.out")" = $id ] &&
		ok "rerun of slow and comment, with baselines (attempt $try)" ||
		fail "rerun (rc $rc): $(tail -n 3 "$T/pr.err")"
	"$HARNESS" compare base $id --runs-dir "$RUNS" --impl a --format json >"$T/a.json" 2>"$T/err"
	rca=$?
	"$HARNESS" compare base $id --runs-dir "$RUNS" --impl b >"$T/out" 2>"$T/err"
	rcb=$?
	verdict=$(sed -n 's/^### `b`: \*\*\(.*\)\*\*$/\1/p' "$T/out")
	# A window the host stalled is rejected (generator gate) or swings one
	# pair and can leave an interval undecided: compare then answers
	# inconclusive (exit 3), never a verdict on a guess. One more rerun is
	# allowed for that, and only for that.
	if [ $try = 1 ] && { [ $rca = 3 ] || [ $rcb = 3 ]; }; then
		echo "# attempt 1 undecided (host stalls): a exit $rca, b exit $rcb: $(jq -c '.impls[0].rates' "$T/a.json")"
		continue
	fi
	break
done
[ $rca = 1 ] && ok "compare --impl a: +5 ms is a regression (exit 1)" ||
	fail "compare --impl a: exit $rca, want 1"
[ "$(jq -r '.impls[0].verdict' "$T/a.json")" = regression ] &&
	ok "verdict: p99 regression for a" || fail "verdict a: $(jq -c '.impls[0] | {verdict, why, rates}' "$T/a.json")"
[ "$(jq -r '.impls[0].paired' "$T/a.json")" = true ] && ok "paired by block against a@base" ||
	fail "not paired"
d=$(jq -r '.impls[0].rates[0].latency.ci_mean' "$T/a.json")
# 5 ms added per request; the tolerance is the host's p99 noise
near "paired p99 shift (ms)" "$d" 5 4 "fixed 5 ms delay; p99 noise of a shared host"
[ $rcb = 0 ] && ok "compare --impl b: comment-only is no regression (exit 0)" ||
	fail "compare --impl b: exit $rcb: $(grep -A3 '^### `b`' "$T/out")"
[ "$verdict" = "no change" ] && ok "verdict: no change for the comment-only b" ||
	fail "comment-only verdict: $(grep -A8 '^###' "$T/out" | head -12)"
expect_exit "compare, both: exit 1" 1 "$HARNESS" compare base $id --runs-dir "$RUNS"

DB=$RUNS/pr1/run.db
# Replacement blocks are numbered from 2^24 (runner_blocks.c): each window
# that replaces one has its partner (X and X@base) in its block.
lone=$(q "$DB" "SELECT COUNT(*) FROM windows w WHERE w.block >= 16777216 AND
	w.replaces IS NOT NULL AND NOT EXISTS (SELECT 1 FROM windows p WHERE
	p.block = w.block AND p.stage = w.stage AND p.rung = w.rung AND
	(p.impl = w.impl || '@base' OR w.impl = p.impl || '@base'))")
nb=$(q "$DB" "SELECT COUNT(*) FROM windows WHERE impl = 'b' AND replaces IS NOT NULL")
[ "$nb" -ge 1 ] && [ "$lone" = 0 ] && ok "b's voided window replaced beside a b@base window ($nb replaced, 0 alone)" ||
	fail "replacements: b $nb, alone in their block $lone (want >= 1 and 0)"
[ "$(q "$DB" "SELECT commit_id FROM impls WHERE name='a'")" = "$B" ] &&
	ok "records the exact commit" || fail "commit $(q "$DB" "SELECT commit_id FROM impls WHERE name='a'") != $B"
[ "$(q "$DB" "SELECT commit_id FROM impls WHERE name='b'")" = "$C" ] &&
	ok "records b's commit" || fail "commit b"
[ "$(q "$DB" "SELECT dirty FROM impls WHERE name='a'")" = 0 ] &&
	ok "the checkout is recorded clean" || fail "dirty checkout"
[ "$(q "$DB" "SELECT ref_asked FROM impls WHERE name='a'")" = slow ] &&
	ok "records the ref asked for" || fail "ref_asked"
[ "$(q "$DB" "SELECT remote_url FROM impls WHERE name='a'")" = "file://$REPO" ] &&
	ok "records the remote URL" || fail "remote_url $(q "$DB" "SELECT remote_url FROM impls WHERE name='a'")"
[ "$(q "$DB" "SELECT remote_url FROM impls WHERE name='b'")" = "$REPO" ] &&
	ok "a local path is recorded as such" || fail "remote_url b"
[ "$(q "$DB" "SELECT commit_id FROM impls WHERE name='a@base'")" = "$A" ] &&
	ok "a@base is the baseline's commit" || fail "a@base commit"
[ "$(q "$DB" "SELECT baseline_of FROM impls WHERE name='a@base'")" = a ] &&
	ok "a@base is recorded as a's baseline" || fail "baseline_of"
[ "$(q "$DB" "SELECT spec_hash FROM runs")" = "$(q "$BASEDB" "SELECT spec_hash FROM runs")" ] &&
	ok "stored spec hash identical to the baseline's" || fail "spec hash differs"
[ "$(q "$DB" "SELECT parent_run FROM runs")" = base ] && ok "parent run recorded" || fail "parent_run"
[ "$(q "$DB" "SELECT sandbox_user FROM runs")" = harness-sut ] &&
	ok "records the unprivileged user" || fail "sandbox_user '$(q "$DB" "SELECT sandbox_user FROM runs")'"
SUT_GID=$(id -g harness-sut 2>/dev/null)
uid_of() { q "$1" "SELECT detail FROM events WHERE kind = 'sandbox_identity' AND detail LIKE '$2: uid %'" | sed 's/^[^:]*: uid \([0-9]*\),.*/\1/'; }
A_UID=$(uid_of "$DB" a)
[ -n "$A_UID" ] && [ "$A_UID" != 0 ] && grep -qx "BUILD_UID $A_UID" "$RUNS/pr1/logs/build-a.log" &&
	ok "the build ran as a's own uid ($A_UID)" || fail "build uid: $(grep BUILD_UID "$RUNS/pr1/logs/build-a.log") vs '$A_UID'"
[ "$(uid_of "$DB" b)" != "$A_UID" ] && [ "$(uid_of "$DB" a@base)" != "$A_UID" ] &&
	ok "one uid per arm" || fail "shared uid: $(q "$DB" "SELECT detail FROM events WHERE kind = 'sandbox_identity'")"
[ "$(stat -c %U "$DB")" = root ] && ok "run.db stays root's" || fail "run.db owner"
# (seen from inside its jail, where root, not mapped there, is the
# overflow uid)
NOBODY=$(cat /proc/sys/kernel/overflowuid)
co() { grep -m1 "^CHECKOUT " "$RUNS/pr1/logs/$1.stdout.log"; }
case $(co a) in "CHECKOUT $A_UID GIT $NOBODY "*) ok "checkout given to a's uid, its .git kept root's";;
	*) fail "checkout ownership: $(co a)";; esac
case $(co a@base) in *" SRV $NOBODY DELAY "*) ok "a@base frozen: root's after its build, before a's";;
	*) fail "a@base not frozen: $(co a@base)";; esac
case $(co a@base) in *" DELAY 2") ! grep -q "wrote" "$RUNS/pr1/logs/build-a.log" &&
	ok "a's build could not touch its baseline or any other checkout" ||
	fail "baseline touched: $(grep wrote "$RUNS/pr1/logs/build-a.log")";;
	*) fail "baseline touched: $(co a@base)";; esac
[ -z "$(ls "$RUNS/pr1/src" 2>/dev/null)" ] && ok "the run's checkouts went with their disks when it ended" ||
	fail "left in pr1/src: $(ls "$RUNS/pr1/src")"
grep -q "a@base build: /usr/bin/bwrap " <(q "$DB" "SELECT detail FROM events WHERE kind = 'sandbox_argv'") &&
	ok "the exact bwrap argv of each build is recorded" || fail "no sandbox_argv event"

grep -q "^harness: pre-flight: 1 of 1 cases passed (4 implementations; each commit under test against its @base)$" "$T/pr.err" &&
	ok "pre-flight: each commit under test answered as its @base" ||
	fail "pre-flight summary: $(grep pre-flight "$T/pr.err")"

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

# ------------------------------------------------------------ untrusted build
# The commit under test does not build: its own negative answer (exit 1),
# recorded as such for compare (runs.failure_kind).
# ... and another run's checkouts (those still on disk: a run that ended
# removed its own) are out of its reach
# It is fetched over smart HTTP (git http-backend behind python's CGI
# server, which runs it as nobody) from a URL with credentials in it: the
# password must not reach stderr, run.db, the run directory or a report
# (issue 25 item 8). The server asks for none, so they are never sent.
others() { for f in "$RUNS"/pr*/src/*/delay; do echo "$f $(cat "$f")"; done; }
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
# KEEP=DIR keeps a copy of the runs for a look after the test.
[ "$(others)" = "$OTHERS" ] && ! grep -q "wrote" "$RUNS/evil/logs/build-a.log" &&
	ok "evil build could not modify another run's checkouts ($(printf "%s" "$OTHERS" | grep -c .) delay files on disk)" ||
	fail "another run's checkout changed: $(others | tr '\n' ' ') / $(grep wrote "$RUNS/evil/logs/build-a.log" | tr '\n' ' ')"
[ -n "${KEEP:-}" ] && cp -r "$RUNS" "$KEEP"
[ "$(dump)" = "$BASESUM" ] && ok "baseline database intact" || fail "baseline database changed"
for db in "$RUNS"/*/run.db; do
	[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "$db: integrity check failed"
done
ok "every run database passes integrity_check"
[ ! -e "$RUNS/pwned" ] && ok "nothing written into the runs directory" || fail "runs/pwned exists"
grep -rl pwned "$RUNS"/*/run.db >/dev/null 2>&1 && fail "a database holds the evil bytes" ||
	ok "no database holds the evil bytes"

# ------------------------------------------------------------ --until-decided
# A one-implementation spec (a, 3 blocks of 1 s at 1000 req/s, p99 within
# 60 %) and a rerun of the +5 ms branch until decided (docs/STATISTICS.md
# "Sequential rerun"): p99 +100 % or more on a 3-5 ms base is far beyond
# the margin, so the confidence sequence decides from the 3 pre-registered
# rounds or a few sequential blocks more; the budget (2 min) bounds it on a
# stalled host (then inconclusive, exit 3, which this check reports).
sed -e '/^  - name: b$/,/^    restart: never$/d' -e 's/reps: 6,/reps: 3,/' \
	-e 's/^name: rerun-e2e/name: rerun-seq/' "$T/spec.yaml" >"$T/spec-seq.yaml"
$NICE "$HARNESS" run "$T/spec-seq.yaml" --allow-dirty --runs-dir "$RUNS" --run-id sbase \
	>/dev/null 2>"$T/sbase.err" && ok "one-implementation baseline" ||
	fail "sbase: $(tail -n 2 "$T/sbase.err")"
expect_exit "--until-decided without --with-baseline" 2 "$HARNESS" rerun sbase --runs-dir "$RUNS" \
	--until-decided --impl "a=file://$REPO#slow"
grep -q "needs --with-baseline" "$T/err" && ok "says it needs --with-baseline" || fail "$(cat "$T/err")"
"$HARNESS" rerun --help | grep -q -- "--until-decided" && ok "rerun --help: --until-decided" ||
	fail "rerun --help lacks --until-decided"
# The decision itself is a statistical figure of the release build (as
# "# release-only:" scripts are): under the sanitizers (RELEASE_ONLY=skip,
# make asan) it is skipped; test_decide, test_store and sequential.sh drive
# the same code there.
if [ "${RELEASE_ONLY:-}" = skip ]; then
	echo "# --until-decided rerun skipped under the sanitizers (RELEASE_ONLY=skip)"
	exit 0
fi
# A host at load 10+ (other suites) can leave even +100 % undecided within
# the budget: exit 3 with stop max_minutes, never a guess. One more rerun
# is allowed for that, and only for that.
for try in 1 2; do
	$NICE "$HARNESS" rerun sbase --runs-dir "$RUNS" --run-id seq$try --with-baseline \
		--until-decided --max-minutes 2 --impl "a=file://$REPO#slow" >/dev/null 2>"$T/seq.err"
	rc=$?
	SDB=$RUNS/seq$try/run.db
	[ $try = 1 ] && [ $rc = 3 ] && [ "$(q "$SDB" "SELECT stop FROM sequential")" = max_minutes ] ||
		break
	echo "# attempt 1 undecided within its budget (host load $(cut -d' ' -f1 /proc/loadavg)): $(grep 'sequential a: inconclusive' "$T/seq.err")"
done
[ $rc = 1 ] && ok "rerun --until-decided of +5 ms: regression (exit 1)" ||
	fail "rerun --until-decided: exit $rc: $(grep sequential "$T/seq.err" | tail -n 3)"
grep -Eq "sequential a: block [0-9]+, [0-9]+ rounds over 1 rates: latency [-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\] margin \+-60.0%" "$T/seq.err" &&
	ok "progress: estimate, interval and margin after each block" ||
	fail "progress: $(grep sequential "$T/seq.err" | head -n 2)"
[ "$(q "$SDB" "SELECT outcome, stop, rates, t_star FROM sequential WHERE impl = 'a'")" = "regression|decided|1000|10.0" ] &&
	ok "the rule and its outcome are stored: $(q "$SDB" "SELECT outcome, stop, blocks, rounds FROM sequential")" ||
	fail "sequential row: $(q "$SDB" "SELECT * FROM sequential")"
"$HARNESS" compare sbase seq$try --runs-dir "$RUNS" --format json >"$T/seq.json" 2>"$T/err"
rc=$?
[ $rc = 1 ] && [ "$(jq -r '.impls[0] | .verdict + " " + .method + " " + .sequential.stop' "$T/seq.json")" = "regression sequential decided" ] &&
	ok "compare reads the stored rule: regression by the sequence (exit 1)" ||
	fail "compare: exit $rc, $(jq -c '.impls[0] | {verdict, why, method}' "$T/seq.json")"
jq -r '.impls[0].why' "$T/seq.json" | grep -q "^sequential (decided after [0-9]* rounds at 1 rates): latency +" &&
	ok "compare says the sequence decided" || fail "why: $(jq -r '.impls[0].why' "$T/seq.json")"
