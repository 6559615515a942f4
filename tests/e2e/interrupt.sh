#!/bin/bash
# timing-free: a run stops within 1 s of SIGTERM (measured 0.01-0.07 s: 20 and 50 ms polls); a rerun is signalled once its window runs (polled)
# SIGTERM (or Ctrl-C) stops a run within about a second wherever it is, not
# only in a window: during a build (a build that sleeps 30 s) and during the
# health wait (a health URL that never answers, 60 s allowed). Each time the
# harness exits 1 within 1 s of the signal, as issue 16 asks (the build is
# polled every 20 ms, the health try every 50 ms; measured 0.01-0.07 s, so
# a loaded VM's stalls have more than ten times slack), leaves no process of the
# build or of the implementation, marks the run interrupted, and `harness
# resume` takes it up again.
# 3. A rerun (its checkout its arm's uid's, jailed) stopped in its window
# by SIGTERM, SIGINT, SIGHUP (a dropped ssh session) or kill -9: the first
# three mark it interrupted; kill -9 leaves it stored running, and
# `status` and `runs` read it abandoned (nothing holds its .lock) while a
# live run reads running. Each leaves its checkout's disk quota
# unmounted, its image kept (kill -9 too: its commands' watchdogs detach
# it). `resume` then finishes it, unforced: every window done, `audit
# --recheck` clean, the disk gone.
. "$(dirname "$0")/../lib.sh"

# spec NAME BUILD_LINE START HEALTH_URL
spec() {
	cat >"$T/$1.yaml" <<EOF
version: 1
name: $1
slo: { threshold_ms: 50 }
implementations:
  - name: a
$2
    start: [$HELPERS/testsrv, --port, "{port}", $3]
    health: { url: "$4", timeout_s: 60 }
workload:
  requests: [ { name: echo, path: /echo } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, window_s: 2, reps: 1 }
warmup: { rate: { fixed_rps: 100 }, min_s: 1, max_s: 2, trailing_s: 1, gates: [] }
window_gates: [error_rate]
EOF
}

# interrupt WHAT PATTERN CMD...: start CMD, wait until PATTERN (a process
# command line) is running, send SIGTERM, check the time to exit, the exit
# code, and that no process matching PATTERN is left.
interrupt() {
	local what=$1 pat=$2 hp i t0 el rc
	shift 2
	"$@" >"$T/out" 2>"$T/err" &
	hp=$!
	_pids+=("$hp")
	for i in $(seq 1 100); do pgrep -f "$pat" >/dev/null && break; sleep 0.05; done
	pgrep -f "$pat" >/dev/null && ok "$what: $pat is running" || fail "$what: $pat is not running"
	sleep 1
	t0=$(date +%s.%N)
	kill -TERM "$hp"
	wait "$hp"
	rc=$?
	el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	cmp_num "$what: exits within 1 s of SIGTERM (seconds)" "$el" "<" 1
	cmp_num "$what: exit code 1 (interrupted)" "$rc" == 1
	for i in $(seq 1 20); do pgrep -f "$pat" >/dev/null || break; sleep 0.05; done
	pgrep -f "$pat" >/dev/null && fail "$what: left running: $(pgrep -af "$pat")" ||
		ok "$what: no process left ($pat)"
}

status_is() { # RUN STATUS
	"$HARNESS" status "$1" --runs-dir "$T/runs" --json >"$T/st.json" 2>/dev/null
	[ "$(jq -r .status "$T/st.json")" = "$2" ]
}

# 1. During the build.
mark=31.$$   # a unique sleep length, so pgrep sees only this test's build
spec build "    build: [sleep, \"$mark\"]" '--delay-ms, "0"' "http://127.0.0.1:{port}/healthz"
interrupt "build" "sleep $mark" "$HARNESS" run "$T/build.yaml" --allow-dirty \
	--runs-dir "$T/runs" --run-id b1
check "build: run marked interrupted" status_is b1 interrupted
grep -q "interrupted" "$T/err" && ok "build: says it was interrupted" ||
	fail "build: stderr: $(head -c 400 "$T/err")"
interrupt "build, resumed" "sleep $mark" "$HARNESS" resume b1 --runs-dir "$T/runs"
[ "$(head -n 1 "$T/out")" = b1 ] && ok "build: resume took the run up again" ||
	fail "build: resume printed '$(head -n 1 "$T/out")'"

