#!/usr/bin/env bash
# release-only: under make asan recheck_rules.sh, agent_run.sh and deps_headroom.sh reach its code but 8 lines (runner_stages.c 3, cmd_check.c 2, cmd_status.c 2), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# One implementation is a valid spec (issue 11, item 6): `check` accepts it,
# a tiny full run (ladder + confirm, 2 s windows at 100..400 req/s against
# testsrv on 127.0.0.1) finishes with exit 0, `status` exits 0, and every
# report format is written with the implementation's knee and without the
# ratio table (it needs two arms). Bounded: 3 rungs x 2 reps + confirm
# 2 rates x 2 reps, each window 1 s without a warm-up (lib.sh no_warmup;
# 1 s of warm-up each before: 21 s): about 12 s (the discard second is
# head.sh's subject, not this one's; the warm-up gates http2.sh's,
# expect.sh's and run.sh's).
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
cat > "$T/one.yaml" <<YAML
version: 1
name: e2e-one
seed: 11
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
$(testsrv_impl solo ', --delay-ms, "1"')
$(root_workload 8)
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 400, reps: 2, window_s: 1, discard_s: 0 }
  confirm: { reps: 2, window_s: 1, discard_s: 0 }
$(no_warmup)
gates:
  achieved_vs_offered: { tolerance_pct: 25 }
window_gates: [error_rate, achieved_vs_offered, sut_alive]
YAML

expect_exit "check accepts one implementation" 0 "$HARNESS" check "$T/one.yaml"
check "check counts windows for 1 implementation" grep -q "3 rungs x 2 reps x 1 implementation;" "$T/out"

"$HARNESS" run "$T/one.yaml" --allow-dirty --runs-dir "$RUNS" --run-id one >"$T/run.out" 2>"$T/run.err"
rc=$?
cmp_num "run of one implementation exits 0 (stderr: $(tail -n 3 "$T/run.err" | tr '\n' ' '))" "$rc" "==" 0
q() { sqlite3 "$RUNS/one/run.db" "$1"; }
cmp_num "ladder: 3 rungs x 2 reps x 1 arm (pre-registered; replacements on top)" "$(q "SELECT COUNT(*) FROM windows WHERE stage='ladder' AND replaces IS NULL")" "==" 6
cmp_num "confirm ran (2 reps at 1..2 rates)" "$(q "SELECT COUNT(*) FROM windows WHERE stage='confirm'")" ">=" 2
cmp_num "every window done" "$(q "SELECT COUNT(*) FROM windows WHERE state != 'done'")" "==" 0
# 100..400 req/s at 1 ms per request, 8 connections: far below testsrv's
# capacity, so every window passes its gates unless the VM stalls for
# most of a 1 s measured window; at least 4 of 6 is what that allows.
cmp_num "ladder windows accepted" "$(q "SELECT COUNT(*) FROM windows WHERE stage='ladder' AND status='accepted'")" ">=" 4
expect_exit "status of the finished run exits 0" 0 "$HARNESS" status one --runs-dir "$RUNS"
# The run's last word on its quality: counts by status that add up to the
# windows done, and the load average at its start and end.
line=$(grep "^harness: one run quality: " "$T/run.err")
nw=$(q "SELECT COUNT(*) FROM windows WHERE state = 'done'")
na=$(q "SELECT COUNT(*) FROM windows WHERE status = 'accepted'")
nr=$(q "SELECT COUNT(*) FROM windows WHERE status = 'rejected'")
if [[ "$line" =~ ^harness:\ one\ run\ quality:\ ([0-9]+)\ windows:\ ([0-9]+)\ accepted,\ 0\ failed,\ ([0-9]+)\ rejected.*\;\ load\ [0-9.]+\ -\>\ [0-9.]+$ ]] &&
   [ "${BASH_REMATCH[1]}" = "$nw" ] && [ "${BASH_REMATCH[2]}" = "$na" ] && [ "${BASH_REMATCH[3]}" = "$nr" ]; then
	ok "run quality line: $line"
else
	fail "run quality line: '$line' (windows $nw, accepted $na, rejected $nr)"
fi
# Progress on a non-terminal stderr (issue 15): one line per finished
# window, stamped, naming the implementation and the rate, "window N of M"
# with N <= M, the ETA in seconds or minutes and seconds. Issue 29: "of M
# planned (+R replacements at most)" (M the pre-registered windows, never
# the worst case with replacements), an ETA that never rises.
# Once replacements ran: "window N of M (P planned + R replacements; +X
# more at most)", M = P + R.
grep -E '^harness: [0-9-]{10}T[0-9:]{8}Z (ladder|confirm|refine) rung -?[0-9]+ \([0-9]+ req/s\) solo: window [0-9]+ of [0-9]+ (planned( \(\+[0-9]+ replacements? at most\))?|\([0-9]+ planned \+ [0-9]+ replacements?; \+[0-9]+ more at most\)): ' \
	"$T/run.err" >"$T/progress"
