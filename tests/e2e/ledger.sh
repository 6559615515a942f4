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
