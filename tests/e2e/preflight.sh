#!/usr/bin/env bash
# timing-free: pre-flight refusals and what is stored
# release-only: under make asan oom.sh, interrupt.sh and agent_run.sh reach its code but 42 lines (preflight.c 26, runner_window.c 6, runner.c 3), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# Pre-flight (issue 13, item 2): before the first window every request is
# sent to every implementation and checked against its expect; with
# workload.preflight.equivalence: strict the implementations must agree.
#  - a mistyped path (testsrv --mode wrong-status answers 404 on every
#    path but /healthz) is refused before any window: exit 3, one line
#    naming the request, the implementation and the status seen; the
#    result is stored and shown by `harness status`;
#  - enforce: false records the same result and runs;
#  - two implementations whose JSON differs in one field (testsrv --reply,
#    keys in another order too) are refused under strict, naming both and
#    the field, and accepted when that field is ignored; status and the
#    report show "3 of 3 cases passed"; a content type alone differing is
#    refused too; `check` prints the pre-flight plan (text and --json).
# Each run that measures has one 1 s window per implementation.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }

spec() {  # spec NAME A_FLAGS B_FLAGS PREFLIGHT
	cat <<YAML
version: 1
name: e2e-$1
slo: { percentile: 99, threshold_ms: 50 }
implementations:
$(testsrv_impl a "$2")
$(testsrv_impl b "$3")
workload:
  connections: 4
  preflight: $4
  requests:
    - { name: get_invoice, path: /invoces/42 }
$(quick_ladder 1 0)
YAML
}

# ---- a mistyped path: refused before any window
spec typo ', --mode, wrong-status' '' '{ sends: 1 }' >"$T/typo.yaml"
expect_exit "check accepts the preflight keys" 0 "$HARNESS" check "$T/typo.yaml"
"$HARNESS" run "$T/typo.yaml" --allow-dirty --runs-dir "$RUNS" --run-id typo >"$T/typo.out" 2>"$T/typo.err"
cmp_num "a mistyped path is refused with exit 3" "$?" == 3
check "the message names the request, the implementation and the status seen" \
	grep -q "^harness: pre-flight: request get_invoice (GET /invoces/42): a: status 404, expected 2xx or 3xx$" "$T/typo.err"
check "b, which answers 200, is not named" bash -c "! grep -q ': b: ' '$T/typo.err'"
cmp_num "no window was planned or run" "$(q typo "SELECT COUNT(*) FROM windows")" == 0
check "stored: failed, kind preflight, impl a, 0 of 1" \
	test "$(q typo "SELECT status, failure_kind, failure_impl, preflight_cases, preflight_passed FROM runs")" = "failed|preflight|a|1|0"
"$HARNESS" status typo --runs-dir "$RUNS" >"$T/st.out" 2>&1
cmp_num "status of the refused run exits 1" "$?" == 1
check "status shows the pre-flight" grep -q "pre-flight: 0 of 1 cases passed (2 implementations)" "$T/st.out"
expect_exit "resume of the refused run runs the pre-flight again, refused again" 3 \
	"$HARNESS" resume typo --runs-dir "$RUNS" --force
cmp_num "two pre-flights recorded as events" "$(q typo "SELECT COUNT(*) FROM events WHERE kind = 'preflight'")" == 2

# ---- enforce: false records it and runs
spec lax ', --mode, wrong-status' '' '{ enforce: false }' >"$T/lax.yaml"
"$HARNESS" run "$T/lax.yaml" --allow-dirty --runs-dir "$RUNS" --run-id lax >/dev/null 2>"$T/lax.err"
cmp_num "enforce: false runs (exit 0)" "$?" == 0
check "and warns" grep -q "warning: pre-flight: 0 of 1 cases passed .*recorded only" "$T/lax.err"
check "recorded 0 of 1, the run finished" \
	test "$(q lax "SELECT status, preflight_cases, preflight_passed FROM runs")" = "finished|1|0"

# ---- strict: one JSON field differs
A=', --reply, "{\"id\": 42, \"total\": 12.5, \"at\": \"10:00\"}"'
B=', --reply, "{\"at\": \"10:01\", \"id\": 42, \"total\": 12.5}"'
spec strict "$A" "$B" '{ sends: 3, equivalence: strict }' >"$T/strict.yaml"
"$HARNESS" run "$T/strict.yaml" --allow-dirty --runs-dir "$RUNS" --run-id strict >/dev/null 2>"$T/strict.err"
cmp_num "strict: one differing field refuses the run (exit 3)" "$?" == 3
check "the diff names both implementations and the field" \
	grep -q '^harness: pre-flight: request get_invoice (GET /invoces/42) send 1 of 3: a and b differ: JSON differs at /at: "10:00" vs "10:01"$' "$T/strict.err"
