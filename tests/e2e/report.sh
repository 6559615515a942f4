#!/usr/bin/env bash
# timing-free: a stored fixture run's report files and their numbers, rendered by Chromium (no server, no load)
# harness report on the stored fixture run (tests/fixtures/report_run.sql:
# two implementations, 40 windows, 2 failed, 2 rejected; see report_fixture.h), so the
# report renders in CI without running load. Checks the four files, their
# numbers against the fixture's construction, the exploratory stamp in
# every format, and report.html in headless Chromium (one <svg> per chart,
# no script error, a PNG screenshot).
. "$(dirname "$0")/../lib.sh"

RUNS=$T/runs
mkdir -p "$RUNS/fixture"
sqlite3 "$RUNS/fixture/run.db" < "$ROOT/tests/fixtures/report_run.sql" || fail "load fixture sql"

# The committed fixture must say what its generator says today: the report
# of a freshly generated database equals the report of the committed one.
# (A schema migration does not break this: store_open migrates both.)
gen=$(dirname "$HARNESS")/../tests/test_report
if [ -x "$gen" ]; then
	"$gen" --write-fixture "$T/fresh" >/dev/null 2>&1
	"$HARNESS" report fixture --runs-dir "$T/fresh" --format json -o "$T/fresh/r" >/dev/null 2>&1
	"$HARNESS" report fixture --runs-dir "$RUNS" --format json -o "$T/committed" >/dev/null 2>&1
	if [ -s "$T/fresh/r/report.json" ] &&
	   cmp -s <(jq -S . "$T/fresh/r/report.json") <(jq -S . "$T/committed/report.json"); then
		ok "committed fixture reports exactly as report_fixture.h generates it"
	else
		fail "tests/fixtures/report_run.sql is stale: run tests/fixtures/report_regen.sh $gen"
	fi
else
	echo "# $gen not built: fixture freshness not checked" >&2
fi

# --- the command ---------------------------------------------------------
out=$("$HARNESS" report fixture --runs-dir "$RUNS" 2>"$T/err"); rc=$?
cmp_num "report exits 0" "$rc" "==" 0
if [ "$out" = "$RUNS/fixture/report" ]; then ok "prints the report directory"; else
	fail "prints the report directory: got '$out' ($(head -c 300 "$T/err"))"; fi
R=$RUNS/fixture/report
for f in report.md report.html report.json windows.csv study.csv; do
	check "writes $f" test -s "$R/$f"
done
expect_exit "unknown run: exit 2" 2 "$HARNESS" report no-such-run --runs-dir "$RUNS"
if grep -q "no-such-run" "$T/err"; then ok "unknown run: message names it"; else fail "unknown run: message names it: $(cat "$T/err")"; fi
expect_exit "bad --format: exit 2" 2 "$HARNESS" report fixture --runs-dir "$RUNS" --format pdf
expect_exit "--help: exit 0" 0 "$HARNESS" report --help
if [ "$("$HARNESS" report fixture --runs-dir "$RUNS" --format md --json -o "$T/j" 2>/dev/null |
      jq -c '[.report_dir, .files, .windows.accepted, .windows.total, .exploratory]')" = \
   "[\"$T/j\",[\"report.md\"],36,40,false]" ]; then ok "--json: directory, files, counts"
else fail "--json: directory, files, counts"; fi
out=$("$HARNESS" report "$RUNS/fixture" --format json,csv -o "$T/only" 2>/dev/null)
if [ "$out" = "$T/only" ] && [ -s "$T/only/report.json" ] && [ -s "$T/only/windows.csv" ] &&
   [ ! -e "$T/only/report.md" ] && [ ! -e "$T/only/report.html" ]; then
	ok "RUN as a path, --format json,csv, -o DIR"
else fail "RUN as a path, --format json,csv, -o DIR: '$out' $(ls "$T/only" 2>&1)"; fi

# --- numbers (fixture: report_fixture.h) ----------------------------------
J=$R/report.json
# The headline (docs/DESIGN.md "Headline"): evloop's interval [1000, 2542]
# reaches below threads' high end (1424), so the two are not told apart;
# the higher estimate first. The same line in md (after the title), html
# and json.
hl="evloop and threads hold p99 <= 20 ms up to rates this run does not tell apart (evloop 2535 [1000, 2542] req/s, threads 1213 [1142, 1424] req/s)"
check "json: the headline" test "$(jq -r .headline "$J")" = "$hl"
check "md: the headline after the title" test "$(sed -n 3p "$R/report.md")" = "**$hl**"
check "html: the headline after the title" grep -qF "<p class=\"headline\">${hl/<=/\&lt;=}</p>" "$R/report.html"
kev=$(jq '.impls[] | select(.name=="evloop") | .knee.knee_rps' "$J")
cmp_num "json: 2 implementations" "$(jq '.impls | length' "$J")" "==" 2
cmp_num "json: 36 of 40 windows accepted" "$(jq '.windows_count.accepted' "$J")" "==" 36
check "json: run_quality object first after the stamp, counts by status" \
	jq -e '(keys_unsorted | index("run_quality")) < (keys_unsorted | index("run")) and
	       .run_quality.windows == 40 and .run_quality.accepted == 36 and
	       .run_quality.failed == ([.windows[] | select(.status == "failed")] | length) and
	       .run_quality.rejected == ([.windows[] | select(.status == "rejected")] | length) and
	       .run_quality.failed + .run_quality.rejected == 4 and
	       (.run_quality.line | startswith("40 windows: 36 accepted, "))' "$J"
