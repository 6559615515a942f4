#!/bin/bash
# timing-free: states and counts (processes, cgroups, CPU > 0), no timing figures
# A dependency on another host (issue 18, item 3): dependencies[].host
# starts it through `harness agent --sut` over ssh in its own network
# namespace (tests/netns.inc), on the port the run chose, accounted there;
# {dep.NAME.host} is that host's address, so the implementation (here, in
# the coordinator's namespace) calls it there on every request
# (testsrv --forward-host). Checks: the window's requests all went through
# it, its window_deps row carries CPU accounted on its host, its setup
# and reset ran there; the coordinator SIGKILLed mid-window leaves nothing of it
# there and its cgroup is gone.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT
t0=$(date +%s.%N)

ns_sut_hosts

spec() { # window_s reps
	cat <<EOF2
version: 1
name: agent-dep
slo: { threshold_ms: 50 }
dependencies:
  - name: db
    host: root@10.218.18.2
    host_binary: $HARNESS
    start: [$T/srv, --host, 0.0.0.0, --port, "{port}"]
    health: { tcp: "127.0.0.1:{port}" }
    setup: [sh, -c, "ip -4 -o addr show dev eth0; env"]
    reset: [ip, -4, -o, addr, show, dev, eth0]
implementations:
  - name: a
    start: [$T/srv, --port, "{port}", --forward-host, "{dep.db.host}",
            --forward-port, "{dep.db.port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    restart: never
workload:
  requests: [ { name: root, path: / } ]
$(ns_spec_tail 200 $1 $2)
EOF2
}
q() { sqlite3 "$db" "$1"; }
cgroups() { find /sys/fs/cgroup -maxdepth 3 -type d -name "h*_harness.$1.dep-db" 2>/dev/null; }

spec 2 1 >"$T/spec1.yaml"
ip netns exec "${NSP}c" "$HARNESS" run "$T/spec1.yaml" --allow-dirty --runs-dir "$T/runs1" \
	--stages ladder >"$T/out1" 2>"$T/err1"
rc=$?
cmp_num "the run finished (exit)" "$rc" == 0
db=$(ls -d "$T"/runs1/*/run.db | head -1)
check "the dependency started there, at that host's address" \
	grep -q "db started on 10.218.18.2:[0-9]* through an agent on root@10.218.18.2" \
	<(q "SELECT detail FROM events WHERE kind = 'dep_start'")
check "its setup ran there (its log here shows that host's eth0)" \
	grep -q "inet 10.218.18.2/24" "$(dirname "$db")/logs/dep-db.setup.log"
check "... without HARNESS_DEP_DIR, a directory on this host (dropped by the agent backend)" \
	test "$(grep -c '^PATH=' "$(dirname "$db")/logs/dep-db.setup.log"):$(grep -c HARNESS_DEP_DIR "$(dirname "$db")/logs/dep-db.setup.log")" = 1:0
check "its reset too, before the window (exit 0 recorded)" \
	test "$(grep -c "inet 10.218.18.2/24" "$(dirname "$db")/logs/reset-dep-db.log"):$(q "SELECT exit_code FROM window_resets")" = 1:0
cmp_num "its window accepted" "$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 1
# each request of the implementation first calls the dependency there:
# an error would have failed the window (error_rate)
cmp_num "its requests answered through the dependency there (completed of 400)" \
	"$(q "SELECT completed FROM windows WHERE status = 'accepted'")" ">=" 390
cmp_num "the dependency's CPU, accounted on its host (window_deps, ms)" \
	"$(q "SELECT printf('%.3f', 1000 * cpu_s) FROM window_deps WHERE name = 'db'")" ">" 0
check "stopped at the end: nothing of it left there" test -z "$(ns_left s)"

sed 's|^    health: { tcp: .*|    health: { command: [true] }|' "$T/spec1.yaml" >"$T/spec_cmd.yaml"
expect_exit "check refuses a health command for a dependency on another host" 2 \
	"$HARNESS" check "$T/spec_cmd.yaml"
check "... naming the key" grep -q "dependencies\[0\].health.command: not supported with host" "$T/err"

# --- the coordinator SIGKILLed mid-window
spec 4 1 >"$T/spec2.yaml"
ns_run_started "$T/spec2.yaml" "$T/runs2" "$T/out2" "$T/err2"
sleep 2
rid=$(basename "$(dirname "$db")")
check "before the kill: its cgroup exists there" test -n "$(cgroups "$rid")"
kill -9 "$hp"; wait "$hp" 2>/dev/null
for i in $(seq 1 100); do
	left=$(echo $(ns_others s))
	[ -z "$left" ] && [ -z "$(cgroups "$rid")" ] && break
	sleep 0.05
done
check "coordinator SIGKILLed mid-window: nothing of the dependency left there" test -z "$left"
check "... and its cgroup gone" test -z "$(cgroups "$rid")"
check "every agent removed its log directory there ($(ls -A "$T/tmp_s" | head -3 | tr '\n' ' '))" \
	test -z "$(ls -A "$T/tmp_s")"
echo "# agent_dep: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
