#!/usr/bin/env bash
# timing-free: window states and OOM counts of an implementation that runs out of memory under its limit
# An implementation whose memory grows with every request (testsrv
# --leak-kb 1024: 1 MiB touched per request, never freed) under
# implementations[].memory_mb 64: the warm-up at 10 req/s stays under the
# limit, the window at 200 req/s (200 MiB/s) does not. The kernel kills it
# in its cgroup: the window is failed (an outcome: the implementation's
# doing, never a void measurement), its reasons name sut_exited and, where
# the accounting backend counts OOMs, the oom gate with the kill in its
# evidence; audit --recheck recomputes the same verdict; the knee crosses
# at that rung; nothing is left running.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
SRV="$T/testsrv-oom"     # a copy, so pgrep sees only this test's servers
cp "$HELPERS/testsrv" "$SRV"

cat >"$T/oom.yaml" <<YAML
version: 1
name: e2e-oom
seed: 7
slo: { percentile: 99, threshold_ms: 200 }
implementations:
  - name: leaky
    start: [$SRV, --port, "{port}", --leak-kb, "1024"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
    limits: { memory_mb: 64 }
workload:
  connections: 48
  timeout_ms: 2000
  requests:
    - { name: get, path: /x }
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 200, reps: 1, window_s: 2, discard_s: 0 }
retries: { max_per_cell: 0 }
warmup: { rate: { fixed_rps: 10 }, min_s: 1, max_s: 1, trailing_s: 1, gates: [] }
window_gates: [oom, sut_alive, error_rate]
YAML
"$HARNESS" run "$T/oom.yaml" --allow-dirty --runs-dir "$RUNS" --run-id oom >"$T/run.out" 2>"$T/run.err"
cmp_num "the run exits 0 (the implementation's death is a measurement)" "$?" == 0
row=$(q oom "SELECT status || ':' || reasons FROM windows")
check "its window is failed with sut_exited ($row)" bash -c "[[ '$row' == failed:*sut_exited* ]]"
backend=$(q oom "SELECT acct_backend FROM windows" 2>/dev/null)
"$HARNESS" audit oom --runs-dir "$RUNS" --json >"$T/audit.json"
if jq -e '[.windows[].gates[] | select(.gate == "oom" and .status != "not_evaluable")] | length > 0' "$T/audit.json" >/dev/null; then
	check "the oom gate failed with the kill in its evidence" \
		jq -e '[.windows[].gates[] | select(.gate == "oom")][0] | .status == "fail" and .statistic >= 1 and (.evidence | test("[1-9][0-9]* oom kills"))' "$T/audit.json"
	check "and the window's reasons name it" bash -c "[[ '$row' == *oom* ]]"
else
	echo "# the accounting backend ($backend) gives no OOM counts here: oom gate not evaluable"
fi
"$HARNESS" audit oom --runs-dir "$RUNS" --recheck >"$T/recheck.out" 2>&1
cmp_num "audit --recheck agrees with every stored verdict" "$?" == 0
"$HARNESS" knee oom --runs-dir "$RUNS" --json >"$T/knee.json"
check "the knee crosses at that rung" jq -e '.fits[] | select(.impl == "leaky") | .crossed' "$T/knee.json"
check "no server left running" bash -c "! pgrep -f '^$SRV ' >/dev/null"

# The same implementation jailed (sandbox: always, the sandbox's memory_mb
# 64): the jail's limit is a safety limit, so hitting it ends the run
# (failure_kind limit) with its evidence in a sandbox_limit event; the
# user's own implementation, so exit 3 (a rerun's commit under test: 1,
# tests/e2e/sandbox.sh); the window it died in is failed, never accepted.
chmod 755 "$T"   # the sandbox user reads its repo below it
mkdir -p "$T/repo" && cp "$HELPERS/testsrv" "$T/repo/srv-oom-$$"   # a name no other test runs
sed -e "s#^name: e2e-oom#name: e2e-oom-jailed\nsandbox: { memory_mb: 64 }#" \
	-e "s#start: \[$SRV,#repo: $T/repo\n    sandbox: always\n    start: [./srv-oom-$$,#" \
	-e "/limits: { memory_mb: 64 }/d" "$T/oom.yaml" >"$T/jail.yaml"