for f in report.md report.html; do
	q=$(grep -n "Run quality: 40 windows: 36 accepted, " "$R/$f" | head -1 | cut -d: -f1)
	p=$(grep -n "^## Provenance\|>Provenance</h2>" "$R/$f" | head -1 | cut -d: -f1)
	if [ -n "$q" ] && [ -n "$p" ] && [ "$q" -lt "$p" ]; then ok "$f: run quality (line $q) before provenance (line $p)"
	else fail "$f: run quality (line '$q') before provenance (line '$p')"; fi
done
# CPU per request is set exactly: evloop 0.05 ms at 500 req/s; threads 0.08.
near "json: evloop CPU ms/req at ladder 500" \
	"$(jq '.rungs[] | select(.impl=="evloop" and .stage=="ladder" and .rate_rps==500) | .cpu_ms_per_req' "$J")" \
	0.05 1e-9 "cpu_s = completed * 0.05 ms by construction"
# ... read in microseconds, as compare, load and history print it: the
# json's cpu_us_per_request beside cpu_ms_per_req, the md's rungs row.
near "json: evloop CPU us/request at ladder 500" \
	"$(jq '.rungs[] | select(.impl=="evloop" and .stage=="ladder" and .rate_rps==500) | .cpu_us_per_request' "$J")" \
	50 1e-6 "0.05 ms = 50 us"
check "md: CPU µs/request columns, no ms per request left" \
	bash -c 'grep -q "| CPU µs/request | anon p99 (MiB) |" "$1" && ! grep -q "ms/req" "$1"' _ "$R/report.md"
if grep "^| evloop | ladder | 500 |" "$R/report.md" | grep -q "| 50.0 |"; then ok "md: evloop ladder 500 rung row reads 50.0 (µs)"
else fail "md: evloop ladder 500 rung row: $(grep "^| evloop | ladder | 500 |" "$R/report.md")"; fi
near "json: CPU ratio threads/evloop at ladder 500" \
	"$(jq '.ratios[] | select(.stage=="ladder" and .rate_rps==500) | .cpu_ms_per_req' "$J")" \
	1.6 1e-9 "0.08 / 0.05 by construction"
# The knees: evloop's target p99 crosses 20 ms at 3000, threads' at 1500;
# linear interpolation between the bracketing rungs puts them within the
# brackets (2000..4000, 1000..2000).
kth=$(jq '.impls[] | select(.name=="threads") | .knee.knee_rps' "$J")
cmp_num "evloop knee above 2000" "$kev" ">" 2000
cmp_num "evloop knee below 4000" "$kev" "<" 4000
cmp_num "threads knee above 1000" "$kth" ">" 1000
cmp_num "threads knee below 2000" "$kth" "<" 2000
# 2 ladder reps < confirm.reps 4, but the confirm windows at the bracketing
# rungs count (harness/model/knee.h): 5 valid windows at 2000 and at 4000.
if [ "$(jq '.impls[0].knee.inferential' "$J")" = true ]; then ok "knee interval inferential (ladder + confirm windows >= confirm.reps 4)"
else fail "knee interval inferential with the confirm windows"; fi
cmp_num "promise table: 6 confirm rows" "$(jq '.promise | length' "$J")" "==" 6
# 3 pairs cannot reach 95 % by the signed-rank test (the default method):
# inconclusive, and the MDE says no shift is detectable with that n.
if [ "$(jq -r '.verdicts[] | select(.stage=="confirm" and .rate_rps==2000 and .metric=="p99_ms") | "\(.pairs)/\(.blocks) \(.verdict) \(.method) \(.correction) \(.mde)"' "$J")" = "3/4 inconclusive hodges_lehmann holm null" ]; then
	ok "paired verdict at confirm 2000: 3 pairs of 4 blocks, n, method, correction and MDE"
else fail "paired verdict at confirm 2000: $(jq -c '.verdicts[] | select(.stage=="confirm" and .rate_rps==2000)' "$J")"; fi
# ... and the markdown says the same beside the verdict: n (pairs/blocks),
# method, p (adjusted), MDE; the correction and its family above the table.
# (issue 29: untested verdicts are one line, not rows of "inconclusive")
check "md: the untested verdicts in one line, with their pairs and what would test them" grep -qE \
	'verdicts not tested \(too few pairs for a 95% interval\): .*confirm, evloop / threads at .*2000 \(3 pairs\).*needs at least 6 at a rate' "$R/report.md"
check "md: no table row of an untested verdict" test "$(grep -c '| not tested |' "$R/report.md")" = 0
# the correction above a table of tested verdicts; none tested: the line alone
if grep -q '^| stage | rate (req/s) | A | B | metric' "$R/report.md"; then
	check "md: the correction named, with the count of verdicts tested" grep -q '^Correction: Holm over [0-9]* verdicts tested\.$' "$R/report.md"
