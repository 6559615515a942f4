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

# An independent reading of the two servers' memory: /proc/PID/status
# every 50 ms (tests/helpers/procmem.py), for the footprint and memory
# checks below.
bg python3 "$ROOT/tests/helpers/procmem.py" "$T/procmem" "$T/procmem.stop" \
	"go=go/ledger-go --port" "node=node/server.js --port"
# ... and of Redis's own counters: INFO all every 10 ms over the test's
# own connection (tests/helpers/redisinfo.py), for its hit rate below.
bg python3 "$ROOT/tests/helpers/redisinfo.py" "$T/redisinfo" "$T/procmem.stop" "$L"
# ... and of PostgreSQL's pg_stat_statements: a query every 10 ms through
# the test's own psql (tests/helpers/pgstatements.py), for its statements
# per implementation and its demand.
bg python3 "$ROOT/tests/helpers/pgstatements.py" "$T/pgstatements" "$T/procmem.stop" "$T/runs"
t0=$(date +%s)
TMPDIR=$T/tmp expect_exit "run the ledger with PostgreSQL and Redis" 0 \
	"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$T/runs" --stages ladder --run-id l
echo "# ledger run: $(( $(date +%s) - t0 )) s (Go build, initdb, seed, 2 rungs)"
touch "$T/procmem.stop"
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
# Redis's hit rate per rung. The report's figure is the implementation's
# own counters (the derived hit_rate over each window's measured polls);
# Redis's INFO keyspace_hits / misses, read by the harness before and after
# each window's whole load (window_dep_stats), count the same GETs over a
# span that contains the measured one. So, per rung: the report's mean is
# the mean of the windows' hits / (hits + misses) from the stored polls;
# Redis saw at least the hits and at least the misses the implementation
# counted (a subset: exact, no tolerance), and the implementation's
# measured part holds at least a quarter of Redis's lookups (1 s of a 2 s
# load and its drain; a dead counter would not). A rate between two spans
# is not compared: with a handful of misses a window (first-time Zipf ids
# come in bursts) the two differ by more than a binomial bound says.
for impl in go node; do
	jq -r ".signals.hit_rate.impls.$impl[] | select(.stage == \"ladder\" and .mean != null) | \"\\(.rate_rps) \\(.mean)\"" "$J" >"$T/hr.$impl"
	cmp_num "$impl: a hit rate for both rungs" "$(wc -l <"$T/hr.$impl")" == 2
	while read -r rate app; do
		valid="w.impl = '$impl' AND w.rate = $rate AND w.status IN ('accepted', 'failed')"
		read -r ah am own < <(q "SELECT SUM(h), SUM(m), AVG(1.0 * h / (h + m)) FROM (SELECT
			MAX(CASE WHEN r.signal = 'cache_hits' THEN r.value END) - MIN(CASE WHEN r.signal = 'cache_hits' THEN r.value END) AS h,
			MAX(CASE WHEN r.signal = 'cache_misses' THEN r.value END) - MIN(CASE WHEN r.signal = 'cache_misses' THEN r.value END) AS m
			FROM rtstats r JOIN windows w ON w.id = r.window_id WHERE $valid AND r.phase = 'measured'
			GROUP BY r.window_id)" | tr '|' ' ')
		read -r rh rm < <(q "SELECT SUM(CASE WHEN s.key = 'keyspace_hits' THEN s.last - s.first END),
			SUM(CASE WHEN s.key = 'keyspace_misses' THEN s.last - s.first END)
			FROM window_dep_stats s JOIN windows w ON w.id = s.window_id WHERE s.name = 'cache' AND $valid" | tr '|' ' ')
		near "$impl at $rate req/s: the report's hit rate is its windows' hits / lookups" "$app" "$own" 0.000001 "the same polls"
		check "$impl at $rate req/s: Redis INFO saw the hits and the misses the app counted ($ah <= $rh, $am <= $rm)" \
			awk -v ah="$ah" -v am="$am" -v rh="$rh" -v rm="$rm" 'BEGIN { exit !(ah != "" && rh != "" && ah + 0 <= rh + 0 && am + 0 <= rm + 0) }'
		cmp_num "$impl at $rate req/s: the app's measured lookups, a part of Redis's" "$(awk -v a="$ah" -v b="$am" 'BEGIN { print a + b }')" ">=" \
			"$(awk -v a="$rh" -v b="$rm" 'BEGIN { print 0.25 * (a + b) }')"
		echo "# $impl at $rate req/s: hit rate $app (app, measured), $(awk -v h="$rh" -v m="$rm" 'BEGIN { printf "%.3f", h / (h + m) }') (Redis INFO, whole load)"
	done <"$T/hr.$impl"
done
check "report: the hit rate per rung" grep -q '^| hit_rate | [a-z]* | ladder | 150 | ' "$md"
# Redis's own hit rate per rung (cache.hit_rate: dependencies[].stats.signals
# over INFO's keyspace_hits and keyspace_misses, read by the harness before
# and after each window's load) against the test's own INFO every 10 ms
# (redisinfo.py). Each of the harness's INFO calls shows in Redis's
# count of INFO commands as a step of two between two of the test's
# readings, which bracket it: its counters lie between theirs (checked
# against window_dep_stats, exactly), so each window's hits and misses lie
# between the brackets' differences, and its hit rate between the lowest
# and highest those allow; the report's mean per rung lies between the
# means of those bounds (no tolerance beyond the 10 ms brackets).
q "SELECT w.id, w.impl, w.rate, w.started_at, w.ended_at,
	MAX(CASE WHEN s.key = 'keyspace_hits' THEN s.first END), MAX(CASE WHEN s.key = 'keyspace_hits' THEN s.last END),
	MAX(CASE WHEN s.key = 'keyspace_misses' THEN s.first END), MAX(CASE WHEN s.key = 'keyspace_misses' THEN s.last END)
	FROM windows w JOIN window_dep_stats s ON s.window_id = w.id AND s.name = 'cache'
	WHERE w.stage = 'ladder' AND w.status IN ('accepted', 'failed') GROUP BY w.id" >"$T/cachewin"
python3 - "$T/redisinfo" "$T/cachewin" >"$T/cachebounds" <<'EOF'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 5]
# brackets: (row before, row after) around another client's INFO
br = [(rows[i], rows[i + 1]) for i in range(len(rows) - 1) if rows[i + 1][4] - rows[i][4] >= 2]
rungs = {}
inside = 0
for l in open(sys.argv[2]):
    wid, impl, rate, t_s, t_e, h0, h1, m0, m1 = l.strip().split("|")
    t_s = float(t_s)
    # its first reading: the last INFO before its measured part (the load
    # starts discard_s before it); its second: the next INFO after that
    # (ended_at is stored after the second reading, so no bound)
    k = [j for j, x in enumerate(br) if x[1][1] < t_s]
    if not k or k[-1] + 1 >= len(br) or br[k[-1] + 1][0][0] < t_s:
        print("nobracket", impl, rate)
        continue
    a, b = br[k[-1]], br[k[-1] + 1]
    # the harness's readings lie within the brackets (exact)
    inside += (a[0][2] <= float(h0) <= a[1][2] and a[0][3] <= float(m0) <= a[1][3] and
               b[0][2] <= float(h1) <= b[1][2] and b[0][3] <= float(m1) <= b[1][3])
    dh = (b[0][2] - a[1][2], b[1][2] - a[0][2])
    dm = (b[0][3] - a[1][3], b[1][3] - a[0][3])
    lo = dh[0] / (dh[0] + dm[1]) if dh[0] + dm[1] > 0 else 0.0
    hi = dh[1] / (dh[1] + dm[0]) if dh[1] + dm[0] > 0 else 1.0
    g = rungs.setdefault((impl, rate), [0, 0.0, 0.0])
    g[0] += 1; g[1] += lo; g[2] += hi
