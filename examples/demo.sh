#!/usr/bin/env bash
# make demo: the echo example (examples/echo/spec.yaml) end to end: build,
# run, report, and a short summary on the terminal. Short profile: under
# three minutes on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.."
H=bin/harness
RUNS=${HARNESS_RUNS_DIR:-runs}
t0=$(date +%s)

make -s -C examples/echo || exit 3
# --allow-dirty: a demo should run from a modified checkout too; the run is
# then stamped exploratory (and says so) only if the spec itself is dirty.
out=$("$H" run examples/echo/spec.yaml --runs-dir "$RUNS" --allow-dirty)
rc=$?
id=$(printf '%s\n' "$out" | head -n 1)
if [ -z "$id" ] || [ ! -f "$RUNS/$id/run.db" ]; then
	echo "demo: the run did not start (exit $rc)" >&2
	exit "$rc"
fi
dir=$("$H" report "$id" --runs-dir "$RUNS") || exit $?
t1=$(date +%s)

echo
echo "run $id finished in $((t1 - t0)) s (exit $rc)"
jq -r '
  "knee per implementation (p99 <= \(.slo.threshold_ms) ms):",
  (.impls[] | "  \(.name): " +
     (if .knee == null then "no accepted ladder window"
      elif .knee.crossed then "\(.knee.knee_rps | floor) req/s"
      else ">= \(.knee.highest_rung_rps | floor) req/s (never crossed)" end) +
     "  (\(.windows.accepted)/\(.windows.total) windows accepted)"),
  "CPU per request, kernel-accounted, accepted windows at the same rate:",
  (.ratios[]? | select(.stage == "ladder" and .cpu_ms_per_req != null) |
     "  at \(.rate_rps | floor) req/s: \(.impl) / \(.base) = \(.cpu_ms_per_req * 100 | round / 100)x")
' "$dir/report.json" 2>/dev/null || echo "(summary: see $dir/report.md)"
echo "report: $dir/report.html"
