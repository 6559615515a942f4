#!/bin/bash
# timing-free: help texts, refusals and exit codes
# cli: the one front door (issue 15, item 7). Every subcommand's --help is
# generated from its option table, a bad flag is one line and exit 2, every
# option the help lists is one the parser knows, and every spec key a help
# names exists. RUN accepts `latest` and the fixed friction stays fixed:
# tests/cases/cli. No servers: ~2 s.
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

# status, runs, audit and compare on the fixture runs (latest, refusals,
# --json), --rate 1x and --run-id: declarative cases in tests/cases/cli.

# Units: --rate 1k and --duration 200ms are read as 1000/s for 0.2 s (a
# closed port: every request an error, exit 1, not 2).
expect_exit "load --rate 1k --duration 200ms" 1 "$HARNESS" load "http://127.0.0.1:9/" --rate 1k \
	--duration 200ms --timeout-ms 200 --json
r=$(jq .requests "$T/out")
near "1k/s for 200 ms: 200 requests due" "$r" 200 2 "the schedule is exact; the last may straddle"

# Every spec key a --help names exists (rerun's used to name sandbox keys
# the spec does not have): checked against `harness schema --markdown`.
"$HARNESS" schema --markdown >"$T/ref.md"
for c in $cmds; do "$HARNESS" "$c" --help; done >"$T/helps"
keys=$(grep -oE '\b(slo|implementations|workload|stages|warmup|gates|sandbox|compare|retries|accounting|dependencies|stats|ladder|confirm|refine|soak)\.[a-z_]+(\.[a-z_]+)?' "$T/helps" | sort -u)
missing=""
for k in $keys; do grep -qF "$k" "$T/ref.md" || missing="$missing $k"; done
[ -n "$keys" ] && [ -z "$missing" ] && ok "every spec key named in a --help exists ($(echo $keys | wc -w))" ||
	fail "--help names keys the spec lacks:$missing"