else
	check "md: no verdict tested, said in one line" grep -q '^No verdict could be tested: ' "$R/report.md"
fi
# The md shows the same numbers as the json.
p99=$(jq -r '.rungs[] | select(.impl=="threads" and .stage=="confirm" and .rate_rps==2000) | .p99_ms.value' "$J")
if grep -q "| threads | confirm | 2000 | 4/4 | - |" "$R/report.md"; then ok "md: rung row with counts"; else fail "md: rung row with counts"; fi
cmp_num "json: threads confirm 2000 merged p99 > SLO" "$p99" ">" 20

# --- the order: summary, charts, tables, provenance --------------------------
order() { # FILE PATTERN...: the first line of each pattern, strictly increasing
	local f=$1 prev=0 n p; shift
	for p in "$@"; do
		n=$(grep -n -m1 -- "$p" "$f" | cut -d: -f1)
		[ -n "$n" ] && [ "$n" -gt "$prev" ] || return 1
		prev=$n
	done
}
check "md: summary, then charts, then tables, then provenance" order "$R/report.md" \
	"^## Summary" "^| implementation | knee | interval | CPU µs/request at" "^Run quality:" \
	"^## Charts" "^## Knees" "^## Rungs" "^## Failed and rejected windows" "^## Provenance"
check "html: summary, then charts, then tables, then provenance" order "$R/report.html" \
	'<nav class="toc">' '<h2 id="s-[0-9]*">Summary</h2>' '<table id="t-summary">' \
	'<h2 id="s-[0-9]*">Charts</h2>' 'data-chart="latency_vs_rate"' 'data-chart="rejections"' \
	'<h2 id="s-[0-9]*">Knees' '<table id="t-rungs">' '<h2 id="s-[0-9]*">Provenance</h2>'

# --- failed and rejected windows are drawn apart -----------------------------
# latency_vs_rate: every failed window is drawn (on the top edge when its
# percentile is off the chart); rejected ones within the axes. per_second
# (one cell per window): one cell per finished window, by status.
H=$R/report.html
svg() { awk -v id="data-chart=\"$1\"" 'index($0, id) { on = 1 } on { print } on && /<\/svg>/ { exit }' "$H"; }
nf=$(jq '[.windows[] | select(.status == "failed")] | length' "$J")
nr=$(jq '[.windows[] | select(.status == "rejected")] | length' "$J")
cmp_num "fixture: failed windows (outcome gates)" "$nf" ">=" 1
cmp_num "fixture: rejected windows (validity gates)" "$nr" ">=" 1
cmp_num "latency chart: one red cross per failed window" "$(svg latency_vs_rate | grep -c 'class="win" data-status="failed"')" "==" "$nf"
cmp_num "latency chart: grey rings for rejected windows" "$(svg latency_vs_rate | grep -c 'class="win" data-status="rejected"')" ">=" 1
check "latency chart: failed crosses are red, rejected rings hollow" \
	bash -c "svg0=\$(awk 'index(\$0, \"data-chart=\\\"latency_vs_rate\") { on = 1 } on { print } on && /<\\/svg>/ { exit }' '$H')
		grep 'data-status=\"failed\" d=' <<<\"\$svg0\" | grep -q 'fill=\"#d62728\"' &&
		grep 'data-status=\"rejected\" cx=' <<<\"\$svg0\" | grep -q 'fill=\"none\"'"
check "latency chart: the legend names all three" bash -c "grep -q 'failed (over SLO)' '$H' && grep -q 'rejected (void)' '$H'"
cmp_num "per-second chart: failed cells" "$(svg per_second | grep -c 'class="cell" data-status="failed"')" "==" "$nf"
cmp_num "per-second chart: rejected cells" "$(svg per_second | grep -c 'class="cell" data-status="rejected"')" "==" "$nr"
cmp_num "per-gate chart: failed bars apart from rejected" "$(svg rejections | grep -c 'data-status="failed"')" ">=" 1
cmp_num "csv: failed rows say so" "$(grep -c ',failed,' "$R/windows.csv")" "==" "$nf"
# both fixture implementations cross: a knee line each, no floor arrow
cmp_num "knees that crossed are drawn as lines" "$(svg latency_vs_rate | grep -c 'data-knee="point"')" "==" 2
cmp_num "and not as arrows" "$(svg latency_vs_rate | grep -c 'data-knee="floor"')" "==" 0

# A floor is an arrow, not a knee line: without threads' windows from
# 2000 req/s on, threads held the SLO at every rung it has (500, 1000).
mkdir -p "$T/floor/fixture"
cp "$RUNS/fixture/run.db" "$T/floor/fixture/run.db"
sqlite3 "$T/floor/fixture/run.db" "
	CREATE TEMP TABLE gone AS SELECT id FROM windows WHERE impl = 'threads' AND rate >= 2000;
	DELETE FROM seconds WHERE window_id IN gone; DELETE FROM gate_results WHERE window_id IN gone;
	DELETE FROM acct_samples WHERE window_id IN gone; DELETE FROM window_requests WHERE window_id IN gone;
	DELETE FROM rtstats WHERE window_id IN gone; DELETE FROM events WHERE window_id IN gone;
	DELETE FROM windows WHERE id IN gone;"
