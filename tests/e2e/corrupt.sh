#!/usr/bin/env bash
# timing-free: exit codes and messages on a corrupted database
# A damaged run database (issue 16, robustness): two finished tiny runs
# (one implementation, testsrv on 127.0.0.1, 2 ladder windows of 1 s each),
# then two 4096-byte pages of one run's run.db overwritten (the windows
# table's root page and the page of data nearest the middle, after a WAL
# checkpoint). Every command that reads that run (status, audit, report in
# each format, compare in each format and with --junit, knee RUN, history,
# resume, rerun --with-baseline) must exit 2 with exactly one line on
# stderr saying so and print nothing that looks like an answer: an error
# is never "no rows". A second copy (bad2) has two pages damaged that none
# of those commands queries (rtstats, acct_samples): the same, since the
# database is checked whole (store_check) before a command reads a run.
# `runs` reads only the runs and impls rows: it lists every run and exits
# 0, with at most one error line.
# Then a stored spec of zero bytes (spec_text = x''): compare, audit
# --recheck, knee RUN, rerun and resume exit 2 with one line (no libyaml
# assertion); report writes its report with default rules and a warning
# (report --help), status and audit do not read the spec.
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
tiny_spec e2e-corrupt "sut_alive" >"$T/tiny.yaml"

for id in bad good; do
	"$HARNESS" run "$T/tiny.yaml" --allow-dirty --runs-dir "$RUNS" --run-id $id \
		>"$T/run.out" 2>"$T/run.err"
	rc=$?
	cmp_num "tiny run $id exits 0 ($(tail -n 1 "$T/run.err"))" "$rc" "==" 0
done
cp -r "$RUNS/good" "$RUNS/empty"
cp -r "$RUNS/good" "$RUNS/bad2"

DB=$RUNS/bad/run.db
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE); UPDATE runs SET status = 'interrupted';
	PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