"$HARNESS" run "$T/jail.yaml" --allow-dirty --runs-dir "$RUNS" --run-id jail >/dev/null 2>"$T/jail.err"
rc=$?
[ $rc = 3 ] || echo "# jailed run: $(tail -1 "$T/jail.err")"
cmp_num "jailed: the run of the user's own implementation exits 3" "$rc" == 3
check "jailed: stored failed, kind limit, naming leaky" \
	test "$(q jail "SELECT status || '|' || failure_kind || '|' || failure_impl FROM runs")" = "failed|limit|leaky"
check "jailed: the kill in a sandbox_limit event" \
	grep -Eq "^leaky hit its sandbox limits: [1-9][0-9]* process(es)? OOM-killed at 64 MiB \(oom_kill\)$" \
	<(q jail "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
check "jailed: it ran in bwrap" grep -q "leaky start: /usr/bin/bwrap " <(q jail "SELECT detail FROM events WHERE kind = 'sandbox_argv'")
check "jailed: its window is failed ($(q jail "SELECT status || ':' || reasons FROM windows"))" \
	test "$(q jail "SELECT COUNT(*) FROM windows WHERE status = 'failed' AND reasons LIKE '%sut_exited%'")" = 1
cmp_num "jailed: no window accepted" "$(q jail "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 0
check "jailed: no server left running" bash -c "! pgrep -f '^(/usr/bin/bwrap .*)?\./srv-oom-$$ --port' >/dev/null"

# The runs filesystem full: the host's failure, told apart from any
# implementation's. A 16 MiB tmpfs is the runs directory; the (trusted)
# implementation's first start fills it. The run exits 3, stored failed,
# kind environment, saying so (the database keeps 1 MiB in reserve for
# those words: without it the run read `running` for ever); with the room
# back, resume finishes it.
SMALL=$T/small
mkdir -p "$SMALL"
if mount -t tmpfs -o size=16m tmpfs "$SMALL" 2>/dev/null; then
	cat >"$T/full.yaml" <<YAML
version: 1
name: e2e-full
slo: { percentile: 99, threshold_ms: 200 }
implementations:
  - name: filler
    start: [/bin/sh, -c, '[ -e "\$0.done" ] || { touch "\$0.done"; head -c 32M /dev/zero >"\$0"; }; exec "\$1" --port "\$2"',
            $SMALL/fill, $HELPERS/testsrv, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
workload:
  requests: [ { name: get, path: /x } ]
stages:
  ladder: { start_rps: 50, step: 2, max_rps: 50, reps: 1, window_s: 1, discard_s: 0 }
warmup: { rate: { fixed_rps: 50 }, min_s: 0, max_s: 0.5, trailing_s: 0.5, gates: [] }
window_gates: [error_rate]
YAML
	"$HARNESS" run "$T/full.yaml" --allow-dirty --runs-dir "$SMALL" --run-id full >/dev/null 2>"$T/full.err"
	cmp_num "runs filesystem full: exit 3" "$?" == 3
	check "... one line saying so, with what to do" \
		grep -q "^harness: full: the runs filesystem is full ($SMALL/full): free space, then harness resume full$" "$T/full.err"
	[ "$(sqlite3 "$SMALL/full/run.db" "SELECT status || '|' || failure_kind FROM runs")" = "failed|environment" ] &&
		ok "... stored failed, kind environment (not running)" ||
		fail "full: $(sqlite3 "$SMALL/full/run.db" "SELECT status, failure, failure_kind FROM runs" 2>&1)"
	rm -f "$SMALL/fill"
	"$HARNESS" resume full --runs-dir "$SMALL" >/dev/null 2>"$T/full-resume.err"
	cmp_num "with the room back, resume finishes it (exit)" "$?" == 0
	[ "$(sqlite3 "$SMALL/full/run.db" "SELECT status || '|' || forced FROM runs")" = "finished|0" ] &&
		ok "... finished, not forced" || fail "after resume: $(sqlite3 "$SMALL/full/run.db" "SELECT status, failure, forced FROM runs" 2>&1); $(tail -2 "$T/full-resume.err")"
	umount "$SMALL"
else
	echo "# skip: cannot mount a tmpfs here (not root?): the full runs filesystem case"
fi