F=$("$HARNESS" report fixture --runs-dir "$T/floor" --format html,json,md 2>/dev/null)
H=$F/report.html
check "floor: report.json says threads never crossed" \
	jq -e '.impls[] | select(.name == "threads") | .knee.crossed == false and .knee.highest_rung_rps == 1000' "$F/report.json"
cmp_num "floor: threads drawn as an arrow" "$(svg latency_vs_rate | grep -c 'data-knee="floor" data-impl="1"')" "==" 1
cmp_num "floor: and not as a knee line" "$(svg latency_vs_rate | grep -c 'data-knee="point" data-impl="1"')" "==" 0
cmp_num "floor: evloop still a knee line" "$(svg latency_vs_rate | grep -c 'data-knee="point" data-impl="0"')" "==" 1
check "floor: the summary says >= 1000 (not marked best: evloop's interval reaches down to 1000)" grep -q '^| threads | >= 1000 req/s' "$F/report.md"

# A bracket is a band: with every evloop window at 4000 req/s failed (a
# wall), evloop's crossing is made by failed windows, in (2000, 4000].
mkdir -p "$T/wall/fixture"
cp "$RUNS/fixture/run.db" "$T/wall/fixture/run.db"
sqlite3 "$T/wall/fixture/run.db" \
	"UPDATE windows SET status = 'failed', reasons = 'achieved_vs_offered' WHERE impl = 'evloop' AND rate = 4000"
F=$("$HARNESS" report fixture --runs-dir "$T/wall" --format html,json,md 2>/dev/null)
H=$F/report.html
check "bracket: report.json says (2000, 4000]" \
	jq -e '.impls[] | select(.name == "evloop") | .knee.kind == "bracket" and .knee.lo_rps == 2000 and .knee.hi_rps == 4000' "$F/report.json"
cmp_num "bracket: evloop drawn as a band" "$(svg latency_vs_rate | grep -c 'data-knee="bracket" data-impl="0"')" "==" 1
cmp_num "bracket: and not as a knee line" "$(svg latency_vs_rate | grep -c 'data-knee="point" data-impl="0"')" "==" 0
check "bracket: the band is hatched" bash -c "grep 'data-knee=\"bracket\"' '$H' | grep -q 'fill=\"url(#hatch-0)\"'"
cmp_num "bracket: threads still a knee line" "$(svg latency_vs_rate | grep -c 'data-knee="point" data-impl="1"')" "==" 1
check "bracket: the summary says in (2000, 4000] and why" \
	grep -q '^| evloop | \*\*in (2000, 4000\] req/s: at 4000 req/s every valid window failed' "$F/report.md"
cmp_num "bracket: the six failed windows drawn as crosses" \
	"$(svg latency_vs_rate | grep -c 'class="win" data-status="failed"')" ">=" 6
cmp_num "bracket: evloop's 4000 ladder rung, no accepted window, is a gap in cpu_per_request" \
	"$(svg cpu_per_request | grep -c 'data-gap="0"')" "==" 1
cmp_num "bracket: ... and in memory" "$(svg memory | grep -c 'data-gap="0"')" "==" 1
H=$R/report.html

