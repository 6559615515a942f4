#!/usr/bin/env bash
# Containers (issue 27) measured: the acceptance figures that take
# minutes, beside tests/e2e/containers.sh (states and leftovers, in CI).
#
#  1. CPU per request: the static test server (--burn-us 300) in a FROM
#     scratch image and the same binary native, 3 blocks at 200 and 400
#     req/s: the container's kernel-accounted CPU per request (its
#     cgroup, found from its main pid) within 20% of the native arm's
#     (its own cgroup), pooled over the accepted windows.
#  2. A leaking container (--leak-kb 1024 per request, memory_mb 64): its
#     window fails with oom (oom_kill in the evidence), as a native arm's.
#  3. kill -9 of the harness in the middle of a window, then resume: the
#     finished windows kept, the run finished, and no container, no
#     cgroup (libpod-<id>) and no network namespace left.
#  4. rerun of a branch whose Containerfile builds a slower server
#     (ENTRYPOINT with --burn-us 1500 instead of 300): compare exits 1,
#     and rerun --with-baseline --until-decided exits 1 itself (its
#     verdict); a branch whose Containerfile does not build: rerun exits
#     1 "failed to build".
# Prints the figures as "# figure: ..." lines.
. "$(dirname "$0")/../lib.sh"

RUNS=$T/runs
REPO=$T/svc
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
# the images this test builds (its tags: harness-boxed/-leaky[-base]) go with it
imgs() { podman images --format '{{.Repository}}:{{.Tag}}' | grep -E '^localhost/harness-(boxed|leaky)(-base)?:' | sort; }
imgs >"$T/images.before"
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
chmod 755 "$T"
mkdir -p "$REPO"
cc -O2 -static -D_GNU_SOURCE -pthread -o "$REPO/testsrv" "$ROOT/tests/helpers/testsrv.c" ||
	{ fail "static test server"; exit 0; }
cf() { printf 'FROM scratch\nCOPY testsrv /testsrv\nENTRYPOINT ["/testsrv", "--burn-us", "%s"]\n' "$1"; }
cf 300 >"$REPO/Containerfile"
git init -q -b main "$REPO" && g add -A && g commit -qm main
g checkout -q -b slow && cf 1500 >"$REPO/Containerfile" && g commit -qam "5x the CPU per request" &&
	g checkout -q main
g checkout -q -b nobuild && printf 'FROM scratch\nCOPY no-such-file /x\n' >"$REPO/Containerfile" &&
	g commit -qam "does not build" && g checkout -q main

# ------------------------------------------------------------ 1. CPU
cat >"$T/cpu.yaml" <<YAML
version: 1
name: slow-containers-cpu
seed: 3
slo: { percentile: 99, threshold_ms: 100 }
implementations:
  - name: native
    repo: $REPO
    start: [./testsrv, --port, "{port}", --burn-us, "300"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 20 }
    restart: never
  - name: boxed
    repo: $REPO
    container: { containerfile: Containerfile, args: [--port, "{port}"] }
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 20 }
    restart: never
workload:
  connections: 16
  requests: [ { name: echo, method: POST, path: /echo, body: "hi" } ]
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 400, reps: 3, window_s: 5, discard_s: 1 }
warmup: { rate: { fixed_rps: 100 }, min_s: 1, max_s: 2, trailing_s: 1, gates: [] }
window_gates: [error_rate, sut_alive]
YAML
"$HARNESS" run "$T/cpu.yaml" --allow-dirty --runs-dir "$RUNS" --run-id cpu >/dev/null 2>"$T/cpu.err"
cmp_num "cpu: run exit" "$?" == 0
for r in 200 400; do
	n=$(q cpu "SELECT 1e6 * SUM(cpu_s) / SUM(completed) FROM windows WHERE impl = 'native' AND rate = $r AND status = 'accepted'")
	c=$(q cpu "SELECT 1e6 * SUM(cpu_s) / SUM(completed) FROM windows WHERE impl = 'boxed' AND rate = $r AND status = 'accepted'")
	echo "# figure: CPU per request at $r req/s: native $(printf %.1f "$n") us, container $(printf %.1f "$c") us (ratio $(echo "$c / $n" | bc -l | cut -c1-5))"
	near "cpu: container within 20% of native at $r req/s" "$c" "$n" "$(echo "$n * 0.2" | bc -l)"
