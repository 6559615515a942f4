#!/bin/bash
# Holm across 20 rate x metric cells (issue 12's acceptance), on runs made
# by tests/fixtures/compare_fixture.c --noise: a and a@base paired by block
# at 10 rates, 20 blocks each (HOLM_BLOCKS), both drawn from the same distribution
# (lognormal p99 noise of 10 % per window on a shared 5 % block effect; CPU
# 5 %). 40 seeds of pure noise: `harness compare RUN RUN` (the paired arms)
# must call a regression in at most 2 of them (>= 95 % clean); the same 40
# with a's latency at one rate 20 % higher must still find that one cell.
# Without the correction (--correction none) the false-regression count is
# printed for contrast (20 one-sided tests at 5 %: about 1 - 0.95^20 = 64 %
# of comparisons see at least one rising cell, fewer pass the margin).
. "$(dirname "$0")/../lib.sh"

N=40 B=${HOLM_BLOCKS:-20}
R=$T/runs
false_holm=0 false_none=0 found=0 wrong_cell=0
for seed in $(seq 1 $N); do
	"$HELPERS/compare_fixture" --noise "$R" "noise$seed" "$seed" 0 $B &&
		"$HELPERS/compare_fixture" --noise "$R" "shift$seed" "$((seed + 1000))" 20 $B ||
		{ fail "fixture generator (seed $seed)"; exit 0; }
	"$HARNESS" compare "noise$seed" "noise$seed" --runs-dir "$R" >/dev/null 2>&1
	[ $? -eq 1 ] && false_holm=$((false_holm + 1))
	"$HARNESS" compare "noise$seed" "noise$seed" --runs-dir "$R" --correction none >/dev/null 2>&1
	[ $? -eq 1 ] && false_none=$((false_none + 1))
	"$HARNESS" compare "shift$seed" "shift$seed" --runs-dir "$R" --json >"$T/s.json" 2>/dev/null
	if [ $? -eq 1 ]; then
		cells=$(jq -r '[.impls[0].rates[] | select(.latency.verdict=="regression" or .cpu_per_request.verdict=="regression") | .rate] | map(tostring) | join(",")' "$T/s.json")
		case ",$cells," in *,100,*) found=$((found + 1)) ;; esac
		[ -n "$(echo "$cells" | tr ',' '\n' | grep -vx 100)" ] && wrong_cell=$((wrong_cell + 1))
	fi
done
echo "# $N comparisons of 20 noise cells: false regressions $false_holm with Holm, $false_none uncorrected"
echo "# $N comparisons with one cell +20%: found it $found times; another (noise) cell called in $wrong_cell"
cmp_num "noise: comparisons calling a regression, Holm (of $N)" "$false_holm" "<=" 2
cmp_num "a +20% cell is found (of $N, $B pairs)" "$found" ">=" 36
cmp_num "beside it, a noise cell called (of $N; the family-wise rate)" "$wrong_cell" "<=" 2