# --- signals, memory both ways, receipts (issue 28; report_fixture.h) ---
# hit_rate = delta(hits) / (delta(hits) + delta(misses)): 0.80 + 0.02 k
# (evloop, rung k) or 0.60 (threads), + 0.01 in odd blocks; valid windows
# count, accepted and failed (a failed window is a measurement over the
# SLO), a rejected one does not (evloop's ladder block 7 was rejected,
# threads' block 5 failed).
sig() { jq -c ".signals.hit_rate.impls.$1[] | select(.stage==\"$2\" and .rate_rps==$3) |
	[.mean, .min, .max, .computed]" "$J"; }
check "json: evloop's hit rate at 500: mean of 0.80 and 0.81, its range" \
	test "$(sig evloop ladder 500)" = "[0.805,0.8,0.81,2]"
check "json: evloop's at 4000: the accepted window alone (block 7 rejected)" \
	test "$(sig evloop ladder 4000)" = "[0.86,0.86,0.86,1]"
check "json: threads' at 2000: the failed window (block 5) counts" \
	test "$(sig threads ladder 2000)" = "[0.605,0.6,0.61,2]"
check "json: the declaration with it" \
	test "$(jq -r .signals.hit_rate.expr "$J")" = "delta(hits) / (delta(hits) + delta(misses))"
check "md: the signals table" grep -q '^| hit_rate | evloop | ladder | 500 | 0.805 | 0.8 - 0.81 | 2 of 2 valid (2 accepted, 0 failed) |$' "$R/report.md"
# how many windows each figure rests on, the failed ones counted in, as
# the memory table counts them out (threads ladder 2000: block 5 failed)
check "md: a signal's windows, accepted and failed apart" \
	grep -q '^| hit_rate | threads | ladder | 2000 | 0.605 | 0.6 - 0.61 | 2 of 2 valid (1 accepted, 1 failed) |$' "$R/report.md"
check "json: ... and its counts" test "$(jq -c '.signals.hit_rate.impls.threads[] |
	select(.stage == "ladder" and .rate_rps == 2000) | [.windows, .accepted, .failed, .computed]' "$J")" = "[2,1,1,2]"
check "md: memory at the same rung rests on the accepted one, the failed one left out" \
	grep -q '^| threads | ladder | 2000 | [0-9.]* | [0-9.]*x | [0-9.]* | [0-9.]*x | lifetime | 1 accepted (1 failed left out) |$' "$R/report.md"
check "json: ... and its counts" test "$(jq -c '.memory.rungs[] |
	select(.impl == "threads" and .stage == "ladder" and .rate_rps == 2000) | [.windows, .failed_left_out]' "$J")" = "[1,1]"
check "csv: study.csv has the hit rate" grep -q '^signal,evloop,ladder,500,hit_rate,0.805,0.8,0.81,2,$' "$R/study.csv"
# memory: steady = anon p99 (base + rate/100 + 9 MiB), peak = base + rate/100 + 20
mem() { jq -c ".memory.rungs[] | select(.impl==\"$1\" and .stage==\"ladder\" and .rate_rps==$2) |
	[.steady.bytes / 1048576, .peak.bytes / 1048576, .peak.scope]" "$J"; }
check "json: evloop's steady and peak memory at 500" test "$(mem evloop 500)" = '[44,55,"lifetime"]'
check "json: threads' at 500" test "$(mem threads 500)" = '[94,105,"lifetime"]'
near "json: threads/evloop peak ratio at 500 (105/55)" \
	"$(jq '.memory.rungs[] | select(.impl=="threads" and .stage=="ladder" and .rate_rps==500) | .peak.ratio' "$J")" 1.90909 0.0001
check "md: memory steady and peak side by side with ratios" \
	grep -q '^| threads | ladder | 500 | 94.0 | 2.14x | 105 | 1.91x | lifetime | 2 accepted (0 failed left out) |$' "$R/report.md"
# receipts: 40 windows, 430000 due, 50 5xx (confirm block 6 evloop), one
# throttled window, pre-flight 8 of 8
check "json: receipts" jq -e '.receipts.due == 430000 and .receipts.answered == 430000 and
	.receipts.status_5xx == 50 and .receipts.unexpected == 50 and .receipts.dropped == 0 and
	.receipts.timeouts == 0 and .receipts.windows.measured == 40 and
	.receipts.windows_throttled == 1 and .receipts.oom_kills == 0 and
	.receipts.preflight == {"cases": 8, "passed": 8}' "$J"
for f in report.md report.html; do
	q=$(grep -n "Receipts: over 40 measured windows (36 accepted, 2 failed, 2 rejected), 430000 requests were due" "$R/$f" | head -1 | cut -d: -f1)
	c=$(grep -n "^## Charts\|>Charts</h2>" "$R/$f" | head -1 | cut -d: -f1)
	if [ -n "$q" ] && [ -n "$c" ] && [ "$q" -lt "$c" ]; then ok "$f: the receipts paragraph ends the summary"
	else fail "$f: the receipts paragraph ends the summary (line '$q', charts '$c')"; fi
done
check "md: the paragraph names throttling and the pre-flight" \
	grep -q '1 window was CPU-throttled; 0 OOM kills; .* The pre-flight passed 8 of 8 cases' "$R/report.md"
check "csv: receipts rows" grep -q '^receipts,,,,status_5xx,50,,,40,' "$R/study.csv"

# --- the charts: names, marks, plain ticks ----------------------------------
CHARTS="latency_vs_rate percentile_spectrum timeline cpu_per_request memory signals ratio per_second rejections"
check "json: the charts by name" test "$(jq -r '[.charts[].name] | join(" ")' "$J")" = "$CHARTS"
for c in $CHARTS; do
	cmp_num "html: chart $c once, linked from the table of contents" \
		"$(grep -c "data-chart=\"$c\"" "$H")$(grep -c "href=\"#chart-$c\"" "$H")" "==" 11
done
# charts scale with the page: each has a viewBox, the page sizes it by width
cmp_num "every chart has a viewBox (scales, keeps proportions)" \
	"$(grep -c '<svg[^>]*data-chart="[a-z_]*"[^>]*viewBox="0 0 [0-9]* [0-9]*"\|<svg[^>]*viewBox="0 0 [0-9]* [0-9]*"[^>]*data-chart=' "$H")" "==" "$(jq '.charts | length' "$J")"
check "... and the page sets its width to the page's (height auto)" grep -q 'figure.chart svg{display:block;width:100%;height:auto}' "$H"
nl=$(jq '[.rungs[] | select(.stage == "ladder" and .slo_percentile_ms.ci != null)] | length' "$J")
cmp_num "latency_vs_rate: an interval whisker per ladder rung" \
	"$(svg latency_vs_rate | grep -c 'data-whisker=')" "==" "$nl"
cmp_num "percentile_spectrum: one line per implementation" \
	"$(svg percentile_spectrum | grep -c '<polyline data-impl=')" "==" 2
cmp_num "timeline: a verdict per finished window" \
	"$(svg timeline | grep -c 'class="verdict"')" "==" 40
check "json: the timeline's numbers per window (start, head, completed per second)" \
	jq -e '[.windows[] | (.second_completed | length) == (.second_p99_ms | length) and
	        .started_at > 0 and .head_seconds == 0] | all' "$J"
