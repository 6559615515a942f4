#!/bin/bash
# rerun + compare end to end (issue 7's acceptance), with git repositories
# made here and file:// URLs. Both implementations, "a" and "b", are
# tests/helpers/testsrv.c built from one repository by build.sh and started
# by run.sh with --delay-ms from the file `delay` (rerun_repo.inc). One
# rerun replaces a with the slow branch (+5 ms per request) and b with the
# comment-only branch, each with its baseline commit interleaved ("@base"),
# so both comparisons are paired. rerun_fail.sh has the reruns that end
# before any window, rerun_until.sh the rerun --until-decided.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rerun_repo.inc"

# The spec's 6 blocks: the rerun's (a rerun runs its stored spec). The
# baseline run lends the rerun its spec and its commit; compare pairs each
# new commit with its @base inside the rerun, so nothing reads the
# baseline's windows and it measures none: --stages confirm of a
# ladder-only spec (its builds, sandbox and pre-flight still run), and the
# rerun asks for the ladder (compare_fail.sh's baseline too). agent_rerun.sh
# and rerun_fail.sh rerun the stages their baseline ran (rerun's default).
BASE_STAGES=confirm run_base 6
[ "$(q "$BASEDB" "SELECT COUNT(*) FROM windows")" = 0 ] && ok "the baseline measured no window" ||
	fail "baseline windows: $(q "$BASEDB" "SELECT COUNT(*) FROM windows")"

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
	$NICE "$HARNESS" rerun base --runs-dir "$RUNS" --run-id $id --with-baseline --stages ladder \
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
	# A retry doubles this script's time (117 s against 58 in one
	# clean-clone CI of 13 read, b inconclusive): what held each arm is
	# printed, its windows too, so the next one says why.
	if [ $try = 1 ] && { [ $rca = 3 ] || [ $rcb = 3 ]; }; then
		echo "# attempt 1 undecided (host stalls): a exit $rca, b exit $rcb"
		for x in a b; do
			echo "#   $x: $("$HARNESS" compare base $id --runs-dir "$RUNS" --impl $x --format json 2>/dev/null |
				jq -c '.impls[0] | {verdict, why, rates: [.rates[] | {valid_pairs, latency: (.latency | {ci_lo, ci_hi, margin})}]}')"
			echo "#   $x windows (block impl status reasons p99): $(q "$RUNS/$id/run.db" "SELECT block, impl, status,
				COALESCE(reasons, '-'), ROUND(p99_ms, 2) FROM windows WHERE impl IN ('$x', '$x@base') ORDER BY id" | tr '\n' ' ')"
		done
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
# 5 ms added to every request. The p99 shift has no tight upper bound on
# a shared host: a stall in one NEW window adds its own milliseconds
# (10.4 ms read in a clean-clone CI at load 4); it is at least most of
# the 5 ms. The size is checked on the median request, which a stall
# does not move: the median over the blocks of the paired p50 shift.
cmp_num "paired p99 shift (ms), at least most of the 5 ms" "$d" ">=" 3
p50=$(q "$RUNS/$id/run.db" "SELECT n.p50_ms - b.p50_ms FROM windows n JOIN windows b
	ON b.stage = n.stage AND b.rung = n.rung AND b.block = n.block AND b.impl = 'a@base'
	WHERE n.impl = 'a' AND n.status = 'accepted' AND b.status = 'accepted' ORDER BY 1" |
	awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
near "paired p50 shift (ms), median over the blocks" "$p50" 5 1.5 "fixed 5 ms delay; read 5.47 alone"
# b@base's own windows (the same code every block) a factor apart beyond
# the margin: a host that disagrees with itself that much leaves 6 pairs
# unable to say "no change" (ci4 of a7fdc34 under make asan beside a second
# suite and more, load 8: b@base p99 2.38-8.98 ms, b 2.51-13.57, the
# interval -30 % to +130 % twice); compare's inconclusive is then the
# honest answer, and tests/e2e/compare_branches.sh (check-all) decides the
# comment-only branch sequentially. Anything else stays a failure.
spread=$(q "$RUNS/$id/run.db" "SELECT printf('%.2f', MAX(p99_ms) / MIN(p99_ms)) FROM windows
	WHERE impl = 'b@base' AND status = 'accepted'")
if [ $rcb = 3 ] && [ "$verdict" = inconclusive ] && awk -v s="$spread" 'BEGIN { exit !(s > 1.6) }'; then
	skip "comment-only b undecided twice: b@base's own p99s ${spread}x apart, beyond the 60 % margin ($(grep '^Why' "$T/out" | cut -c1-160))"
else
	[ $rcb = 0 ] && ok "compare --impl b: comment-only is no regression (exit 0)" ||
		fail "compare --impl b: exit $rcb (b@base's p99s ${spread}x apart): $(grep -A3 '^### `b`' "$T/out")"
	[ "$verdict" = "no change" ] && ok "verdict: no change for the comment-only b" ||
		fail "comment-only verdict: $(grep -A8 '^###' "$T/out" | head -12)"
fi
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

databases_intact

# ------------------------------------------------------------ --until-decided
# The options (the sequential rerun itself, a verdict over real windows,
# is rerun_until.sh's, a check-all script).
expect_exit "--until-decided without --with-baseline" 2 "$HARNESS" rerun base --runs-dir "$RUNS" \
	--until-decided --impl "a=file://$REPO#slow"
grep -q "needs --with-baseline" "$T/err" && ok "says it needs --with-baseline" || fail "$(cat "$T/err")"
"$HARNESS" rerun --help | grep -q -- "--until-decided" && ok "rerun --help: --until-decided" ||
	fail "rerun --help lacks --until-decided"
