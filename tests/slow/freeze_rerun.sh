#!/bin/bash
# Issue 25's acceptance for "arms not being measured do not run"
# (harness/runner/runner_freeze.c): a pull request whose server leaves busy loops
# behind cannot make itself look faster. The branch `busy` is the same
# server started with --spin-idle 2 (tests/helpers/testsrv.c: two children
# that leave its process group and burn a core each whenever their server
# gets no request, i.e. in every window but its own); the branch `quiet`
# is the same server with a commit that changes nothing it runs. For each
# restart policy that keeps the branch up between its windows (never,
# per_block):
#   - a baseline run of main (one implementation a), jailed like a
#     rerun's arms (sandbox: always), the run both reruns stand on;
#   - FREEZE_ROUNDS rounds (default 5: the median of 3 was off by more
#     than 20% in one of three per_block runs at load 5-19, below) of
#     two reruns in the same session,
#     `rerun --with-baseline --impl a=REPO#busy` (a@base beside the
#     spinners) and `... #quiet` (a@base beside a neighbour that does
#     nothing: "without the neighbour", every other condition alike: the
#     same jail, the same two-arm interleaving, the same session), in
#     the order busy, quiet in odd rounds and quiet, busy in even ones
#     (A B B A ...), so a drift of the host over the minutes of a round
#     weighs on both alike;
#   - each rerun's figure: the median over its windows of a@base's p99
#     (8 windows); each round's figure: busy's over quiet's, a ratio;
#   - claims: the median of the rounds' ratios within 20% of 1 (issue 25:
#     "base's p99 within 20% of its value without the neighbour"), and
#     `compare base busy --impl a` never calls the branch an improvement
#     (every round).
# The load average is printed before each rerun: this 2-core VM is shared.
# FREEZE_MODES (default "never per_block") picks the restart policies.
# Measured here (two runs, 2026-12-04, load average 8-20 from the other
# sessions: most windows rejected by the generator gate, a round whose
# a@base windows were all rejected has no ratio):
#   run 1: never 0.831 (1 of 3 rounds), per_block 0.874, 0.894 (2 of 3);
#   run 2: never none (0 of 3), per_block 1.144, 1.358, 0.930, median
#   1.144 (within 20%); every idle row frozen at 0.000 cpu-s (25-27 a
#   rerun); compare "inconclusive" in all 12 rounds, never improvement.
# Runs 1-2 used a generator without real-time priority: at that load the
# generator gate rejected most windows (so no ratio in most 'never'
# rounds: the host's load, not the freezer). With SCHED_FIFO (3e7f3c2),
# this session (FREEZE_NICE= under nice -n 10, load average 2-19):
#   run 3: never 0.931, 1.197, 0.852, median 0.931; per_block 0.906,
#   1.586, 1.893, median 1.586 (over 20%: a@base's p99 2.4-2.6 ms beside
#   quiet, 4.1-4.6 ms beside busy in rounds run minutes apart, both
#   arms slow together in stretches of the busy reruns: the host);
#   run 4: per_block 0.628 (one round);
#   run 5: per_block 1.012, 1.292, 1.116, 0.824, 0.772, median 1.012;
#   a@base 8-10 windows accepted in every rerun; every idle row frozen
#   at 0.000 cpu-s; compare "inconclusive" in all 12 rounds, never
#   improvement.
# Without the freezer (the binary of e46ffdf, before d14ea83; run 6, one
# 'never' round, load 7-15): beside busy a@base's 16 windows (8 and
# their replacements) all rejected by the generator gate at a p99 of
# 557 ms on average (beside quiet 2.7 ms, accepted): no ratio, this
# script fails ('measured in 0 of 1 rounds'); compare "inconclusive".
# Earlier (tests/e2e/freeze.sh's header, a spec with no generator gate)
# the spinners took the base's p99 from ~2 ms to 12-50 ms and compare
# said "faster".
# Earlier version of this script (base alone in runs minutes apart, not
# interleaved): 22-50% off in both directions at load 4-7, host drift.
# 8 blocks of 3 s windows at 500 req/s: a p99 is the 15th slowest of 1,500
# requests.
. "$(dirname "$0")/../lib.sh"