# the fixture's confirm stage starts ~420 s after the ladder's last window
cmp_num "timeline: the one long pause cut and marked" "$(svg timeline | grep -c '<g data-break=')" "==" 1
cmp_num "timeline: failed verdicts" "$(svg timeline | grep -c 'class="verdict" data-status="failed"')" "==" "$nf"
# the fixture stores no warm-up seconds: a copy with 2 per window shades each
mkdir -p "$T/warm/fixture"
cp "$RUNS/fixture/run.db" "$T/warm/fixture/run.db"
sqlite3 "$T/warm/fixture/run.db" "INSERT INTO seconds (window_id, phase, idx, rate, p99_ms)
	SELECT window_id, 'warmup', idx, rate, p99_ms FROM seconds WHERE phase = 'measured' AND idx < 2"
F=$("$HARNESS" report fixture --runs-dir "$T/warm" --format html 2>/dev/null)
cmp_num "timeline: each window's warm-up shaded" \
	"$(grep -c 'data-warmup=.*2 s warm-up and discard' "$F/report.html")" "==" 40
cmp_num "timeline: no warm-up, no shading" "$(svg timeline | grep -c 'data-warmup=')" "==" 0
check "json: each ratio inside its interval" jq -e '[.ratios[] | select(.slo_percentile_ci != null) |
	.slo_percentile_ci[0] <= .slo_percentile and .slo_percentile <= .slo_percentile_ci[1]] |
	length > 0 and all' "$J"
cmp_num "ratio: a p99 whisker per ladder ratio with an interval" "$(svg ratio | grep -c 'data-whisker="pslo"')" "==" \
	"$(jq '[.ratios[] | select(.stage == "ladder" and .slo_percentile_ci != null)] | length' "$J")"
cmp_num "ratio: a CPU whisker per ladder ratio with an interval" "$(svg ratio | grep -c 'data-whisker="cpu"')" "==" \
	"$(jq '[.ratios[] | select(.stage == "ladder" and .cpu_ms_per_req_ci != null)] | length' "$J")"
cmp_num "ratio: CPU ratios" "$(svg ratio | grep -c 'data-metric="cpu"')" "==" 4
# --ratios chooses the pairs: evloop over threads is the default's inverse
"$HARNESS" report fixture --runs-dir "$RUNS" --format json,html --ratios evloop/threads -o "$T/inv" >/dev/null 2>&1
check "--ratios evloop/threads: each ratio the inverse of threads/evloop" jq -e --slurpfile d "$J" \
	'[.ratios[] | . as $q | ($d[0].ratios[] | select(.stage == $q.stage and .rate_rps == $q.rate_rps)) as $o |
	  $q.impl == "evloop" and $q.base == "threads" and (($q.slo_percentile * $o.slo_percentile) - 1 | fabs) < 1e-6] |
	 length == ($d[0].ratios | length) and all' "$T/inv/report.json"
check "--ratios: the chart's legend names the pair" grep -q '>evloop / threads</text>' "$T/inv/report.html"
expect_exit "--ratios with an unknown implementation: exit 2" 2 "$HARNESS" report fixture \
	--runs-dir "$RUNS" --ratios evloop/nginx -o "$T/bad"
check "--ratios: the message names the pair" grep -q "evloop/nginx" "$T/err"
# --spectrum-rate chooses percentile_spectrum's rung (default: the
# reference rate, 1000 here); a rate with no accepted ladder window: exit 2
check "percentile_spectrum: the reference rate by default (json charts)" \
	jq -e '.charts[] | select(.name == "percentile_spectrum") | .rate_rps == 1000' "$J"
"$HARNESS" report fixture --runs-dir "$RUNS" --format json,html --spectrum-rate 2k -o "$T/sp" >/dev/null 2>&1
check "--spectrum-rate 2k: the chart's rung in report.json" \
	jq -e '.charts[] | select(.name == "percentile_spectrum") | .rate_rps == 2000' "$T/sp/report.json"
check "--spectrum-rate 2k: the chart's heading names 2k req/s" \
	grep -q 'Latency by percentile at 2k req/s (ladder' "$T/sp/report.html"
sp_n() { awk 'index($0, "data-chart=\"percentile_spectrum\"") { on = 1 } on { print } on && /<\/svg>/ { exit }' "$1" |
	grep -o '<title>evloop: [0-9]* requests' | grep -o '[0-9]*'; }
a=$(sp_n "$R/report.html"); b=$(sp_n "$T/sp/report.html")
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok "--spectrum-rate 2k: evloop's line merges other windows ($a -> $b requests)" ||
	fail "--spectrum-rate 2k: evloop's line: '$a' -> '$b' requests"
expect_exit "--spectrum-rate at no ladder rung: exit 2" 2 "$HARNESS" report fixture --runs-dir "$RUNS" \
	--spectrum-rate 1234 -o "$T/bad"
