#!/bin/bash
# release-only: under make asan deps_headroom.sh, agent_run.sh and oom.sh reach its code but 19 lines (evidence_load.c 8, runner_freeze.c 6, report_hgrm.c 2), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# Arms not being measured do not run (docs/DESIGN.md; harness/runner/runner_freeze.c,
# gates/idle_arms_quiet.c). Two neighbours of `base` are testsrv --spin-idle 2:
# two children each that leave the process group, outlive the server and
# burn a core each whenever their server gets no request (so
# they are quiet in their own windows and busy in everyone else's). One is
# restart: never, the other per_block. On this 2-core host four spinners
# take base's p99 from ~2 ms to 10-50 ms when nothing stops them (before
# this change: base 12.6-50.6 ms, the spinning arm 2.2-3.0 ms, every window
# accepted). Checked here:
#   1. cgroup run: in each of base's windows both neighbours were frozen
#      (window_idle: the freezer that held them, their cgroups' CPU ~0:
#      the host-level evidence), every window accepted, idle_arms_quiet
#      passed and replays in audit --recheck;
#   2. procfs run (no freezer): base's windows are rejected by
#      idle_arms_quiet, which names the spinning arm and its CPU;
#   3. a dependency only `never` uses (it spins too) is frozen in the other
#      arms' windows and runs in never's;
#   4. nothing of the spinners outlives either run.
# Latency itself is not asserted here: on this shared 2-core CI host the
# p99 of 1 s windows of identical quiet servers ranges 2-46 ms when the
# neighbours' sessions are busy. tests/slow/freeze_rerun.sh checks the
# acceptance on latency (base's p99 within 20% of its value without the
# neighbour; compare calls the branch no improvement) over longer windows.
. "$(dirname "$0")/../lib.sh"

NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
RUNS=$T/runs
SRV=$HELPERS/testsrv
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
# the spinners of this script: their command line holds $T (port files)
spinners() { pgrep -f -- "--port-file $T/" | wc -l; }

