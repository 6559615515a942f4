#!/bin/bash
# timing-free: nothing left 2 s after kill -9 (seconds of slack)
# release-only: under make asan rerun.sh, run_crash.sh and history.sh reach its code (tests/run.sh: the sanitized set by line coverage)
# Killing the harness with SIGKILL while an implementation runs leaves no
# process of it alive within 2 s, and no harness-owned cgroup behind: a
# forking implementation (a parent and 3 children, their pids in a file) is
# probed for 30 s and the harness is killed -9 once it is healthy.
. "$(dirname "$0")/../lib.sh"

cat >"$T/spec.yaml" <<EOF
version: 1
name: sut-kill
slo: { threshold_ms: 50 }
implementations:
  - name: tree
    start: [$HELPERS/forker, --children, "3", --cpu, "0", --linger-children,
            --port, "{port}", --pid-file, $T/pids]
    health: { url: "http://127.0.0.1:{port}/", timeout_s: 5 }
  - name: other
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload:
  requests: [ { name: root, path: / } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 400, window_s: 10 }
EOF

# alive PID: exists and is not a zombie (a zombie has exited; only its
# parent's wait is missing, here init's, which may reap late)
alive() { local s; s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }
count_alive() { local n=0 p; for p in $(cat "$T/pids"); do alive "$p" && n=$((n + 1)); done; echo $n; }

for backend in auto procfs; do
	rm -f "$T/pids"
	"$HARNESS" probe "$T/spec.yaml" --impl tree --duration 30 --backend $backend --runs-dir "$T/runs" \
		>"$T/out" 2>"$T/err" &
	hp=$!
	_pids+=("$hp")
	for i in $(seq 1 100); do grep -q healthy "$T/err" 2>/dev/null && break; sleep 0.05; done
	check "$backend: implementation tree up (4 processes)" test "$(count_alive)" -eq 4
	cg=$(ls -d /sys/fs/cgroup/*/harness/h${hp}_* /sys/fs/cgroup/harness/h${hp}_* 2>/dev/null | head -1)
	kill -9 "$hp"
	t0=$(date +%s.%N)
	for i in $(seq 1 40); do [ "$(count_alive)" -eq 0 ] && break; sleep 0.05; done
	el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
	cmp_num "$backend: no process of it alive after SIGKILL of the harness" "$(count_alive)" == 0
	cmp_num "$backend: ... within 2 s (seconds taken)" "$el" "<" 2
	if [ -n "$cg" ]; then
		for i in $(seq 1 40); do [ -d "$cg" ] || break; sleep 0.05; done
		check "$backend: its cgroup was removed ($cg)" test ! -d "$cg"
	fi
	wait "$hp" 2>/dev/null   # killed: its 137 is expected
done
exit 0
