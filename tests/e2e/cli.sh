#!/bin/bash
# timing-free: help texts, refusals and exit codes
# cli: the one front door (issue 15, item 7). Every subcommand's --help is
# generated from its option table, a bad flag is one line and exit 2, every
# option the help lists is one the parser knows, RUN accepts `latest`, and
# the fixed friction stays fixed. Fixture run databases, no servers: ~2 s.
. "$(dirname "$0")/../lib.sh"

cmds=$("$HARNESS" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$cmds" | wc -w)" -ge 13 ] && ok "--help lists $(echo "$cmds" | wc -w) commands" ||
	fail "commands: $cmds"

for c in $cmds; do
	"$HARNESS" "$c" --help >"$T/help" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && head -1 "$T/help" | grep -q "^usage: harness $c " &&
		grep -q '^options:$' "$T/help" && grep -q '^  -h, --help  *this text$' "$T/help" &&
		[ ! -s "$T/err" ]; then
		ok "$c --help: generated usage, options table, exit 0"
	else
		fail "$c --help: exit $rc: $(head -3 "$T/help") $(cat "$T/err")"
	fi
	grep -q '%%' "$T/help" && fail "$c --help prints %%" || ok "$c --help: no %%"

	"$HARNESS" "$c" --no-such-flag >"$T/out" 2>"$T/err"; rc=$?
	n=$(wc -l <"$T/err")
	if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -q -- "'--no-such-flag'" "$T/err" && [ ! -s "$T/out" ]; then
		ok "$c --no-such-flag: exit 2, one line naming it"
	else
		fail "$c --no-such-flag: exit $rc, $n lines: $(head -c 300 "$T/err")"
	fi

	# Every option the help lists is known to the parser (the table is
	# one: a listed option can never be unknown).
	for o in $(sed -n '/^options:$/,$p' "$T/help" | grep -o -- '^  \(-[a-z], \)\?--[a-z-]*' | grep -o -- '--[a-z-]*'); do
		[ "$o" = --help ] && continue
		"$HARNESS" "$c" "$o" </dev/null >/dev/null 2>"$T/err"
		grep -q 'unknown option' "$T/err" && fail "$c: $o listed but unknown: $(cat "$T/err")"
	done
done

R=$T/runs
"$HELPERS/compare_fixture" "$R" || { fail "fixture generator"; exit 0; }

# latest: the newest run (same created_at: the last id, compare_slow).
expect_exit "status latest" 0 "$HARNESS" status latest --runs-dir "$R"
grep -q '^run compare_slow: finished' "$T/out" && ok "latest is the newest run" ||
	fail "latest: $(head -3 "$T/out")"
expect_exit "status without RUN" 0 "$HARNESS" status --runs-dir "$R"
grep -q '^run compare_slow: finished' "$T/out" && ok "status without RUN: the latest run" ||
	fail "status: $(head -3 "$T/out")"
"$HARNESS" runs --runs-dir "$R" >"$T/runs.txt" 2>/dev/null
cmp -s "$T/out" "$T/runs.txt" && fail "runs and status print the same" ||
	ok "runs and status print different things"
expect_exit "audit latest --json" 0 "$HARNESS" audit latest --runs-dir "$R" --json
[ "$(jq -r .run "$T/out")" = compare_slow ] && ok "audit latest: compare_slow" || fail "audit latest"
expect_exit "status --json through jansson" 0 "$HARNESS" status compare_base --runs-dir "$R" --json
jq -e '.run == "compare_base" and .finished == true and .done == 12 and .stages.ladder.accepted == 12' \
	"$T/out" >/dev/null && ok "status --json: 12 done, 12 accepted" || fail "status json: $(cat "$T/out")"
expect_exit "runs --json" 0 "$HARNESS" runs --runs-dir "$R" --json
[ "$(jq length "$T/out")" = 4 ] && ok "runs --json: 4" || fail "runs json"
mkdir -p "$T/none"
expect_exit "latest with no runs" 2 "$HARNESS" status --runs-dir "$T/none"
grep -q 'latest: no readable run' "$T/err" && ok "says there is no run" || fail "no runs: $(cat "$T/err")"

