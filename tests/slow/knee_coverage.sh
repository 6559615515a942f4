#!/usr/bin/env bash
# The coverage table of docs/STATISTICS.md "The knee's interval": how often
# the knee's 95% interval contains the true knee, over 1000 simulated
# ladders per row (4 rungs, windows drawn from a normal, a lognormal and a
# "stall" distribution with known rung means; 3, 5, 8, 13 and 30 windows a
# rung), for the plain window bootstrap (the rule before) and the t draw
# (knee.c). tests/unit/test_knee.c asserts the 3- and 13-window rows on
# 400 ladders in CI; this prints the whole table (about a minute).
. "$(dirname "$0")/../lib.sh"

BIN=$ROOT/build/release/tests/test_knee
[ -x "$BIN" ] || make -C "$ROOT" -s "build/release/tests/test_knee" >/dev/null
KNEE_COVERAGE_TABLE=1 "$BIN" >"$T/out" 2>&1
rc=$?
grep '^# [a-z]* *n=' "$T/out"
cmp_num "test_knee with the table exits 0" "$rc" "==" 0
# The t draw meets the level for normal windows at every n (1000 fits:
# sd 0.007 at 0.95, so 0.93 is 3 sd below it).
for n in 3 5 8 13 30; do
	c=$(awk -v n="n=$n" '$2 == "normal" && $3 == n && $4 == "t-draw" { print $6 }' "$T/out")
	cmp_num "normal, $n windows a rung: t draw covers $c" "$c" ">=" 0.93
done
