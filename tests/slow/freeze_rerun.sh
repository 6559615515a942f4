#!/bin/bash
# Issue 25's acceptance for "arms not being measured do not run"
# (harness/runner/runner_freeze.c): a pull request whose server leaves busy loops
# behind cannot make itself look faster. The branch `busy` is the same
# server started with --spin-idle 2 (tests/helpers/testsrv.c: two children
# that leave its process group and burn a core each whenever their server
# gets no request, i.e. in every window but its own). For each restart
# policy that keeps it up between its windows (never, per_block):
#   - a baseline run of main (one implementation a), jailed like a
#     rerun's arms (sandbox: always): without it the baseline ran on the
#     host's loopback and the rerun's arms in their own network
#     namespaces, and base's p99 read 22-28% lower beside the branch than
#     alone in both modes (2.54 vs 3.26 ms, 3.46 vs 4.82 ms): the jail's
#     path, not the neighbour;
#   - `rerun --with-baseline --impl a=REPO#busy`: a (busy) and a@base
#     interleaved;
#   - the baseline run again (post-MODE), so the reference brackets the
#     rerun in time (the host's load drifts over minutes: a first run of
#     this script saw base's p99 4.1 ms beside the branch against 5.9 ms
#     alone measured 3 minutes earlier, load average 7 -> 5);
#   - claims: a@base's p99 (the median of its windows' p99) within 20% of
#     a's in the two baseline runs (the same commit without the
#     neighbour, their windows pooled), and `compare base pr --impl a`
#     does not call the branch an improvement.
# Without the freezer the branch's spinners took the base's p99 from ~2 ms
# to 12-50 ms (tests/e2e/freeze.sh's header) and compare said "faster".
# Measured on this shared 2-core VM (load average 4-7 from other
# sessions), four runs of this script, every idle row frozen (cgroup1
# freezer) at 0.000 cpu-s, compare "no change" 6 times, "inconclusive"
# twice, never "improvement"; base's p99 beside the frozen branch vs alone:
# never 5.67/5.87, 2.54/3.26, 5.08/3.39 ms; per_block 4.11/5.87,
# 3.46/4.82, 3.75/2.77 ms: both signs, up to 50%, the host's drift
# between runs minutes apart (the branch's own p99 moves with base's in
# the same rerun: 5.41, 2.74, 4.42; 3.56, 3.75, 3.56 ms). The 20% claim
# needs a quieter host than this one; the spinners' own effect, unfrozen,
# is 5-20x (12.6-50.6 ms).
# 8 blocks of 3 s windows at 500 req/s: a p99 is the 15th slowest of 1,500
# requests, the median over 8 windows. Run alone on this 2-core VM (its
# neighbours' sessions move a 1 s window's p99 by 2-10x).
. "$(dirname "$0")/../lib.sh"

NICE="nice -n -10"
$NICE true 2>/dev/null || NICE=
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

for mode in never per_block; do
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
  min_s: 0
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
	$NICE "$HARNESS" rerun "base-$mode" --runs-dir "$RUNS" --run-id "pr-$mode" --with-baseline \
		--impl "a=file://$REPO#busy" >/dev/null 2>"$T/pr.err" ||
		{ fail "$mode: rerun: $(tail -n 2 "$T/pr.err")"; continue; }
	$NICE "$HARNESS" run "$T/$mode.yaml" --allow-dirty --runs-dir "$RUNS" --run-id "post-$mode" \
		>/dev/null 2>"$T/base.err" || { fail "$mode: second baseline run: $(tail -n 2 "$T/base.err")"; continue; }
	alone=$( (q "base-$mode" "SELECT p99_ms FROM windows WHERE status = 'accepted'"
		q "post-$mode" "SELECT p99_ms FROM windows WHERE status = 'accepted'") | median)
	beside=$(q "pr-$mode" "SELECT p99_ms FROM windows WHERE impl = 'a@base' AND status = 'accepted'" | median)
	branch=$(q "pr-$mode" "SELECT p99_ms FROM windows WHERE impl = 'a' AND status = 'accepted'" | median)
	echo "# $mode: p99 median: base alone $alone ms, base beside the branch $beside ms, branch $branch ms;" \
		"idle rows frozen $(q "pr-$mode" "SELECT count(*) FROM window_idle WHERE frozen IS NOT NULL") of" \
		"$(q "pr-$mode" "SELECT count(*) FROM window_idle"), their max cpu-s" \
		"$(q "pr-$mode" "SELECT max(cpu_s) FROM window_idle")"
	near "$mode: base's p99 beside the busy branch vs alone (ms)" "$beside" "$alone" \
		"$(awk -v s="$alone" 'BEGIN { printf "%.3f", 0.2 * s }')" "issue 25: within 20%"
	"$HARNESS" compare "base-$mode" "pr-$mode" --runs-dir "$RUNS" --impl a --format json \
		>"$T/cmp.json" 2>"$T/cmp.err"
	rc=$?
	v=$(jq -r '.impls[0].verdict' "$T/cmp.json" 2>/dev/null)
	[ "$v" != improvement ] && ok "$mode: compare does not call the branch an improvement: $v (exit $rc)" ||
		fail "$mode: compare says improvement: $(jq -c '.impls[0] | {verdict, why}' "$T/cmp.json")"
done
