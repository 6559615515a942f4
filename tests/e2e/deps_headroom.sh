#!/bin/bash
# A saturated dependency voids the window (issue 14): a dependency pinned
# to cpu 0 that spins it (tests/helpers/burn: 600 CPU-seconds, far beyond
# the run) is at up to 100% of the one core it may use. On this shared
# 2-core VM other tests and helpers take part of that core (a full `make
# test` alongside left it 84%; a second suite and four more sessions, at
# load 7.5, 16%), so the gate's bound here is 5%, not the default 90%: what is tested is that the dependency's own CPU over its
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
  dependency_headroom: { max_cpu_pct: 5 }
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
cmp_num "window_deps: the burner used > 5% of its one core (lowest window)" "$lo" ">" 5
cmp_num "window_deps: it may use 1 core (cpus \"0\")" "$(q "SELECT MAX(ncpus) FROM window_deps WHERE name = 'burner'")" == 1
hi=$(q "SELECT MAX(100.0 * cpu_s / (duration_s * ncpus)) FROM window_deps WHERE name = 'idle'")
cmp_num "window_deps: the idle dependency stayed under 5% of its cores" "$hi" "<" 5
"$HARNESS" audit "$id" --runs-dir "$T/runs" >"$T/audit" 2>&1
cmp_num "audit shows the dependency's CPU in each of the 2 windows (the gate's evidence)" \
	"$(grep -c "burner used [0-9.]*% of 1 core" "$T/audit")" ">=" 2
check "... and the idle one's" grep -q "idle used [0-9.]*% of [0-9]* cores" "$T/audit"
"$HARNESS" audit "$id" --runs-dir "$T/runs" --recheck >"$T/recheck" 2>&1
check "audit --recheck recomputes the same verdicts from window_deps" grep -q " 0 mismatches" "$T/recheck"
md="$T/runs/$id/report/report.md"
check "the report has a Dependencies section" grep -q "^## Dependencies" "$md"
check "... with the burner's headroom row at the rung (1 core)" grep -q "^| burner | ladder | 100 | 2 | [0-9.]* | 1 |" "$md"
check "... and its version output (provenance)" grep -q "^| dependency burner | ready" "$md"
check "the implementation's version output too (implementations[].version)" grep -q "^| implementation a | ready" "$md"
check "md: the burner's peak over the run against its 1 core, at ladder 100" \
	grep -Eq "^\| burner \| ready[^|]* \| 1 \| (\*\*)?[0-9.]+(\*\*)? \| [0-9.]+ \| ladder 100 req/s \| 2 \(" "$md"
html="$T/runs/$id/report/report.html"
check "html: the Dependencies section and both tables" bash -c "grep -q '>Dependencies</h2>' '$html' &&
	grep -q '<table id=\"t-dependencies\">' '$html' && grep -q '<table id=\"t-dependency_headroom\">' '$html'"
J="$T/runs/$id/report/report.json"
check "json: dependencies[] in declared order, with their versions" jq -e \
	'[.dependencies[].name] == ["burner", "idle"] and (.dependencies[0].version | startswith("ready")) and
	 .dependencies[1].version == null and (.run.versions["implementation a"] | startswith("ready"))' "$J"
jpk=$(jq '.dependencies[0].peak.cpu_pct' "$J")
cmp_num "json: the burner's peak, % of its 1 core ( the gate's bound is 5)" "$jpk" ">" 5
check "json: that peak is the highest window_deps row (same number)" awk -v a="$jpk" \
	-v b="$(q "SELECT MAX(100.0 * cpu_s / (duration_s * ncpus)) FROM window_deps WHERE name = 'burner'")" \
	'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }'
check "json: where: ladder 100 req/s, one of its windows, 1 core" jq -e \
	'.dependencies[0] | .ncpus == 1 and .peak.stage == "ladder" and .peak.rate_rps == 100 and
	 .peak.window_id != null and .windows == 2 and .exited == 0' "$J"
check "json: per rung, cores used and peak share (one rung, 2 windows)" jq -e \
	'.dependencies[0].rungs | length == 1 and .[0].stage == "ladder" and .[0].rate_rps == 100 and
	 .[0].windows == 2 and .[0].cores_mean > 0.05 and .[0].peak_cpu_pct > 5' "$J"
cmp_num "json: the idle dependency's peak (% of its cores)" "$(jq '.dependencies[1].peak.cpu_pct' "$J")" "<" 5
# memory and OOM kills per rung, from the same window_deps rows
check "json: the idle testsrv's anonymous memory, per rung and over the run, = window_deps' highest" jq -e \
	--argjson m "$(q "SELECT MAX(anon_max) FROM window_deps WHERE name = 'idle'")" \
	'.dependencies[1] | .anon_max_bytes == $m and .rungs[0].anon_max_bytes == $m and $m > 0' "$J"
check "json: OOM kills counted (0) or null where the backend has none" jq -e \
	'[.dependencies[] | .oom_kills, .rungs[0].oom_kills] | all(. == 0 or . == null)' "$J"
check "md: the per-rung table has the memory and OOM columns" \
	grep -q "| throttled / exited | anon max (MiB) | OOM kills |$" "$md"

# "The implementation's own numbers unchanged": the same run with the
# burner idle (burn --cpu 0 --linger: it sleeps) on its core. The
# implementation, pinned to the other core, serves the offered rate in both
# (achieved_vs_offered passes, at least 99% of what was sent answered 2xx)
# and its CPU per request moves by less than 2x (testsrv at 100 req/s: a
# few tens of µs per request; a loaded 2-core host moves it, not by 2x).
# Its latency is not compared: on this shared host a window's p99 moves
# with whatever else runs (65 ms seen beside a parallel test lane).
sed -i 's|start: \[\(.*\), --cpu, "600", --linger\]|start: [\1, --cpu, "0", --linger]|' "$T/spec.yaml"
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder --run-id idle >"$T/out2" 2>"$T/err2"
cmp_num "burner idle: achieved_vs_offered passed in both windows" \
	"$(sqlite3 "$T/runs/idle/run.db" "SELECT COUNT(*) FROM gate_results WHERE gate = 'achieved_vs_offered' AND status = 'pass'")" == 2
imp() { sqlite3 "$1" "SELECT SUM(s2xx) || ' ' || SUM(sent) || ' ' || (1e6 * SUM(cpu_s) / SUM(completed)) FROM windows WHERE state = 'done'"; }
read -r c1 s1 u1 <<<"$(imp "$db")"
read -r c2 s2 u2 <<<"$(imp "$T/runs/idle/run.db")"
cmp_num "saturated dependency: 2xx answers of the $s1 requests sent (>= 99%)" "$c1" ">=" "$(( s1 * 99 / 100 ))"
cmp_num "idle dependency: 2xx answers of the $s2 requests sent (>= 99%)" "$c2" ">=" "$(( s2 * 99 / 100 ))"
r=$(awk -v a="$u1" -v b="$u2" 'BEGIN { if (b > 0) print a / b; else print -1 }')
cmp_num "its CPU per request saturated/idle ($u1 / $u2 µs) above 0.5" "$r" ">" 0.5
cmp_num "... and below 2" "$r" "<" 2
exit 0