root=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_master WHERE name = 'windows'")
pages=$(( $(stat -c %s "$DB") / 4096 ))
# The page nearest the middle that holds neither the schema (it spans
# several pages since schema 12) nor the runs and impls rows `runs` reads:
# damage there and the run's spec cannot be known, which is another case
# (an unreadable run directory, left out by history with its name).
mid=$(sqlite3 "$DB" "SELECT pageno FROM dbstat WHERE pageno <> $root AND name NOT IN
	('sqlite_schema', 'sqlite_master', 'runs', 'impls', 'sqlite_autoindex_runs_1',
	 'sqlite_autoindex_impls_1') ORDER BY abs(pageno - ($pages / 2 + 1)) LIMIT 1")
check "run.db has pages to spare ($pages pages, windows at $root, middle $mid)" \
	test "$pages" -ge 4 -a "$root" -gt 1 -a "$mid" -le "$pages"
# 0xff over a whole page: an invalid b-tree page type, deterministic.
for pg in "$root" "$mid"; do
	head -c 4096 /dev/zero | tr '\0' '\377' |
		dd of="$DB" bs=4096 seek=$(( pg - 1 )) count=1 conv=notrunc 2>/dev/null
done
rm -f "$DB-wal" "$DB-shm"
# bad2: two pages of tables that status, knee and compare never query (the
# request counters' and the accounting samples' root pages): the database
# is checked whole before anything is read from it (store_check).
DB2=$RUNS/bad2/run.db
sqlite3 "$DB2" "PRAGMA wal_checkpoint(TRUNCATE); UPDATE runs SET status = 'interrupted';
	PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
p1=$(sqlite3 "$DB2" "SELECT rootpage FROM sqlite_master WHERE name = 'rtstats'")
p2=$(sqlite3 "$DB2" "SELECT rootpage FROM sqlite_master WHERE name = 'acct_samples'")
check "bad2 has its own pages to damage ($p1, $p2)" test "${p1:-0}" -gt 1 -a "${p2:-0}" -gt 1
for pg in "$p1" "$p2"; do
	head -c 4096 /dev/zero | tr '\0' '\377' |
		dd of="$DB2" bs=4096 seek=$(( pg - 1 )) count=1 conv=notrunc 2>/dev/null
done
rm -f "$DB2-wal" "$DB2-shm"

# damaged "what" command...: exit 2, one stderr line (saying $WHY), no
# answer on stdout.
WHY=malformed
damaged() {
	local what=$1; shift
	"$@" >"$T/out" 2>"$T/err"; local rc=$? n
	n=$(wc -l <"$T/err")
	if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && grep -q "$WHY" "$T/err" &&
		! grep -qiE 'finished|accepted|verdict|regression|report' "$T/out"; then
		ok "$what: exit 2, one line ($(cut -c 1-90 "$T/err"))"
	else
		fail "$what: exit $rc, $n stderr lines, want 2 and 1: $(head -c 400 "$T/err") / stdout: $(head -c 200 "$T/out")"
	fi
}

damaged "status" "$HARNESS" status bad --runs-dir "$RUNS"
damaged "status --json" "$HARNESS" status bad --runs-dir "$RUNS" --json
damaged "audit" "$HARNESS" audit bad --runs-dir "$RUNS"
damaged "audit --recheck" "$HARNESS" audit bad --runs-dir "$RUNS" --recheck
damaged "audit --recheck --json" "$HARNESS" audit bad --runs-dir "$RUNS" --recheck --json
damaged "report" "$HARNESS" report bad --runs-dir "$RUNS" -o "$T/rep"
check "report wrote no file" test ! -e "$T/rep/report.md"
damaged "compare BASE=damaged" "$HARNESS" compare bad good --runs-dir "$RUNS"
damaged "compare NEW=damaged" "$HARNESS" compare good bad --runs-dir "$RUNS"
damaged "resume" "$HARNESS" resume bad --runs-dir "$RUNS"
for f in md html json csv hgrm; do
	damaged "report --format $f" "$HARNESS" report bad --runs-dir "$RUNS" -o "$T/rep-$f" --format $f
done
check "report --format ... wrote no file" test -z "$(ls -A "$T"/rep-* 2>/dev/null)"
for f in md json html png; do
	damaged "compare --format $f (NEW damaged)" "$HARNESS" compare good bad --runs-dir "$RUNS" --format $f
	damaged "compare --format $f (BASE damaged)" "$HARNESS" compare bad good --runs-dir "$RUNS" --format $f
done
damaged "compare --junit" "$HARNESS" compare good bad --runs-dir "$RUNS" --junit "$T/j.xml"
check "compare --junit wrote no file" test ! -e "$T/j.xml"
damaged "compare bad bad" "$HARNESS" compare bad bad --runs-dir "$RUNS"
damaged "knee RUN" "$HARNESS" knee bad --runs-dir "$RUNS"
damaged "knee RUN --json" "$HARNESS" knee bad --runs-dir "$RUNS" --json
for f in md json html; do
	damaged "history --format $f" "$HARNESS" history --spec e2e-corrupt --runs-dir "$RUNS" --format $f
done
damaged "rerun --with-baseline" "$HARNESS" rerun bad --impl "solo=$T/nowhere" --with-baseline --runs-dir "$RUNS" --run-id rr
check "rerun made no run" test ! -e "$RUNS/rr"

# bad2: every command that reads the run refuses it, whatever it queries
for c in "status bad2" "status bad2 --json" "audit bad2" "audit bad2 --recheck" \
	"report bad2 -o $T/rep3" "compare good bad2" "compare bad2 good" "compare bad2 bad2" \
	"knee bad2" "resume bad2" "rerun bad2 --impl solo=$T/nowhere --with-baseline --run-id rr2"; do
	# shellcheck disable=SC2086
	damaged "two other pages: $(echo "$c" | sed 's/ bad2//g; s/ -o .*//; s/ --impl [^ ]*//; s/ --run-id .*//')" \
		"$HARNESS" $c --runs-dir "$RUNS"
done
mv "$RUNS/bad" "$T/bad.aside"
damaged "two other pages: history" "$HARNESS" history --spec e2e-corrupt --runs-dir "$RUNS"
mv "$T/bad.aside" "$RUNS/bad"
"$HARNESS" runs --runs-dir "$RUNS" >"$T/out" 2>"$T/err"; rc=$?
n=$(wc -l <"$T/err")
if [ "$rc" -eq 0 ] && [ "$n" -le 1 ] && grep -q '^good ' "$T/out" && grep -q '^bad ' "$T/out"; then
	ok "runs lists every run, exit 0, at most one error line ($n)"
else
	fail "runs: exit $rc, $n stderr lines: $(head -c 300 "$T/err")"
fi

# ------------------------------------------------ a zero-length stored spec
WHY=spec
sqlite3 "$RUNS/empty/run.db" "UPDATE runs SET spec_text = x'', status = 'interrupted'"
damaged "empty spec: compare NEW=empty" "$HARNESS" compare good empty --runs-dir "$RUNS"
damaged "empty spec: compare BASE=empty" "$HARNESS" compare empty good --runs-dir "$RUNS"
damaged "empty spec: audit --recheck" "$HARNESS" audit empty --runs-dir "$RUNS" --recheck
damaged "empty spec: knee RUN" "$HARNESS" knee empty --runs-dir "$RUNS"
damaged "empty spec: rerun" "$HARNESS" rerun empty --impl "solo=$T/nowhere" --runs-dir "$RUNS" --run-id rr3
damaged "empty spec: resume" "$HARNESS" resume empty --runs-dir "$RUNS"
if grep -q 'spec' "$T/err"; then ok "empty spec: the message says the spec"; else
	fail "empty spec: message: $(cat "$T/err")"; fi

# ------------------------------------------- a database that holds no run
WHY='holds no run'
# (the connection is closed on that path: the ASan build checks the leak)
cp -r "$RUNS/good" "$RUNS/norun"
sqlite3 "$RUNS/norun/run.db" "DELETE FROM runs"
damaged "no run: status" "$HARNESS" status norun --runs-dir "$RUNS"
if grep -q 'holds no run' "$T/err"; then ok "no run: says so"; else
	fail "no run: message: $(cat "$T/err")"; fi
damaged "no run: report" "$HARNESS" report norun --runs-dir "$RUNS" -o "$T/rep2"
damaged "no run: resume" "$HARNESS" resume norun --runs-dir "$RUNS"

# ---------------------------------- a run that fails at start keeps no window running
sed -e "s|start: \[.*\]|start: [/bin/false]|" -e 's/timeout_s: 10/timeout_s: 2/' \
	"$T/tiny.yaml" >"$T/dead.yaml"
"$HARNESS" run "$T/dead.yaml" --allow-dirty --runs-dir "$RUNS" --run-id dead >/dev/null 2>"$T/err"
rc=$?
cmp_num "a run whose implementation never comes up exits 3 ($(tail -n 1 "$T/err"))" "$rc" "==" 3
cmp_num "and leaves no window running" \
	"$(sqlite3 "$RUNS/dead/run.db" "SELECT COUNT(*) FROM windows WHERE state = 'running'")" "==" 0