# 2. During the health wait: the health URL hangs (testsrv --mode hang never
# answers /echo), each try up to 1 s; its --delay-ms is only a marker for pgrep.
spec health "" '--mode, hang, --delay-ms, "'$$'"' "http://127.0.0.1:{port}/echo"
interrupt "health wait" "testsrv --port [0-9]+ --mode hang --delay-ms $$" \
	"$HARNESS" run "$T/health.yaml" --allow-dirty --runs-dir "$T/runs" --run-id h1
check "health wait: run marked interrupted" status_is h1 interrupted
check "health wait: no window left running" bash -c \
	"! sqlite3 '$T/runs/h1/run.db' \"select 1 from windows where state = 'running'\" | grep -q 1"

# 3. A rerun's window, stopped by each signal, then resumed.
chmod 755 "$T"   # the sandbox's uid reaches its checkout below it
REPO=$T/impl
mkdir -p "$REPO" && cp "$HELPERS/testsrv" "$REPO/srv"
printf '#!/bin/sh\nexit 0\n' >"$REPO/build.sh"
gr() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
git init -q -b main "$REPO" && gr add -A && gr commit -qm main
# slowbuild: a build that sleeps (section 4 signals the rerun in it)
gr checkout -q -b slowbuild && printf '#!/bin/sh\nexec sleep 33.%s\n' $$ >"$REPO/build.sh" &&
	gr commit -qam "a slow build" && gr checkout -q main
