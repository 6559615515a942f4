#!/bin/bash
# check-all: the example's Go and Node ledgers against a PostgreSQL and a Redis (a Go build and a PostgreSQL take most of its minute); make demo-ledger runs the same example, and deps_chain.sh, deps_headroom.sh, deps_kill.sh and deps_lifecycle.sh drive the dependency code in make test
# release-only: a Go build and a PostgreSQL take most of its minute; deps*.sh drive the dependency code under the sanitizers
# examples/ledger end to end (issue 14): the Go and Node ledgers against a
# real PostgreSQL 15 and Redis 7 that the harness starts as dependencies,
# on a reduced ladder (2 rungs, 2 s windows). The Go build (cold cache, ~30
# s on 2 busy cores) and initdb are part of it. Checks: both
# implementations produced valid windows with their runtime statistics
# (GC, pools) read; every response was what its request expects (the
# seeded invoices were served); each measured window accounted both
# dependencies; the report shows their versions and headroom; nothing is
# left running or behind (cluster, servers, Go build cache).
. "$(dirname "$0")/../lib.sh"
L=$ROOT/examples/ledger
# A missing package is a failure, not a skip (`make test` installs them).
for tool in go node redis-server /usr/lib/postgresql/15/bin/initdb jq sqlite3 setpriv; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (make deps)"
done

# The cluster's owner is unprivileged when we are root: it must reach the
# run's directory under $T (mktemp made it 0700).
chmod 755 "$T"
mkdir -m 755 "$T/tmp"

# The example's spec, reduced: its files by absolute path, 2 rungs of 2 s
# windows, short warm-ups (polled at 4 Hz, so gc_steady still sees 8 polls),
# and a generator allowed 50 ms of lag: this test checks the plumbing, not
# the measurement, and CI machines are busy.
sed -e "s|repo: \.|repo: $L|" -e "s|csv: skus.csv|csv: $L/skus.csv|" \
	-e 's|^  ladder: .*|  ladder: { start_rps: 150, step: 2, max_rps: 300, reps: 1, window_s: 2, discard_s: 1, stop: { rungs_past_knee: 1 } }|' \
	-e 's|^  rate: { fixed_rps: 300 }|  rate: { fixed_rps: 150 }|' \
	-e 's|^  min_s: 3|  min_s: 2|' -e 's|^  max_s: 8|  max_s: 5|' -e 's|^  trailing_s: 3|  trailing_s: 2|' \
	-e 's|poll_hz: 2 |poll_hz: 4 |' \
	-e 's|min: { create: 20, get: 100, list: 40, quote: 40 }|min: { create: 5, get: 20, list: 10, quote: 10 }|' \
	-e 's|generator: { lateness_p99_ms: 5.0,|generator: { lateness_p99_ms: 50.0,|' \
	-e 's|start_rate: 1000|start_rate: 100|' -e 's|duration_s: 3|duration_s: 2|' \
	-e 's|      duration_s: 2$|      duration_s: 2\n      tolerance_pct: 25|' \
	"$L/spec.yaml" >"$T/spec.yaml"

check "the example's spec is valid (harness check)" "$HARNESS" check "$L/spec.yaml"
check "the reduced spec is valid" "$HARNESS" check "$T/spec.yaml"
check "gets and lists draw Zipf-hot ids from a seeded pool (issue 13)" \
	bash -c "'$HARNESS' check '$L/spec.yaml' | grep -q '^vars: *invoice: zipf (n 20000, s 1.1); customer: zipf (n 1000, s 1.1)'"

t0=$(date +%s)
TMPDIR=$T/tmp expect_exit "run the ledger with PostgreSQL and Redis" 0 \
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder --run-id l
echo "# ledger run: $(( $(date +%s) - t0 )) s (Go build, initdb, seed, 2 rungs)"
db=$T/runs/l/run.db
q() { sqlite3 "$db" "$1" 2>/dev/null; }

for impl in go node; do
	cmp_num "$impl: valid windows (accepted or failed)" \
		"$(q "SELECT COUNT(*) FROM windows WHERE impl = '$impl' AND status IN ('accepted', 'failed')")" ">=" 1
	cmp_num "$impl: its runtime statistics were read (GC count polled)" \
		"$(q "SELECT COUNT(*) FROM rtstats r JOIN windows w ON w.id = r.window_id WHERE w.impl = '$impl' AND r.signal = 'gc_count' AND r.value IS NOT NULL")" ">=" 1
	for sig in cache_hits cache_misses; do
		cmp_num "$impl: Zipf-drawn invoices: $sig counted" \
			"$(q "SELECT MAX(r.value) FROM rtstats r JOIN windows w ON w.id = r.window_id WHERE w.impl = '$impl' AND r.signal = '$sig'")" ">" 0
	done
	cmp_num "$impl: its PostgreSQL pool was warm (pools_warm passed)" \
		"$(q "SELECT COUNT(*) FROM gate_results g JOIN windows w ON w.id = g.window_id WHERE w.impl = '$impl' AND g.gate = 'pools_warm' AND g.status = 'pass'")" ">=" 1
