#!/bin/bash
# timing-free: what a hostile implementation can and cannot do in its jail (completed counts at a low rate)
# release-only: under make asan rerun_fail.sh, interrupt.sh and deps_headroom.sh reach its code but 58 lines (runner.c 13, bind_sandbox.c 10, runner_arm.c 7), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# Untrusted code in its bwrap sandbox (issue 17's acceptance), with one
# hostile service: the `evil` branch's start command (evil.py) makes every
# attempt in turn, prints "SBX <attempt>: <result>" into its arm's log, and
# then serves the benchmark with testsrv. The baseline run measures the
# benign main commit of both implementations (a, b: trusted, as the spec's
# own); one rerun replaces both with `evil`, sandboxed, so two sandboxes
# run side by side:
#   - reading the run database, /root: not there;
#   - writing into the runs directory and the run's logs/: denied;
#   - connecting to a listener on 127.0.0.1 outside: refused, while the
#     arm still serves its window's load; the run's dependency (db), on
#     its {dep.db.port}: reached (its port relayed into the namespace);
#     of all ephemeral ports of its loopback (where the harness draws
#     every port) only the dependencies its spec entry names answer: db for a; db and `other` for b, which alone
#     is told other's port (SBX_OTHER);
#   - the processes it sees: its own only (no harness, no test shell);
#     kill(-1) reaches nothing outside;
#   - a double-forked setsid daemon: dead after the run;
#   - sandbox.cpu_max 1 (a CFS quota of one core) set on every sandbox;
#   - b forks 500 with sandbox.pids 100: the limit holds and the run fails
#     with failure_kind limit, its evidence in a sandbox_limit event;
#   - b opens 2000 connections to db and holds them: 128 are relayed
#     (sandbox.relay_connections), the rest closed and counted in the same
#     event; the harness's threads and descriptors, read meanwhile, stay
#     bounded;
#   - both arms bind the same port, which the outside listener holds too;
#   - its environment: nothing of the harness's (SBX_SECRET) but the spec's
#     (and PWD, which its /bin/sh sets);
#   - truncating its own log (stdout/stderr): impossible (a pipe);
#   - a writes 1 GiB to its stdout: the log is cut at sandbox.log_mb 16
#     with a marker, the pipe still drained, its window measured as before;
#   - fallocate 5 GiB in its checkout: no space (sandbox.disk_mb 64, a
#     loop-mounted image); no checkout, image or mount left after the run;
#   - renaming its .git: refused;
#   - unix sockets bound on the host's filesystem (mode 0777; under /tmp,
#     /var/tmp, /srv): not there (its root is a fresh one of read-only
#     system directories); one under /opt, which it binds: /dev/null over
#     it, connect() refused;
#   - a nested user namespace (unshare -U, unshare -Ur): refused;
# and the exact bwrap argv is recorded with the run (sandbox_argv events).
# procfs accounting (no limits) is refused for sandboxed code: a spec
# error with sandbox: always, exit 2 for a rerun's commits.
# A limit hit outside a window is the arm's answer too: a start that fills
# its /tmp past sandbox.memory_mb (oomstart) and a build that fills its
# disk quota (diskfill): exit 1, failure_kind limit, compare "hit its
# sandbox limits"; nothing of their disks left after the run.
. "$(dirname "$0")/../lib.sh"

chmod 755 "$T"
RUNS=$T/runs
REPO=$T/impl
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
P=$(free_port)
UNIQ=$((4200000 + $$ % 100000))

# The listener outside every sandbox, on 127.0.0.1:$P.
bg "$HELPERS/testsrv" --port "$P"
wait_port "$P" || fail "outside listener on $P did not start"

# Unix sockets on the host's filesystem, mode 0777, where a read-only
# bind of / showed them (connect() needs no write access): under the
# test's directory (in /tmp), /var/tmp and /srv. Their listener accepts.
SOCKS="$T/sbx.sock /var/tmp/harness-sbx-$$.sock"
[ -d /srv ] && SOCKS="$SOCKS /srv/harness-sbx-$$.sock"
# and one under a directory the jail does bind (/opt, read-only): its
# file is there, covered by /dev/null (jail.h, usock.h): refused
OPTD=/opt/harness-sbx-$$
[ -d /opt ] && mkdir -p "$OPTD" && SOCKS="$SOCKS $OPTD/s.sock"
trap '_cleanup; rm -f /var/tmp/harness-sbx-$$.sock /srv/harness-sbx-$$.sock; rm -rf "$OPTD"' EXIT
bg python3 -c '
import os, select, socket, sys
ls = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, 0o777); s.listen(16); ls.append(s)
while True:
    for s in select.select(ls, [], [], 60)[0]:
        s.accept()[0].close()
