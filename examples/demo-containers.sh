#!/usr/bin/env bash
# make demo-containers: examples/containers/spec.yaml end to end: the Go
# and Node ledgers of examples/ledger against PostgreSQL 15 and Redis 7,
# every one a container (podman): the base image made once from the
# host's installed Debian packages (examples/containers/base.sh, imported),
# the services and PostgreSQL built from their Containerfiles with no
# network, then the ladder and the report; on the terminal, as
# demo-containers: each implementation's knee, its CPU cost per request at
# every rung (its container's cgroup), the dependencies' headroom, and the
# versions: each image's tag and short id and the engine's version (the
# full ids, digests and Containerfile hashes: the report's provenance).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
H=bin/harness
RUNS=${HARNESS_RUNS_DIR:-runs}
t0=$(date +%s)
sh examples/containers/base.sh || exit 3
tb=$(date +%s)

# --allow-dirty: a demo should run from a modified checkout too; the run is
# then stamped exploratory (and says so) only if the spec itself is dirty.
out=$("$H" run examples/containers/spec.yaml --runs-dir "$RUNS" --allow-dirty)
rc=$?
id=$(printf '%s\n' "$out" | head -n 1)
if [ -z "$id" ] || [ ! -f "$RUNS/$id/run.db" ]; then
	echo "demo-containers: the run did not start (exit $rc)" >&2
	exit "$rc"
fi
dir=$("$H" report "$id" --runs-dir "$RUNS") || exit $?
t1=$(date +%s)

echo
echo "run $id finished in $((t1 - tb)) s (exit $rc); the base image took $((tb - t0)) s"
jq -r '
  "knee per implementation (p\(.slo.percentile // 99) <= \(.slo.threshold_ms) ms):",
  (.impls[] | "  \(.name): " +
     (if .knee == null then "no accepted ladder window"
      elif .knee.crossed then "\(.knee.knee_rps | floor) req/s"
      else ">= \(.knee.highest_rung_rps | floor) req/s (never crossed)" end) +
     "  (\(.windows.accepted)/\(.windows.total) windows accepted)"),
  "cost per request (CPU µs, kernel-accounted) and p99 per rung:",
  (.rungs | map(select(.stage == "ladder")) | group_by(.rate_rps)[] |
     "  \(.[0].rate_rps | floor | tostring | (" " * (6 - length)) + .) req/s  " +
     (map("\(.impl) " +
          (if .cpu_us_per_request == null then "-" else "\(.cpu_us_per_request | round) µs" end) +
          " (p99 \(if .p99_ms.value == null then "-" else (.p99_ms.value * 10 | round / 10 | tostring) end) ms)")
      | join("   ")))
' "$dir/report.json" 2>/dev/null || echo "(summary: see $dir/report.md)"
# The report's own tables: headroom per rung and the versions.
echo "dependencies' headroom (CPU of their pinned cores, per rung):"
sed -n '/^## Dependencies/,/^## /{/^|/p}' "$dir/report.md" | sed 's/^/  /'
echo "versions:"
sed -n '/^| component | version/,/^$/{/^| \(dependency\|implementation\) [^ ]* |/p}' "$dir/report.md" |
	sed 's/^| \(.*\) | \(.*\) |$/  \1: \2/'
echo "  (the full image ids, digests and Containerfile hashes: the report's provenance)"
echo "report: $dir/report.html"
