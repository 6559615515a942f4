#!/bin/bash
# timing-free: verdicts, exit codes and formats of compare on fixture runs (no server, no load)
# compare: exit codes, verdicts and the three formats, on run databases made
# by tests/fixtures/compare_fixture.c (real schema, real histograms; see it
# for the numbers: a at 1 ms in base, 6 ms in slow, 0.5 ms in fast).
. "$(dirname "$0")/../lib.sh"

R=$T/runs
"$HELPERS/compare_fixture" "$R" ||
	{ fail "fixture generator"; exit 0; }

# These runs hold no "<impl>@base" control: compared unpaired across runs,
# every implementation is advisory, and nothing judged is no answer (3).
expect_exit "nothing paired: no answer" 3 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R"
grep -q '^### `a` (advisory, not judged): regression' "$T/out" && grep -q 'No implementation is judged' "$T/out" &&
	ok "advisory regression listed, not judged" || fail "markdown: $(head -c 600 "$T/out")"
grep -q 'Base `compare_base` \*\*finished\*\*; new `compare_slow` \*\*finished\*\*' "$T/out" &&
	ok "markdown names both runs' status" || fail "run status: $(head -c 300 "$T/out")"
expect_exit "nothing paired, --inconclusive-ok" 0 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --inconclusive-ok
expect_exit "a run against itself, nothing paired" 2 "$HARNESS" compare compare_base \
	compare_base --runs-dir "$R"
grep -q "same run" "$T/err" && ok "says it is the same run" || fail "same run: $(cat "$T/err")"

# +5 ms per request (--judge-unpaired: a's commit changed, b's did not): a
# regression, exit 1, in every format.
expect_exit "slow branch: regression" 1 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --junit "$T/junit.xml" --judge-unpaired
grep -q '^### `a`: \*\*regression\*\*' "$T/out" && ok "markdown names a's regression" ||
	fail "markdown: $(head -c 300 "$T/out")"
grep -q '^### `b` (advisory, not judged): no change' "$T/out" && ok "b unchanged, advisory" ||
	fail "b verdict"
grep -q 'unpaired (every compare_slow window' "$T/out" && ok "says unpaired" || fail "unpaired not said"

expect_exit "json" 1 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" --format json \
	--judge-unpaired
v=$(jq -r '.impls[] | select(.name=="a") | .verdict' "$T/out")
[ "$v" = regression ] && ok "json verdict a = regression" || fail "json verdict a = '$v'"
p=$(jq -r '.impls[] | select(.name=="a") | .rates[0].latency.new' "$T/out")
# 6.3 ms (6 ms * 1.05, the largest window) within the 1% bucket error
near "merged p99 of the slow arm (ms)" "$p" 6.3 0.063 "histogram bucket error < 1%"
c=$(jq -r '.impls[] | select(.name=="a") | .rates[0].cpu_per_request.new' "$T/out")
[ "$(jq -r '.base_status + " " + .new_status' "$T/out")" = "finished finished" ] &&
	ok "json names both runs' status" || fail "json status"
near "cpu per request (us)" "$c" 50 0.001 "sum cpu / sum completed is exact"

python3 - "$T/junit.xml" <<'PY' && ok "junit parses with 3 failures, b skipped (advisory)" || fail "junit: $(head -c 300 "$T/junit.xml")"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites" and r.get("failures") == "3", r.attrib
assert len(r.findall(".//failure")) == 3
props = {p.get("name"): p.get("value") for p in r.iter("property")}
assert props["new.status"] == "finished" and props["base.status"] == "finished", props
assert r.get("skipped") == "1", r.attrib
PY

# Holm across a's 4 rate x metric cells: 3 windows against 3 reach at best
# p = 1/20, adjusted 0.2: the +500% rise is not confirmed, and a rise
# nobody confirmed is no pass (exit 3), with the MDE saying why.
expect_exit "holm: unconfirmed rise is inconclusive" 3 "$HARNESS" compare compare_base \
	compare_slow --runs-dir "$R" --impl a --correction holm
grep -q 'not confirmed (p 0.05, 0.2 after Holm over 4 cells; no shift detectable' "$T/out" &&
	grep -q '| 100 | p99 (ms) | .* | 3 / 3 | HL | rise 0.05 → 0.2 | none (n too small) | inconclusive |' "$T/out" &&
	ok "holm: n, method, p raw -> adjusted and MDE beside the verdict" ||
	fail "holm markdown: $(grep -E 'Why|^\| 100' "$T/out")"
