#!/bin/bash
# timing-free: states, ids and counts (commits, uids, paths), no timing figures
# A rerun of an implementation that runs on another host (issue 18, item
# 3: "build and fetch of a pull request happen there too"), and a jail
# there, with hosts made of network namespaces (tests/netns.inc):
#   - the parent run is `sandbox: always` with `host`: its build and its
#     process run there as a sandbox uid (>= 10^9), its repo read-only,
#     the load reaching it through the agent's relay into its namespace;
#   - `rerun --impl a=REPO#feature`: the commit is fetched by an agent on
#     that host into its own directory there ($TMPDIR of that host), not
#     under the coordinator's run directory, built and started there as
#     the arm's uid; the rerun's database records the branch's commit and
#     the remote URL; the checkout is gone when the rerun ends;
#   - the coordinator SIGKILLed mid-rerun: the checkout there removed
#     within 5 s, nothing left running; resume of that rerun refused;
#   - a branch that forks past sandbox.pids there: rerun exit 1,
#     failure_kind limit, the forks refused read on that host;
#   - a branch whose build prints 2 MiB and writes 64 MiB into its
#     checkout, then exits 0: its log cut at sandbox.log_mb 1 there, its
#     checkout on a disk quota of sandbox.disk_mb 16 there (ENOSPC),
#     rerun exit 1, failure_kind limit naming the quota, no mount or
#     image left there (protocol 8; before, the agent cut logs at 64 MiB
#     and had no quota: the build "passed" and the rerun exited 0);
#   - a branch whose build fails (with its @base control fetched there
#     too, built, then frozen root's): rerun exit 1, compare exit 1 with
#     the build failure as its reason.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT
t0=$(date +%s.%N)
# the sandbox uid reaches its checkout in that host's $TMPDIR under $T
chmod 755 "$T"
ns_sut_hosts
chmod 755 "$T/tmp_s"

RUNS=$T/runs
REPO=$T/impl
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
mkdir -p "$REPO"
# the server is committed (a test repository): builds only say who they ran as
cp "$T/srv" "$REPO/srv"
printf '#!/bin/sh\necho "built as uid $(id -u)"\n' >"$REPO/build.sh"
git init -q -b main "$REPO"
g add -A && g commit -m main
g checkout -q -b feature && echo "# a comment" >>"$REPO/build.sh" && g commit -am feature
FEATURE=$(git -C "$REPO" rev-parse feature)
g checkout -q main && g checkout -q -b broken
printf '#!/bin/sh\necho "srv.c:1: error: this branch does not build" >&2\nexit 1\n' >"$REPO/build.sh"
g commit -am broken
# forky: its server first forks 100 sleepers (pids.max 40 refuses most),
# kills them, then serves
g checkout -q main && g checkout -q -b forky && git -C "$REPO" mv srv srv.bin
cat >"$REPO/srv" <<'SH'
#!/bin/sh
python3 -c '
import os, signal, time
kids = []
for i in range(100):
    try:
        p = os.fork()
    except OSError:
        continue
    if p == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(p)
for k in kids:
    os.kill(k, signal.SIGKILL)
    os.waitpid(k, 0)
'
exec ./srv.bin "$@"
SH
chmod +x "$REPO/srv" && g add srv && g commit -m forky
# hog: its build prints 2 MiB (log_mb 1 cuts it there) and writes 64 MiB
# into its checkout (disk_mb 16 fills), then exits 0 as if nothing happened
g checkout -q main && g checkout -q -b hog
cat >"$REPO/build.sh" <<'SH'
#!/bin/sh
head -c 2097152 /dev/zero | tr '\0' x
dd if=/dev/zero of=fill bs=1M count=64 2>/dev/null
exit 0
SH
g commit -am hog
g checkout -q main

cat >"$T/spec.yaml" <<EOF2
version: 1
name: agent-rerun
slo: { threshold_ms: 100 }
implementations:
  - name: a
    host: root@10.218.18.2
    host_binary: $HARNESS
    repo: $REPO
    sandbox: always
    build: [/bin/sh, build.sh]
    start: [./srv, --host, "{host}", --port, "{port}"]
    health: { url: "http://{host}:{port}/healthz", timeout_s: 10 }
    stats: { url: "http://{host}:{port}/runtime-stats", poll_hz: 4, signals: { served: /requests } }
    restart: never