done
cmp_num "every response was what its request expects (seeded invoices, priced quotes)" \
	"$(q "SELECT SUM(err_unexpected) FROM windows WHERE status IS NOT NULL")" == 0
cmp_num "creates answered 201 (committed transactions)" \
	"$(q "SELECT SUM(r.completed) FROM window_requests r WHERE r.phase = 'measured' AND r.name LIKE 'create%'")" ">=" 1
measured=$(q "SELECT COUNT(*) FROM windows WHERE status IS NOT NULL")
cmp_num "PostgreSQL accounted in every measured window" \
	"$(q "SELECT COUNT(*) FROM window_deps WHERE name = 'db' AND cpu_s > 0")" == "$measured"
cmp_num "Redis accounted in every measured window" \
	"$(q "SELECT COUNT(*) FROM window_deps WHERE name = 'cache' AND cpu_s >= 0")" == "$measured"

md=$T/runs/l/report/report.md
check "report: PostgreSQL's version" grep -q '^| dependency db | postgres (PostgreSQL) 15' "$md"
check "report: Redis's version" grep -q '^| dependency cache | Redis server v=7' "$md"
check "report: the Go toolchain's version" grep -q '^| implementation go | go version go1' "$md"
check "report: headroom of the database per rung" grep -q '^| db | ladder | 150 |' "$md"
check "report: headroom of the cache per rung" grep -q '^| cache | ladder | 150 |' "$md"
check "report: the database's peak against the cores it may use, with its version" \
	grep -Eq '^\| db \| postgres \(PostgreSQL\) 15[^|]* \| [0-9]+ \| (\*\*)?[0-9.]+(\*\*)? \| [0-9.]+ \| ladder [0-9]+ req/s \|' "$md"
check "report.json: both dependencies, versions, peaks and rungs" jq -e \
	'[.dependencies[].name] == ["db", "cache"] and
	 (.dependencies[0].version | startswith("postgres (PostgreSQL) 15")) and
	 (.dependencies[1].version | startswith("Redis server v=7")) and
	 ([.dependencies[] | .peak.cpu_pct >= 0 and .ncpus >= 1 and (.rungs | length) >= 1] | all)' \
	"$T/runs/l/report/report.json"

# --- issue 28: signals, memory, receipts, the dependencies' own ceiling and
# costs, each against an independent reading.
J=$T/runs/l/report/report.json
# Redis's hit rate per rung: the implementations' own counters (the derived
# hit_rate) against Redis's own INFO keyspace_hits / misses read by the
# harness before and after each window's load (window_dep_stats), the
# same valid windows: the two count the same GETs, the implementation over
# its measured second (about 100 lookups at these rates: a proportion's
# three standard deviations are 0.14), Redis over the whole load.
for impl in go node; do
	app=$(jq "[.signals.hit_rate.impls.$impl[] | select(.stage == \"ladder\" and .mean != null) | .mean] |
		if length > 0 then add / length else null end" "$J")
	red=$(q "SELECT 1.0 * SUM(CASE WHEN s.key = 'keyspace_hits' THEN s.last - s.first END) /
		SUM(s.last - s.first) FROM window_dep_stats s JOIN windows w ON w.id = s.window_id
		WHERE s.name = 'cache' AND w.impl = '$impl' AND w.status IN ('accepted', 'failed') AND
		s.key IN ('keyspace_hits', 'keyspace_misses')")
	# a rung whose windows saw no lookup says why instead (a division by zero)
	case $app in null | "") check "$impl: no hit rate, and the report says why" jq -e \
		"[.signals.hit_rate.impls.$impl[] | .mean != null or .why != null] | all" "$J" ;;
	*) near "$impl: hit rate (app's counters) vs Redis INFO keyspace hits / misses" "$app" "$red" 0.15 \
		"about 100 lookups a measured second; Redis counts the whole load" ;;
	esac
