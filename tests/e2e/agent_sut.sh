#!/bin/bash
# timing-free: states and counts (processes, cgroups, CPU > 0), no timing figures
# release-only: under make asan agent_rerun.sh, agent_dep.sh and agent_run.sh reach its code but 10 lines (runner_freeze.c 6, runner_arm.c 2, rsut.c 1), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# An implementation on another host (issue 18, item 3): implementations[].host
# starts it through `harness agent --sut` over ssh in its own network
# namespace (tests/netns.inc), accounted there (its cgroup on that host),
# the load from the coordinator's namespace to that host's address.
# Checks: the run's windows carry its CPU (> 0 per request), the host's
# facts, its runtime stats polled there (a 127.0.0.1 URL) and its
# accounting samples, both streamed back as taken; it is stopped at the
# end (nothing of it left in that namespace, its cgroup gone); its build,
# version and reset commands ran there (a rerun of it and a jail there:
# tests/e2e/agent_rerun.sh); the
# coordinator SIGKILLed mid-window: within
# 5 s no process of the implementation is alive there and its cgroup is
# gone; its agent SIGKILLed mid-window: the watchdog there removes it,
# its janitor its log directory, the window is rejected (agent_lost) and
# replaced, the run finishes;
# the coordinator SIGKILLed during a health wait: nothing left either;
# a second arm there that spins while a is measured: measured there (no
# freeze over the protocol) and a's window rejected by idle_arms_quiet.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT
t0=$(date +%s.%N)

ns_sut_hosts

spec() { # window_s reps [retries]
	cat <<EOF2
version: 1
name: agent-sut
slo: { threshold_ms: 50 }
implementations:
  - name: a
    host: root@10.218.18.2
    host_binary: $HARNESS
    build: [ip, -4, -o, addr, show, dev, eth0]
    version: [ip, -4, -o, addr, show, dev, eth0]
    reset: [ip, -4, -o, addr, show, dev, eth0]
    start: [$T/srv, --host, 0.0.0.0, --port, "{port}"]
    health: { url: "http://{host}:{port}/healthz" }
    stats: { url: "http://127.0.0.1:{port}/runtime-stats", poll_hz: 4, signals: { served: /requests } }
    restart: never
workload:
  requests: [ { name: root, path: / } ]
$(ns_spec_tail 400 $1 $2)
retries: { max_per_cell: ${3:-0} }
EOF2
}
q() { sqlite3 "$db" "$1"; }
# The cgroup directories of run $1's implementation, on any hierarchy
# (the runs' ids are this test's own, "runsN-$$": a second suite's run of
# this script beside it has cgroups of the same pattern).
cgroups() { find /sys/fs/cgroup -maxdepth 3 -type d -name "h*_harness.$1.a" 2>/dev/null; }

# --- a run: started, accounted and stopped there
spec 2 1 >"$T/spec1.yaml"
"$HARNESS" check "$T/spec1.yaml" >"$T/check1" 2>&1
check "check prints the implementation's host" grep -q "host root@10.218.18.2" "$T/check1"
ip netns exec "${NSP}c" "$HARNESS" run "$T/spec1.yaml" --allow-dirty --runs-dir "$T/runs1" \
	--run-id "runs1-$$" --stages ladder >"$T/out1" 2>"$T/err1"
