#!/bin/bash
# release-only: p50/p90/p99 of two agents against one host (timing figures); agent_run.sh drives the agent code under the sanitizers
# Load agents over OpenSSH (issue 18), on hosts made of network namespaces
# (tests/netns.inc): a coordinator namespace, two agent namespaces with an
# sshd each, a server namespace. Checks the version handshake, the exact
# split of the schedule (due = sent + dropped, the union of the shares is
# the one-host schedule), the merged p50/p90/p99 against a one-host run of
# the same schedule (p99 repeated: tests/slow/agent_p99.sh), the clock offsets (and a faked skew found), an agent
# killed mid-load (the load is void, naming it) and nothing left running
# on the agents' hosts after the coordinator is SIGKILLed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT

PROTO=$(sed -n 's/^#define AGENT_PROTOCOL \([0-9]*\).*/\1/p' "$(dirname "$0")/../../harness/agent/agent.h")
check "agent --version names the protocol ($PROTO, harness/agent/agent.h)" \
	bash -c "'$HARNESS' agent --version | grep -Eq '^harness-agent $PROTO '"

# --- the schedule split, on 127.0.0.1: the shares' intended send times are
# exactly the one-host schedule's (constant: interleaved slots; poisson:
# thinning of one seeded process).
port=$(free_port)
bg "$HELPERS/testsrv" --port "$port" 2>/dev/null
wait_port "$port"
for arr in constant poisson; do
	"$HARNESS" load "http://127.0.0.1:$port/" --rate 3000 --duration 1 --arrival $arr \
		--threads 3 --dump-send-times "$T/all" >/dev/null 2>&1
	"$HARNESS" load "http://127.0.0.1:$port/" --rate 3000 --duration 1 --arrival $arr \
		--threads 2 --part 0/2 --dump-send-times "$T/p0" >/dev/null 2>&1
	"$HARNESS" load "http://127.0.0.1:$port/" --rate 3000 --duration 1 --arrival $arr \
		--part 1/2 --dump-send-times "$T/p1" >/dev/null 2>&1
	awk '{print $2}' "$T/all" | sort -n >"$T/a"
	cat "$T/p0" "$T/p1" | awk '{print $2}' | sort -n >"$T/u"
	n0=$(wc -l <"$T/p0"); n1=$(wc -l <"$T/p1")
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/u" && [ "$n0" -gt 0 ] && [ "$n1" -gt 0 ]; then
		ok "$arr: the two shares ($n0 + $n1) are exactly the one-host schedule"
	else
		fail "$arr: shares $n0 + $n1 differ from the one-host schedule ($(wc -l <"$T/a"))"
	fi
done

# --- the hosts
ns_init
ns_host c 1 && ns_host a1 2 && ns_host a2 3 && ns_host s 4 || { fail "namespaces"; exit 0; }
ns_sshd a1 2 && ns_sshd a2 3 || { fail "sshd did not start: $(cat "$T"/sshd_*.log)"; exit 0; }
SRV=http://10.218.18.4:8080/
# A fixed service time, so the percentiles compared are the server's, not
# the loaded VM's scheduling noise: 2 ms, and every 20th request 100 ms
# more (a rate-independent tail: a bucket of 1 req/s is always empty at
# these rates), so the p99 lies in a tail of 5% of the requests near
# 102 ms, where a stall of 10-30 ms moves nothing (tests/slow/agent_p99.sh).
ns_exec s "$HELPERS/testsrv" --host 10.218.18.4 --port 8080 --delay-ms 2 \
	--tail-above 1 --tail-every 20 --tail-ms 100 2>/dev/null &
_pids+=($!)
A1=root@10.218.18.2 A2=ssh://root@10.218.18.3:22
coord() { ns_exec c "$HARNESS" load "$@" --agent-binary "$HARNESS" "${SSH_OPTS[@]}"; }

# Version mismatch: an agent binary that says another version.
printf '#!/bin/sh\necho "harness-agent 2 v0.0-other"\n' >"$T/oldagent"
chmod +x "$T/oldagent"
expect_exit "an agent of another version is refused" 3 \
	ns_exec c "$HARNESS" load "$SRV" --rate 10 --duration 1 --agent "$A1" \
	--agent-binary "$T/oldagent" "${SSH_OPTS[@]}"
check "the refusal says version mismatch and names the agent" \
	grep -q "agent $A1: version mismatch" "$T/err"

# Two agents at 2 x 2,000 req/s against the server in its own namespace.
RATE=4000 DUR=2
t0=$(date +%s.%N)
coord "$SRV" --rate $RATE --duration $DUR --connections 256 --agent "$A1" --agent "$A2" --json \
	>"$T/two.json" 2>"$T/two.err"
rc=$?
t1=$(date +%s.%N)
if [ $rc -eq 0 ]; then ok "two agents: exit 0 ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s)"
else fail "two agents: exit $rc: $(head -c 400 "$T/two.err")"; fi
due=$(jq .requests "$T/two.json")
cmp_num "two agents: requests due = rate x duration" "$due" "==" $((RATE * DUR))
cmp_num "two agents: due = sent + dropped" "$due" "==" \
	"$(jq '.sent + .dropped' "$T/two.json")"
cmp_num "two agents: each agent had half" "$(jq '[.agents[].requests] | min' "$T/two.json")" \
	"==" $((RATE * DUR / 2))
cmp_num "two agents: agents' counts add up to the merged ones" \
	"$(jq '[.agents[].sent] | add' "$T/two.json")" "==" "$(jq .sent "$T/two.json")"
