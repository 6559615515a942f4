# Sourced by every tests/e2e/*.sh (`. "$(dirname "$0")/../lib.sh"`). Each check prints "ok - <script>: <what>"
# or "not ok - ..." (tests/run.sh counts them). $HARNESS is the binary under
# test, $HELPERS the directory of built helper servers, $T a scratch
# directory removed at exit, along with every process the script started.
set -u
HARNESS=${HARNESS:-$(cd "$(dirname "$0")/../.." && pwd)/bin/harness}
HELPERS=${HELPERS:-$(cd "$(dirname "$0")/../.." && pwd)/build/release/helpers}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/harness-e2e.XXXXXX)
_script=$(basename "$0" .sh)
_pids=()

_cleanup() {
	local p
	for p in "${_pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${_pids[@]}"; do wait "$p" 2>/dev/null; done
	# HARNESS_KEEP_RUNS=DIR: the run databases the script made, kept
	# under DIR/<script>/ for tests/same_outputs.sh --runs DIR
	if [ -n "${HARNESS_KEEP_RUNS:-}" ]; then
		find "$T" -name run.db -printf '%P\n' 2>/dev/null | while read -r p; do
			mkdir -p "$HARNESS_KEEP_RUNS/$_script/${p%/run.db}"
			cp "$T/$p" "$HARNESS_KEEP_RUNS/$_script/$p"
		done
	fi
	rm -rf "$T"
}
trap _cleanup EXIT

# testsrv_impl NAME [ARGS]: a spec's implementation entry (YAML, indented
# for implementations:) of the testsrv helper on {port}, ARGS appended to
# its start list as they stand in YAML (', --delay-ms, "2"'), health at
# /healthz, restart never.
testsrv_impl() {
	cat <<YAML
  - name: $1
    start: [$HELPERS/testsrv, --port, "{port}"${2:-}]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
YAML
}

# root_workload CONNECTIONS: a spec's workload (YAML): GET / over
# CONNECTIONS connections, a 2 s timeout.
root_workload() {
	cat <<YAML
workload:
  connections: $1
  timeout_ms: 2000
  requests:
    - { name: root, path: / }
YAML
}

# warmup_at RATE MAX_S [GATES]: a spec's warm-up (YAML) at RATE req/s for
# 1 to MAX_S seconds, GATES (a YAML list's items, none by default) judging
# its last second.
warmup_at() {
	cat <<YAML
warmup:
  rate: { fixed_rps: $1 }
  min_s: 1
  max_s: $2
  trailing_s: 1
  gates: [${3:-}]
YAML
}

# no_warmup: a spec's warm-up (YAML) of none: min_s 0 without gates runs
# no warm-up load (docs/DESIGN.md "Warm-up length"), so each window
# starts on an idle server. For scripts whose servers (testsrv) have
# nothing to warm (no cache, no JIT; every load opens its own
# connections, a warm-up's are gone before its window) and whose subject
# is not the warm-up.
no_warmup() {
	echo "warmup: { min_s: 0, max_s: 1, trailing_s: 1, gates: [] }"
}

# work_ladder [START]: the workload and ladder (YAML, the stages: key and
# its ladder) capacity.sh and refine.sh find their servers' knees with:
# GET /work at a constant rate over 32 connections, START (324 by
# default) x 1.45^k req/s up to 1500, one 3 s window a rung, stopping at
# the rung that crosses.
work_ladder() {
	cat <<YAML
workload:
  arrival: constant
  connections: 32
  timeout_ms: 2000
  requests:
    - { name: work, method: GET, path: /work }
stages:
  ladder: { start_rps: ${1:-324}, step: 1.45, max_rps: 1500, reps: 1, window_s: 3, discard_s: 0,
            stop: { rungs_past_knee: 0 } }
YAML
}

# echo_other_tail SERVER: the end of a spec (YAML) that harness probe and
# check read, never run: a second implementation, "other" (SERVER on
# {port}), a workload that POSTs {"id":1} to /echo, and a ladder.
echo_other_tail() {
	cat <<YAML
  - name: other
    start: [$1, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload:
  requests:
    - { name: echo, method: POST, path: /echo, body: '{"id":1}' }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 400, window_s: 10 }
YAML
}

# quick_ladder REPS RETRIES: a spec's stages and what they gate (YAML) for
# scripts about what a run does, not what it measures: one rung at 50
# req/s, REPS blocks of one 1 s window, retries.max_per_cell RETRIES,
# a warm-up of at most 1 s, sut_alive the one window gate.
quick_ladder() {
	cat <<YAML
stages:
  ladder: { start_rps: 50, step: 2, max_rps: 50, reps: $1, window_s: 1, discard_s: 0 }
retries: { max_per_cell: $2 }
warmup: { rate: { fixed_rps: 50 }, min_s: 0, max_s: 1, trailing_s: 0.5, gates: [] }
window_gates: [sut_alive]
YAML
}