print("inside", inside)
for (impl, rate), (n, lo, hi) in sorted(rungs.items()):
    print("rung", impl, rate, n, "%.12f" % (lo / n), "%.12f" % (hi / n))
EOF
sed -n 's/^nobracket /# no bracket for a reading of the window at: /p' "$T/cachebounds"
nwin=$(wc -l <"$T/cachewin")
cmp_num "cache: each valid window's INFO readings (harness) bracketed by the test's own INFO" \
	"$(awk '$1 == "inside" { print $2 }' "$T/cachebounds")" == "$nwin"
cmp_num "cache: rungs with Redis's hit rate bounded by the test's readings" "$(grep -c '^rung ' "$T/cachebounds")" == 4
while read -r _ impl rate n lo hi; do
	rr=$(jq -r ".signals[\"cache.hit_rate\"].impls.$impl[] | select(.stage == \"ladder\" and .rate_rps == $rate) | \"\\(.mean) \\(.computed)\"" "$J")
	cmp_num "$impl at $rate req/s: cache.hit_rate rests on its $n valid windows" "${rr#* }" == "$n"
	check "$impl at $rate req/s: Redis's hit rate in the report (${rr% *}) within the test's INFO's [$lo, $hi]" \
		awk -v v="${rr% *}" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v != "null" && v + 0 >= lo - 1e-9 && v + 0 <= hi + 1e-9) }'
