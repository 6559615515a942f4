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
. examples/demo_lib.sh
t0=$(date +%s)
sh examples/containers/base.sh || exit 3
tb=$(date +%s)

demo_run demo-containers examples/containers/spec.yaml
t1=$(date +%s)

echo
echo "run $id finished in $((t1 - tb)) s (exit $rc); the base image took $((tb - t0)) s"
demo_costs '/^| component | version/,/^$/{/^| \(dependency\|implementation\) [^ ]* |/p}'
echo "  (the full image ids, digests and Containerfile hashes: the report's provenance)"
echo "report: $dir/report.html"
