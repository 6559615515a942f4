#!/bin/bash
# The merged p99 of two load agents (2 x 2,000 req/s over ssh, network
# namespaces: tests/netns.inc) against the p99 of the same schedule from
# one host (issue 18: "merged p99 equals the p99 of the same schedule run
# from one host within the histogram's error"), over PAIRS pairs of 3 s
# loads.
#
# The server sets the p99, not the host: every 20th request it answers
# (testsrv --tail-above 1 --tail-every 20 --tail-ms 100: a token bucket of
# 1 req/s is always empty at 4,000 req/s, so the tail is rate-independent)
# waits 100 ms more than the 2 ms service time. The p99 then lies a fifth
# of the way into a tail of 5% of the requests, all near 102 ms. A stall
# of this loaded 2-core VM (10-30 ms every few seconds) moves requests of
# the body (2 ms) to 12-32 ms, below that tail, and the tail's own
# requests a little up; to move the p99 out of the tail, a stall would
# have to lift more than 4% of a run's requests (480 of 12,000: 120 ms of
# the schedule) above 102 ms.
#
# Claim: in every pair where neither run saw a host stall, |p99 two agents
# - p99 one host| <= 2% of the one-host p99 + 1 ms. Each p99 read from a
# histogram is within 1% of its true value (harness/base/hist.h), so two
# readings of one true value differ by up to 2% (102.236 and 104.333 ms
# are two buckets apart); the 1 ms is the slack: testsrv's 100 ms sleep
# overshoots by its timer and the VM's scheduling (a few hundred us here),
# and each side's p99 is one request of its tail. A run saw a host stall
# when its p90 exceeds 20 ms: the server's body is 2 ms and its tail 5%,
# so 10% of the requests 18 ms late is the host's doing (at load average
# 8 this VM stalled 100-400 ms in 3 of 10 pairs, p90 57-248 ms, and their
# p99s moved with it, 156-354 ms: the host's, as the harness's generator
# gate would say of such a window). Such pairs are printed and counted,
# not judged; at least half the pairs must be clean, or the run says so
# and fails (no answer is not a pass).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../netns.inc"
trap 'ns_teardown; _cleanup' EXIT
PAIRS=${PAIRS:-10}

ns_init
ns_host c 1 && ns_host a1 2 && ns_host a2 3 && ns_host s 4 || { fail "namespaces"; exit 0; }
ns_sshd a1 2 && ns_sshd a2 3 || { fail "sshd did not start"; exit 0; }
SRV=http://10.218.18.4:8080/
ns_exec s "$HELPERS/testsrv" --host 10.218.18.4 --port 8080 --delay-ms 2 \
	--tail-above 1 --tail-every 20 --tail-ms 100 2>/dev/null &
_pids+=($!)
# 4,000 req/s x (2 ms + 5% x 100 ms) = 28 in flight on average: 256
# connections (128 per agent) so no request waits for one.
LOAD=(--rate 4000 --duration 3 --connections 256 --json)
: >"$T/pairs"
t0=$(date +%s)
for i in $(seq 1 "$PAIRS"); do
	ns_exec c "$HARNESS" load "$SRV" "${LOAD[@]}" --agent root@10.218.18.2 \
		--agent root@10.218.18.3 --agent-binary "$HARNESS" "${SSH_OPTS[@]}" \
		>"$T/two.json" 2>/dev/null
	ns_exec a1 "$HARNESS" load "$SRV" "${LOAD[@]}" >"$T/one.json" 2>/dev/null
	a=$(jq .latency_ms.p99 "$T/two.json"); b=$(jq .latency_ms.p99 "$T/one.json")
	pa=$(jq .latency_ms.p90 "$T/two.json"); pb=$(jq .latency_ms.p90 "$T/one.json")
	d=$(jq '.requests - .sent - .dropped' "$T/two.json")
	echo "# pair $i: p99 two agents $a ms, one host $b ms (p90 $pa / $pb; due - sent - dropped: $d)"
	echo "$a $b $pa $pb" >>"$T/pairs"
done
# clean pairs only: |difference| and whether it is within 2% + 1 ms
awk '$3 <= 20 && $4 <= 20 { d = $1 - $2; if (d < 0) d = -d; print d, (d <= 0.02 * $2 + 1) }' \
	"$T/pairs" | sort -g >"$T/d"
n=$(wc -l <"$T/d")
agree=$(awk '{ s += $2 } END { print s + 0 }' "$T/d")
worst=$(tail -1 "$T/d" | cut -d' ' -f1)
echo "# $PAIRS pairs in $(( $(date +%s) - t0 )) s, $n without a host stall (p90 <= 20 ms), worst |difference| among them ${worst:-none} ms; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cmp_num "pairs without a host stall (at least half)" "$n" ">=" "$(( (PAIRS + 1) / 2 ))"
cmp_num "... whose p99s all agree within 2% + 1 ms" "$agree" "==" "$n"