done

# ------------------------------------------------------------ 2. OOM
cat >"$T/oom.yaml" <<YAML
version: 1
name: slow-containers-oom
seed: 3
slo: { percentile: 99, threshold_ms: 200 }
implementations:
  - name: leaky
    repo: $REPO
    container: { containerfile: Containerfile, args: [--port, "{port}", --leak-kb, "1024"] }
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 20 }
    restart: never
    limits: { memory_mb: 64 }
workload:
  connections: 48
  timeout_ms: 2000
  requests: [ { name: get, path: /x } ]
stages:
  ladder: { start_rps: 200, step: 2, max_rps: 200, reps: 1, window_s: 2, discard_s: 0 }
retries: { max_per_cell: 0 }
warmup: { rate: { fixed_rps: 10 }, min_s: 1, max_s: 1, trailing_s: 1, gates: [] }
window_gates: [oom, sut_alive, error_rate]
YAML
"$HARNESS" run "$T/oom.yaml" --allow-dirty --runs-dir "$RUNS" --run-id oom >/dev/null 2>"$T/oom.err"
rc=$?
[ $rc = 0 ] || echo "# oom run: $(tail -3 "$T/oom.err")"
cmp_num "oom: run exit (the container's death is a measurement)" "$rc" == 0
row=$(q oom "SELECT status || ':' || reasons || ':' || IFNULL(oom_kill, 'none') FROM windows")
echo "# figure: leaking container's window: $row"
[ -n "$row" ] || echo "# oom run: $(tail -5 "$T/oom.err")"
check "oom: its window failed with oom, the kill counted ($row)" bash -c "[[ '$row' == failed:*oom*:[1-9]* ]]"
# podman's conmon records the OOM in its working directory: the harness
# runs the engine in the arm's LOG_DIR/IMPL.container, never in the
# user's directory (it left a file "oom" there)
check "oom: the engine's record in the run's logs (logs/leaky.container/oom)" \
	test -f "$RUNS/oom/logs/leaky.container/oom"
check "oom: nothing left in the harness's working directory" test ! -e oom

# ------------------------------------------------------------ 3. kill -9
sed -e 's/name: slow-containers-cpu/name: slow-containers-kill/' -e 's/reps: 3, window_s: 5/reps: 2, window_s: 4/' \
	"$T/cpu.yaml" >"$T/kill.yaml"
"$HARNESS" run "$T/kill.yaml" --allow-dirty --runs-dir "$RUNS" --run-id kill >/dev/null 2>"$T/kill.err" &
hp=$!
ids=""
for _ in $(seq 1 600); do   # until the container runs a measured window (at most 60 s)
	ids=$(podman ps --format '{{.ID}} {{.Names}}' | awk '/harness.kill.boxed/ {print $1}')
	[ -n "$ids" ] && [ "$(q kill "SELECT COUNT(*) FROM windows WHERE status IS NOT NULL" 2>/dev/null)" -ge 1 ] && break
	sleep 0.1
done
full=$(podman inspect --format '{{.Id}}' $ids 2>/dev/null)
cpid=$(podman inspect --format '{{.State.Pid}}' $ids 2>/dev/null)
nsino=$(stat -L -c %i "/proc/$cpid/ns/net" 2>/dev/null)
sleep 1.5
kill -9 $hp
wait $hp 2>/dev/null
done_before=$(q kill "SELECT COUNT(*) FROM windows WHERE status IS NOT NULL")
echo "# figure: killed with $done_before windows finished, container ${full:0:12}"
check "kill: a container was running when the harness was killed" test -n "$full"
"$HARNESS" resume kill --runs-dir "$RUNS" >/dev/null 2>"$T/resume.err"
cmp_num "kill: resume exit" "$?" == 0
cmp_num "kill: the finished windows kept, the run completed" \
	"$(q kill "SELECT COUNT(*) FROM windows WHERE status IS NOT NULL")" == 8