' $SOCKS
for s in $SOCKS; do
	for i in $(seq 1 100); do [ -S "$s" ] && break; sleep 0.05; done
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$s" 2>/dev/null ||
		fail "the unix socket $s cannot be reached outside either"
done

mkdir -p "$REPO"
# The server binary goes into the repository: a jail sees nothing of the
# machine's /tmp, /home or /run, where a clone of this project (and so
# $HELPERS) may well be.
cp "$HELPERS/testsrv" "$REPO/srv"
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
exec "$SBX_SRV" --port "$1"
SH
echo "exit 0" >"$REPO/build.sh"
git init -q -b main "$REPO"
g add -A && g commit -m main
g checkout -b evil
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
exec /usr/bin/python3 evil.py "$1"
SH
cat >"$REPO/evil.py" <<'PY'
import os, signal, socket, sys, time
E = os.environ
RUNS, P, ME = E["SBX_RUNS"], int(E["SBX_PORT"]), E["SBX_NAME"]
# the costly attempts (forks, flood, spam) at its window's start only,
# not at the pre-flight's (a limit hit there would end the run before
# any window)
again = os.path.exists("started")
open("started", "w").close()
def say(k, v):
    print("SBX %s: %s" % (k, v), flush=True)
def attempt(k, f):
    try:
        say(k, "allowed %s" % (str(f())[:120],))
    except Exception as e:
        say(k, "denied %s %s" % (type(e).__name__, str(e)[:100]))
