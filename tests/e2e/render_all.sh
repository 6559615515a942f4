#!/usr/bin/env bash
# timing-free: renders stored runs (no server, no load)
# Every output of a set of stored runs of different shapes, rendered and
# read as a reader would (issue 29): report (md, html, json), compare (md,
# json, html, JUnit), audit, status, knee (text and --json) and history
# (md, json, html). tests/render_check.py fails on "nan", "inf", internal
# sentinels, unrounded rates and empty table columns.
# The runs: tests/fixtures/report_run.sql (two arms, ladder and confirm,
# failed and rejected windows), compare_fixture's sets (paired reruns,
# nightly history, noise) and real runs of e2e scripts stored as SQL
# (tests/fixtures/runs/, regen.sh rewrites them): one arm with confirm,
# failed windows (walls), every window rejected, a run that failed to
# build, a rerun with its parent (sandboxed arms), a sandboxed arm, a
# dependency, a load agent, replacement windows; and a `make demo` run
# kept as it came (tests/fixtures/runs/demo: threads' knee a point between
# two rungs with no interval, its upper rung one valid window). RENDER_KEEP=DIR
# keeps the outputs.
. "$(dirname "$0")/../lib.sh"

R=$T/runs O=$T/out
mkdir -p "$R/rep/fixture" "$O"
sqlite3 "$R/rep/fixture/run.db" <"$ROOT/tests/fixtures/report_run.sql" || fail "fixture sql"
"$HELPERS/compare_fixture" "$R/cmp" >/dev/null && "$HELPERS/compare_fixture" --pr "$R/pr" >/dev/null &&
	"$HELPERS/compare_fixture" --history "$R/hist" >/dev/null || fail "compare_fixture"
