#!/usr/bin/env bash
# timing-free: exit codes and messages on a corrupted database
# A damaged run database (issue 16, robustness): two finished tiny runs
# (one implementation, testsrv on 127.0.0.1, 2 ladder windows of 1 s each),
# then two 4096-byte pages of one run's run.db overwritten (the windows
# table's root page and the page in the middle of the file, after a WAL
# checkpoint). Every command that reads the windows of that run must exit
# 2 with exactly one line on stderr and print nothing that looks like an
# answer: an error is never "no rows". `runs` reads only the runs and impls
# rows: it lists every run and exits 0, with at most one error line.
# Then a stored spec of zero bytes (spec_text = x''): compare, audit
# --recheck and resume exit 2 with one line (no libyaml assertion).
. "$(dirname "$0")/../lib.sh"

RUNS="$T/runs"
cat > "$T/tiny.yaml" <<YAML
version: 1
name: e2e-corrupt
seed: 5
slo: { percentile: 99, threshold_ms: 50, error_rate_max: 0.01 }
implementations:
  - name: solo
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: never
workload:
  connections: 4
  timeout_ms: 2000
  requests:
    - { name: root, path: / }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 200, reps: 1, window_s: 1, discard_s: 0 }
warmup:
  rate: { fixed_rps: 50 }
  min_s: 1
  max_s: 1
  trailing_s: 1
  gates: [hot_set_touched]
window_gates: [sut_alive]
YAML

for id in bad good; do
	"$HARNESS" run "$T/tiny.yaml" --allow-dirty --runs-dir "$RUNS" --run-id $id \
		>"$T/run.out" 2>"$T/run.err"
	rc=$?
	cmp_num "tiny run $id exits 0 ($(tail -n 1 "$T/run.err"))" "$rc" "==" 0
done
cp -r "$RUNS/good" "$RUNS/empty"

DB=$RUNS/bad/run.db
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE); UPDATE runs SET status = 'interrupted';
	PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
root=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_master WHERE name = 'windows'")
pages=$(( $(stat -c %s "$DB") / 4096 ))
mid=$(( pages / 2 + 1 ))
[ "$mid" -eq "$root" ] && mid=$(( mid + 1 ))
check "run.db has pages to spare ($pages pages, windows at $root, middle $mid)" \
	test "$pages" -ge 4 -a "$root" -gt 1 -a "$mid" -le "$pages"
# 0xff over a whole page: an invalid b-tree page type, deterministic.
for pg in "$root" "$mid"; do
	head -c 4096 /dev/zero | tr '\0' '\377' |
		dd of="$DB" bs=4096 seek=$(( pg - 1 )) count=1 conv=notrunc 2>/dev/null
done
rm -f "$DB-wal" "$DB-shm"

# damaged "what" command...: exit 2, one stderr line, no answer on stdout.
damaged() {
	local what=$1; shift
	"$@" >"$T/out" 2>"$T/err"; local rc=$? n
	n=$(wc -l <"$T/err")
	if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && ! grep -qiE 'finished|accepted|verdict|regression|report' "$T/out"; then
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
if "$HARNESS" knee --help 2>/dev/null | grep -q 'RUN'; then
	damaged "knee RUN" "$HARNESS" knee bad --runs-dir "$RUNS"
fi
"$HARNESS" runs --runs-dir "$RUNS" >"$T/out" 2>"$T/err"; rc=$?
n=$(wc -l <"$T/err")
if [ "$rc" -eq 0 ] && [ "$n" -le 1 ] && grep -q '^good ' "$T/out" && grep -q '^bad ' "$T/out"; then
	ok "runs lists every run, exit 0, at most one error line ($n)"
else
	fail "runs: exit $rc, $n stderr lines: $(head -c 300 "$T/err")"
fi

# ------------------------------------------------ a zero-length stored spec
sqlite3 "$RUNS/empty/run.db" "UPDATE runs SET spec_text = x'', status = 'interrupted'"
damaged "empty spec: compare" "$HARNESS" compare good empty --runs-dir "$RUNS"
damaged "empty spec: compare" "$HARNESS" compare good empty --runs-dir "$RUNS"
damaged "empty spec: audit --recheck" "$HARNESS" audit empty --runs-dir "$RUNS" --recheck
damaged "empty spec: resume" "$HARNESS" resume empty --runs-dir "$RUNS"
if grep -q 'spec' "$T/err"; then ok "empty spec: the message says the spec"; else
	fail "empty spec: message: $(cat "$T/err")"; fi

# ------------------------------------------- a database that holds no run
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