rc=$?
cmp_num "the run finished (exit)" "$rc" == 0
db=$(ls -d "$T"/runs1/*/run.db | head -1)
rid1=$(head -1 "$T/out1")
check "its build ran there (its log here shows that host's eth0)" \
	grep -q "inet 10.218.18.2/24" "$(dirname "$db")/logs/build-a.log"
check "its version command too (impl_version event)" \
	grep -q "a: .*inet 10.218.18.2/24" <(q "SELECT detail FROM events WHERE kind = 'impl_version'")
check "and its reset, before its window (exit 0 recorded)" \
	test "$(grep -c "inet 10.218.18.2/24" "$(dirname "$db")/logs/reset-a.log"):$(q "SELECT exit_code FROM window_resets")" = 1:0
check "the end of its stdout came back with its stop (logs/a.stdout.log here)" \
	grep -q "=== harness: start of a on port" "$(dirname "$db")/logs/a.stdout.log"
cmp_num "its window accepted" "$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 1
check "the sut_start event names the host and its address" \
	grep -q "a started on root@10.218.18.2 (10.218.18.2" <(q "SELECT detail FROM events WHERE kind = 'sut_start'")
cpu=$(q "SELECT printf('%.3f', 1e6 * cpu_s / completed) FROM windows WHERE status = 'accepted'")
cmp_num "its CPU per request, accounted on its host (µs)" "$cpu" ">" 0
backend=$(q "SELECT acct_backend FROM windows WHERE status = 'accepted'")
check "the window's accounting backend is the host's ($backend)" test -n "$backend"
cmp_num "memory sampled there (anon_max, bytes)" \
	"$(q "SELECT anon_max FROM windows WHERE status = 'accepted'")" ">" 0
# its threads' run-queue wait, read there and carried back in ACCT
# (protocol 9): stored as a local arm's, not NULL (>= 0: an idle host's
# wait may be 0)
check "its CPU wait read there (cpu_wait_s stored, not NULL)" \
	test "$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND cpu_wait_s IS NULL"):$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND cpu_wait_s >= 0")" = 0:1
# its runtime stats: polled on its host (127.0.0.1 there, which the
# coordinator's namespace cannot reach; it listens on 0.0.0.0), streamed
# back poll by poll (the only way they come), timed on the coordinator's
# clock: stored as a local arm's (rtstats rows of the window, t_s from its
# phase's start). Bounds from what the poller guarantees, not a rate: it
# polls at 4 Hz and, late, skips ticks, never bursts (harness/sut/rtstats.c:
# each tick at least a period after the last and after the previous poll
# was sent, so at most span x 4 + 2 polls in a span), and every poll taken
# before the window's ACCT is the window's (the agent streams them first:
# harness/sut/sut_agent.c acct_end). Beside a second suite the agent there
# (SCHED_OTHER, in the test's crowded cgroup, not its implementation's)
# was once starved to 2 polls of 8 and 15 samples of 40: a rate bound
# fails on that host; these do not, and still fail when no poll or no
# sample is taken or comes back.
span=$(q "SELECT printf('%.3f', ended_at - started_at) FROM windows WHERE status = 'accepted'")
pq="FROM rtstats WHERE phase = 'measured' AND signal = 'served'"
np=$(q "SELECT COUNT(*) $pq AND value > 0")
cmp_num "its runtime stats polled there and streamed back (measured: rows)" "$np" ">=" 1
cmp_num "... never more than its 4 Hz ticks in the $span s until the window's polls were read" \
	"$np" "<=" "$(awk -v s="$span" 'BEGIN { print int(s * 4) + 2 }')"
cmp_num "... none failed (a poll from here would: connect)" \
	"$(q "SELECT COUNT(*) FROM rtstats WHERE error IS NOT NULL")" == 0
# on the coordinator's clock through the agent's offset: a poll lies in
# its phase, taken before the window was stored (ended_at: after its polls
# were read), give or take the offset's uncertainty (measured over ssh
# when the agent started: half the best of 4 round trips, which a starved
# host can make tens of ms; a poll period, 0.25 s, allowed); a clock or
# unit mixed up moves them out
check "... each at its time in its phase (0 <= t_s <= $span s + 0.25; t_s $(q "SELECT group_concat(printf('%.2f', t_s), ' ') $pq"))" \
	test "$(q "SELECT MIN(t_s) >= 0 AND MAX(t_s) <= $span + 0.25 $pq")" = 1
# its accounting samples (every 50 ms), streamed as taken: the window's
# begin and end take one each, its sampler thread one a tick between,
# late: skipping ticks, never bursting (harness/account/account_base.c:
# each tick at least 50 ms after the last and not before the previous
# sample), so 3 <= rows <= last t_ms / 50 + 2; none lost on the way (the
# coordinator checks their count against the agent's, else the window has
# no accounting: acct_span_s NULL), each at its own tick (t_ms strictly
# increasing: none sent twice)
sq="FROM acct_samples s JOIN windows w ON w.id = s.window_id WHERE w.status = 'accepted'"
ns=$(q "SELECT COUNT(*) $sq AND w.acct_span_s IS NOT NULL")
tl=$(q "SELECT MAX(t_ms) $sq")
gaps=$(q "SELECT printf('%.3f %.1f', MIN(g), MAX(g)) FROM (SELECT t_ms - LAG(t_ms) OVER (ORDER BY s.rowid) AS g $sq)")
cmp_num "its accounting samples streamed back, all of them (acct_samples rows; gaps between them $gaps ms, smallest largest)" \
	"$ns" ">=" 3
cmp_num "... never more than its 50 ms ticks up to the last at $tl ms" \
	"$ns" "<=" "$(awk -v t="$tl" 'BEGIN { print int(t / 50) + 2 }')"
cmp_num "... each its own (the smallest gap, ms)" "${gaps%% *}" ">" 0
check "... over the whole window (last sample at t >= 1.9 s, CPU cumulative)" \
	test "$(q "SELECT MAX(t_ms) >= 1900 AND MAX(cpu_s) > 0 FROM acct_samples")" = 1
cmp_num "the load went to its address: 400/s x 2 s due" \
	"$(q "SELECT due FROM windows WHERE status = 'accepted'")" == 800
# a request or two may still be in flight at the window's end on a loaded host
cmp_num "... and answered from there (completed of 800)" \
	"$(q "SELECT completed FROM windows WHERE status = 'accepted'")" ">=" 780
cmp_num "the host's facts recorded with the run" \
	"$(q "SELECT COUNT(*) FROM host_facts WHERE key LIKE 'remote.a.%'")" ">=" 12
check "its address among them" test "$(q "SELECT value FROM host_facts WHERE key = 'remote.a.address'")" = 10.218.18.2
left=$(ns_left s)
if [ -z "$left" ] && [ -z "$(cgroups "$rid1")" ]; then ok "stopped at the end: nothing of it left in its namespace, its cgroup gone"
else fail "left after the run: $left $(cgroups "$rid1")"; fi

# --- the coordinator SIGKILLed mid-window
spec 4 2 >"$T/spec2.yaml"
# its implementation up there, its cgroup made, its window begun
ns_run_started "$T/spec2.yaml" "$T/runs2" "$T/out2" "$T/err2"
sleep 2
rid2=$(basename "$(dirname "$db")")
srv=$(ns_exec s pgrep -f "$T/srv --host 0.0.0.0" | tr '\n' ' ')
cg=$(cgroups "$rid2")
check "before the kill: the implementation runs there ($srv)" test -n "$srv"
check "before the kill: its cgroup exists ($(echo $cg | wc -w) directories)" test -n "$cg"
kill -9 "$hp"; wait "$hp" 2>/dev/null
k0=$(date +%s.%N)
for i in $(seq 1 100); do
	left=$(echo $(ns_others s))
	[ -z "$left" ] && [ -z "$(cgroups "$rid2")" ] && break
	sleep 0.05
done
took=$(awk -v a="$k0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ -z "$left" ]; then ok "coordinator SIGKILLed mid-window: no process of it left in its namespace after $took s"
else fail "left running in its namespace after SIGKILL: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')")"; fi
cg=$(cgroups "$rid2")
if [ -z "$cg" ]; then ok "and its cgroup is gone"
else fail "its cgroup is left: $(for d in $cg; do echo "$d: $(cat "$d/cgroup.procs" | tr '\n' ' ')"; done); $(tail -c 600 "$T/err2")"; fi
check "nothing left in the coordinator's namespace either" test -z "$(ip netns pids "${NSP}c")"
check "every agent so far removed its log directory there (\$TMPDIR of that host): $(ls -A "$T/tmp_s" | head -3 | tr '\n' ' ')" \
	test -z "$(ls -A "$T/tmp_s")"

# --- its agent SIGKILLed mid-window (the host's side of a dropped
# connection): the watchdog there takes the implementation and its cgroup;
# the window is void (agent_lost, validity), replaced, and the run finishes
spec 2 1 1 >"$T/spec3.yaml"
ns_run_started "$T/spec3.yaml" "$T/runs3" "$T/out3" "$T/err3"
sleep 1.5
# the agent is the oldest `agent --sut` there (its watchdog is its fork)
ag=$(for p in $(ns_others s); do ps -o args= -p "$p" | grep -q "agent --sut$" && echo "$p"; done | sort -n | head -1)
check "its agent found ($ag)" test -n "$ag"
rid3=$(basename "$(dirname "$db")")
kill -9 $ag
for i in $(seq 1 100); do [ -z "$(cgroups "$rid3")" ] && break; sleep 0.05; done
check "the agent SIGKILLed: its watchdog removed the cgroup" test -z "$(cgroups "$rid3")"
wait "$hp"; rc=$?
cmp_num "the run finished (exit)" "$rc" == 0
cmp_num "the window of the lost agent rejected (agent_lost, validity)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE 'agent_lost%'")" == 1
check "the agent_lost event names the host" \
	grep -q "a on root@10.218.18.2: its agent's connection was lost" <(q "SELECT detail FROM events WHERE kind = 'agent_lost'")
cmp_num "its replacement accepted, on a new start" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 1
check "nothing left there after the run" test -z "$(ns_left s)"
# the SIGKILLed agent's log directory too: its janitor removed it
check "no log directory left there, the killed agent's included: $(ls -A "$T/tmp_s" | head -3 | tr '\n' ' ')" \
	test -z "$(ls -A "$T/tmp_s")"

# --- the coordinator SIGKILLed while the agent waits for its health (an
# implementation that never answers): the agent's hang-up watcher ends
# the wait and it removes everything at once, not after timeout_s (60)
sed -e 's|^    start: .*|    start: [sleep, "1000"]|' -e 's|^    health: .*|    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 60 }|' \
	-e '/^    build: /d' -e '/^    version: /d' "$T/spec1.yaml" >"$T/spec4.yaml"
ip netns exec "${NSP}c" "$HARNESS" run "$T/spec4.yaml" --allow-dirty --runs-dir "$T/runs4" \
	--stages ladder >"$T/out4" 2>"$T/err4" &
hp=$!
_pids+=("$hp")
for i in $(seq 1 200); do
	for p in $(ns_others s); do ps -o args= -p "$p" | grep -q "^sleep 1000" && break 2; done
	sleep 0.05
done
sleep 0.5
kill -9 "$hp"; wait "$hp" 2>/dev/null
check "coordinator SIGKILLed during the health wait: nothing left there within 5 s" test -z "$(ns_left s)"

# --- arms not being measured do not run (harness/runner/runner_freeze.c): the
# agent protocol has no freeze, so an idle arm on another host is measured
# there (its own accounting window) and idle_arms_quiet rejects a window
# in which it ran. b is the same server with a spinner (testsrv
# --spin-idle 1: busy whenever it is not served), restart: never; two
# blocks, so in one of them b is up during a's window. In make test this
# script runs beside the timed ones, whose SCHED_OTHER servers a spinner
# takes CPU from: one spinner (two took both cores), a quarter of a core
# (--spin-pct 25: 0.25 s in a 1 s window, 12 x idle_arms_quiet's 2 % of
# a core), and gone after 300 s (--spin-for; the run and the check that
# nothing of it is left come within the first minute) should the
# run's clean-up miss it.
sed -e 's|^retries: .*|retries: { max_per_cell: 0 }|' "$T/spec1.yaml" >"$T/spec5.yaml"
sed -i -e '/^workload:/i\
  - name: b\
    host: root@10.218.18.2\
    host_binary: '"$HARNESS"'\
    start: ['"$T"'/srv, --host, 0.0.0.0, --port, "{port}", --spin-idle, "1", --spin-pct, "25", --spin-for, "300"]\
    health: { url: "http://{host}:{port}/healthz" }\
    restart: never' -e 's|window_s: 2, reps: 1|window_s: 1, reps: 2|' "$T/spec5.yaml"
ip netns exec "${NSP}c" "$HARNESS" run "$T/spec5.yaml" --allow-dirty --runs-dir "$T/runs5" \
	--stages ladder >"$T/out5" 2>"$T/err5"
rc=$?
db=$(ls -d "$T"/runs5/*/run.db | head -1)
cmp_num "two arms there, one spinning: the run ended (exit 0 or 1)" "$rc" "<=" 1
nb=$(q "SELECT COUNT(*) FROM windows w WHERE impl = 'a' AND EXISTS (SELECT 1 FROM window_idle i WHERE i.window_id = w.id AND i.name = 'b')")
cmp_num "a's windows with b up (measured there, not frozen)" \
	"$(q "SELECT COUNT(*) FROM window_idle WHERE name = 'b' AND frozen IS NULL AND cpu_s > 0.02")" "==" "$nb"
cmp_num "... at least one" "$nb" ">=" 1
cmp_num "... each rejected by idle_arms_quiet" \
	"$(q "SELECT COUNT(*) FROM windows w WHERE impl = 'a' AND status = 'rejected' AND reasons LIKE '%idle_arms_quiet%'")" "==" "$nb"
check "the evidence names b and its CPU there" \
	grep -q "^b running, [0-9.]*% (" <(q "SELECT evidence FROM gate_results WHERE gate = 'idle_arms_quiet' AND status = 'fail'")
check "nothing left there after the run (b's spinners included)" test -z "$(ns_left s)"

echo "# agent_sut: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
