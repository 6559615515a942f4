#!/bin/bash
# timing-free: the runs listing
# runs: the list of runs, text and JSON, over fixture run databases.
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