sandbox: { pids: 40, log_mb: 1, disk_mb: 16 }
workload:
  connections: 8
  requests: [ { name: root, path: / } ]
$(ns_spec_tail 200 1 1)
EOF2
q() { sqlite3 "$1" "$2"; }
# uid of the implementation's process there (srv, jailed: in a network
# namespace of its own); only this test's, whose working directory is
# under $T (another suite may run this script at the same time)
srv_uid() {
	local p
	for p in $(pgrep -f "^./srv --host 127.0.0.1"); do
		case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
		"$T"/*) ps -o uid= -p "$p" | tr -d ' '; return ;;
		esac
	done
}
# wait_srv PID: wait for the srv there while the run PID lives (it
# fetches and builds there first: on a loaded host that once took longer
# than the 10 s this waited at most, and the check read no uid), 120 s at
# most; prints its uid (nothing when the run ended without it)
wait_srv() {
	local i u
	for i in $(seq 1 2400); do
		u=$(srv_uid); [ -n "$u" ] && { echo "$u"; return; }
		kill -0 "$1" 2>/dev/null || return
		sleep 0.05
	done
}

# --- sandbox: always with host: jailed there
check "check accepts sandbox: always with host" "$HARNESS" check "$T/spec.yaml"
ip netns exec "${NSP}c" "$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" \
	--run-id base >"$T/base.out" 2>"$T/base.err" &
hp=$!
_pids+=("$hp")
u=$(wait_srv "$hp")
cmp_num "sandbox: always on that host: its process there runs as a sandbox uid" "${u:-0}" ">=" 1000000000
wait "$hp"; rc=$?
cmp_num "the run finished (exit)" "$rc" == 0
DB=$RUNS/base/run.db
cmp_num "its window accepted, the load relayed into its namespace there (completed of 200)" \
	"$(q "$DB" "SELECT completed FROM windows WHERE status = 'accepted'")" ">=" 190
check "its uid recorded (sandbox_identity) is the one seen there ($u; $(q "$DB" "SELECT detail FROM events WHERE kind = 'sandbox_identity'"))" \
	grep -q "a: uid $u," <(q "$DB" "SELECT detail FROM events WHERE kind = 'sandbox_identity'")
cmp_num "its runtime stats polled there, through the relay into its jail (measured rows)" \
	"$(q "$DB" "SELECT COUNT(*) FROM rtstats WHERE phase = 'measured' AND signal = 'served' AND value > 0")" ">=" 2
check "its build ran there as that uid (its log here: $(tr '\n' ' ' <"$RUNS/base/logs/build-a.log"))" \
	grep -q "built as uid $u" "$RUNS/base/logs/build-a.log"

# --- rerun of a branch: fetched, built and started there, jailed
ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id pr \
	--impl "a=$REPO#feature" >"$T/pr.out" 2>"$T/pr.err" &
hp=$!
_pids+=("$hp")
u=$(wait_srv "$hp")
co=$(ls -d "$T"/tmp_s/harness-agent-src.*/a 2>/dev/null | head -1)
# that host's sshd has a mount namespace of its own (netns.inc): the
# checkout's disk (quota.h) is mounted there, read through it
SPID=; for e in "${_ns_sshd[@]}"; do [ "${e%%:*}" = s ] && SPID=${e#*:}; done
check "the commit is checked out on that host, in its agent's directory ($co)" \
	test "$(nsenter -t "${SPID:-0}" -m git -c safe.directory='*' -C "${co:-/nonexistent}" rev-parse HEAD 2>/dev/null)" = "$FEATURE"
check "... on a disk of its own there (sandbox.disk_mb: $(grep " $co " "/proc/${SPID:-0}/mounts" | cut -d' ' -f1,3))" \
	grep -q "^/dev/loop[0-9]* $co ext4 " "/proc/${SPID:-0}/mounts"
check "... and not under the coordinator's run directory" test -n "$co" -a ! -e "$RUNS/pr/src/a"
cmp_num "the rerun's commit runs there as a sandbox uid" "${u:-0}" ">=" 1000000000
wait "$hp"; rc=$?
cmp_num "the rerun finished (exit)" "$rc" == 0
DB=$RUNS/pr/run.db
check "provenance: the rerun records the branch's commit" \
	test "$(q "$DB" "SELECT commit_id FROM impls WHERE name = 'a'")" = "$FEATURE"
check "provenance: and the remote URL and ref asked" \
	test "$(q "$DB" "SELECT remote_url || ' ' || ref_asked FROM impls WHERE name = 'a'")" = "$REPO feature"
check "provenance: its checkout's path there ($co)" \
	test -n "$co" -a "$(q "$DB" "SELECT src_dir FROM impls WHERE name = 'a'")" = "$co"
check "a remote_checkout event names the host and the path" \
	grep -q "a: fetched on root@10.218.18.2 into $co" <(q "$DB" "SELECT detail FROM events WHERE kind = 'remote_checkout'")
check "its build ran there as the arm's uid ($u; its log: $(tr '\n' ' ' <"$RUNS/pr/logs/build-a.log"))" \
	grep -q "built as uid $u" "$RUNS/pr/logs/build-a.log"
cmp_num "its window accepted (completed of 200)" \
	"$(q "$DB" "SELECT completed FROM windows WHERE status = 'accepted'")" ">=" 190
left=x
for i in $(seq 1 100); do left=$(ls -A "$T/tmp_s"); [ -z "$left" ] && break; sleep 0.05; done
check "the rerun ended: its checkout there is removed (\$TMPDIR of that host: $left)" test -z "$left"

# --- the coordinator SIGKILLed mid-rerun: the agent holding the checkout
# sees its standard input close and removes it, as the others remove the
# implementation; resume cannot rebuild a checkout that is gone: refused
ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id killed \
	--impl "a=$REPO#feature" >"$T/k.out" 2>"$T/k.err" &
hp=$!
_pids+=("$hp")
u=$(wait_srv "$hp")
check "before the kill: the rerun's commit runs there (uid $u)" test -n "$u"
kill -9 "$hp"; wait "$hp" 2>/dev/null
for i in $(seq 1 100); do left="$(ls -A "$T/tmp_s")$(ns_others s)"; [ -z "$left" ] && break; sleep 0.05; done
check "coordinator SIGKILLed: within 5 s its checkout there is removed and nothing runs there ($left)" test -z "$left"
expect_exit "resume of that rerun: refused" 2 "$HARNESS" resume killed --runs-dir "$RUNS"
check "... saying why (its checkout there was removed)" grep -q "was fetched on root@10.218.18.2 for this rerun" "$T/err"

# --- the agent itself SIGKILLed mid-rerun (nothing of it runs its
# cleanup): its janitor (scratch.h) unmounts the checkout's disk quota
# there before removing the directory; without that the loop mount and
# its image's space stay until that host reboots
ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id agentkilled \
	--impl "a=$REPO#feature" >"$T/ak.out" 2>"$T/ak.err" &
hp=$!
_pids+=("$hp")
u=$(wait_srv "$hp")
mounted() { grep -c " $T/tmp_s/" "/proc/${SPID:-0}/mounts"; }
check "before the kill: the rerun's commit runs there on its disk quota (mounts: $(mounted))" \
	test -n "$u" -a "$(mounted)" = 1
# the agents there: a `harness agent` that sshd started (its janitors
# and watchdogs are forks of it, with the same command line: spared)
for p in $(ns_others s); do
	ps -o args= -p "$p" 2>/dev/null | grep -q "harness agent" || continue
	ps -o args= -p "$(ps -o ppid= -p "$p" | tr -d ' ')" 2>/dev/null | grep -q "^sshd" || continue
	kill -9 "$p"
done
wait "$hp" 2>/dev/null
for i in $(seq 1 100); do left="$(ls -A "$T/tmp_s")$(ns_others s)"; [ -z "$left" ] && [ "$(mounted)" = 0 ] && break; sleep 0.05; done
check "agent SIGKILLed: within 5 s no mount, checkout, image or process of it is left there ($left; mounts $(mounted))" \
	test -z "$left" -a "$(mounted)" = 0 -a -n "$SPID"

# --- a branch that fails to build, with its baseline fetched there too
# (built first, then frozen: root's): the commit's own negative answer
expect_exit "rerun of a branch that fails to build there" 1 \
	ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id broken \
	--with-baseline --impl "a=$REPO#broken"
check "its @base control was fetched there too, and frozen after its build" \
	test "$(q "$RUNS/broken/run.db" "SELECT COUNT(*) FROM events WHERE kind = 'remote_checkout' OR (kind = 'sandbox_frozen' AND detail LIKE 'a@base:%')")" = 3
check "recorded: failure_kind build, failure_impl a" \
	test "$(q "$RUNS/broken/run.db" "SELECT failure_kind || '|' || failure_impl FROM runs")" = "build|a"
check "its build's output came back from that host" \
	grep -q "this branch does not build" "$RUNS/broken/logs/build-a.log"
"$HARNESS" compare base broken --runs-dir "$RUNS" --format json >"$T/cmp.json" 2>"$T/cmp.err"
rc=$?
why=$(jq -r '.impls[] | select(.name=="a") | .verdict + ": " + .why' "$T/cmp.json" 2>/dev/null)
cmp_num "compare base broken: a regression (exit)" "$rc" == 1
check "... because the new commit failed to build ($why)" grep -q "^regression: the new commit failed to build" <<<"$why"
check "nothing of it left there" test -z "$(ls -A "$T/tmp_s")$(ns_others s)"

# --- a branch that hits the sandbox's pids limit there: the window's end
# reads it from that host (ACCT), the run fails as the commit's own answer
expect_exit "rerun of a branch that hits its pids limit there" 1 \
	ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id forky --impl "a=$REPO#forky"
check "recorded: failure_kind limit, failure_impl a" \
	test "$(q "$RUNS/forky/run.db" "SELECT failure_kind || '|' || failure_impl FROM runs")" = "limit|a"
check "the evidence from that host: forks refused at pids.max 40 (sandbox_limit)" \
	grep -q "a hit its sandbox limits: [0-9]* forks refused at pids.max 40" <(q "$RUNS/forky/run.db" "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
check "nothing of it left there either" test -z "$(ls -A "$T/tmp_s")$(ns_others s)"

# --- a branch whose build fills its disk there and floods its log: the
# spec's caps carried to that host (protocol 8), the hit reported back
expect_exit "rerun of a branch whose build fills its disk quota there" 1 \
	ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id hog --impl "a=$REPO#hog"
check "recorded: failure_kind limit, failure_impl a" \
	test "$(q "$RUNS/hog/run.db" "SELECT failure_kind || '|' || failure_impl FROM runs")" = "limit|a"
ev=$(q "$RUNS/hog/run.db" "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
check "the evidence from that host: its disk quota full at sandbox.disk_mb 16 ($ev)" \
	grep -q "a hit its sandbox limits: its disk quota full at sandbox.disk_mb 16 (" <<<"$ev"
check "its build log there cut at sandbox.log_mb 1 (the end that came back: $(tail -c 120 "$RUNS/hog/logs/build-a.log" | tr '\n' ' '))" \
	grep -q "=== harness: log cut at 1 MiB (sandbox.log_mb)" "$RUNS/hog/logs/build-a.log"
check "nothing of it left there: no checkout, image or mount ($(ls -A "$T/tmp_s") $(grep -c " $T/tmp_s" "/proc/${SPID:-0}/mounts"))" \
	test -z "$(ls -A "$T/tmp_s")$(ns_others s)" -a "$(grep -c " $T/tmp_s" "/proc/${SPID:-0}/mounts")" = 0 -a -n "$SPID"

# --- no room there for the arm's disk quota (that host's $TMPDIR a 4 MiB
# tmpfs for one rerun, in its sshd's mount namespace): that host's
# failure (3), told as the agent's filesystem and the quota asked, not
# the runs filesystem (there is none there)
if [ -n "$SPID" ] && nsenter -t "$SPID" -m mount -t tmpfs -o size=4m,mode=755 small "$T/tmp_s"; then
	expect_exit "rerun with no room for its disk quota on that host: the host's failure" 3 \
		ip netns exec "${NSP}c" "$HARNESS" rerun base --runs-dir "$RUNS" --run-id noroom --impl "a=$REPO#feature"
	check "... its message names the quota and that host's filesystem: $(grep -m1 'disk quota' "$T/err")" \
		grep -q "no room for the arm's disk quota (sandbox.disk_mb 16) on this agent's filesystem: [0-4] MiB free there" "$T/err"
	check "... and never the runs filesystem" eval '! grep -q "runs filesystem" "$T/err"'
	nsenter -t "$SPID" -m umount "$T/tmp_s"
else
	fail "a small filesystem for that host's \$TMPDIR (sshd pid ${SPID:-none})"
fi

echo "# agent_rerun: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