# Both agents are on this machine's clock: the offsets measured must be
# near 0, within their uncertainty (plus 1 ms for the loaded VM).
for i in 0 1; do
	off=$(jq ".agents[$i].offset_ms" "$T/two.json")
	unc=$(jq ".agents[$i].uncertainty_ms" "$T/two.json")
	near "agent $i: clock offset recorded, ~0 on one machine" "$off" 0 \
		"$(awk -v u="$unc" 'BEGIN{print u + 1}')" "same clock"
	cmp_num "agent $i: offset uncertainty recorded (ms)" "$unc" "<" 5
done

# The same schedule from one host (agent a1's namespace, no agents): p50
# and p90 within the histogram's 1% plus 0.5 ms / 3 ms of scheduling
# noise on the 2 ms service time, the p99 (in the server's tail) within
# 2% + 1 ms (two readings of one histogram, 1% each; tests/slow/agent_p99.sh
# repeats it). A pair that disagrees
# is run again (3 tries).
pair_ok=0
for attempt in 1 2 3; do
	if [ $attempt -gt 1 ]; then
		coord "$SRV" --rate $RATE --duration $DUR --connections 256 --agent "$A1" --agent "$A2" --json \
			>"$T/two.json" 2>"$T/two.err"
	fi
	ns_exec a1 "$HARNESS" load "$SRV" --rate $RATE --duration $DUR --connections 256 --json \
		>"$T/one.json" 2>/dev/null
	p99a=$(jq .latency_ms.p99 "$T/two.json"); p99b=$(jq .latency_ms.p99 "$T/one.json")
	p90a=$(jq .latency_ms.p90 "$T/two.json"); p90b=$(jq .latency_ms.p90 "$T/one.json")
	p50a=$(jq .latency_ms.p50 "$T/two.json"); p50b=$(jq .latency_ms.p50 "$T/one.json")
	echo "# attempt $attempt: two agents / one host: p50 $p50a / $p50b, p90 $p90a / $p90b, p99 $p99a / $p99b ms"
	if awk -v a="$p50a" -v b="$p50b" -v c="$p90a" -v d="$p90b" -v e="$p99a" -v f="$p99b" 'BEGIN {
		x = a - b; if (x < 0) x = -x; y = c - d; if (y < 0) y = -y; z = e - f; if (z < 0) z = -z;
		exit !(a != "" && c != "" && e != "" && x <= 0.01 * b + 0.5 && y <= 0.01 * d + 3 &&
		       z <= 0.02 * f + 1) }'; then
		pair_ok=1
		break
	fi
done
cmp_num "one host: same requests due" "$(jq .requests "$T/one.json")" "==" "$due"
if [ $pair_ok = 1 ]; then
	ok "merged p50/p90/p99 equal the one-host run's within 1%/1%/2% + 0.5/3/1 ms ($p50a/$p90a/$p99a vs $p50b/$p90b/$p99b ms; attempt $attempt)"
else
	fail "merged p50/p90/p99 $p50a/$p90a/$p99a ms vs one host $p50b/$p90b/$p99b ms, three times"
fi

# A faked clock skew on one agent (test hook): found by the exchange.
printf '#!/bin/sh\nHARNESS_TEST_AGENT_SKEW_MS=250 exec %s "$@"\n' "$HARNESS" >"$T/skewed"
chmod +x "$T/skewed"
ns_exec c "$HARNESS" load "$SRV" --rate 400 --duration 1 --agent "$A1" \
	--agent-binary "$T/skewed" "${SSH_OPTS[@]}" --json >"$T/skew.json" 2>"$T/skew.err"
off=$(jq '.agents[0].offset_ms' "$T/skew.json" 2>/dev/null)
near "a skewed agent clock is detected (offset ms)" "$off" 250 2 "faked +250 ms"
cmp_num "the skewed agent still ran its share on time" \
	"$(jq .requests "$T/skew.json" 2>/dev/null)" "==" 400

# An agent killed mid-load: the load is void, naming the agent.
ip netns exec "${NSP}c" "$HARNESS" load "$SRV" --rate 1000 --duration 4 --agent "$A1" --agent "$A2" \
	--agent-binary "$HARNESS" "${SSH_OPTS[@]}" >"$T/kill.out" 2>"$T/kill.err" &
cp=$!
ns_wait_agents a1 a2
sleep 1.5
for p in $(ns_others a2); do kill -9 "$p" 2>/dev/null; done
wait $cp; rc=$?
cmp_num "an agent killed mid-load: exit 3" "$rc" "==" 3
check "the message names the lost agent" grep -q "agent $A2: connection lost" "$T/kill.err"
[ $rc = 3 ] || echo "# $(cat "$T/kill.err")"

# The coordinator SIGKILLed mid-load: nothing stays on the agents' hosts.
ip netns exec "${NSP}c" "$HARNESS" load "$SRV" --rate 500 --duration 30 --agent "$A1" --agent "$A2" \
	--agent-binary "$HARNESS" "${SSH_OPTS[@]}" >/dev/null 2>&1 &
cp=$!
ns_wait_agents a1 a2
sleep 1
kill -9 $cp
left=x
for i in $(seq 1 60); do
	left="$(ns_others a1)$(ns_others a2)"
	[ -z "$left" ] && break
	sleep 0.05
done
if [ -z "$left" ]; then ok "coordinator SIGKILLed: agents and their sessions gone (${i}x50 ms)"
else fail "coordinator SIGKILLed: still running on the agents: $(ps -o pid,args -p $(echo $left) | tail -n +2)"; fi
