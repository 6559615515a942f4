#!/usr/bin/env bash
# timing-free: audit --recheck of stored runs
# audit --recheck on a run judged by older rules (runs.rules NULL: recorded
# before schema 10, when error_rate counted transport errors, 5xx and drops
# over requests answered and a window was only accepted or rejected). A
# difference in error_rate's verdict or a window's status there is a rule
# change, described and counted apart, not a mismatch (exit 0); any other
# gate that disagrees with its stored data is still a mismatch (exit 1), and
# on a run judged by today's rules every difference is one.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
tiny_spec e2e-recheck-rules "error_rate, sut_alive" >"$T/tiny.yaml"

"$HARNESS" run "$T/tiny.yaml" --allow-dirty --runs-dir "$RUNS" --run-id r >"$T/run.out" 2>"$T/run.err"
cmp_num "tiny run exits 0 ($(tail -n 1 "$T/run.err"))" "$?" "==" 0
DB=$RUNS/r/run.db
q() { sqlite3 "$DB" "$1"; }
cmp_num "a new run records the rules it was judged by" "$(q "SELECT rules FROM runs")" "==" 2

recheck() { # expected exit, label
	"$HARNESS" audit r --runs-dir "$RUNS" --recheck --json >"$T/a.json" 2>"$T/a.err"
	cmp_num "$2: exit" "$?" "==" "$1"
}
recheck 0 "untouched run"
cmp_num "untouched run: no mismatch" "$(jq '.recheck.mismatches' "$T/a.json")" "==" 0

# A window missing a verdict the run stored for its other windows is a
# mismatch (fail closed): the row was lost, not judged. A gate the run
# stored for no window (newer than the run, as acct_span for a run before
# schema 20) is skipped. On copies of the untouched run.
cp -r "$RUNS/r" "$RUNS/gap" && cp -r "$RUNS/r" "$RUNS/none"
sqlite3 "$RUNS/gap/run.db" "DELETE FROM gate_results WHERE window_id = 2 AND gate = 'sut_alive' AND phase = 'window'"
"$HARNESS" audit "$RUNS/gap" --recheck --json >"$T/gap.json" 2>"$T/gap.err"
cmp_num "one window's sut_alive row deleted: exit 1" "$?" "==" 1
check "the mismatch names window 2, sut_alive, nothing stored" jq -e \
	'.recheck.mismatches == 1 and ([.recheck.details[] | select(.window == 2 and .gate == "sut_alive" and .stored == null)] | length == 1)' \
	"$T/gap.json"
"$HARNESS" audit "$RUNS/gap" --recheck >"$T/gap.txt" 2>&1
cmp_num "one window's row deleted, text: exit 1" "$?" "==" 1
check "the text says the verdict is missing" grep -q "window 2 window sut_alive: stored nothing" "$T/gap.txt"
sqlite3 "$RUNS/none/run.db" "DELETE FROM gate_results WHERE gate = 'sut_alive' AND phase = 'window'"
"$HARNESS" audit "$RUNS/none" --recheck --json >"$T/none.json" 2>&1
cmp_num "a gate stored for no window is skipped: exit 0" "$?" "==" 0
rm -rf "$RUNS/gap" "$RUNS/none"

# The stored error_rate statistic of window 1 as an older rule would have
# left it: 0.5 where today's rule computes 0 (the verdict flips too).
q "UPDATE gate_results SET statistic = 0.5, status = 'fail' WHERE window_id = 1 AND gate = 'error_rate' AND phase = 'window';
   UPDATE windows SET status = 'rejected', reasons = 'error_rate' WHERE id = 1;"
recheck 1 "today's rules, error_rate differs"
cmp_num "today's rules: the error_rate gate and the status are mismatches" \
	"$(jq '.recheck.mismatches' "$T/a.json")" "==" 2
cmp_num "today's rules: no rule change" "$(jq '.recheck.rule_changes' "$T/a.json")" "==" 0

q "UPDATE runs SET rules = NULL"
recheck 0 "older rules, error_rate differs"
cmp_num "older rules: no mismatch" "$(jq '.recheck.mismatches' "$T/a.json")" "==" 0
cmp_num "older rules: gate and status counted as rule changes" \
	"$(jq '.recheck.rule_changes' "$T/a.json")" "==" 2
check "older rules: each detail says so" \
	jq -e '[.recheck.details[] | .rule_changed] | length == 2 and all' "$T/a.json"
"$HARNESS" audit r --runs-dir "$RUNS" --recheck >"$T/a.txt" 2>&1
check "older rules: the text names the rule change" grep -q "rule changes, not drift" "$T/a.txt"

# Another gate's stored verdict that its data does not support is drift,
# whatever rules the run was judged by.
q "UPDATE gate_results SET status = 'fail', statistic = 1 WHERE window_id = 2 AND gate = 'sut_alive' AND phase = 'window'"
recheck 1 "older rules, sut_alive differs"
cmp_num "older rules: sut_alive is a mismatch" "$(jq '.recheck.mismatches' "$T/a.json")" "==" 1
