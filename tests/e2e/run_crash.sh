#!/usr/bin/env bash
# End-to-end: an implementation that crashes 2.5 s after its start, once:
# the window it dies in is failed (sut_exited: its own death, an outcome),
# it is restarted and its other window is accepted (issue 5's acceptance).
# Which window a crash timed in milliseconds lands in is timing: this
# script runs alone in the first lane.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/run_common.inc"

rm -f "$T/crashed"
write_spec "$T/crash.yaml" e2e-crash "--exit-after-ms, \"2500\", --crash-once, \"$T/crashed\"" \
	'start_rps: 200, step: 2, max_rps: 200, reps: 2' ''
# --crash-once crashes the first start: the pre-flight's would take it.
sed -i 's/^  timeout_ms: 2000$/  timeout_ms: 2000\n  preflight: { sends: 0 }/' "$T/crash.yaml"
"$HARNESS" run "$T/crash.yaml" --allow-dirty --runs-dir "$RUNS" --run-id crash >/dev/null 2>"$T/c.err"
rc=$?
check "run goes on after a crash (rc $rc)" test "$rc" -le 1
cmp_num "crashed window failed sut_exited (an outcome: its own death)" "$(q crash "SELECT COUNT(*) FROM windows WHERE impl='slow' AND status='failed' AND reasons LIKE '%sut_exited%'")" "==" 1
cmp_num "the implementation was restarted" "$(q crash "SELECT COUNT(*) FROM events WHERE kind='sut_start' AND detail LIKE 'slow%'")" ">=" 2
cmp_num "the other windows of it were accepted" "$(q crash "SELECT COUNT(*) FROM windows WHERE impl='slow' AND status='accepted'")" "==" 1