attempt("read_db", lambda: len(open(RUNS + "/base/run.db", "rb").read()))
attempt("read_spec_dir", lambda: os.listdir(RUNS))
attempt("read_root", lambda: os.listdir("/root"))
attempt("write_runs", lambda: open(RUNS + "/pwned-" + ME, "w").write("x"))
attempt("write_logs", lambda: open(RUNS + "/sbx/logs/pwned-" + ME, "w").write("x"))
attempt("connect_outside", lambda: socket.create_connection(("127.0.0.1", P), timeout=2).close())
def dep():
    s = socket.create_connection(("127.0.0.1", int(E["SBX_DEP"])), timeout=2)
    s.sendall(b"GET /dep HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    return s.recv(12).decode()
attempt("connect_dependency", dep)
def scan():   # every port of its loopback where a run's ports are drawn
    lo, hi = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
    found = []
    for port in range(lo, hi + 1):
        c = socket.socket()
        # (a socket whose ephemeral port is the one it dials connects to
        # itself, TCP's simultaneous open: not a listener)
        if c.connect_ex(("127.0.0.1", port)) == 0 and c.getsockname() != c.getpeername():
            found.append(port)
        c.close()
    return found
say("open_ports", " ".join(str(p) for p in scan()))
held = []
def bind():
    s = socket.socket()
    s.bind(("127.0.0.1", P))
    s.listen(1)
    s.set_inheritable(True)   # kept open by the server exec'd below
    held.append(s)
    return P
attempt("bind_port", bind)
procs = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
say("procs", " ".join(str(p) for p in procs))
cmd = []
for p in procs:
    try:
        cmd.append(open("/proc/%d/cmdline" % p, "rb").read().replace(b"\0", b" ").decode()[:60])
    except Exception:
        pass
say("cmdlines", " | ".join(cmd))
attempt("outside_cmdline", lambda: open("/proc/%s/cmdline" % E["SBX_OUTSIDE_PID"]).read())
attempt("kill_outside", lambda: os.kill(int(E["SBX_OUTSIDE_PID"]), signal.SIGKILL))
attempt("kill_all", lambda: os.kill(-1, signal.SIGKILL))
attempt("truncate_stdout", lambda: os.ftruncate(1, 0))
attempt("truncate_stderr", lambda: os.ftruncate(2, 0))
attempt("rename_git", lambda: os.rename(".git", "git-moved"))
def unix(path):   # a listener's unix socket, mode 0777, outside
    u = socket.socket(socket.AF_UNIX)
    u.settimeout(2)
    u.connect(path)
    u.close()
    return path
for i, path in enumerate(E["SBX_UNIX"].split()):
    attempt("unix_%d" % i, lambda p=path: unix(p))
def userns(flags):
    import subprocess
    r = subprocess.run(["/usr/bin/unshare"] + flags + ["true"], capture_output=True)
    if r.returncode:
        raise OSError("exit %d: %s" % (r.returncode, r.stderr.decode().strip()[:80]))
    return "exit 0"
attempt("userns", lambda: userns(["-U"]))
attempt("userns_root", lambda: userns(["-Ur"]))
say("checkout_owner", os.stat(".").st_uid)
def fallocate():
    fd = os.open("big", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.posix_fallocate(fd, 0, 5 << 30)
    finally:
        os.close(fd)
        os.unlink("big")
    return "5 GiB"
attempt("fallocate", fallocate)
say("env", ",".join(sorted(E.keys())))
flood, held, t0 = int(E.get("SBX_FLOOD", "0")) if again else 0, [], time.time()
for i in range(flood):   # connections to its dependency, all held
    try:
        held.append(socket.create_connection(("127.0.0.1", int(E["SBX_DEP"])), timeout=2))
    except Exception:
        pass
if flood:
    say("flood", "%d of %d in %.1f s" % (len(held), flood, time.time() - t0))
    time.sleep(1)        # held while the test reads the harness's threads and descriptors
    for c in held:
        c.close()
n, kids = int(E.get("SBX_FORKS", "0")) if again else 0, []
for i in range(n):
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
if again:
    say("forks", "%d of %d" % (len(kids), n))
for k in kids:
    os.kill(k, signal.SIGKILL)
    os.waitpid(k, 0)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", E["SBX_DAEMON"]])
    os._exit(0)
os.wait()
say("daemon", "started")
if again and E.get("SBX_SPAM"):   # that much of its stdout (zeros), then a line on stderr
    import subprocess
    sys.stdout.flush()
    subprocess.run(["head", "-c", E["SBX_SPAM"], "/dev/zero"])
    print("SBX spam: %s written" % E["SBX_SPAM"], file=sys.stderr, flush=True)
os.execv(E["SBX_SRV"], [E["SBX_SRV"], "--port", sys.argv[1]])
PY
g add -A && g commit -m "evil: every attempt, then serve"
g checkout -q main
# oomstart: its start fills its private /tmp (a tmpfs: its cgroup's
# memory) past sandbox.memory_mb, and never comes up
g checkout -q -b oomstart
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
head -c 300M /dev/zero >/tmp/fill && exec "$SBX_SRV" --port "$1"
SH
g add -A && g commit -m "oomstart: fill /tmp past the memory limit"
g checkout -q main
# diskfill: its build writes 100 MiB into its checkout (sandbox.disk_mb 64)
g checkout -q -b diskfill
echo "head -c 100M /dev/zero >fill" >"$REPO/build.sh"
g add -A && g commit -m "diskfill: a build that fills its disk quota"
g checkout main

impl() { # name forks [more env]
	cat <<YAML
  - name: $1
    repo: $REPO
    build: [/bin/sh, build.sh]
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 30 }
    restart: never
    env: { SBX_SRV: ./srv, SBX_RUNS: $RUNS, SBX_PORT: "$P", SBX_NAME: $1, SBX_DEP: "{dep.db.port}",
           SBX_OUTSIDE_PID: "$$", SBX_DAEMON: "$UNIQ", SBX_FORKS: "$2", SBX_UNIX: "$SOCKS"${3:+, $3} }
YAML
}
# seed 4: the plan runs a's window before b's (asserted below), so both
# sandboxes are up when b's fork bomb ends the run.
cat >"$T/spec.yaml" <<YAML
version: 1
name: sandbox-e2e
seed: 4
slo: { percentile: 99, threshold_ms: 50 }
sandbox: { pids: 100, cpu_max: 1, memory_mb: 200, log_mb: 16, disk_mb: 64 }
dependencies:
  - name: db
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { tcp: "127.0.0.1:{port}" }
  - name: other
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { tcp: "127.0.0.1:{port}" }
implementations:
$(impl a 0 'SBX_SPAM: "1G"')
$(impl b 500 'SBX_OTHER: "{dep.other.port}", SBX_FLOOD: "2000"')
workload:
  connections: 4
  requests: [ { name: root, path: /x } ]
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 200, reps: 1, window_s: 1, discard_s: 0 }
warmup: { rate: { fixed_rps: 100 }, min_s: 0, max_s: 0.5, trailing_s: 0.5, gates: [] }
window_gates: [error_rate, sut_alive]
YAML

expect_exit "baseline run (trusted, benign)" 0 \
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id base
# The rerun in the background: its threads and descriptors read while b
# holds 2000 connections to db (every 50 ms, until it exits; bounded).
SBX_SECRET=topsecret "$HARNESS" rerun base --runs-dir "$RUNS" --run-id sbx --impl "a=$REPO#evil" \
	--impl "b=$REPO#evil" >"$T/out" 2>"$T/err" &