done
check "report: the hit rate per rung" grep -q '^| hit_rate | [a-z]* | ladder | 150 | ' "$md"
# PostgreSQL's statements per implementation: every create inserts one
# invoice, so INSERT INTO invoices' calls over an implementation's windows
# (pg_stat_statements' increase, read before and after each window's load)
# are its creates: 10% of the mix of the requests the load generator saw
# answered over the same loads (discard, measured and drain seconds), within
# three binomial standard deviations.
for impl in go node; do
	calls=$(jq "[.dependencies[] | select(.name == \"db\") | .statements[] |
		select(.impl == \"$impl\" and (.statement | startswith(\"INSERT INTO invoices\"))) | .calls] | add // 0" "$J")
	answered=$(q "SELECT SUM(s.completed) FROM seconds s JOIN windows w ON w.id = s.window_id
		WHERE w.impl = '$impl' AND w.state = 'done' AND s.phase IN ('discard', 'measured', 'drain')")
	near "$impl: INSERT INTO invoices calls (pg_stat_statements) vs 10% of the answers" \
		"$calls" "$(awk -v n="$answered" 'BEGIN { print 0.1 * n }')" \
		"$(awk -v n="$answered" 'BEGIN { print 3 * sqrt(0.09 * n) + 3 }')" "the mix's 10% creates, binomial"
	cmp_num "$impl: the database's statements by time, with their cost" \
		"$(jq "[.dependencies[] | select(.name == \"db\") | .statements[] | select(.impl == \"$impl\" and .time_ms > 0)] | length" "$J")" ">=" 3
done
check "report: the database's top statements by time per implementation" \
	grep -q '^| db | go | SELECT ' "$md"
# The ceilings: pgbench's tps against pg_stat_statements' calls over the
# same rung (the demand unit: one statement a pgbench transaction), and redis-benchmark's GETs against INFO's
# commands processed (SET and GET together: a looser 40%).
cmp_num "db: a ceiling measured over several pgbench rungs" \
	"$(q "SELECT COUNT(*) FROM dep_ceiling WHERE name = 'db'")" ">=" 2
while IFS='|' read -r tput dem; do
	near "db rung: pgbench tps vs pg_stat_statements calls a second" "$dem" "$tput" "$(awk -v t="$tput" 'BEGIN { print t * 0.35 + 20 }')" \
		"pgbench's tps leaves out its connection time: up to a third of a 2 s rung on a busy host"
done < <(q "SELECT throughput, demand_rps FROM dep_ceiling WHERE name = 'db' AND kept_up = 1")
read -r ctput cdem < <(q "SELECT throughput, demand_rps FROM dep_ceiling WHERE name = 'cache'" | tr '|' ' ')
near "cache: redis-benchmark GET rate vs INFO commands processed" "$cdem" "$ctput" "$(awk -v t="$ctput" 'BEGIN { print t * 0.4 }')" \
	"INFO counts the SETs too, at their own rate"
check "report.json: each dependency's ceiling beside its peak demand" jq -e \
	'[.dependencies[] | .ceiling.ops_per_s > 0 and .ceiling.unit == "stats.demand" and
	  .ceiling.peak_demand > 0] | all and length == 2' "$J"
cmp_num "a window whose demand passed 90% of the ceiling was rejected (dependency_headroom)" \
	"$(q "SELECT COUNT(*) FROM window_deps d JOIN windows w ON w.id = d.window_id
		WHERE d.demand_rps > 0.9 * d.ceiling_rps AND w.status != 'rejected'")" == 0
check "report: the ceiling table" grep -Eq '^\| db \| [0-9.]+k? \| [0-9]+ rungs, kept up to ' "$md"
cmp_num "every window judged demand against the ceiling (window_deps)" \
	"$(q "SELECT COUNT(*) FROM window_deps WHERE demand_rps > 0 AND ceiling_rps > 0")" == "$((measured * 2))"
# Memory steady and peak: the cgroup's high-water mark is never below the
# anon p99 the sampler read from the same cgroup.
check "report.json: memory steady and peak per rung, peak >= steady" jq -e \
	'[.memory.rungs[] | select(.windows > 0) | .peak.bytes >= .steady.bytes] | all and length >= 2' "$J"
check "report: memory steady and peak side by side" grep -q '^## Memory: steady and peak' "$md"
# Receipts: the run's totals against the windows table.
cmp_num "receipts: requests due = the windows' sum" "$(jq .receipts.due "$J")" == \
	"$(q "SELECT SUM(due) FROM windows WHERE state = 'done'")"
check "report: the receipts paragraph ends the summary" grep -q '^Receipts: over [0-9]* measured windows' "$md"

# Nothing left running or behind.
ports=$(q "SELECT detail FROM events WHERE kind = 'dep_start'" | sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p')
cmp_num "two dependencies were started" "$(echo "$ports" | wc -w)" == 2
left=0
for p in $ports; do (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null && left=$((left + 1)); done
cmp_num "nothing listens on the dependencies' ports after the run" "$left" == 0
# Every process of the run worked in examples/ledger (the servers, pg.sh,
# redis-server) or under $T (postgres, in its data directory).
left=0
for d in /proc/[0-9]*; do
	c=$(readlink "$d/cwd" 2>/dev/null) || continue
	case $c in "$L" | "$L"/* | "$T"/*) left=$((left + 1)) ;; esac
done
cmp_num "no process left working in examples/ledger or the run's directory" "$left" == 0
check "the PostgreSQL cluster was removed at the stop" test ! -e "$T/runs/l/deps/db/pgdata"
check "the Go build cache was removed" test -z "$(ls -A "$T/tmp")"
exit 0