# spec NAME BACKEND ARMS...: base plus one neighbour per restart policy
# named (the arm is named after it)
spec() {
	local name=$1 backend=$2 arm
	shift 2
	cat <<YAML
version: 1
name: freeze-$name
seed: 5
slo: { percentile: 99, threshold_ms: 100, error_rate_max: 0.01 }
implementations:
  - name: base
    start: [$SRV, --port, "{port}", --delay-ms, "1", --port-file, "$T/base.port"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
YAML
	for arm in "$@"; do
		cat <<YAML
  - name: $arm
    start: [$SRV, --port, "{port}", --delay-ms, "1", --spin-idle, "2", --port-file, "$T/$arm.port"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: $arm
YAML
		# never tells its server about side: side is never's alone
		[ "$arm" = never ] && [ "$name" = frozen ] &&
			echo '    env: { SIDE: "127.0.0.1:{dep.side.port}" }'
	done
	# a dependency only never uses, which spins whenever it is not frozen
	[ "$name" = frozen ] && cat <<YAML
dependencies:
  - name: side
    start: [$SRV, --port, "{port}", --spin-idle, "1", --port-file, "$T/side.port"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
YAML
	cat <<YAML
workload:
  connections: 8
  timeout_ms: 2000
  requests:
    - { name: root, path: /echo, method: POST, body: "hi" }
stages:
  ladder: { start_rps: 500, step: 2, max_rps: 500, reps: 2, window_s: 1, discard_s: 0 }
warmup:
  rate: { fixed_rps: 500 }
  min_s: 0
  max_s: 0.2
  trailing_s: 0.2
  gates: []
retries: { max_per_cell: 0 }
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
window_gates: [error_rate, achieved_vs_offered, sut_alive]
accounting: { backend: $backend }
YAML
}

run() {
	local id=$1
	shift
	spec "$id" "$@" >"$T/$id.yaml"
	$NICE "$HARNESS" run "$T/$id.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "$id" \
		>"$T/$id.out" 2>"$T/$id.err"
}


# ------------------------------------------------------------ with a freezer
{
	run frozen auto never per_block
	rc=$?
	[ $rc = 0 ] && ok "run beside the spinning neighbours" ||
		fail "run: exit $rc: $(tail -n 2 "$T/frozen.err")"
	idle=$(q frozen "SELECT count(*) FROM window_idle i JOIN windows w ON w.id = i.window_id WHERE w.impl = 'base' AND kind = 'implementation'")
	froz=$(q frozen "SELECT count(*) FROM window_idle i JOIN windows w ON w.id = i.window_id WHERE w.impl = 'base' AND i.frozen IS NOT NULL AND kind = 'implementation'")
	backend=$(q frozen "SELECT DISTINCT acct_backend FROM windows")
	# a freezer: cgroup2's cgroup.freeze, or cgroup1 with the v1 freezer mounted
	if [ "$backend" != cgroup2 ] && ! { [ "$backend" = cgroup1 ] &&
		grep -qE '^cgroup [^ ]+ cgroup [^ ]*freezer' /proc/self/mounts; }; then
		echo "# no cgroup freezer here ($backend): the procfs part checks the gate"
	else
		# base's first window may come before a neighbour's first start
		cmp_num "idle rows of base's windows (neighbours up)" "$idle" ">=" 2
		[ "$froz" = "$idle" ] && ok "every neighbour frozen in every base window ($(q frozen "SELECT DISTINCT frozen FROM window_idle"))" ||
			fail "not frozen: $(q frozen "SELECT window_id, name, frozen, cpu_s FROM window_idle" | tr '\n' ' ')"
		# the host-level evidence: their cgroups' CPU while frozen
		cmp_num "frozen neighbours' CPU in base's windows (cpu-s)" \
			"$(q frozen "SELECT max(cpu_s) FROM window_idle WHERE frozen IS NOT NULL")" "<=" 0.005
		# side: frozen in the windows of the arms that do not use it, running in never's
		nw=$(q frozen "SELECT count(*) FROM windows WHERE impl != 'never'")
		cmp_num "never's dependency frozen in every other arm's window" \
			"$(q frozen "SELECT count(*) FROM window_idle i JOIN windows w ON w.id = i.window_id WHERE w.impl != 'never' AND i.name = 'dep-side' AND i.kind = 'dependency' AND i.frozen IS NOT NULL AND i.cpu_s <= 0.005")" "==" "$nw"
		cmp_num "... and left running in never's own" \
			"$(q frozen "SELECT count(*) FROM window_idle i JOIN windows w ON w.id = i.window_id WHERE w.impl = 'never' AND i.kind = 'dependency'")" "==" 0
		# every window accepted, but for one the host voided (the generator
		# or host_held gate: a second suite beside this one; the
		# neighbours' own spinning is what idle_arms_quiet judges, below)
		cmp_num "windows accepted, or void by the host's gates only ($(q frozen "SELECT group_concat(status || ':' || coalesce(reasons, ''), ' ') FROM windows WHERE status != 'accepted'"))" \
			"$(q frozen "SELECT count(*) FROM windows WHERE status = 'accepted' OR (status = 'rejected' AND
				replace(replace(replace(reasons, 'host_held', ''), 'generator', ''), ',', '') = '')")" "==" \
			"$(q frozen "SELECT count(*) FROM windows")"
		[ "$(q frozen "SELECT count(*) FROM gate_results WHERE gate = 'idle_arms_quiet' AND status = 'pass'")" = \
			"$(q frozen "SELECT count(*) FROM windows")" ] && ok "idle_arms_quiet passed every window" ||
			fail "idle_arms_quiet: $(q frozen "SELECT window_id, status, evidence FROM gate_results WHERE gate = 'idle_arms_quiet'" | tr '\n' ' ')"
		expect_exit "audit --recheck replays idle_arms_quiet" 0 "$HARNESS" audit frozen --recheck --runs-dir "$RUNS"
	fi
	cmp_num "spinners left after the cgroup runs" "$(spinners)" "==" 0
}

# ------------------------------------------------------------ procfs: measured
run procfs procfs never
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] && ok "procfs run finished (exit $rc)" || fail "procfs run: exit $rc: $(tail -n 2 "$T/procfs.err")"
nb=$(q procfs "SELECT count(*) FROM windows w WHERE impl = 'base' AND EXISTS (SELECT 1 FROM window_idle i WHERE i.window_id = w.id)")
rej=$(q procfs "SELECT count(*) FROM windows WHERE impl = 'base' AND status = 'rejected' AND reasons LIKE '%idle_arms_quiet%'")
# (2 blocks, counterbalanced: in one of them never runs first)
cmp_num "base windows with the neighbour up" "$nb" ">=" 1
cmp_num "base windows rejected by idle_arms_quiet (of $nb)" "$rej" "==" "$nb"
ev=$(q procfs "SELECT evidence FROM gate_results WHERE gate = 'idle_arms_quiet' AND status = 'fail' LIMIT 1")
[[ "$ev" == "never running, "*"% ("*" cpu-s in "* ]] && ok "the evidence names the arm and its CPU: $ev" ||
	fail "evidence: '$ev'"
[ "$(q procfs "SELECT count(*) FROM window_idle WHERE frozen IS NOT NULL")" = 0 ] &&
	ok "procfs: nothing recorded as frozen" || fail "procfs frozen rows"
# procfs follows the process tree: the stop signals it before the leader
# (whose exit would orphan the spinners out of the tree)
cmp_num "spinners left after the procfs run" "$(spinners)" "==" 0
for p in $(pgrep -f -- "--port-file $T/"); do kill -KILL "$p" 2>/dev/null; done