hpid=$! maxthr=0 maxfd=0
for _ in $(seq 1200); do
	thr=$(awk '/^Threads:/ { print $2 }' /proc/$hpid/status 2>/dev/null) || break
	nfd=$(ls /proc/$hpid/fd 2>/dev/null | wc -l)
	[ "${thr:-0}" -gt $maxthr ] && maxthr=$thr
	[ "$nfd" -gt $maxfd ] && maxfd=$nfd
	kill -0 $hpid 2>/dev/null || break
	sleep 0.05
done
wait $hpid
cmp_num "rerun of the hostile branch: b hits its pids and relay limits (exit)" $? == 1
LOGS=$RUNS/sbx/logs
# (grep -m1: a's log ends with 16 MiB of zeros on one line)
r() { grep -a -m1 "^SBX $2: " "$LOGS/$1.stdout.log" | sed "s/^SBX $2: //"; }
[ "$(q sbx "SELECT impl FROM windows ORDER BY id LIMIT 1")" = a ] &&
	ok "the plan ran a's window first (seed 4)" || fail "first window: $(q sbx "SELECT impl FROM windows ORDER BY id")"
dport() { q sbx "SELECT detail FROM events WHERE kind = 'dep_start' AND detail LIKE '$1 started on %'" | sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' | head -1; }
dbp=$(dport db); otherp=$(dport other)
for arm in a b; do
	case $(r $arm read_db) in "denied FileNotFoundError"*) ok "$arm: the run database is invisible";;
		*) fail "$arm read_db: $(r $arm read_db)";; esac
	# only the path down to its own checkout (bwrap's mount points)
	case $(r $arm read_spec_dir) in "allowed ['sbx']") ok "$arm: the runs directory shows no run but the path to its checkout";;
		*) fail "$arm read_spec_dir: $(r $arm read_spec_dir)";; esac
	case $(r $arm read_root) in "denied FileNotFoundError"*) ok "$arm: /root is not there";;
		*) fail "$arm read_root: $(r $arm read_root)";; esac
	case $(r $arm write_runs) in "denied OSError"*"Read-only"*) ok "$arm: writing into the runs directory denied";;
		*) fail "$arm write_runs: $(r $arm write_runs)";; esac
	case $(r $arm write_logs) in "denied "*) ok "$arm: writing into logs/ denied";;
		*) fail "$arm write_logs: $(r $arm write_logs)";; esac
	case $(r $arm connect_outside) in "denied ConnectionRefusedError"*) ok "$arm: 127.0.0.1:$P outside refused";;
		*) fail "$arm connect_outside: $(r $arm connect_outside)";; esac
	[ "$(r $arm connect_dependency)" = "allowed HTTP/1.1 200" ] &&
		ok "$arm: reaches the run's dependency db on its port (forwarded)" ||
		fail "$arm connect_dependency: $(r $arm connect_dependency)"
	want=$dbp; [ $arm = b ] && want=$(printf '%s\n' "$dbp" "$otherp" | sort -n | tr '\n' ' ' | sed 's/ $//')
	[ -n "$dbp" ] && [ -n "$otherp" ] && [ "$(r $arm open_ports)" = "$want" ] &&
		ok "$arm: of every ephemeral port of its loopback, only the dependencies it is told about answer ($want)" ||
		fail "$arm open ports: '$(r $arm open_ports)', want '$want' (db $dbp, other $otherp)"
	[ "$(r $arm bind_port)" = "allowed $P" ] && ok "$arm: binds port $P, held outside and by the other arm" ||
		fail "$arm bind_port: $(r $arm bind_port)"
	np=$(r $arm procs | wc -w)
	cmp_num "$arm: processes it sees (bwrap's init and itself)" "$np" "<=" 2
	r $arm cmdlines | grep -q -e harness -e rerun && fail "$arm sees the harness: $(r $arm cmdlines)" ||
		ok "$arm: no command line of the harness visible"
	case $(r $arm outside_cmdline) in "denied FileNotFoundError"*) ok "$arm: /proc/<outside pid>/cmdline unreadable";;
		*) fail "$arm outside_cmdline: $(r $arm outside_cmdline)";; esac
	case $(r $arm kill_outside) in "denied ProcessLookupError"*) ok "$arm: cannot signal an outside process";;
		*) fail "$arm kill_outside: $(r $arm kill_outside)";; esac
	case $(r $arm truncate_stdout)/$(r $arm truncate_stderr) in "denied OSError"*"/denied OSError"*)
		ok "$arm: its log cannot be truncated (a pipe)";; *) fail "$arm truncate: $(r $arm truncate_stdout)";; esac
	grep -q "^=== harness: start of $arm" "$LOGS/$arm.stdout.log" && ok "$arm: the harness's marker survives" ||
		fail "$arm: marker gone: $(head -c 300 "$LOGS/$arm.stdout.log")"
	case $(r $arm rename_git) in "denied OSError"*) ok "$arm: its .git cannot be renamed";;
		*) fail "$arm rename_git: $(r $arm rename_git)";; esac
	k=0
	for s in $SOCKS; do
		case $s/$(r $arm unix_$k) in
		"$OPTD"/*"/denied ConnectionRefusedError"*)
			ok "$arm: the host's unix socket $s, in a bound system directory, is masked";;
		"$OPTD"/*) fail "$arm unix socket $s: $(r $arm unix_$k)";;
		*"/denied FileNotFoundError"*) ok "$arm: the host's unix socket $s is not there";;
		*) fail "$arm unix socket $s: $(r $arm unix_$k)";; esac
		k=$((k + 1))
	done
	case $(r $arm userns)/$(r $arm userns_root) in "denied OSError exit "*"/denied OSError exit "*)
		ok "$arm: no nested user namespace (unshare -U, -Ur: $(r $arm userns | cut -c 1-60))";;
		*) fail "$arm: unshare -U: $(r $arm userns); -Ur: $(r $arm userns_root)";; esac
	env=$(r $arm env)
	extra=$(echo "$env" | tr , '\n' | grep -v -x -e HOME -e LANG -e LOGNAME -e PATH -e USER -e 'SBX_[A-Z_]*' -e PWD)
	[ -n "$env" ] && [ -z "$extra" ] && ! echo "$env" | grep -q SBX_SECRET &&
		ok "$arm: environment is the sandbox's and the spec's only" || fail "$arm env: $env"
done
[ "$(r a forks)" = "0 of 0" ] && ok "a forked nothing" || fail "a forks: $(r a forks)"
# a wrote 1 GiB of zeros to its stdout: its log stops at sandbox.log_mb
# (16 MiB) with a marker, the rest was drained (its next line on stderr
# came through), and nothing else changed: its window below is measured,
# no limit is charged to it.
sz=$(stat -c %s "$LOGS/a.stdout.log")
cmp_num "a's stdout log at its cap (bytes; 16 MiB + the harness's lines)" "$sz" "<=" $((16 * 1048576 + 4096))
cmp_num "... and filled to it" "$sz" ">=" $((16 * 1048576))
check "the cut marked in the log" grep -aq "^=== harness: log cut at 16 MiB (sandbox.log_mb)" "$LOGS/a.stdout.log"
check "a was not blocked by its full pipe (its line after the 1 GiB came)" grep -q "^SBX spam: 1G written" "$LOGS/a.stderr.log"
[ "$(q sbx "SELECT COUNT(*) FROM events WHERE kind = 'sandbox_limit' AND detail LIKE 'a %'")" = 0 ] &&
	ok "no limit charged to a for its log" || fail "a charged: $(q sbx "SELECT detail FROM events WHERE kind = 'sandbox_limit'")"
[ "$(q sbx "SELECT status || '|' || (err_connect + err_reset + err_timeout + err_parse + err_other) FROM windows WHERE impl = 'a'")" = "accepted|0" ] &&
	ok "a's window accepted, no request error: what its verdict reads is unchanged by the spam" ||
	fail "a's window: $(q sbx "SELECT status, reasons, err_connect, err_reset, err_timeout FROM windows WHERE impl = 'a'")"
nf=$(r b forks | awk '{ print $1 }')
cmp_num "b: forks that succeeded of 500 (pids limit 100)" "${nf:-999}" "<" 100
cmp_num "b: ... and it did fork up to near the limit" "${nf:-0}" ">=" 80
[ "$(q sbx "SELECT failure_kind || '|' || failure_impl FROM runs")" = "limit|b" ] &&
	ok "the run failed: failure_kind limit, failure_impl b" || fail "failure: $(q sbx "SELECT status, failure, failure_kind, failure_impl FROM runs")"
check "the evidence: pids.events max, in a sandbox_limit event" \
	grep -q "b hit its sandbox limits: [0-9]* forks refused at pids.max 100" <(q sbx "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
# 2000 connections from b's jail to db: at most relay_connections (128)
# relayed at once, the rest closed at once and counted; one relay thread
# and two descriptors a relayed connection (a thread per direction made
# it 1,103 threads and 1,126 descriptors in 3 s).
check "b's flood ran (connections it made)" grep -q "^SBX flood: [0-9]* of 2000" "$LOGS/b.stdout.log"; grep "^SBX flood" "$LOGS/b.stdout.log"
nref=$(q sbx "SELECT detail FROM events WHERE kind = 'sandbox_limit'" | sed -n 's/.*; \([0-9]*\) connections to the run.s dependencies refused at sandbox.relay_connections 128 (open at once).*/\1/p')
cmp_num "the relay cap named in the sandbox_limit event, with the refusals" "${nref:-0}" ">=" 1000
cmp_num "the harness's descriptors while b held its flood: at most 2 x 128 relayed + 200" "$maxfd" "<=" 456
cmp_num "... and it was read while the relays were full (2 x 128 descriptors)" "$maxfd" ">=" 256
cmp_num "the harness's threads meanwhile (one relay thread an arm, not two a connection)" "$maxthr" "<=" 40
cmp_num "both arms served their window's load (completed requests)" \
	"$(q sbx "SELECT MIN(completed) FROM windows WHERE state = 'done'")" ">=" 150