expect_exit "holm json" 3 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" \
	--impl a --correction holm --json
[ "$(jq -r '.rule.correction + " " + (.impls[0].cells_tested|tostring) + " " +
	(.impls[0].rates[0].latency.p_rise_adjusted|tostring) + " " +
	(.impls[0].rates[0].latency.mde|tostring) + " " + .impls[0].rates[0].latency.mde_note + " " +
	.impls[0].rates[0].latency.method' "$T/out")" = \
	"holm 4 0.2 null none: n too small hodges_lehmann" ] && ok "holm json: correction, cells, adjusted p, MDE, method" ||
	fail "holm json: $(jq -c '.rule, .impls[0].rates[0].latency' "$T/out")"
# --interval t: the mean and Welch's interval, named.
expect_exit "welch" 1 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" --impl a \
	--interval t --json
[ "$(jq -r '.impls[0].rates[0].latency.method + " " + .rule.method_unpaired' "$T/out")" = "t t" ] &&
	ok "--interval t named in the json" || fail "t: $(jq -c '.rule' "$T/out")"
grep -q 'n 3 base / 3 new; method Hodges-Lehmann shift, Mann-Whitney interval; correction none over 4 cells: p rise 0.05; MDE ' "$T/junit.xml" &&
	ok "junit cells carry n, method, correction and MDE" ||
	fail "junit detail: $(grep -m1 failure "$T/junit.xml")"

# 20 cells (10 rates x 2 metrics) of seeded noise, a's latency +20% at 100
# req/s, 20 pairs each (the fixture's --noise run; tests/slow/holm.sh
# repeats it 40 times): Holm over the 20 cells keeps that one regression
# and nothing else.
"$HELPERS/compare_fixture" --noise "$R" holm20 1001 20 20 || fail "noise fixture"
expect_exit "holm over 20 cells: the real +20% is found" 1 "$HARNESS" compare holm20 holm20 \
	--runs-dir "$R" --json
[ "$(jq -r '[.impls[0].cells_tested, ([.impls[0].rates[] | select(.latency.verdict=="regression" or .cpu_per_request.verdict=="regression") | .rate] | map(tostring) | join(","))] | map(tostring) | join(" ")' "$T/out")" = "20 100" ] &&
	ok "holm over 20 cells: only the 100 req/s latency cell regresses" ||
	fail "holm20: $(jq -c '[.impls[0].cells_tested, [.impls[0].rates[] | {rate, l: .latency.verdict, p: .latency.p_rise_adjusted}]]' "$T/out")"
# The pooled tests over the 10 rates (200 pairs each): latency +20% at one
# rate of ten is about +2% pooled, inside the 5% margin; the cell decided,
# and every format says so.
[ "$(jq -r '.impls[0] | [.decided_by, .hypotheses_tested, (.pooled | map(.metric + "=" + .verdict + "/" + (.pairs|tostring)) | join(","))] | map(tostring) | join(" ")' "$T/out")" = \
	"cell 22 latency=no change/200,cpu_per_request=no change/200" ] &&
	ok "holm20: the pooled tests say no change, the cell decided" ||
	fail "holm20 pooled: $(jq -c '.impls[0] | [.decided_by, .hypotheses_tested, .pooled]' "$T/out")"
"$HARNESS" compare holm20 holm20 --runs-dir "$R" --junit "$T/h20.xml" >"$T/h20.md" 2>/dev/null
grep -q '^Decided by: cell\.$' "$T/h20.md" && grep -q '^| latency | 5.0[0-9]* ms | +1\.[0-9]% ' "$T/h20.md" &&
	grep -q 'name="latency pooled over all rates"' "$T/h20.xml" && grep -q 'decided by: cell' "$T/h20.xml" &&
	ok "holm20: markdown and junit show the pooled tests and what decided" ||
	fail "holm20 md/junit: $(grep -E '^Decided|^\| latency' "$T/h20.md") $(grep -c pooled "$T/h20.xml")"

# The README's pull-request plan with the default rule, paired (the
# fixture's compare_pr: 2 rates x 3 blocks, +5 ms in every pair): no cell
# of 3 pairs can decide (best p 1/8), the pooled latency test does (1/64,
# weighted Holm 0.039). A comment-only change (each pair +-10 %, the
# jitter reversed): latency "no change" (its interval, +-0.13 ms on 1.2 ms,
# is inside the 1 ms floor), CPU undecided (+-10 % is wider than 5 % of
# 50 us, above its 2 us floor): "no regression", exit 0.
"$HELPERS/compare_fixture" --pr "$R" || fail "pr fixture"
expect_exit "README plan, +5 ms, paired: regression" 1 "$HARNESS" compare compare_pr compare_pr \
	--runs-dir "$R" --json
[ "$(jq -r '.impls[0] | [.decided_by, .pooled[0].verdict, .pooled[0].p_rise, .pooled[0].p_rise_adjusted < 0.05, .rates[0].latency.verdict] | map(tostring) | join(" ")' "$T/out")" = \
	"pooled test regression 0.015625 true inconclusive" ] &&
	ok "README plan: the pooled test decides (p 1/64), the cells cannot" ||
	fail "README plan: $(jq -c '.impls[0] | [.decided_by, .why, .pooled]' "$T/out")"
expect_exit "README plan, comment-only, paired: exit 0" 0 "$HARNESS" compare compare_pr_same \
	compare_pr_same --runs-dir "$R" --json
[ "$(jq -r '.impls[0] | [.verdict, .decided_by, (.pooled | map(.verdict) | join(","))] | join(" ")' "$T/out")" = \
	"no regression pooled test no change,inconclusive" ] &&
	ok "README plan: comment-only: latency no change within its floor, CPU undecided" ||
	fail "README plan, comment-only: $(jq -c '.impls[0] | [.verdict, .why, .pooled]' "$T/out")"

# check --base: the smallest shift compare could call, from a run's spread.
cat >"$T/plan.yaml" <<'YAML'
version: 1
name: cmp
slo: { threshold_ms: 20 }
implementations:
  - { name: a, start: [./a, '{port}'], health: { url: 'http://127.0.0.1:{port}/' } }
workload:
  requests: [ { name: root, path: / } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 200, window_s: 20, reps: 3 }
YAML
"$HARNESS" check "$T/plan.yaml" --base compare_base --runs-dir "$R" --json >"$T/plan.json" 2>"$T/err"
[ "$(jq -r '.compare | [.pairs_max, .can_decide, .metrics[0].pairs_needed, .metrics[0].from_base[0].impl, .metrics[0].from_base[0].windows, (.metrics[0].from_base[0].smallest_call_pct >= .metrics[0].from_base[0].margin_pct)] | map(tostring) | join(" ")' "$T/plan.json")" = \
	"6 true 6 a 6 true" ] && ok "check --base: pairs, floor and the smallest callable shift" ||
	fail "check --base: $(jq -c .compare "$T/plan.json") $(cat "$T/err")"

# A comment-only change: no change, exit 0; an improvement: exit 0.
expect_exit "comment-only change: no regression" 0 "$HARNESS" compare compare_base \
	compare_same --runs-dir "$R" --impl a
grep -q '^### `a`: \*\*no change\*\*' "$T/out" && ok "comment-only: no change" ||
	fail "comment-only: $(grep '^###' "$T/out")"
expect_exit "faster: no regression" 0 "$HARNESS" compare compare_base compare_fast \
	--runs-dir "$R" --json --judge-unpaired
[ "$(jq -r '.impls[0].verdict' "$T/out")" = improvement ] && ok "faster: improvement" ||
	fail "faster verdict $(jq -c '.impls[0].verdict' "$T/out")"

# A run given as a directory works like an id.
expect_exit "run directories as arguments" 1 "$HARNESS" compare "$R/compare_base" \
	"$R/compare_slow" --impl a

# Bad input: exit 2 with one line.
expect_exit "unknown run" 2 "$HARNESS" compare compare_base nope --runs-dir "$R"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q nope "$T/err" && ok "one line naming the run" ||
	fail "unknown run message: $(cat "$T/err")"
expect_exit "impl not in both" 2 "$HARNESS" compare compare_base compare_slow \
	--runs-dir "$R" --impl zzz
expect_exit "bad format" 2 "$HARNESS" compare compare_base compare_slow --runs-dir "$R" \
	--format xml
expect_exit "one argument" 2 "$HARNESS" compare compare_base --runs-dir "$R"