check "... one line naming the rungs there are" grep -q -- "--spectrum-rate 1234: no accepted ladder window at that rate (ladder rungs with accepted windows: 500, 1000, 2000, 4000)" "$T/err"
cmp_num "per_second: one scale per rung" "$(svg per_second | grep -c 'class="rung" data-scale-ms=')" "==" \
	"$(jq '.rungs | length' "$J")"
# plain: digits, one point, k or M (or a percentile's %); round: at most 3
# significant digits (a rung's 7593.75 or 11390.6 is neither)
ticks=$(grep -o 'class="tick"[^>]*>[^<]*<' "$H" | sed 's/.*>\(.*\)</\1/')
bad=$(grep -Evx '[0-9]+(\.[0-9]{1,3})?[kM]?|[0-9]+(\.[0-9]+)?%' <<<"$ticks" | head -3)
bad="$bad$(grep -v '%' <<<"$ticks" | awk '{ d = $0; gsub(/[kM.]/, "", d); sub(/^0+/, "", d);
	sub(/0+$/, "", d); if (length(d) > 3) print $0 }' | head -3)"
if [ -z "$bad" ] && [ "$(wc -l <<<"$ticks")" -gt 20 ]; then ok "every tick label is a plain round number"
else fail "tick labels: '$bad'"; fi
check "the check catches a rung's rate as a tick" bash -c "echo 7593.75 | awk '{ d = \$0; gsub(/[kM.]/, \"\", d); sub(/^0+/, \"\", d); sub(/0+\$/, \"\", d); exit !(length(d) > 3) }'"

# --- hgrm: HdrHistogram's percentile distribution per rung -------------------
"$HARNESS" report fixture --runs-dir "$RUNS" --format hgrm -o "$T/h" >/dev/null 2>&1
cmp_num "hgrm: one file per rung with accepted windows" "$(ls "$T/h/hgrm" | wc -l)" "==" \
	"$(jq '[.rungs[] | select(.windows.accepted > 0)] | length' "$J")"
G=$T/h/hgrm/threads_confirm_2000rps.hgrm
check "hgrm: HdrHistogram's header and footer" bash -c "head -1 '$G' | grep -q '^       Value     Percentile TotalCount 1/(1-Percentile)\$' && grep -q '^#\[Max     = ' '$G'"
# the merged p99 of the JSON lies between the values at the levels around 0.99
lo99=$(awk 'NR > 2 && $1 !~ /#/ && $2 < 0.99 { v = $1 } END { print v }' "$G")
hi99=$(awk 'NR > 2 && $1 !~ /#/ && $2 >= 0.99 { print $1; exit }' "$G")
check "hgrm: around 0.99 it brackets the report's merged p99 ($lo99 <= $p99 <= $hi99)" \
	awk -v a="$lo99" -v p="$p99" -v b="$hi99" 'BEGIN { exit !(a - 0.0005 <= p && p <= b + 0.0005) }'

# --- windows.csv ------------------------------------------------------------
C=$R/windows.csv
if head -1 "$C" | grep -q '^impl,stage,offered_rps,block,p99_ms,requests,errors,achieved_rps,warm,'; then
	ok "csv: the knee's columns first"; else fail "csv: header: $(head -1 "$C")"; fi
# CPU per request in µs as everywhere else, beside the older ms column
check "csv: cpu_us_per_request = 1000 x cpu_ms_per_req on every row with a CPU figure" python3 - "$C" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = 0
for r in rows:
    if r["cpu_ms_per_req"] == "":
        assert r["cpu_us_per_request"] == "", r
        continue
    assert abs(float(r["cpu_us_per_request"]) - 1000 * float(r["cpu_ms_per_req"])) <= 1e-6 * float(r["cpu_us_per_request"]) + 1e-9, r
    n += 1
assert n > 0
ev = [float(r["cpu_us_per_request"]) for r in rows if r["impl"] == "evloop" and r["stage"] == "ladder" and float(r["offered_rps"]) == 500 and r["status"] == "accepted"]
assert ev and all(abs(v - 50) < 1e-6 for v in ev), ev
PY
cmp_num "csv: one row per window" "$(($(wc -l < "$C") - 1))" "==" 40
cmp_num "csv: 2 rejected rows (validity)" "$(grep -c ',rejected,' "$C")" "==" 2
cmp_num "csv: 2 failed rows (outcome gates)" "$(grep -c ',failed,' "$C")" "==" 2
# harness knee reads windows.csv. Its status column decides which rows are
# valid (ladder and confirm), and its p99_ms_from_hist/requests/errors
# columns are what the report fits, so both knees must be the report's
# (same seed-free point estimate; 0.01 req/s for float formatting).
"$HARNESS" knee --windows "$C" --json >"$T/kcsv.json" 2>/dev/null
kcsv=$(jq '.fits[] | select(.impl=="evloop") | .knee_rps' "$T/kcsv.json")
near "harness knee on windows.csv: evloop knee = report's" "$kcsv" "$kev" 0.01 "same windows, same fit"
kcsv=$(jq '.fits[] | select(.impl=="threads") | .knee_rps' "$T/kcsv.json")
near "harness knee on windows.csv: threads knee = report's" "$kcsv" "$kth" 0.01 "same windows, same fit"
# ... and `harness knee RUN` reads the database itself: the same knees.
"$HARNESS" knee fixture --runs-dir "$RUNS" --json >"$T/krun.json" 2>/dev/null
krun=$(jq '.fits[] | select(.impl=="threads") | .knee_rps' "$T/krun.json")
near "harness knee RUN: threads knee = report's" "$krun" "$kth" 0.01 "same windows, same fit"
# (knee --json prints full precision, report.json 10 significant digits)
check "harness knee RUN: interval and label as the report's" jq -e --slurpfile rep "$J" \
	'([.fits[0].interval_rps, $rep[0].impls[0].knee.interval_rps] | transpose |
	  map(.[0] - .[1] | fabs < 1e-3) | all) and .fits[0].inferential == $rep[0].impls[0].knee.inferential' "$T/krun.json"