cat >"$T/rr.yaml" <<EOF
version: 1
name: rerun-interrupt
# error_rate_max 5 % (not 0.1 %): at load 13 a window of 100 requests
# failed by one timeout or drop ended section 4's --until-decided reruns
# before their sequential blocks; no check here reads an error rate
slo: { threshold_ms: 50, error_rate_max: 0.05 }
implementations:
  - name: a
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [./srv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
workload:
  requests: [ { name: echo, path: /echo } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, window_s: 1, reps: 1 }
warmup: { rate: { fixed_rps: 100 }, min_s: 0, max_s: 0.5, trailing_s: 0.5, gates: [] }
window_gates: [error_rate]
EOF
expect_exit "rerun: the baseline run" 0 "$HARNESS" run "$T/rr.yaml" --allow-dirty --runs-dir "$T/runs" --run-id rbase
# read-only: a plain sqlite3 would create the database the rerun is about to
rq() { [ -f "$T/runs/$1/run.db" ] && sqlite3 -readonly "$T/runs/$1/run.db" "$2" 2>/dev/null; }
# The four reruns run side by side (seconds, not four times as many):
# each is signalled once its window runs, then all are resumed together.
declare -A hp rc
for sig in TERM INT HUP KILL; do
	"$HARNESS" rerun rbase --runs-dir "$T/runs" --run-id r$sig --impl "a=$REPO#main" >"$T/out.$sig" 2>"$T/err.$sig" &
	hp[$sig]=$!
	_pids+=("${hp[$sig]}")
done
# Each is signalled as soon as its own window runs, all four watched in
# one loop: watched one after the other, a loaded host let the last ones'
# 1 s windows end (their reruns finished, exit 0) while the first waited.
declare -A sent
for i in $(seq 1 300); do
	waiting=0
	for sig in TERM INT HUP KILL; do
		[ -n "${sent[$sig]:-}" ] && continue
		if [ "$(rq r$sig "SELECT COUNT(*) FROM windows WHERE state = 'running'")" != 1 ]; then
			waiting=1
			continue
		fi
		[ $sig = TERM ] && check "rerun: a live run reads running (its lock held)" status_is r$sig running
		kill -$sig "${hp[$sig]}"
		sent[$sig]=1
	done
	[ $waiting = 0 ] && break
	sleep 0.05
done
for sig in TERM INT HUP KILL; do
	[ -n "${sent[$sig]:-}" ] && continue
	fail "rerun r$sig: its window never seen running in 15 s (signalled anyway)"
	kill -$sig "${hp[$sig]}"
done
for sig in TERM INT HUP KILL; do wait "${hp[$sig]}"; rc[$sig]=$?; done
for sig in TERM INT HUP; do
	cmp_num "rerun, SIG$sig in its window: exit 1 (interrupted)" "${rc[$sig]}" == 1
	check "rerun, SIG$sig: marked interrupted" status_is r$sig interrupted
done
check "rerun, kill -9: status reads abandoned" status_is rKILL abandoned
jq -r .failure "$T/st.json" | grep -q "nothing holds $T/runs/rKILL/.lock" &&
	ok "rerun, kill -9: with the evidence (its lock not held)" || fail "kill -9 failure: $(jq -c . "$T/st.json")"
"$HARNESS" runs --runs-dir "$T/runs" --json >"$T/runs.json" 2>/dev/null
[ "$(jq -r '.[] | select(.id == "rKILL") | .status' "$T/runs.json")" = abandoned ] &&
	ok "rerun, kill -9: runs --json reads abandoned" ||
	fail "runs --json: $(jq -c '.[] | select(.id == "rKILL")' "$T/runs.json")"
"$HARNESS" runs --runs-dir "$T/runs" 2>/dev/null | grep -q "^rKILL .* abandoned[ ,].*\[its process is gone" &&
	ok "rerun, kill -9: runs reads abandoned" || fail "runs: $("$HARNESS" runs --runs-dir "$T/runs" 2>&1 | grep "^rKILL")"
# each rerun's checkout is on its disk quota (quota.h): stopped by a
# signal, the run leaves it unmounted with its image kept for resume;
# killed with -9 (no cleanup of its own), the watchdogs of its commands
# detach it once its processes are dead (sut.h quota_dir), within 5 s
mounts() { grep -c " $T/runs/r$1/src/" /proc/self/mounts; }
for sig in TERM INT HUP KILL; do
	for i in $(seq 1 100); do [ "$(mounts $sig)" = 0 ] && break; sleep 0.05; done
	[ "$(mounts $sig)" = 0 ] && [ -f "$T/runs/r$sig/src/a.img" ] &&
		ok "rerun, SIG$sig: its disk quota unmounted, its image kept for resume" ||
		fail "rerun, SIG$sig: mounts $(mounts $sig), image $(ls "$T/runs/r$sig/src" 2>&1 | tr '\n' ' ')"
done
# 4. The pull-request recipe's rerun, --with-baseline --until-decided: two
# disk quotas (src/a, src/a@base), stopped the way a cancelled CI job is:
# SIGTERM to the harness, its process group (setsid: the harness's own)
# and its arms' bwrap at once, during the fetch (a repository URL that
# never answers: testsrv --mode hang), during a's build (a@base's built)
# and during a window of a sequential block; and kill -9 to the harness
# alone during the build and during a sequential block. Each leaves on
# the host no mount and no loop device of the run, no process of it
# (jail, watchdog, relay) and no cgroup, and `rm -rf` of its directory
# works. Before the quotas had a mount namespace of the harness's own
# (quota.h), each kill -9 left the arm not running at that moment (not
# watched by a watchdog) mounted, its loop device bound, and rm -rf
# failed "Device or resource busy"; so did the SIGTERM during the fetch,
# which killed the harness before it caught any signal (exit 143, not a
# word). The quotas are seen mounted in the harness's namespace first.
# Started here, so they fetch, build and measure while section 3's
# reruns resume (each waits at its point: the fetch hangs, the build
# sleeps 33 s, --until-decided runs blocks for up to 2 minutes).
hport=$(free_port)
bg "$HELPERS/testsrv" --port "$hport" --mode hang
wait_port "$hport"
declare -A how impl
for id in wTfetch wTbuild wTseq wKbuild wKseq; do
	case $id in wT*) how[$id]=TERM ;; *) how[$id]=KILL ;; esac
	case $id in
	*fetch) impl[$id]="a=http://127.0.0.1:$hport/repo#main" ;;
	*build) impl[$id]="a=file://$REPO#slowbuild" ;;
	*) impl[$id]="a=file://$REPO#main" ;;
	esac
	setsid "$HARNESS" rerun rbase --runs-dir "$T/runs" --run-id $id --with-baseline --until-decided \
		--max-minutes 2 --impl "${impl[$id]}" >"$T/out.$id" 2>"$T/err.$id" &
	hp[$id]=$!
	_pids+=("${hp[$id]}")
done
for sig in TERM INT HUP KILL; do
	"$HARNESS" resume r$sig --runs-dir "$T/runs" >"$T/out.$sig" 2>"$T/err.$sig" &
	hp[$sig]=$!
	_pids+=("${hp[$sig]}")