done < <(grep '^rung ' "$T/cachebounds")
check "report: Redis's own hit rate per implementation per rung (md)" \
	grep -Eq '^\| cache\.hit_rate \| go \| ladder \| 150 \| [01]\.[0-9]+ \|' "$md"
check "report: ... and in html" grep -q '<td>cache.hit_rate</td>' "$T/runs/l/report/report.html"
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
# ... and against the test's own pg_stat_statements reading (every 10 ms,
# pgstatements.py): each harness reading (pgstats.sql's
# xact_commit query, one call a reading) falls between two of the test's,
# which bracket its counters; per implementation, the report's INSERT INTO
# invoices calls and time (the sum of its windows' increases) lie between
# the sums of the brackets' bounds.
# Its demand too (the statements counter's rate between the harness's two
# readings, window_deps.demand_rps, whose highest is the report's peak
# beside the ceiling): the counter's two readings lie in their brackets
# (exact), and each reading's psql run is stored (window_deps
# stats_first_start .. stats_last_end, schema 18): the demand is the
# counter's increase over the span between the two runs' middles, so it
# lies between the brackets' least and greatest increase over that span
# (no tolerance: the brackets' 10 ms and the harness's own statements
# between them); each stored run overlaps the test's bracket of its
# reading (the snapshot lies in both: wall times, not a unit or a clock
# off).
q "SELECT w.id, w.impl, w.started_at, SUM(CASE WHEN s.key LIKE 'calls:%' THEN s.first END),
	SUM(CASE WHEN s.key LIKE 'calls:%' THEN s.last END), SUM(CASE WHEN s.key LIKE 'time:%' THEN s.first END),
	SUM(CASE WHEN s.key LIKE 'time:%' THEN s.last END),
	SUM(CASE WHEN s.key = 'statements' THEN s.first END), SUM(CASE WHEN s.key = 'statements' THEN s.last END),
	(SELECT printf('%.17g|%.17g|%.17g|%.17g|%.17g', d.demand_rps, d.stats_first_start, d.stats_first_end,
		d.stats_last_start, d.stats_last_end) FROM window_deps d WHERE d.window_id = w.id AND d.name = 'db')
	FROM windows w JOIN window_dep_stats s ON s.window_id = w.id AND s.name = 'db'
	WHERE w.state = 'done' AND (s.key LIKE 'calls:INSERT INTO invoices%' OR s.key LIKE 'time:INSERT INTO invoices%'
		OR s.key = 'statements')
	GROUP BY w.id" >"$T/dbwin"
python3 - "$T/pgstatements" "$T/dbwin" >"$T/dbbounds" <<'EOF'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 6]
demand_ok, overlap, width, best, peak = 0, 0, 0.0, -1.0, None
br = [(rows[i], rows[i + 1]) for i in range(len(rows) - 1) if rows[i + 1][4] > rows[i][4]]
impls = {}
inside = 0
for l in open(sys.argv[2]):
    wid, impl, t_s, c0, c1, m0, m1, s0, s1, dem, fs, fe, ls, le = l.strip().split("|")
    t_s = float(t_s)
    k = [j for j, x in enumerate(br) if x[1][1] < t_s]
    if not k or k[-1] + 1 >= len(br) or br[k[-1] + 1][0][0] < t_s:
        print("nobracket", impl, wid)
        continue
    a, b = br[k[-1]], br[k[-1] + 1]
    inside += (a[0][2] <= float(c0) <= a[1][2] and b[0][2] <= float(c1) <= b[1][2] and
               a[0][3] - 0.001 <= float(m0) <= a[1][3] + 0.001 and b[0][3] - 0.001 <= float(m1) <= b[1][3] + 0.001)
    fs, fe, ls, le = float(fs), float(fe), float(ls), float(le)
    # the snapshot lies in the harness's psql run and in the test's bracket
    overlap += fs <= a[1][1] and a[0][0] <= fe and ls <= b[1][1] and b[0][0] <= le
    span = (ls + le) / 2 - (fs + fe) / 2
    n_lo, n_hi = b[0][5] - a[1][5], b[1][5] - a[0][5]
    # the demand over the stored span (sqlite3 prints 16 digits: a unix
    # time to the microsecond, 1e-6 relative covers it) is the counter's
    # increase, which lies between the brackets'; and, each snapshot
    # within its command's run, the rate over the true interval between
    # the snapshots lies in [n_lo / (le - fs), n_hi / (ls - fe)]: the
    # bound on the midpoint's error, checked too
    lo, hi = n_lo / span, n_hi / span
    tlo, thi = n_lo / (le - fs), n_hi / (ls - fe)
    d = float(dem) if dem != "" else float("nan")
    demand_ok += (lo * (1 - 1e-6) <= d <= hi * (1 + 1e-6) and tlo <= d <= thi and
                  a[0][5] <= float(s0) <= a[1][5] and b[0][5] <= float(s1) <= b[1][5] and
                  abs(d - (float(s1) - float(s0)) / span) <= 1e-6 * d)
    # the true rate, each snapshot in its run and its bracket (for the log)
    g0, g1 = max(fs, a[0][0]), min(fe, a[1][1])
    h0, h1 = max(ls, b[0][0]), min(le, b[1][1])
    true_lo, true_hi = n_lo / (h1 - g0), n_hi / (h0 - g1)
    if d > best:
        best, peak = d, (lo, hi, tlo, thi, true_lo, true_hi, fe - fs, le - ls)
    width = max(width, (thi - tlo) / thi if thi > 0 else 0)
    g = impls.setdefault(impl, [0.0] * 4)
    g[0] += b[0][2] - a[1][2]; g[1] += b[1][2] - a[0][2]
    g[2] += b[0][3] - a[1][3]; g[3] += b[1][3] - a[0][3]