cmp_num "... without connection errors" "$(q sbx "SELECT SUM(err_connect) FROM windows WHERE state = 'done'")" == 0
cmp_num "... two windows measured" "$(q sbx "SELECT COUNT(*) FROM windows WHERE state = 'done'")" == 2
(exec 3<>/dev/tcp/127.0.0.1/"$P") 2>/dev/null && ok "the outside listener on $P is alive" ||
	fail "the outside listener on $P is gone"
pgrep -f "sleep $UNIQ" >/dev/null && fail "a daemon outlived the run: $(pgrep -af "sleep $UNIQ")" ||
	ok "the double-forked setsid daemons are dead after the run"
ls "$RUNS" | grep -q pwned && fail "written into the runs directory" || ok "nothing written into the runs directory"
ls "$LOGS" | grep -q pwned && fail "written into logs/" || ok "nothing written into logs/"
n=$(q sbx "SELECT COUNT(*) FROM events WHERE kind = 'sandbox_argv' AND detail LIKE '% start: /usr/bin/bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL %'")
cmp_num "the exact bwrap argv recorded for both starts" "$n" == 2
n=$(q sbx "SELECT COUNT(*) FROM events WHERE kind = 'sandbox_argv' AND detail LIKE '% start: % --unshare-user --disable-userns --ro-bind /usr /usr % --remount-ro / --chdir %'")
cmp_num "... a fresh read-only root of system directories, no nested user namespace" "$n" == 2
ua=$(q sbx "SELECT detail FROM events WHERE kind = 'sandbox_identity' AND detail LIKE 'a:%'" | sed 's/^a: uid \([0-9]*\),.*/\1/')
ub=$(q sbx "SELECT detail FROM events WHERE kind = 'sandbox_identity' AND detail LIKE 'b:%'" | sed 's/^b: uid \([0-9]*\),.*/\1/')
[ -n "$ua" ] && [ -n "$ub" ] && [ "$ua" != "$ub" ] && [ "$(r a checkout_owner)" = "$ua" ] &&
	[ "$(r b checkout_owner)" = "$ub" ] &&
	ok "one uid per arm ($ua, $ub), each owning its checkout" || fail "identities: '$ua' '$ub' $(r a checkout_owner) $(r b checkout_owner)"
