#!/bin/bash
# A saturated dependency voids the window (issue 14): a dependency pinned
# to cpu 0 that spins it (tests/helpers/burn: 600 CPU-seconds, far beyond
# the run) is at up to 100% of the one core it may use. On this shared
# 2-core VM other tests and helpers take part of that core (a full `make
# test` alongside left it 84%), so the gate's bound here is 20%, not the
# default 90%: what is tested is that the dependency's own CPU over its
# own cores decides, while an idle second dependency (testsrv, ~0%) passes
# in the same evidence. Every window is rejected by that gate (a
# validity reason: rejected, never failed), while the implementation
# (pinned to cpu 1, idle dependency-wise) serves the offered rate. The
# window_deps rows and `harness audit` show the dependency's CPU; audit
# --recheck recomputes the same verdicts from the stored rows; the report
# shows the headroom per rung and the dependency's version.
. "$(dirname "$0")/../lib.sh"

ncpu=$(nproc)
if [ "$ncpu" -lt 2 ]; then ok "skipped: needs 2 cpus, have $ncpu"; exit 0; fi

cat >"$T/spec.yaml" <<EOF
version: 1
name: deps-headroom
slo: { threshold_ms: 50 }
dependencies:
  - name: burner
    start: [$HELPERS/burn, --cpu, "600", --linger]
    cpus: "0"
    version: [$HELPERS/burn, --cpu, "0"]
  - name: idle
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
implementations:
  - name: a
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
    cpus: "1"
    restart: never
    version: [$HELPERS/burn, --cpu, "0"]
workload:
  requests: [ { name: root, path: / } ]
  cpus: "1"
warmup: { min_s: 1, max_s: 2, trailing_s: 1, gates: [] }
window_gates: [error_rate, achieved_vs_offered, sut_alive, dependency_headroom]
gates:
  dependency_headroom: { max_cpu_pct: 20 }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, window_s: 3, reps: 2 }
retries: { max_per_cell: 0 }
EOF

"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder >"$T/out" 2>"$T/err"
rc=$?
cmp_num "run exit: nothing accepted, the ladder measured nothing usable (1)" "$rc" == 1
id=$(head -1 "$T/out")
db="$T/runs/$id/run.db"
q() { sqlite3 "$db" "$1"; }
cmp_num "both windows rejected by dependency_headroom" \
	"$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected' AND reasons LIKE '%dependency_headroom%'")" == 2
cmp_num "none failed: the implementation is not blamed" "$(q "SELECT COUNT(*) FROM windows WHERE status = 'failed'")" == 0
cmp_num "the implementation still served the offered rate (achieved_vs_offered passed)" \
	"$(q "SELECT COUNT(*) FROM gate_results WHERE gate = 'achieved_vs_offered' AND status = 'pass'")" == 2
lo=$(q "SELECT MIN(100.0 * cpu_s / (duration_s * ncpus)) FROM window_deps WHERE name = 'burner'")
cmp_num "window_deps: the burner used > 20% of its one core (lowest window)" "$lo" ">" 20
cmp_num "window_deps: it may use 1 core (cpus \"0\")" "$(q "SELECT MAX(ncpus) FROM window_deps WHERE name = 'burner'")" == 1
hi=$(q "SELECT MAX(100.0 * cpu_s / (duration_s * ncpus)) FROM window_deps WHERE name = 'idle'")
cmp_num "window_deps: the idle dependency stayed under 5% of its cores" "$hi" "<" 5
"$HARNESS" audit "$id" --runs-dir "$T/runs" >"$T/audit" 2>&1
check "audit shows the gate's evidence (the dependency's CPU)" grep -q "burner used [0-9.]*% of 1 core" "$T/audit"
check "... and the idle one's" grep -q "idle used [0-9.]*% of [0-9]* cores" "$T/audit"
"$HARNESS" audit "$id" --runs-dir "$T/runs" --recheck >"$T/recheck" 2>&1
check "audit --recheck recomputes the same verdicts from window_deps" grep -q " 0 mismatches" "$T/recheck"
md="$T/runs/$id/report/report.md"
check "the report has a Dependencies section" grep -q "^## Dependencies" "$md"
check "... with the burner's headroom row at the rung (1 core)" grep -q "^| burner | ladder | 100 | 2 | [0-9.]* | 1 |" "$md"
check "... and its version output (provenance)" grep -q "^| dependency burner | ready" "$md"
check "the implementation's version output too (implementations[].version)" grep -q "^| implementation a | ready" "$md"
exit 0