print("inside", inside)
print("demand", demand_ok, overlap, "%.4f" % width, " ".join("%.9f" % x for x in peak) if peak else "none")
for impl, g in sorted(impls.items()):
    print("impl", impl, " ".join("%.3f" % x for x in g))
EOF
sed -n 's/^nobracket /# no bracket for a reading of the window: /p' "$T/dbbounds"
cmp_num "db: each done window's pg_stat_statements readings (harness) bracketed by the test's own" \
	"$(awk '$1 == "inside" { print $2 }' "$T/dbbounds")" == "$(wc -l <"$T/dbwin")"
cmp_num "db: both implementations bounded" "$(grep -c '^impl ' "$T/dbbounds")" == 2
read -r _ dok dover dwidth plo phi ptlo pthi ptrlo ptrhi prun0 prun1 < <(grep '^demand ' "$T/dbbounds")
cmp_num "db: each done window's stored psql runs overlap the test's brackets of its readings" \
	"$dover" == "$(wc -l <"$T/dbwin")"
cmp_num "db: each done window's demand (statements/s) = its increase over its stored span, within the test's pg_stat_statements bounds" \
	"$dok" == "$(wc -l <"$T/dbwin")"
pk=$(jq '.dependencies[] | select(.name == "db") | .ceiling.peak_demand' "$J")
check "db: the report's peak demand ($pk/s) = the test's counters over the stored span [$plo, $phi] (1e-6)" \
	awk -v v="$pk" -v lo="$plo" -v hi="$phi" 'BEGIN { exit !(v + 0 >= lo * (1 - 1e-6) && v + 0 <= hi * (1 + 1e-6)) }'
check "db: ... and within the snapshots' runs' bound [$ptlo, $pthi]" \
	awk -v v="$pk" -v lo="$ptlo" -v hi="$pthi" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'