# front_of DEP: a spec's implementations, workload, warm-up and window
# gates (YAML) for scripts about a dependency: one implementation, front
# (testsrv), that calls DEP on every request ({dep.DEP.port}), a 1-2 s
# warm-up, error_rate, sut_alive and dependency_headroom judging windows.
front_of() {
	cat <<YAML
implementations:
  - name: front
    start: [$HELPERS/testsrv, --port, "{port}", --forward-port, "{dep.$1.port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    restart: never
workload:
  requests: [ { name: root, path: / } ]
warmup: { min_s: 1, max_s: 2, trailing_s: 1, gates: [] }
window_gates: [error_rate, sut_alive, dependency_headroom]
YAML
}

# tiny_spec NAME WINDOW_GATES: a one-implementation spec (testsrv "solo",
# two rungs of one 1 s window, a 1 s warm-up) for scripts about what a
# run stores, not what it measures (corrupt.sh, recheck_rules.sh).
tiny_spec() {
	cat <<YAML
version: 1
name: $1
seed: 5
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
$(testsrv_impl solo)
$(root_workload 4)
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1, window_s: 1, discard_s: 0 }
$(warmup_at 50 1 'hot_set_touched')
window_gates: [$2]
YAML
}

ok()   { echo "ok - $_script: $*"; }
fail() { echo "not ok - $_script: $*"; }

# check "what" command...: passes when the command exits 0.
check() {
	local what=$1; shift
	if "$@" >/dev/null 2>&1; then ok "$what"; else fail "$what"; fi
}

# near "what" got want tol "why": |got - want| <= tol.
near() {
	if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t) }'; then
		ok "$1 ($2 ~ $3 +- $4)"
	else
		fail "$1: got '$2', want $3 +- $4 ($5)"
	fi
}

# cmp_num "what" got op bound: e.g. cmp_num "p99" "$p99" ">=" 800
cmp_num() {
	if awk -v g="$2" -v b="$4" -v op="$3" 'BEGIN {
		if (g == "") exit 1;
		if (op == ">=") exit !(g >= b); if (op == "<=") exit !(g <= b);
		if (op == ">") exit !(g > b); if (op == "<") exit !(g < b);
		if (op == "==") exit !(g == b); exit 1 }'; then
		ok "$1 ($2 $3 $4)"
	else
		fail "$1: got '$2', want $3 $4"
	fi
}

# expect_exit "what" code command...: the command exits with code.
expect_exit() {
	local what=$1 want=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; local rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$what (exit $rc)"; else
		fail "$what: exit $rc, want $want; stderr: $(head -c 300 "$T/err")"; fi
}

# Start a background process, remembered for cleanup; its pid in $!.
bg() { "$@" & _pids+=($!); }

# A free TCP port on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wrk_capacity CONNECTIONS ARGS...: start testsrv with ARGS, measure its
# /work closed-loop over CONNECTIONS connections (one outstanding request
# each) with wrk, print req/s: the highest of 1 s readings. A host stall
# only takes requests away from a reading (a server of W workers holding
# each request D ms answers at most W / D whatever the host does), so the
# highest is the nearest to the server's capacity: one 2 s reading, beside
# a second suite at load 4-11, read 773 of 875 and 514 of 583. wrk runs
# as the harness's generator threads do, SCHED_FIFO at priority 1 where
# permitted (base/rtsched.h): niced and SCHED_OTHER beside other suites'
# real-time generators it once read 105 of 875 while the harness's own
# run, real-time, measured the server at 859-900. Readings go on until the
# two highest agree within 3% (the capacity, twice), at most 6.
wrk_capacity() {
	local c=$1 port pid r n best=0 second=0 rt= all=
	shift
	chrt -f 1 true 2>/dev/null && rt="chrt -f 1"
	port=$(free_port)
	"$HELPERS/testsrv" --port "$port" "$@" 2>/dev/null &
	pid=$!
	wait_port "$port"
	for n in 1 2 3 4 5 6; do
		r=$($rt wrk -t1 -c"$c" -d1s "http://127.0.0.1:$port/work" 2>/dev/null |
			awk '/^Requests\/sec:/ { print $2 }')
		all+=" ${r:-none}"
		read -r best second < <(awk -v a="$best" -v b="$second" -v r="${r:-0}" \
			'BEGIN { if (r > a) { b = a; a = r } else if (r > b) b = r; print a, b }')
		[ "$n" -ge 2 ] && awk -v a="$best" -v b="$second" 'BEGIN { exit !(b > 0 && b >= a * 0.97) }' && break
	done
	kill "$pid"
	wait "$pid" 2>/dev/null
	echo "# wrk ${rt:+(SCHED_FIFO) }readings (req/s):$all" >&2
	[ "$best" != 0 ] && echo "$best"
}

# Wait until something listens on 127.0.0.1:$1 (at most 5 s).
wait_port() {
	local i
	for i in $(seq 1 100); do
		(exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# Headless Chromium (Debian `chromium`) for the pages' tests: `make deps`
# (and so `make test`) installs it with the tests' other tools. Where it
# is absent (a test run by hand on a host without it), chromium_ready
# prints a SKIP line naming what was not rendered and returns 1.
chromium_ready() {
	command -v chromium >/dev/null 2>&1 && return 0
	skip "$1: not rendered in Chromium: chromium is not installed (make deps installs it)"
	return 1
}

# skip WHAT: a TAP skip (counted as passed, the reason on the line).
skip() { echo "ok - $_script: $* # SKIP"; }

# descends PID ANCESTOR: 0 when ANCESTOR is PID or one of its ancestors
descends() {
	local p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = "$2" ] && return 0
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	done
	return 1
}

# chrome URL ARGS...: headless, offline, a throwaway profile under $T.
chrome() {
	local url=$1 prof; shift
	prof=$(mktemp -d "$T/prof.XXXXXX")
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 "$@" "$url"
}

# is_png FILE: its first 8 bytes are PNG's signature.
is_png() {
	[ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}
