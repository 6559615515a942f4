#!/bin/bash
# A run whose load comes from workload.generators (issue 18): two agents
# in their own network namespaces (tests/netns.inc) over ssh load an
# implementation started by the run in the coordinator's namespace, at
# generator_options.target_host. Checks: an agent killed mid-window
# rejects that window (agent_lost, validity; the event names it), it is
# reconnected and the run finishes; audit --recheck agrees; a
# max_offset_ms below the measured uncertainty rejects windows
# (clock_offset); the coordinator SIGKILLed mid-run leaves nothing on any
# namespace and resume finishes the run, its windows accepted with
# due = 400/s x 2 s = sent + dropped, one agent_clock event per agent and
# load, a +250 ms faked skew on one agent recorded and compensated.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT

ns_init
ns_host c 1 && ns_host a1 2 && ns_host a2 3 || { fail "namespaces"; exit 0; }
ns_sshd a1 2 && ns_sshd a2 3 || { fail "sshd did not start: $(cat "$T"/sshd_*.log)"; exit 0; }
printf '#!/bin/sh\nHARNESS_TEST_AGENT_SKEW_MS=250 exec %s "$@"\n' "$HARNESS" >"$T/skewed"
chmod +x "$T/skewed"

spec() { # window_s reps max_offset_ms retries
	cat <<EOF2
version: 1
name: agent-run
slo: { threshold_ms: 50 }
implementations:
  - name: a
    start: [$HELPERS/testsrv, --host, 0.0.0.0, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    restart: never
workload:
  requests: [ { name: root, path: / } ]
  generators:
    - { host: root@10.218.18.2, binary: $T/skewed }
    - { host: "ssh://root@10.218.18.3:22", binary: $HARNESS }
  generator_options:
    target_host: 10.218.18.1
    max_offset_ms: $3
    ssh_options: $SSH_YAML
$(no_warmup)
window_gates: [error_rate, sut_alive]
stages:
  ladder: { start_rps: 400, step: 2, max_rps: 400, window_s: $1, reps: $2 }
retries: { max_per_cell: $4 }
EOF2
}
run() { ip netns exec "${NSP}c" "$HARNESS" run "$1" --allow-dirty --runs-dir "$2" --stages ladder; }

q() { sqlite3 "$db" "$1"; }

# --- an agent killed mid-window: that window rejected, the run goes on
spec 3 2 5 1 >"$T/spec2.yaml"
run "$T/spec2.yaml" "$T/runs2" >"$T/out2" 2>"$T/err2" &
hp=$!
_pids+=("$hp")
# The first window has ended (agent_clock events are written after each
# load; no warm-up, lib.sh no_warmup): the second one's measured part
# runs now, for 3 s.
for i in $(seq 1 400); do
	db=$(ls -d "$T"/runs2/*/run.db 2>/dev/null | head -1)
	[ -n "$db" ] && [ "$(q "SELECT COUNT(*) FROM events WHERE kind = 'agent_clock'" 2>/dev/null)" -ge 2 ] && break
	sleep 0.05
done
sleep 1
for p in $(ns_others a2); do kill -9 "$p" 2>/dev/null; done
wait "$hp"; rc=$?
cmp_num "the run with a killed agent finished (exit)" "$rc" == 0
cmp_num "exactly one window rejected, by agent_lost" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE 'agent_lost%'")" == 1
echo "# windows: $(q "SELECT id || ':' || status || ':' || IFNULL(reasons, '') FROM windows" | tr '\n' ' ')"
echo "# events: $(q "SELECT IFNULL(window_id, '-') || ' ' || kind || ' ' || detail FROM events WHERE kind IN ('agent_lost', 'agent_reconnected')" | tr '\n' ';')"
check "the agent_lost event names the agent" \
	grep -q "ssh://root@10.218.18.3:22" <(q "SELECT detail FROM events WHERE kind = 'agent_lost'")
cmp_num "the agent was reconnected" "$(q "SELECT COUNT(*) FROM events WHERE kind = 'agent_reconnected'")" ">=" 1
cmp_num "the run still has its 2 accepted windows (a replacement)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 2
rid=$(basename "$(dirname "$db")")
expect_exit "audit --recheck agrees with the stored verdicts" 0 \
	"$HARNESS" audit "$rid" --runs-dir "$T/runs2" --recheck

# --- offsets beyond max_offset_ms: clock_offset voids the windows
spec 2 1 0.000001 0 >"$T/spec3.yaml"
run "$T/spec3.yaml" "$T/runs3" >/dev/null 2>&1
db=$(ls -d "$T"/runs3/*/run.db | head -1)
cmp_num "an uncertainty above max_offset_ms rejects the window (clock_offset)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE '%clock_offset%'")" ">=" 1
check "the clock_offset event says why" \
	grep -q "max_offset_ms" <(q "SELECT detail FROM events WHERE kind = 'clock_offset' LIMIT 1")

# --- the coordinator SIGKILLed mid-run: nothing left on the agents' hosts,
# and resume finishes the run through new agents
spec 2 2 5 0 >"$T/spec4.yaml"
ns_run_started "$T/spec4.yaml" "$T/runs4" "$T/out4" "$T/err4" agent_clock 2
sleep 0.5
kill -9 "$hp"; wait "$hp" 2>/dev/null
left=x
for i in $(seq 1 60); do
	left="$(ns_others a1) $(ns_others a2) $(ip netns pids "${NSP}c")"
	left=$(echo $left)
	[ -z "$left" ] && break
	sleep 0.05
done
if [ -z "$left" ]; then ok "coordinator SIGKILLed mid-run: no agent, session or implementation left"
else fail "left running after SIGKILL: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ',')")"
fi
rid=$(basename "$(dirname "$db")")
expect_exit "resume finishes the run" 0 \
	ip netns exec "${NSP}c" "$HARNESS" resume "$rid" --runs-dir "$T/runs4"
cmp_num "2 accepted windows after resume" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")" == 2
cmp_num "requests due = 400/s x 2 s per window, from both agents" \
	"$(q "SELECT MIN(due) FROM windows WHERE status = 'accepted'")" == 800
cmp_num "due = sent + dropped in every window" \
	"$(q "SELECT SUM(due - sent - dropped) FROM windows WHERE status = 'accepted'")" == 0
cmp_num "agent_clock events: one per agent per load" \
	"$(q "SELECT COUNT(*) FROM events WHERE kind = 'agent_clock' AND detail LIKE 'window %'")" ">=" 4
off=$(q "SELECT detail FROM events WHERE kind = 'agent_clock' AND detail LIKE 'window root@10.218.18.2:%' LIMIT 1" |
	sed -E 's/.*offset ([-+0-9.]+) ms.*/\1/')
near "the skewed agent's offset is recorded (+250 ms faked) and the windows accepted" "$off" 250 2 "clock hook"
