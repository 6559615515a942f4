#!/usr/bin/env bash
# make demo-ledger: examples/ledger/spec.yaml end to end: the Go and Node
# ledgers against PostgreSQL 15 and Redis 7 started by the harness (Go
# build, initdb, seed, ladder, report), then on the terminal: each
# implementation's knee, its CPU cost per request at every rung, and the
# dependencies' headroom and versions. Under 5 minutes on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. examples/demo_lib.sh
t0=$(date +%s)

demo_run demo-ledger examples/ledger/spec.yaml
t1=$(date +%s)

echo
echo "run $id finished in $((t1 - t0)) s (exit $rc)"
demo_costs '/^| component | version/,/^$/{/^| \(dependency\|implementation\) /p}'
echo "report: $dir/report.html"