echo "# db peak demand $pk/s: the true rate (snapshots in the runs and the test's brackets) in [$ptrlo, $ptrhi]; psql runs $prun0 s, $prun1 s; widest window's bound $dwidth of its top"
while read -r _ impl clo chi mlo mhi; do
	read -r calls ms < <(jq -r "[.dependencies[] | select(.name == \"db\") | .statements[] |
		select(.impl == \"$impl\" and (.statement | startswith(\"INSERT INTO invoices\")))] |
		\"\\(map(.calls) | add) \\(map(.time_ms) | add)\"" "$J")
	check "$impl: INSERT INTO invoices calls in the report ($calls) within the test's pg_stat_statements [$clo, $chi]" \
		awk -v v="$calls" -v lo="$clo" -v hi="$chi" 'BEGIN { exit !(v + 0 >= lo - 1e-9 && v + 0 <= hi + 1e-9) }'
	check "$impl: ... and their time, ms ($ms) within [$mlo, $mhi]" \
		awk -v v="$ms" -v lo="$mlo" -v hi="$mhi" 'BEGIN { exit !(v + 0 >= lo - 0.01 && v + 0 <= hi + 0.01) }'
done < <(grep '^impl ' "$T/dbbounds")
# The ceilings: pgbench's tps against pg_stat_statements' calls over the
# same rung (the demand unit: one statement a pgbench transaction), and
# redis-benchmark's GETs a second against INFO's commands processed a second.
cmp_num "db: a ceiling measured over several pgbench rungs" \
	"$(q "SELECT COUNT(*) FROM dep_ceiling WHERE name = 'db'")" ">=" 2
while IFS='|' read -r tput dem; do
	near "db rung: pgbench tps vs pg_stat_statements calls a second" "$dem" "$tput" "$(awk -v t="$tput" 'BEGIN { print t * 0.35 + 20 }')" \
		"pgbench's tps leaves out its connection time: up to a third of a 2 s rung on a busy host"
done < <(q "SELECT throughput, demand_rps FROM dep_ceiling WHERE name = 'db' AND kept_up = 1")
read -r ctput cdem < <(q "SELECT throughput, demand_rps FROM dep_ceiling WHERE name = 'cache'" | tr '|' ' ')
near "cache: redis-benchmark GET rate vs INFO commands processed a second" "$cdem" "$ctput" "$(awk -v t="$ctput" 'BEGIN { print t * 0.2 }')" \
	"the same GETs; INFO's rate is over the command's whole run, its start-up (tens of ms on a busy host) in it"
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

# The footprint (issue 28 item 3): one row per start, labelled apart; its
# RSS once healthy against /proc's VmRSS read by procmem.py within 0.2 s of
# it (an idle server: a few pages move, 10% + 2 MB), its artifact against
# stat. Memory: each rung's steady state (the cgroup's anon p99 over the
# windows) against the largest RssAnon /proc showed during that
# implementation's windows (one process in its cgroup: the same pages,
# sampled at 20 Hz against the cgroup's 50 ms sampler: 20%), and the
# high-water mark never below that RssAnon (the cgroup's peak counts anon,
# page cache and kernel memory).
check "report.json: the sections other tools read (issue 28)" jq -e \
	'(.signals | type == "object") and (.memory.rungs | length > 0) and (.footprint | length == 2) and
	 (.receipts.due > 0) and ([.dependencies[] | has("ceiling") and has("statements")] | all)' "$J"
check "report: the footprint table" grep -q '^## Footprint (measured at start, not the cost under load)$' "$md"
gob=$(stat -c %s "$L/go/ledger-go"); nodeb=$(find "$L/node" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
check "footprint: artifact bytes are stat's (go $gob, node $nodeb)" jq -e --argjson g "$gob" --argjson n "$nodeb" \
	'[.footprint[] | {(.impl): .artifact_bytes}] | add == {"go": $g, "node": $n}' "$J"
for impl in go node; do
	while IFS='|' read -r at rss; do
		prss=$(awk -v at="$at" -v im="$impl" '$2 == im { d = $1 - at; if (d < 0) d = -d;
			if (d <= 0.2 && (best == "" || d < bd)) { bd = d; best = $4 } } END { print best }' "$T/procmem")
		near "$impl: footprint RSS idle after start vs /proc VmRSS at that moment (kB)" "$rss" "$prss" \
			"$(awk -v p="$prss" 'BEGIN { print 0.1 * p + 2048 }')" "an idle server; procmem.py polls every 50 ms"
	done < <(q "SELECT printf('%.3f', at), rss_kb FROM footprint WHERE impl = '$impl'")
	cmp_num "$impl: one footprint a start" "$(q "SELECT COUNT(*) FROM footprint WHERE impl = '$impl'")" == \
		"$(q "SELECT COUNT(*) FROM events WHERE kind = 'sut_start' AND detail LIKE '$impl %'")"
	q "SELECT w.stage, w.rate, w.started_at, w.ended_at FROM windows w WHERE w.impl = '$impl' AND w.status = 'accepted'" >"$T/win.$impl"
	panon=$(awk -v im="$impl" -v wf="$T/win.$impl" 'FILENAME == wf { split($0, w, "|"); s[NR] = w[3]; e[NR] = w[4]; n = NR; next }
		$2 == im { for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 <= e[i] && $5 > m) m = $5 } END { print m * 1024 }' \
		"$T/win.$impl" "$T/procmem")
	steady=$(jq "[.memory.rungs[] | select(.impl == \"$impl\" and .steady.bytes != null) | .steady.bytes] | max" "$J")
	peak=$(jq "[.memory.rungs[] | select(.impl == \"$impl\" and .peak.bytes != null) | .peak.bytes] | max" "$J")
	near "$impl: memory steady (cgroup anon p99) vs /proc RssAnon in its accepted windows (bytes)" \
		"$steady" "$panon" "$(awk -v p="$panon" 'BEGIN { print 0.2 * p }')" "one process, two samplers"
	cmp_num "$impl: memory peak (cgroup high-water) >= /proc RssAnon in its accepted windows" "$peak" ">=" "$panon"
done

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
