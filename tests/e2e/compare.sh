#!/bin/bash
# compare: exit codes, verdicts and the three formats, on run databases made
# by tests/fixtures/compare_fixture.c (real schema, real histograms; see it
# for the numbers: a at 1 ms in base, 6 ms in slow, 0.5 ms in fast).
. "$(dirname "$0")/../lib.sh"

R=$T/runs
"$HELPERS/compare_fixture" "$R" ||
	{ fail "fixture generator"; exit 0; }

# +5 ms per request: a regression, exit 1, in every format.
expect_exit "slow branch: regression" 1 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --junit "$T/junit.xml"
grep -q '^### `a`: \*\*regression\*\*' "$T/out" && ok "markdown names a's regression" ||
	fail "markdown: $(head -c 300 "$T/out")"
grep -q '^### `b`: \*\*no change\*\*' "$T/out" && ok "b unchanged" || fail "b verdict"
grep -q 'unpaired (Welch)' "$T/out" && ok "says unpaired" || fail "unpaired not said"

expect_exit "json" 1 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" --format json
v=$(jq -r '.impls[] | select(.name=="a") | .verdict' "$T/out")
[ "$v" = regression ] && ok "json verdict a = regression" || fail "json verdict a = '$v'"
p=$(jq -r '.impls[] | select(.name=="a") | .rates[0].p99.new' "$T/out")
# 6.3 ms (6 ms * 1.05, the largest window) within the 1% bucket error
near "merged p99 of the slow arm (ms)" "$p" 6.3 0.063 "histogram bucket error < 1%"
c=$(jq -r '.impls[] | select(.name=="a") | .rates[0].cpu_per_request.new' "$T/out")
near "cpu per request (us)" "$c" 50 0.001 "sum cpu / sum completed is exact"

python3 - "$T/junit.xml" <<'PY' && ok "junit parses with 3 failures" || fail "junit: $(head -c 300 "$T/junit.xml")"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites" and r.get("failures") == "3", r.attrib
assert len(r.findall(".//failure")) == 3
PY

# A comment-only change: no change, exit 0; an improvement: exit 0.
expect_exit "comment-only change: no regression" 0 "$HARNESS" compare compare_base \
	compare_same --runs-dir "$R" --impl a
grep -q '^### `a`: \*\*no change\*\*' "$T/out" && ok "comment-only: no change" ||
	fail "comment-only: $(grep '^###' "$T/out")"
expect_exit "faster: no regression" 0 "$HARNESS" compare compare_base compare_fast \
	--runs-dir "$R" --json
[ "$(jq -r '.impls[0].verdict' "$T/out")" = improvement ] && ok "faster: improvement" ||
	fail "faster verdict $(jq -c '.impls[0].verdict' "$T/out")"

# A run given as a directory works like an id.
expect_exit "run directories as arguments" 1 "$HARNESS" compare "$R/compare_base" \
	"$R/compare_slow"

# Bad input: exit 2 with one line.
expect_exit "unknown run" 2 "$HARNESS" compare compare_base nope --runs-dir "$R"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q nope "$T/err" && ok "one line naming the run" ||
	fail "unknown run message: $(cat "$T/err")"
expect_exit "impl not in both" 2 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --impl zzz
expect_exit "bad format" 2 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" \
	--format xml
expect_exit "one argument" 2 "$HARNESS" compare compare_base --runs-dir "$R"
