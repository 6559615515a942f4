#!/bin/bash
# timing-free: argument refusals
# harness load: bad arguments exit 2 with one line on stderr.
. "$(dirname "$0")/../lib.sh"

one_line() { # what, args...: exit 2 and exactly one line of stderr
	local what=$1; shift
	"$HARNESS" load "$@" >"$T/out" 2>"$T/err"; local rc=$?
	local lines; lines=$(wc -l <"$T/err")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^harness: ' "$T/err"; then
		ok "$what (exit 2, one line: $(cat "$T/err"))"
	else
		fail "$what: exit $rc, $lines lines: $(head -c 300 "$T/err")"
	fi
}
U=http://127.0.0.1:9/
one_line "rate 0" "$U" --rate 0 --duration 1
one_line "negative rate" "$U" --rate -5 --duration 1
one_line "negative duration" "$U" --rate 10 --duration -1
one_line "zero duration" "$U" --rate 10 --duration 0
one_line "non-numeric duration" "$U" --rate 10 --duration soon
one_line "missing rate" "$U" --duration 1
one_line "bad URL scheme" ftp://127.0.0.1/ --rate 10 --duration 1
one_line "bad URL port" http://127.0.0.1:99999/ --rate 10 --duration 1
one_line "bad URL host" "http:///x" --rate 10 --duration 1
one_line "not a URL" notaurl --rate 10 --duration 1
one_line "unreadable body file" "$U" --rate 10 --duration 1 --body @/nonexistent/body
one_line "unknown option" "$U" --rate 10 --duration 1 --frobnicate 3
one_line "bad arrival" "$U" --rate 10 --duration 1 --arrival bursty
one_line "bad transport" "$U" --rate 10 --duration 1 --transport carrier-pigeon
one_line "zero connections" "$U" --rate 10 --duration 1 --connections 0
one_line "bad header" "$U" --rate 10 --duration 1 --header nocolon
one_line "https with native" https://127.0.0.1/ --rate 10 --duration 1 --transport native
one_line "spec without --impl" /nonexistent/spec.yaml --rate 10 --duration 1
expect_exit "--help exits 0" 0 "$HARNESS" load --help
check "--help documents the end-of-run accounting" grep -q "timeout errors" "$T/out"