# --- exploratory stamp in every format --------------------------------------
for f in report.md report.html report.json; do
	if grep -q EXPLORATORY "$R/$f"; then fail "clean run: no stamp in $f"; else ok "clean run: no stamp in $f"; fi
done
mkdir -p "$T/x/fixture"
cp "$RUNS/fixture/run.db" "$T/x/fixture/run.db"
sqlite3 "$T/x/fixture/run.db" "UPDATE runs SET exploratory = 1"
X=$("$HARNESS" report fixture --runs-dir "$T/x" 2>/dev/null)
for f in report.md report.html report.json; do
	if grep -q "EXPLORATORY" "$X/$f"; then ok "exploratory run: stamp in $f"; else fail "exploratory run: stamp in $f"; fi
done
if [ "$(jq -r '.run.exploratory' "$X/report.json")" = true ]; then ok "exploratory run: json flag"; else fail "exploratory run: json flag"; fi
# exploratory is the next-to-last column (quoted reasons may hold commas, so count from the end)
if [ "$(head -1 "$X/windows.csv" | awk -F, '{ print $(NF-1) }')" = exploratory ] &&
   [ "$(tail -n +2 "$X/windows.csv" | awk -F, '{ print $(NF-1) }' | sort -u)" = 1 ]; then
	ok "exploratory run: csv column is 1 on every row"
else fail "exploratory run: csv column"; fi

# --- report.html in headless Chromium ----------------------------------------
chromium_ready report.html || exit 0
# The error check must be able to fail: a page with a broken script is caught.
printf '<html><body><script>undefinedFn()</script></body></html>\n' > "$T/bad.html"
chrome "file://$T/bad.html" --dump-dom >/dev/null 2>"$T/bad.err"
if grep -q 'CONSOLE.*Uncaught' "$T/bad.err"; then ok "chromium reports a script error on a broken page"
else fail "chromium reports a script error on a broken page (the check below could not fail)"; fi

charts=$(jq '.charts | length' "$J")
chrome "file://$R/report.html" --dump-dom >"$T/dom.html" 2>"$T/chrome.err"
cmp_num "rendered DOM: one <svg> per chart" "$(grep -o '<svg' "$T/dom.html" | wc -l)" "==" "$charts"
cmp_num "rendered DOM: $charts chart figures" "$(grep -o '<figure class="chart"' "$T/dom.html" | wc -l)" "==" "$charts"
missing=""
for c in $CHARTS; do grep -q "<svg[^>]*data-chart=\"$c\"" "$T/dom.html" || missing="$missing $c"; done
if [ -z "$missing" ]; then ok "rendered DOM: every named chart ($CHARTS)"; else fail "rendered DOM lacks:$missing"; fi
if grep -q 'CONSOLE' "$T/chrome.err"; then fail "no console message or script error: $(grep CONSOLE "$T/chrome.err" | head -3)"
else ok "no console message or script error"; fi
chrome "file://$R/report.html" --window-size=1200,6000 --screenshot="$T/report.png" >/dev/null 2>&1
if is_png "$T/report.png"; then ok "screenshot is a PNG"; else fail "screenshot is a PNG"; fi
cmp_num "screenshot is not blank (bytes)" "$(stat -c %s "$T/report.png" 2>/dev/null || echo 0)" ">" 100000
if [ -n "${REPORT_PNG:-}" ]; then cp "$T/report.png" "$REPORT_PNG"; fi
# The first screen (1280 x 800): the title, then the headline, in 19 px
# bold, before the contents and the stamp. REPORT_FIRST_PNG=FILE keeps it.
chrome "file://$R/report.html" --window-size=1280,800 --screenshot="$T/first.png" >/dev/null 2>&1
check "first-screen screenshot is a PNG" is_png "$T/first.png"
check "rendered DOM: the headline right after the title" bash -c \
	"tr -d '\n' <'$T/dom.html' | grep -o '</h1><p class=\"headline\">[^<]*' | grep -qF 'hold p99 &lt;= 20 ms'"
if [ -n "${REPORT_FIRST_PNG:-}" ]; then cp "$T/first.png" "$REPORT_FIRST_PNG"; fi
