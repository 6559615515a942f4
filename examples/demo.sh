#!/usr/bin/env bash
# make demo: the echo example (examples/echo/spec.yaml) end to end: build,
# run, report, and a short summary on the terminal. Short profile: under
# three minutes on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. examples/demo_lib.sh
t0=$(date +%s)

make -s -C examples/echo || exit 3
demo_run demo examples/echo/spec.yaml
t1=$(date +%s)

echo
echo "run $id finished in $((t1 - t0)) s (exit $rc)"
jq -r "$DEMO_KNEES"',
  "CPU per request, kernel-accounted, accepted windows at the same rate:",
  (.ratios[]? | select(.stage == "ladder" and .cpu_ms_per_req != null) |
     "  at \(.rate_rps | floor) req/s: \(.impl) / \(.base) = \(.cpu_ms_per_req * 100 | round / 100)x")
' "$dir/report.json" 2>/dev/null || echo "(summary: see $dir/report.md)"
echo "report: $dir/report.html"