done
for sig in TERM INT HUP KILL; do
	wait "${hp[$sig]}"
	cmp_num "rerun, SIG$sig: resume exits 0" $? == 0
	id=r$sig
	check "rerun, SIG$sig: finished after resume" status_is $id finished
	[ "$(rq $id "SELECT COUNT(*) FROM windows WHERE state = 'done'")/$(rq $id "SELECT COUNT(*) FROM windows WHERE state != 'done'")" = 1/0 ] &&
		ok "rerun, SIG$sig: its window done, none left" || fail "rerun, SIG$sig windows: $(rq $id "SELECT id, state, status FROM windows" | tr '\n' ' ')"
	[ "$(rq $id "SELECT forced FROM runs")" = 0 ] && ! grep -q force "$T/err.$sig" &&
		ok "rerun, SIG$sig: resumed without --force" || fail "rerun, SIG$sig: forced: $(cat "$T/err.$sig")"
	expect_exit "rerun, SIG$sig: audit --recheck clean" 0 "$HARNESS" audit $id --runs-dir "$T/runs" --recheck
	[ "$(mounts $sig)" = 0 ] && [ ! -e "$T/runs/r$sig/src/a.img" ] &&
		ok "rerun, SIG$sig: finished, its disk quota gone (no mount, no image)" ||
		fail "rerun, SIG$sig after resume: mounts $(mounts $sig), $(ls "$T/runs/r$sig/src" 2>&1 | tr '\n' ' ')"
done

# 4 (started above): each signalled at its point.
# in the harness's mount namespace (the host's before the fix)
nsmounts() { grep -c " $T/runs/$1/src/" "/proc/${hp[$1]}/mounts" 2>/dev/null; }
ready() {
	case $1 in
	*fetch) [ "$(nsmounts $1)" = 1 ] ;;
	*build) [ "$(nsmounts $1)" = 2 ] && grep -qx "harness: building a" "$T/err.$1" &&
		pgrep -f "sleep 33.$$" >/dev/null ;;
	*) [ "$(rq $1 "SELECT COUNT(*) FROM windows WHERE stage = 'sequential' AND state = 'running'")" = 1 ] ;;
	esac
}
for id in wTfetch wTbuild wTseq wKbuild wKseq; do
	for i in $(seq 1 400); do ready $id && break; sleep 0.05; done
	ready $id && ok "$id: ${id:2} reached, its disk quotas mounted in its namespace ($(nsmounts $id))" ||
		fail "$id: never reached its point: $(tail -n 2 "$T/err.$id" | tr '\n' ' ') windows: $(rq $id "SELECT impl, stage, state, status, reasons FROM windows" | tr '\n' ' ')"
	if [ ${how[$id]} = TERM ]; then
		kill -TERM -- -"${hp[$id]}" $(pgrep -f -- "--chdir $T/runs/$id/src/")
	else
		kill -KILL "${hp[$id]}"
	fi
done
left() { # ID: what of it is left on the host, empty when nothing
	grep " $T/runs/$1/" /proc/self/mounts | cut -d' ' -f1,2
	grep -l "$T/runs/$1/" /sys/block/loop*/loop/backing_file 2>/dev/null
	pgrep -af -- "$T/runs/$1/|--run-id $1( |\$)"
	ls -d /sys/fs/cgroup/harness/h${hp[$1]}_* /sys/fs/cgroup/*/harness/h${hp[$1]}_* 2>/dev/null
}
for id in wTfetch wTbuild wTseq wKbuild wKseq; do
	wait "${hp[$id]}"
	rc[$id]=$?
	[ ${how[$id]} = TERM ] && want=1 || want=137
	cmp_num "$id: exit ${rc[$id]}" "${rc[$id]}" == $want
	for i in $(seq 1 100); do [ -z "$(left $id)" ] && break; sleep 0.05; done
	l=$(left $id)
	[ -z "$l" ] && ok "$id: no mount, loop device, process or cgroup of it left" ||
		fail "$id: left: $(echo "$l" | tr '\n' ' ')"
	[ $id = wTfetch ] && { [ -e "$T/runs/$id" ] && fail "$id: its directory kept: $(ls -R "$T/runs/$id" | head -c 300)" ||
		ok "$id: nothing of it kept (no runs directory)"; }
	rm -rf "$T/runs/$id" 2>"$T/rm.err" && ok "$id: its runs directory removed" ||
		fail "$id: rm -rf: $(head -n 2 "$T/rm.err" | tr '\n' ' ')"
done
grep -q "rerun: wTfetch: interrupted while fetching its implementations: nothing ran" "$T/err.wTfetch" &&
	ok "wTfetch: says it was interrupted while fetching" || fail "wTfetch: $(tail -n 2 "$T/err.wTfetch" | tr '\n' ' ')"
grep -q "wTseq: interrupted; continue with: harness resume wTseq" "$T/err.wTseq" &&
	ok "wTseq: says it was interrupted, resumable" || fail "wTseq: $(tail -n 2 "$T/err.wTseq" | tr '\n' ' ')"
exit 0