# audit --window for a window the run does not have: exit 2, one line.
expect_exit "audit --window 99" 2 "$HARNESS" audit compare_base --window 99 --runs-dir "$R"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'no finished window 99' "$T/err" &&
	ok "names the missing window" || fail "audit window: $(cat "$T/err")"

# Argument counts: one line, exit 2.
expect_exit "compare with one run" 2 "$HARNESS" compare compare_base --runs-dir "$R"
[ "$(wc -l <"$T/err")" -eq 1 ] && ok "one line" || fail "lines: $(cat "$T/err")"
expect_exit "value missing" 2 "$HARNESS" audit compare_base --impl
grep -q -- '--impl needs a value' "$T/err" && ok "names the option missing its value" ||
	fail "missing value: $(cat "$T/err")"

# Units: --rate 1k and --duration 200ms are read as 1000/s for 0.2 s (a
# closed port: every request an error, exit 1, not 2).
expect_exit "load --rate 1k --duration 200ms" 1 "$HARNESS" load "http://127.0.0.1:9/" --rate 1k \
	--duration 200ms --timeout-ms 200 --json
r=$(jq .requests "$T/out")
near "1k/s for 200 ms: 200 requests due" "$r" 200 2 "the schedule is exact; the last may straddle"
expect_exit "--rate 1x refused" 2 "$HARNESS" load "http://127.0.0.1:9/" --rate 1x --duration 1
grep -q -- "--rate: want requests per second" "$T/err" && ok "says what --rate wants" ||
	fail "rate: $(cat "$T/err")"

# Every spec key a --help names exists (rerun's used to name sandbox keys
# the spec does not have): checked against `harness schema --markdown`.
"$HARNESS" schema --markdown >"$T/ref.md"
for c in $cmds; do "$HARNESS" "$c" --help; done >"$T/helps"
keys=$(grep -oE '\b(slo|implementations|workload|stages|warmup|gates|sandbox|compare|retries|accounting|dependencies|stats|ladder|confirm|refine|soak)\.[a-z_]+(\.[a-z_]+)?' "$T/helps" | sort -u)
missing=""
for k in $keys; do grep -qF "$k" "$T/ref.md" || missing="$missing $k"; done
[ -n "$keys" ] && [ -z "$missing" ] && ok "every spec key named in a --help exists ($(echo $keys | wc -w))" ||
	fail "--help names keys the spec lacks:$missing"

# --run-id: a directory name, the first line of stdout and a key in every
# table: [A-Za-z0-9._-], not starting with . or -, at most 64 characters;
# anything else is one line naming the option and the character or the
# length, exit 2 (a newline or a space used to be taken; 300 characters
# exited 3 when the directory could not be made). The spec does not exist:
# the option is refused before it is read.
long=$(printf 'x%.0s' $(seq 65))
for c in run rerun; do
	for bad in $'a\nb' 'a b' '-a' '.a' 'a/b' "$long"; do
		"$HARNESS" $c "$T/no-spec-$c" --run-id "$bad" $([ $c = rerun ] && echo --impl a=b) --runs-dir "$T/rid" \
			>"$T/out" 2>"$T/err"; rc=$?
		shown=$(printf %q "$bad" | head -c 20)
		if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "^harness: $c: --run-id: " "$T/err" &&
			grep -qE "(at character [12]:|65 characters, at most 64)" "$T/err" && [ ! -e "$T/rid" ]; then
			ok "$c --run-id $shown: exit 2, one line"
		else
			fail "$c --run-id $shown: exit $rc: $(cat "$T/err")"
		fi
	done
done
expect_exit "--run-id of 64 safe characters is taken (then the missing spec: 2)" 2 \
	"$HARNESS" run "$T/no-spec" --run-id "A_z.9-$(printf 'x%.0s' $(seq 58))" --runs-dir "$T/rid"
grep -q "no-spec" "$T/err" && ! grep -q -- "--run-id" "$T/err" && ok "a safe id passes the check" ||
	fail "safe id: $(cat "$T/err")"