# FREEZE_NICE: the harness's niceness change ("nice -n -10" by default;
# "" runs it at the script's own, e.g. under nice -n 10 on a shared host)
NICE=${FREEZE_NICE-nice -n -10}
[ -z "$NICE" ] || $NICE true 2>/dev/null || NICE=
chmod 755 "$T"
RUNS=$T/runs
REPO=$T/impl
q() { sqlite3 "$RUNS/$1/run.db" "$2"; }
g() { git -C "$REPO" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# the server binary is committed (a jailed trusted repository is bound
# read-only: nothing can be built in it)
mkdir -p "$REPO"
cp "$HELPERS/testsrv" "$REPO/srv"
cat >"$REPO/run.sh" <<'SH'
#!/bin/sh
exec ./srv --port "$1" --delay-ms 1 $(cat extra 2>/dev/null)
SH
git init -q -b main "$REPO"
g add -A && g commit -m main
g checkout -b busy && echo "--spin-idle 2" >"$REPO/extra"
g add -A && g commit -m "busy: two spinners that outlive the server"
g checkout main

ROUNDS=${FREEZE_ROUNDS:-5}
g checkout -q -b quiet && echo "the same server" >"$REPO/NOTES"
g add -A && g commit -m "quiet: a note, nothing that runs"
g checkout main

# p99 median of a@base's accepted windows in run $1
base_p99() { q "$1" "SELECT p99_ms FROM windows WHERE impl = 'a@base' AND status = 'accepted'" | median; }
load1() { cut -d' ' -f1 /proc/loadavg; }

for mode in ${FREEZE_MODES:-never per_block}; do
	cat >"$T/$mode.yaml" <<YAML
version: 1
name: freeze-$mode
seed: 7
slo: { percentile: 99, threshold_ms: 100, error_rate_max: 0.01 }
implementations:
  - name: a
    repo: $REPO
    start: [/bin/sh, run.sh, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz", timeout_s: 10 }
    restart: $mode
    sandbox: always
workload:
  connections: 8
  timeout_ms: 2000
  requests:
    - { name: root, path: /echo, method: POST, body: "hi" }
stages:
  ladder: { start_rps: 500, step: 2, max_rps: 500, reps: 8, window_s: 3, discard_s: 0 }
warmup:
  rate: { fixed_rps: 500 }
  min_s: 1   # a second of warm-up load, as these figures were measured (a242a9a: min_s 0 is none)
  max_s: 1
  trailing_s: 1
  gates: []
gates:
  achieved_vs_offered: { tolerance_pct: 30 }
  generator: { lateness_p99_ms: 5, cpu_max_pct: 95 }
window_gates: [error_rate, achieved_vs_offered, generator, sut_alive]
compare: { margin_pct: 20, metric: [p99], alpha: 0.1 }
YAML
	$NICE "$HARNESS" run "$T/$mode.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "base-$mode" \
		>/dev/null 2>"$T/base.err" || { fail "$mode: baseline run: $(tail -n 2 "$T/base.err")"; continue; }
	ratios=
	for r in $(seq 1 "$ROUNDS"); do
		order="busy quiet"
		[ $((r % 2)) -eq 0 ] && order="quiet busy"
		for br in $order; do
			id=$br-$mode-$r
			echo "# $mode round $r: $br, load average $(load1)"
			$NICE "$HARNESS" rerun "base-$mode" --runs-dir "$RUNS" --run-id "$id" --with-baseline \
				--impl "a=file://$REPO#$br" >/dev/null 2>"$T/pr.err" ||
				fail "$mode: rerun $id: $(tail -n 2 "$T/pr.err")"
		done
		busy=$(base_p99 "busy-$mode-$r")
		quiet=$(base_p99 "quiet-$mode-$r")
		ratio=$(awk -v b="$busy" -v q="$quiet" 'BEGIN { if (b != "" && q > 0) printf "%.3f", b / q }')
		ratios="$ratios $ratio"
		echo "# $mode round $r: a@base p99 median beside busy $busy ms, beside quiet $quiet ms," \
			"ratio $ratio; branch busy $(q "busy-$mode-$r" "SELECT p99_ms FROM windows WHERE impl = 'a' AND status = 'accepted'" | median) ms;" \
			"idle rows frozen $(q "busy-$mode-$r" "SELECT count(*) FROM window_idle WHERE frozen IS NOT NULL") of" \
			"$(q "busy-$mode-$r" "SELECT count(*) FROM window_idle"), max cpu-s" \
			"$(q "busy-$mode-$r" "SELECT max(cpu_s) FROM window_idle");" \
			"accepted a@base $(q "busy-$mode-$r" "SELECT count(*) FROM windows WHERE impl = 'a@base' AND status = 'accepted'")" \
			"/ $(q "quiet-$mode-$r" "SELECT count(*) FROM windows WHERE impl = 'a@base' AND status = 'accepted'")"
		"$HARNESS" compare "base-$mode" "busy-$mode-$r" --runs-dir "$RUNS" --impl a --format json \
			>"$T/cmp.json" 2>"$T/cmp.err"
		rc=$?
		v=$(jq -r '.impls[0].verdict' "$T/cmp.json" 2>/dev/null)
		[ "$v" != improvement ] && ok "$mode round $r: compare does not call the branch an improvement: $v (exit $rc)" ||
			fail "$mode round $r: compare says improvement: $(jq -c '.impls[0] | {verdict, why}' "$T/cmp.json")"
	done
	med=$(echo "$ratios" | tr ' ' '\n' | grep . | median)
	got=$(echo "$ratios" | tr ' ' '\n' | grep -c .)
	echo "# $mode: ratios busy/quiet of a@base's p99:$ratios; median $med; load average now $(load1)"
	# a round whose reruns accepted no a@base window has no ratio: the
	# claim needs every round (a median of one is no median)
	if [ "$got" -lt "$ROUNDS" ]; then
		fail "$mode: a@base's p99 beside busy vs quiet measured in $got of $ROUNDS rounds (windows rejected: the host's load)"
	else
		near "$mode: a@base's p99 beside the busy branch over beside the quiet one (median of $ROUNDS rounds)" \
			"$med" 1 0.2 "issue 25: within 20%"
	fi
done