n=0
for f in "$ROOT"/tests/fixtures/runs/*/*.sql.gz; do
	d=$(basename "$(dirname "$f")") run=$(basename "$f" .sql.gz)
	mkdir -p "$R/$d/$run"
	gzip -dc "$f" | sqlite3 "$R/$d/$run/run.db" && n=$((n + 1)) || fail "restore $d/$run"
done
cmp_num "stored real runs restored" "$n" ">=" 10

# one NAME CMD...: CMD's output into $O/NAME, its exit code into NAME.rc;
# a crash (a signal) is a failure of its own.
one() {
	local name=$1 rc
	shift
	"$@" >"$O/$name" 2>"$O/$name.err"
	rc=$?
	echo "$rc" >"$O/$name.rc"
	[ "$rc" -lt 128 ] || fail "$name: killed by signal $((rc - 128)): $*"
}

runs=0
for dir in "$R"/*/; do
	dir=${dir%/} tag=$(basename "$dir") prev=
	for db in "$dir"/*/run.db; do
		run=$(basename "$(dirname "$db")") t=$tag-$run
		runs=$((runs + 1))
		"$HARNESS" report "$run" --runs-dir "$dir" --format md,html,json -o "$O/rep-$t" \
			>/dev/null 2>"$O/rep-$t.err" || fail "report $t exits $?: $(head -c 300 "$O/rep-$t.err")"
		one "audit-$t.txt" "$HARNESS" audit "$run" --runs-dir "$dir"
		one "audit-$t.json" "$HARNESS" audit "$run" --runs-dir "$dir" --json
		one "status-$t.txt" "$HARNESS" status "$run" --runs-dir "$dir"
		one "status-$t.json" "$HARNESS" status "$run" --runs-dir "$dir" --json
		one "knee-$t.txt" "$HARNESS" knee "$run" --runs-dir "$dir"
		one "knee-$t.json" "$HARNESS" knee "$run" --runs-dir "$dir" --json
		parent=$(sqlite3 "$db" "SELECT parent_run FROM runs" 2>/dev/null)
		for p in "$run $run" ${prev:+"$prev $run"} ${parent:+"$parent $run"}; do
			set -- $p
			[ -f "$dir/$1/run.db" ] || continue
			for f in md json html; do
				one "compare-$tag-$1-$2.$f" "$HARNESS" compare "$1" "$2" --runs-dir "$dir" \
					--judge-unpaired --format "$f" --junit "$O/compare-$tag-$1-$2.$f.xml"
			done
		done
		prev=$run
	done
	for f in md json html; do
		one "history-$tag.$f" "$HARNESS" history --runs-dir "$dir" --kind all --format "$f"
	done
done
cmp_num "runs rendered" "$runs" ">=" 20
cmp_num "outputs written" "$(find "$O" -type f ! -name '*.rc' ! -name '*.err' | wc -l)" ">=" 300

# Labels (issue 29): only a knee above every other's is marked best (b on
# night 3: >= 400 against a's (100, 200]); none where the intervals
# overlap (the fixture); an accepted window over the SLO reads so; a run
# that measured nothing says why.
cmp_num "nightly_3: b's knee marked best, once" \
	"$(grep -o '<strong class="best">' "$O/rep-hist-nightly_3/report.html" | wc -l)" "==" 1
cmp_num "fixture: no knee marked best (overlapping intervals)" \
	"$(grep -c 'class="best"' "$O/rep-rep-fixture/report.html")" "==" 0
check "fixture: accepted windows over the SLO read 'valid, over SLO'" \
	grep -q 'valid, over SLO' "$O/rep-rep-fixture/report.html"
check "a failed build's headline says why" test "$(jq -r .headline "$O/rep-run_fail-nobuild/report.json")" = \
	"Run failed before any window was measured: fast failed to build"
check "two knees meeting at one rung: no ratio" test "$(jq -r .headline "$O/rep-run_fail-failing/report.json")" = \
	"fast holds p99 <= 20 ms to at least 200 req/s, slow to at most 200 req/s (fast >= 200 req/s, slow <= 200 req/s)"
# A point knee without an interval says what it rests on, in every output
# that names it (the demo: threads between the rungs 3375 and 5062).
D=demo-20261204T123339-vm
for f in "rep-$D/report.md" "rep-$D/report.html" "knee-$D.txt"; do
	check "demo: threads' knee reads 'interpolated ... (no interval)' in $f" grep -qE \
		'3402 req/s, interpolated between 3375 and 5062 \(no interval\)' "$O/$f"
done
# make demo's terminal summary (examples/demo_lib.sh DEMO_KNEES over
# report.json): the headline first, the knees as the report words them.
(. "$ROOT/examples/demo_lib.sh" && jq -r "$DEMO_KNEES" "$O/rep-$D/report.json") >"$T/demo.sum" 2>&1
check "demo summary: the headline first" test "$(head -n 1 "$T/demo.sum")" = "$(jq -r .headline "$O/rep-$D/report.json")"
check "demo summary: threads' knee interpolated, no interval" grep -qxF \
	'  threads: 3402 req/s, interpolated between 3375 and 5062 (no interval)  (5/11 windows accepted)' "$T/demo.sum"
# The demo's paired verdicts: none tested (0 or 1 pair a rate), one line
# saying where and what would test them, not 14 rows of "inconclusive".
check "demo: untested paired verdicts in one line" grep -qF \
	'No verdict could be tested: 14 of 14 verdicts not tested (too few pairs for a 95% interval): ladder, evloop / threads at 1000 req/s (1 pair), 1500 (0 pairs)' \
	"$O/rep-$D/report.md"
cmp_num "demo: no paired verdict rows" "$(grep -c '| HL | not tested |' "$O/rep-$D/report.md")" "==" 0
check "provenance: a ladder-only spec's stages" grep -qF \
	'| stages | ladder (asked: ladder,confirm,soak; the others are not in this spec) |' \
	"$O/rep-run_fail-failing/report.md"

if python3 "$ROOT/tests/render_check.py" "$O" >"$T/findings" 2>"$T/summary"; then
	ok "no nan, inf, sentinel, unrounded rate or empty column in any output ($(cat "$T/summary"))"
else
	fail "render_check: $(wc -l <"$T/findings") findings, the first: $(head -5 "$T/findings")"
fi
if [ -n "${RENDER_KEEP:-}" ]; then rm -rf "$RENDER_KEEP" && cp -a "$O" "$RENDER_KEEP"; fi