cmp_num "a progress line per finished window" "$(wc -l <"$T/progress")" "==" "$nw"
bad=$(sed -E 's/.*window ([0-9]+) of ([0-9]+) .*/\1 \2/' "$T/progress" | awk '$1 > $2' | wc -l)
cmp_num "never window N of M with N > M" "$bad" "==" 0
bad=$(grep -E 'of [0-9]+ \([0-9]+ planned \+ ' "$T/progress" |
	sed -E 's/.*window [0-9]+ of ([0-9]+) \(([0-9]+) planned \+ ([0-9]+) .*/\1 \2 \3/' | awk '$1 != $2 + $3' | wc -l)
cmp_num "M = P planned + R replacements run" "$bad" "==" 0
check "ETA in seconds or minutes and seconds, never whole minutes" \
	grep -qE 'ETA ([0-9]+ s|[0-9]+m [0-9]{2}s|[0-9]+h [0-9]{2}m)\)$' "$T/progress"
rises=$(sed -E 's/.*ETA (([0-9]+)h )?(([0-9]+)m )?([0-9]+) ?s?\)$/\2 \4 \5/; s/.*ETA ([0-9]+)h ([0-9]+)m\)$/\1 \2 0/' "$T/progress" |
	awk '{ t = $1 * 3600 + $2 * 60 + $3; if (NR > 1 && t > p) r++; p = t } END { print r + 0 }')
cmp_num "the ETA never rises from one window to the next" "$rises" "==" 0
last_m=$(tail -n 1 "$T/progress" | sed -E 's/.*window [0-9]+ of ([0-9]+) planned( \+ ([0-9]+))?.*/\1 \3/' |
	awk '{ print $1 + $2 }')
cmp_num "the last line's planned count and replacements are the windows the run did (the ladder stopped past the knee)" \
	"$last_m" "==" "$nw"
check "the end load is recorded as a host fact" test -n "$(q "SELECT value FROM host_facts WHERE key = 'loadavg_1m_end'")"

R=$RUNS/one/report
for f in report.md report.html report.json windows.csv; do
	check "report writes $f" test -s "$R/$f"
done
check "report.json: one implementation with its knee" \
	jq -e '(.impls | length) == 1 and .impls[0].name == "solo" and (.impls[0].knee | type) == "object"' "$R/report.json"
check "report.json: no ratios between arms" jq -e '(.ratios // []) | length == 0' "$R/report.json"
check "report.md names the implementation's knee" grep -q "solo" "$R/report.md"
expect_exit "audit --recheck of the one-arm run" 0 "$HARNESS" audit one --runs-dir "$RUNS" --recheck
# The arm's CPU wait per window (schema 19, account_wait.c; evidence, no
# gate): read for every done window, in windows.csv and in audit.
cmp_num "every done window has the arm's CPU wait (cpu_wait_s >= 0)" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND NOT (cpu_wait_s >= 0)")" "==" 0
check "windows.csv: the cpu_wait_s column" grep -q ",cpu_us_per_request,cpu_wait_s,anon_p99_bytes," "$R/windows.csv"
wid=$(q "SELECT MIN(id) FROM windows WHERE state = 'done'")
"$HARNESS" audit one --runs-dir "$RUNS" --window "$wid" >"$T/audit.txt" 2>&1
check "audit --window: the CPU used and the wait for one" \
	grep -qE '^  CPU [0-9]+ ms used, [0-9]+ ms waiting for one \(its threads. run-queue delay\)$' "$T/audit.txt"
check "audit --json: cpu_wait_s of the window" \
	jq -e "(.windows[0].cpu_wait_s - $(q "SELECT cpu_wait_s FROM windows WHERE id = $wid") | fabs) < 1e-9" \
	<("$HARNESS" audit one --runs-dir "$RUNS" --window "$wid" --json)
"$HARNESS" audit one --runs-dir "$RUNS" >"$T/audit_all.txt" 2>&1
check "audit: the CPU wait per implementation (median, max)" \
	grep -qE "^  solo +accepted +$na windows: median [0-9]+ ms, max [0-9]+ ms$" "$T/audit_all.txt"