# sandbox.disk_mb 64: a checkout of its own size (a loop-mounted ext4
# image in the run's directory); 5 GiB cannot be taken there, and no
# checkout, image or mount stays after the run.
for arm in a b; do
	case $(r $arm fallocate) in "denied OSError"*"No space left"*) ok "$arm: fallocate 5 GiB in its checkout: no space (its quota)";;
		*) fail "$arm fallocate: $(r $arm fallocate)";; esac
done
left=$(ls "$RUNS/sbx/src" 2>/dev/null; grep -c " $RUNS/" /proc/mounts)
[ "$left" = 0 ] && ok "after the run: no checkout, image or mount left" || fail "left after the run: $left"
[ "$(q base "SELECT COUNT(*) FROM events WHERE kind LIKE 'sandbox_%'")" = 0 ] &&
	ok "the trusted baseline run ran outside any sandbox (as before)" || fail "base was sandboxed"

# A limit hit at start is the arm's own answer too, as in a window:
# oomstart fills /tmp past sandbox.memory_mb 200 and is OOM-killed before
# it is healthy (it was blamed on the host: failure_kind environment,
# exit 3).
expect_exit "rerun of a branch whose start is OOM-killed: exit 1" 1 \
	"$HARNESS" rerun base --runs-dir "$RUNS" --run-id oomstart --impl "b=$REPO#oomstart"
[ "$(q oomstart "SELECT status || '|' || failure_kind || '|' || failure_impl FROM runs")" = "failed|limit|b" ] &&
	ok "oomstart: failed, failure_kind limit, failure_impl b" || fail "oomstart: $(q oomstart "SELECT status, failure, failure_kind, failure_impl FROM runs")"