check "kill: the run finished" test "$(q kill "SELECT status FROM runs")" = finished
check "kill: no container of the run left" bash -c "! podman ps -a --format '{{.Names}}' | grep -q 'harness.kill'"
check "kill: the killed container's cgroup is gone" bash -c "! find /sys/fs/cgroup -maxdepth 3 -name 'libpod-$full*' | grep -q ."
# the namespace lives while a process or a bind mount holds it
check "kill: its network namespace ($nsino) is gone" bash -c "[ -n '$nsino' ] && ! { stat -L -c %i /proc/[0-9]*/ns/net /run/netns/* 2>/dev/null | grep -qx '$nsino'; }"
check "kill: no marker left" bash -c "! ls /run/harness-containers 2>/dev/null | grep -q 'harness.kill'"
grep -q "removing container .*harness.kill.* left by a harness that is gone" "$T/resume.err" &&
	ok "kill: resume removed the dead harness's container" ||
	fail "kill: resume did not say it removed the container: $(tail -2 "$T/resume.err")"

# ------------------------------------------------------------ 4. rerun
"$HARNESS" rerun cpu --runs-dir "$RUNS" --run-id slow --with-baseline \
	--impl "boxed=file://$REPO#slow" >/dev/null 2>"$T/slow.err"
rc=$?
[ $rc = 0 ] || echo "# rerun slow: $(tail -2 "$T/slow.err")"
cmp_num "rerun of the slower Containerfile: exit" "$rc" == 0
"$HARNESS" compare cpu slow --runs-dir "$RUNS" >"$T/cmp.out" 2>&1
rc=$?
echo "# figure: compare of the slower Containerfile: exit $rc: $(grep -m1 -A2 '^### .boxed' "$T/cmp.out" | tr '\n' ' ' | cut -c1-300)"
cmp_num "compare of the slower Containerfile: regression" "$rc" == 1
"$HARNESS" rerun cpu --runs-dir "$RUNS" --run-id decided --with-baseline --until-decided \
	--max-minutes 8 --impl "boxed=file://$REPO#slow" >/dev/null 2>"$T/decided.err"
rc=$?
echo "# figure: rerun --until-decided of the slower Containerfile: exit $rc: $(grep -m1 -iE 'regression|decided|inconclusive' "$T/decided.err" | cut -c1-240)"
cmp_num "rerun --until-decided of the slower Containerfile: regression, exit" "$rc" == 1
"$HARNESS" rerun cpu --runs-dir "$RUNS" --run-id nobuild --with-baseline \
	--impl "boxed=file://$REPO#nobuild" >/dev/null 2>"$T/nobuild.err"
rc=$?
cmp_num "rerun of a Containerfile that does not build: exit" "$rc" == 1
check "... its build failure named" grep -q "impl boxed: build (/usr/bin/podman) failed" "$T/nobuild.err"
"$HARNESS" compare cpu nobuild --runs-dir "$RUNS" >"$T/cmp-nobuild.out" 2>&1
rc=$?
echo "# figure: compare of the Containerfile that does not build: exit $rc: $(grep -m1 'failed to build' "$T/cmp-nobuild.out")"
cmp_num "compare of it: regression" "$rc" == 1
check "... failed to build" grep -q "failed to build" "$T/cmp-nobuild.out"
check "no container of the reruns left" bash -c "! podman ps -a --format '{{.Names}}' | grep -Eq 'harness\\.(slow|decided|nobuild)\\.'"
comm -13 "$T/images.before" <(imgs) | xargs -r podman rmi --force >/dev/null 2>&1
exit 0