check "stored 0 of 3, blamed b" \
	test "$(q strict "SELECT failure_impl, preflight_cases, preflight_passed FROM runs")" = "b|3|0"

# the same body as text/plain and as text/html: the content type alone differs
spec ctype '' ', --mode, wrong-type' '{ equivalence: strict }' >"$T/ctype.yaml"
"$HARNESS" run "$T/ctype.yaml" --allow-dirty --runs-dir "$RUNS" --run-id ctype >/dev/null 2>"$T/ctype.err"
cmp_num "strict: another content type refuses the run (exit 3)" "$?" == 3
check "the diff names the content types" \
	grep -q '^harness: pre-flight: request get_invoice (GET /invoces/42): a and b differ: content type "text/plain' "$T/ctype.err"

spec same "$A" "$B" '{ sends: 3, equivalence: strict, ignore: [/at] }' >"$T/same.yaml"
expect_exit "check prints the pre-flight plan" 0 "$HARNESS" check "$T/same.yaml"
check "check: requests x sends x implementations, equivalence strict and what it ignores" \
	grep -qx "pre-flight: 1 request x 3 sends x 2 implementations = 6 responses (3 cases), each checked against its expect; equivalence strict (status, content type and body compared across the implementations; ignoring /at); base strict (in a rerun --with-baseline, each commit under test answers as its @base); a failure refuses the run (exit 3)" "$T/out"
expect_exit "check --json: the pre-flight plan" 0 "$HARNESS" check "$T/same.yaml" --json
check "check --json: preflight cases, responses, equivalence" \
	jq -e '.preflight == {"requests": 1, "sends": 3, "implementations": 2, "cases": 3, "responses": 6, "equivalence": "strict", "base": "strict", "ignore": ["/at"], "enforce": true}' "$T/out"
expect_exit "check of the lax spec" 0 "$HARNESS" check "$T/lax.yaml"
check "check: equivalence off, recorded only" \
	grep -q "^pre-flight: 1 request x 1 send x 2 implementations = 2 responses (1 case), each checked against its expect; equivalence off; base strict (in a rerun --with-baseline, each commit under test answers as its @base); recorded only (enforce: false)$" "$T/out"
"$HARNESS" run "$T/same.yaml" --allow-dirty --runs-dir "$RUNS" --run-id same >/dev/null 2>"$T/same.err"
cmp_num "strict with the field ignored runs (exit 0; key order does not matter)" "$?" == 0
check "it says 3 of 3" grep -q "^harness: pre-flight: 3 of 3 cases passed (2 implementations, strict; ignoring /at)$" "$T/same.err"
check "stored 3 of 3" test "$(q same "SELECT preflight_cases, preflight_passed FROM runs")" = "3|3"
"$HARNESS" report same --runs-dir "$RUNS" --format md,json -o "$T/rep" >/dev/null 2>&1
check "the report says 3 of 3" grep -q "Pre-flight .*: 3 of 3 cases passed" "$T/rep/report.md"
check "report.json run.preflight" jq -e '.run.preflight.cases == 3 and .run.preflight.passed == 3' "$T/rep/report.json"
"$HARNESS" status same --runs-dir "$RUNS" --json >"$T/st.json"
check "status --json preflight" jq -e '.preflight.passed == 3 and (.preflight.summary | startswith("3 of 3"))' "$T/st.json"

sed 's|ignore: \[/at\]|ignore: [at]|' "$T/same.yaml" >"$T/badptr.yaml"
expect_exit "check refuses an ignore entry that is no JSON pointer" 2 "$HARNESS" check "$T/badptr.yaml"
check "naming the key" grep -q "workload.preflight.ignore\[0\]: \"at\" is not a JSON pointer" "$T/err"