check "oomstart: the OOM kill at 200 MiB in a sandbox_limit event" \
	grep -q "b hit its sandbox limits: [0-9]* process.* OOM-killed at 200 MiB" <(q oomstart "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
expect_exit "compare base oomstart: a regression (exit 1)" 1 \
	"$HARNESS" compare base oomstart --runs-dir "$RUNS" --impl b
check "compare says it hit its sandbox limits" grep -q "hit its sandbox limits" "$T/out"

# A build that fills its disk quota: the arm's answer (exit 1, limit),
# the runs filesystem untouched (the image was allocated before), its
# disk gone after the run, the other runs readable.
expect_exit "rerun of a branch whose build fills its disk quota: exit 1" 1 \
	"$HARNESS" rerun base --runs-dir "$RUNS" --run-id diskfill --impl "a=$REPO#diskfill"
[ "$(q diskfill "SELECT status || '|' || failure_kind || '|' || failure_impl FROM runs")" = "failed|limit|a" ] &&
	ok "diskfill: failed, failure_kind limit, failure_impl a" || fail "diskfill: $(q diskfill "SELECT status, failure, failure_kind, failure_impl FROM runs")"
check "diskfill: its full quota in a sandbox_limit event" \
	grep -q "a hit its sandbox limits: its disk quota full at sandbox.disk_mb 64 (" <(q diskfill "SELECT detail FROM events WHERE kind = 'sandbox_limit'")
check "diskfill: its 100 MiB write stopped by its own disk (ENOSPC in its build log), never the runs filesystem's room" \
	grep -q "No space left on device" "$RUNS/diskfill/logs/build-a.log"
left=$(ls "$RUNS/diskfill/src" 2>/dev/null; grep -c " $RUNS/" /proc/mounts)
[ "$left" = 0 ] && ok "diskfill: no checkout, image or mount left" || fail "diskfill left: $left"
[ "$(q base "SELECT status FROM runs")" = finished ] && ok "the other runs' databases read as before" ||
	fail "base: $(q base "SELECT status FROM runs")"

# sandbox: always: the spec's own implementation jailed too, its repo
# read-only (never given to the sandbox's uid).
cat >"$T/always.yaml" <<YAML
version: 1
name: sandbox-always
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - name: c
    repo: $REPO
    start: [/bin/sh, -c, 'touch mine 2>/dev/null && echo WROTE-REPO; exec "\$0" --port "\$1"', ./srv, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    stats: { url: "http://127.0.0.1:{port}/runtime-stats", poll_hz: 4, signals: { served: /requests } }
    sandbox: always
workload:
  requests: [ { name: root, path: /x } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 1, window_s: 1, discard_s: 0 }
warmup: { rate: { fixed_rps: 100 }, min_s: 0, max_s: 0.5, trailing_s: 0.5, gates: [] }
window_gates: [error_rate, sut_alive]
YAML
expect_exit "sandbox: always, a trusted implementation in bwrap" 0 \
	"$HARNESS" run "$T/always.yaml" --allow-dirty --runs-dir "$RUNS" --run-id always
[ "$(q always "SELECT COUNT(*) FROM windows WHERE status = 'accepted' AND completed >= 90")" = 1 ] &&
	ok "sandbox: always: measured through its network namespace" ||
	fail "always: $(q always "SELECT status, reasons, completed FROM windows")"
cmp_num "sandbox: always: its runtime stats polled inside its namespace (requests served, max)" \
	"$(q always "SELECT MAX(r.value) FROM rtstats r WHERE r.signal = 'served'")" ">=" 50
grep -q "c start: /usr/bin/bwrap .* --ro-bind $REPO $REPO " <(q always "SELECT detail FROM events WHERE kind = 'sandbox_argv'") &&
	ok "sandbox: always: bwrap argv recorded, its repo bound read-only" ||
	fail "always argv: $(q always "SELECT detail FROM events WHERE kind = 'sandbox_argv'")"
[ ! -e "$REPO/mine" ] && ! grep -q WROTE-REPO "$RUNS/always/logs/c.stdout.log" && [ "$(stat -c %U "$REPO")" = root ] &&
	ok "sandbox: always: its repo stays its owner's, unwritable" || fail "always: repo written or given away"

# probe and load honour sandbox: always as a run does (bwrap, own uid,
# repo read-only), and reach the implementation through its namespace.
expect_exit "probe of a sandbox: always implementation, with load" 0 \
	"$HARNESS" probe "$T/always.yaml" --impl c --duration 1 --rate 100 --runs-dir "$RUNS" --json
check "probe: says so, with the bwrap argv" \
	grep -q "^probe: c: sandbox: always: in bwrap as uid [0-9]*, its repo read-only: /usr/bin/bwrap --unshare-all .* --ro-bind $REPO $REPO " "$T/err"
cmp_num "probe: its load answered inside the namespace (requests in the second)" \
	"$(jq -s '[.[] | .requests // .load.completed // 0] | add' "$T/out" 2>/dev/null || echo 0)" ">=" 50
cmp_num "probe: its stats read inside the namespace (served, last second)" \
	"$(jq -s '[.[] | .stats.signals.served // 0] | max' "$T/out" 2>/dev/null || echo 0)" ">" 0
expect_exit "load SPEC --impl of a sandbox: always implementation" 0 \
	"$HARNESS" load "$T/always.yaml" --impl c --rate 100 --duration 1 --runs-dir "$RUNS" --json
check "load: says so, with the bwrap argv" \
	grep -q "^harness: load: c: sandbox: always: in bwrap as uid [0-9]*, its repo read-only: /usr/bin/bwrap " "$T/err"
cmp_num "load: every request answered through its namespace" "$(jq '.completed' "$T/out")" ">=" 95
[ ! -e "$REPO/mine" ] && ! grep -rq WROTE-REPO "$RUNS"/probe-*/logs "$RUNS"/load-*/logs &&
	ok "probe and load: its repo stays unwritable to it" || fail "probe/load: the repo was written"

# procfs accounting enforces no limit: sandboxed code is refused with it
# (a spec error with sandbox: always; a rerun's commit of a run that
# accounted with procfs: exit 2 before anything of it runs), never run
# with its limits dropped and a warning.
sed -e 's/^name: sandbox-always$/name: sandbox-procfs\naccounting: { backend: procfs }/' "$T/always.yaml" >"$T/procfs.yaml"
expect_exit "check: sandbox: always with accounting.backend procfs" 2 "$HARNESS" check "$T/procfs.yaml"
check "... one line naming the key: $(cat "$T/err")" \
	grep -q "implementations\[0\]\.sandbox: always: accounting.backend procfs cannot enforce the sandbox's memory, pids and cpu limits" "$T/err"
sed -i '/^    sandbox: always$/d' "$T/procfs.yaml"
expect_exit "a trusted run accounted with procfs" 0 "$HARNESS" run "$T/procfs.yaml" --allow-dirty --runs-dir "$RUNS" --run-id procfs
expect_exit "a rerun of its commit (untrusted, procfs): refused" 2 \
	"$HARNESS" rerun procfs --runs-dir "$RUNS" --run-id procfs-pr --impl "c=$REPO#main"
check "... one line naming the arm: $(tail -n 1 "$T/err")" \
	grep -qx "harness: c: accounting.backend procfs cannot enforce the sandbox limits its code runs under; refused (auto, cgroup2 or cgroup1 can)" "$T/err"
cmp_num "... nothing of it ran (no bwrap, no window)" \
	"$( (q procfs-pr "SELECT COUNT(*) FROM events WHERE kind LIKE 'sandbox_%'" 2>/dev/null || echo 0; q procfs-pr "SELECT COUNT(*) FROM windows" 2>/dev/null || echo 0) | awk '{ s += $1 } END { print s + 0 }')" == 0

# A jailed implementation reaches only the dependencies relayed into its
# namespace (those on this host, for a jail here): one on another host
# (`host: local` is an agent on this one) referring to a dependency could
# not reach it, and that would be measured as its failure. Refused before
# anything starts, one line, exit 2.
cat >"$T/jaildep.yaml" <<YAML
version: 1
name: sandbox-jaildep
slo: { threshold_ms: 100 }
dependencies:
  - { name: db, start: [$HELPERS/testsrv, --port, "{port}"], health: { url: "http://127.0.0.1:{port}/healthz" } }
implementations:
  - name: front
    host: local
    sandbox: always
    start: [$HELPERS/testsrv, --port, "{port}", --forward-port, "{dep.db.port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload: { requests: [ { name: root, path: / } ] }
window_gates: [error_rate, sut_alive]
warmup: { min_s: 0, max_s: 1, trailing_s: 0.5, gates: [] }
stages:
  ladder: { start_rps: 50, step: 2, max_rps: 50, window_s: 1, reps: 1 }
YAML
"$HARNESS" run "$T/jaildep.yaml" --allow-dirty --runs-dir "$RUNS" --run-id jaildep >/dev/null 2>"$T/jd.err"
cmp_num "a jail on another host referring to a dependency: refused (exit 2)" "$?" == 2
check "one line naming the implementation, the host and the dependency count" \
	grep -qx "harness: front: it runs in a sandbox on local and refers to 1 of the run's dependencies; relaying a dependency into its jail is not supported yet (its code could not reach it)" "$T/jd.err"
cmp_num "nothing was started (no run directory)" "$(ls -d "$RUNS/jaildep" 2>/dev/null | wc -l)" == 0
exit 0
