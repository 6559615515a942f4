#!/bin/bash
# timing-free: the runs listing
# runs: the list of runs, text and JSON, over fixture run databases; a run
# stored running reads running while a process holds its .lock (flock,
# held here by this shell) and abandoned once none does, in runs,
# status, compare and the report alike.
. "$(dirname "$0")/../lib.sh"

R=$T/runs
"$HELPERS/compare_fixture" "$R" ||
	{ fail "fixture generator"; exit 0; }
mkdir -p "$R/broken" "$R/not-a-run"
echo "not sqlite" >"$R/broken/run.db"

expect_exit "text list" 0 "$HARNESS" runs --runs-dir "$R"
n=$(grep -c '^compare_' "$T/out")
[ "$n" -eq 4 ] && ok "four fixture runs listed" || fail "listed $n runs: $(cat "$T/out")"
grep -q '^compare_slow .* cmp .* 2023-11-14 22:13:20 finished .*a=cccccccccccc b=bbbbbbbbbbbb' \
	"$T/out" && ok "id, spec, date, status, commits" || fail "row: $(grep slow "$T/out")"
grep -q '^broken .*unreadable' "$T/out" && ok "unreadable database listed as such" ||
	fail "broken run: $(grep broken "$T/out")"
grep -q 'not-a-run' "$T/out" && fail "a directory without run.db was listed" ||
	ok "directories without run.db skipped"

expect_exit "json list" 0 "$HARNESS" runs --runs-dir "$R" --json
[ "$(jq 'length' "$T/out")" = 5 ] && ok "json: 5 entries" || fail "json length $(jq length "$T/out")"
c=$(jq -r '.[] | select(.id=="compare_slow") | .impls[] | select(.name=="a") | .commit' "$T/out")
[ "$c" = cccccccccccccccccccccccccccccccccccccccc ] && ok "json: full commit" || fail "commit '$c'"
[ "$(jq -r '.[] | select(.id=="compare_slow") | .impls[0].ref_asked' "$T/out")" = slow ] &&
	ok "json: ref asked" || fail "ref_asked"

expect_exit "missing --runs-dir" 2 "$HARNESS" runs --runs-dir "$T/nope"
mkdir -p "$T/empty"
(cd "$T/empty" && env -u HARNESS_RUNS_DIR "$HARNESS" runs >"$T/out" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q 'no runs' "$T/out" && ok "no default runs dir yet: 'no runs', exit 0" ||
	fail "default dir: rc $rc $(cat "$T/out")"

# A run stored running: alive while its lock is held, abandoned after.
cp -r "$R/compare_slow" "$R/live"
sqlite3 "$R/live/run.db" "UPDATE runs SET id = 'live', status = 'running', failure = NULL" ||
	fail "fixture: cannot mark a run running"
sqlite3 "$R/live/run.db" "UPDATE impls SET run_id = 'live'" 2>/dev/null
st() { "$HARNESS" status live --runs-dir "$R" --json 2>/dev/null | jq -r '.status + "|" + (.failure // "")'; }
rs() { "$HARNESS" runs --runs-dir "$R" --json 2>/dev/null | jq -r '.[] | select(.id == "live") | .status'; }
case "$(st)" in "abandoned|its process is gone: nothing holds $R/live/.lock;"*) [ "$(rs)" = abandoned ];; *) false;; esac &&
	ok "no lock file: abandoned in status and runs, with the evidence" ||
	fail "no lock: status '$(st)', runs '$(rs)'"
exec 9>"$R/live/.lock"
flock -x 9
[ "$(st)/$(rs)" = "running|/running" ] && ok "its lock held (by this shell): running in status and runs" ||
	fail "lock held: status '$(st)', runs '$(rs)'"
expect_exit "resume refuses while the lock is held" 2 "$HARNESS" resume live --runs-dir "$R"
grep -q "another harness process is using this run" "$T/err" && ok "... saying another process has it" ||
	fail "resume while held: $(cat "$T/err")"
cr() { "$HARNESS" compare compare_slow live --runs-dir "$R" --format json 2>/dev/null |
	jq -r '.new_status + "|" + (.new_failure // "")'; }
rp() { "$HARNESS" report live --runs-dir "$R" --format json -o "$T/rep" >/dev/null 2>&1
	jq -r '.run.status + "|" + (.run.failure // "")' "$T/rep/report.json"; }
[ "$(cr)/$(rp)" = "running|/running|" ] && ok "its lock held: running in compare and report too" ||
	fail "lock held: compare '$(cr)', report '$(rp)'"
exec 9>&-
# compare and the report say what status and runs say (issue 25: they
# showed a dead run as running)
case "$(cr)" in "abandoned|its process is gone: nothing holds $R/live/.lock;"*) true;; *) false;; esac &&
	ok "its lock released: compare (json) reads the new run abandoned, with the evidence" ||
	fail "compare of an abandoned run: '$(cr)'"
"$HARNESS" compare compare_slow live --runs-dir "$R" >"$T/cmp.md" 2>&1
grep -q "live.*abandoned" "$T/cmp.md" && ok "compare (text) says abandoned" ||
	fail "compare text: $(grep -m2 live "$T/cmp.md")"
case "$(rp)" in "abandoned|its process is gone: nothing holds $R/live/.lock;"*) true;; *) false;; esac &&
	ok "its lock released: the report (json) reads abandoned, with the evidence" ||
	fail "report of an abandoned run: '$(rp)'"
"$HARNESS" report live --runs-dir "$R" --format md -o "$T/rep" >/dev/null 2>&1
grep -q "abandoned: its process is gone" "$T/rep/report.md" && ok "the report (md) says abandoned with the evidence" ||
	fail "report md: $(grep -m2 -i 'running\|abandoned' "$T/rep/report.md")"
[ "$(st | cut -d'|' -f1)/$(rs)" = "abandoned/abandoned" ] && ok "its lock released (the process gone): abandoned" ||
	fail "lock released: status '$(st)', runs '$(rs)'"
"$HARNESS" runs --runs-dir "$R" 2>/dev/null | grep -q "^live .* abandoned .*\[its process is gone: nothing holds $R/live/.lock" &&
	ok "runs (text): abandoned, the evidence in brackets" || fail "runs text: $("$HARNESS" runs --runs-dir "$R" 2>&1 | grep '^live')"
expect_exit "status of an abandoned run: exit 1 (unfinished)" 1 "$HARNESS" status live --runs-dir "$R"
grep -q "^run live: abandoned (its process is gone" "$T/out" && ok "status (text): abandoned with the evidence" ||
	fail "status text: $(head -1 "$T/out")"