# ---- resume: a pre-flight that passed is not run again
sed 's/max_rps: 50, reps: 1/max_rps: 50, reps: 2/' "$T/same.yaml" >"$T/resume.yaml"
"$HARNESS" run "$T/resume.yaml" --allow-dirty --runs-dir "$RUNS" --run-id res >/dev/null 2>"$T/res.err" &
hp=$!
for i in $(seq 1 100); do
	[ "$(q res "SELECT COUNT(*) FROM windows WHERE state = 'done'" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
kill -TERM "$hp"; wait "$hp"
cmp_num "interrupted after its pre-flight and a window (exit 1)" "$?" == 1
"$HARNESS" resume res --runs-dir "$RUNS" >/dev/null 2>"$T/res2.err"
cmp_num "the resumed run finishes (exit 0)" "$?" == 0
cmp_num "its pre-flight ran once" "$(q res "SELECT COUNT(*) FROM events WHERE kind = 'preflight'")" == 1
check "resume said nothing of a pre-flight" bash -c "! grep -q pre-flight '$T/res2.err'"

# ---- a templated workload whose run pool holds fewer entries of a request
# than sends: the run repeats its pool, so does the pre-flight (it sent the
# unexpanded template before, '{"id":{n}}', which misses the expect); a
# request in no entry of the pool is never sent by the run: not sent, said.
tspec() {  # tspec NAME B_WEIGHT
	cat <<YAML
version: 1
name: e2e-$1
seed: 7
slo: { percentile: 99, threshold_ms: 50 }
implementations:
$(testsrv_impl a)
workload:
  connections: 4
  pool: 4
  preflight: { sends: 5 }
  vars: { n: { sequence: { start: 10 } } }
  requests:
    - { name: a, weight: 1, method: POST, path: /a, body: '{"id":{n}}', expect: { body_contains: '"id":1' } }
    - { name: b, weight: $2, method: POST, path: /b, body: '{"id":{n}}', expect: { body_contains: '"id":1' } }
$(quick_ladder 1 0)
YAML
}
tspec small 1 >"$T/small.yaml"
"$HARNESS" run "$T/small.yaml" --allow-dirty --runs-dir "$RUNS" --run-id small >/dev/null 2>"$T/small.err"
cmp_num "a pool of 4 and 5 sends of 2 requests: the pre-flight passes (exit 0)" "$?" == 0
check "all 10 cases sent and passed" test "$(q small "SELECT preflight_cases, preflight_passed FROM runs")" = "10|10"
tspec rare 1000000 >"$T/rare.yaml"
"$HARNESS" run "$T/rare.yaml" --allow-dirty --runs-dir "$RUNS" --run-id rare >/dev/null 2>"$T/rare.err"
cmp_num "a request the pool never holds: the pre-flight passes (exit 0)" "$?" == 0
check "only the other request's 5 cases" test "$(q rare "SELECT preflight_cases, preflight_passed FROM runs")" = "5|5"
"$HARNESS" status rare --runs-dir "$RUNS" >"$T/rare.st" 2>&1
check "status says it was not sent" grep -q "1 request never in the run's pool, not sent" "$T/rare.st"

# ---- a templated expect (issue 28, item 6): expect.json values take the
# request's own variables. testsrv echoes the body, so {"id":N} comes back
# with the N sent: the pre-flight passes and the window's responses (the
# engine expands the expect per response) are all expected; a server that
# answers one fixed id is refused, naming the field, the value and the id.
xspec() {  # xspec NAME A_FLAGS
	cat <<YAML
version: 1
name: e2e-$1
seed: 7
slo: { percentile: 99, threshold_ms: 50 }
implementations:
$(testsrv_impl a "$2")
workload:
  connections: 4
  preflight: { sends: 3 }
  vars: { n: { sequence: { start: 10 } } }
  requests:
    - { name: echo, method: POST, path: /e, body: '{"id":{n}}', expect: { json: { /id: "{n}" } } }
$(quick_ladder 1 0)
YAML
}
xspec xok '' >"$T/xok.yaml"
"$HARNESS" run "$T/xok.yaml" --allow-dirty --runs-dir "$RUNS" --run-id xok >/dev/null 2>"$T/xok.err"
cmp_num "a templated expect against an echoing server: the run passes (exit 0)" "$?" == 0
check "3 of 3 pre-flight cases passed" test "$(q xok "SELECT preflight_cases, preflight_passed FROM runs")" = "3|3"
check "the window's responses were all expected (the engine expanded it too)" \
	test "$(q xok "SELECT SUM(completed) > 0, SUM(err_unexpected) FROM windows WHERE state = 'done'")" = "1|0"
xspec xbad ', --reply, "{\"id\": 3}"' >"$T/xbad.yaml"
"$HARNESS" run "$T/xbad.yaml" --allow-dirty --runs-dir "$RUNS" --run-id xbad >/dev/null 2>"$T/xbad.err"
cmp_num "a server answering another id is refused (exit 3)" "$?" == 3
check "naming the field, what came and the id sent" grep -q '/id is 3, expected 10' "$T/xbad.err"
