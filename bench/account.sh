#!/bin/bash
# bench/account.sh: what the accounting sampler costs the harness.
#
# Probes an idle implementation (tests/helpers/testsrv) for $SECONDS_ (default
# 10) seconds with `harness probe --json`, once per backend this machine has
# (auto's choice and procfs), and sums the sampler thread's own CPU
# (sampler_cpu_s, from CLOCK_THREAD_CPUTIME_ID) over the windows. The
# target (issue 4): sampling every 50 ms costs < 1% of one core.
#
# Prints one line per backend and appends them to $BENCH_OUT (default
# build/bench/account.txt). Called by bench/bench.sh when present; runs
# alone as `bash bench/account.sh` after `make`.
set -u
cd "$(dirname "$0")/.."
HARNESS=${HARNESS:-$PWD/bin/harness}
BUILD=${BUILD:-build/release}
HELPERS=${HELPERS:-$PWD/$BUILD/helpers}
SECONDS_=${ACCOUNT_BENCH_SECONDS:-10}
OUT=${BENCH_OUT:-build/bench/account.txt}
mkdir -p "$(dirname "$OUT")"
if [ ! -x "$HELPERS/testsrv" ]; then
	make -s BUILD="$BUILD" "$BUILD/helpers/testsrv" >/dev/null || exit 1
fi
T=$(mktemp -d /tmp/harness-bench-account.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/spec.yaml" <<SPEC
version: 1
name: bench-account
slo: { threshold_ms: 50 }
implementations:
  - name: idle
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
  - name: other
    start: [$HELPERS/testsrv, --port, "{port}"]
    health: { url: "http://127.0.0.1:{port}/healthz" }
workload:
  requests: [ { name: root, path: / } ]
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 400, window_s: 10 }
accounting: { backend: auto, sample_ms: 50 }
SPEC
status=0
for backend in auto procfs; do
	if ! "$HARNESS" probe "$T/spec.yaml" --impl idle --seconds "$SECONDS_" --json \
		--backend $backend --runs-dir "$T/runs" >"$T/out" 2>"$T/err"; then
		echo "account bench: probe failed: $(head -3 "$T/err")" >&2
		status=1
		continue
	fi
	line=$(jq -rs --arg s "$SECONDS_" '
		(map(.sampler_cpu_s) | add) as $c | (map(.samples) | add) as $n |
		"account sampler @50ms: backend \(.[0].backend), \($n) samples in \($s) s, sampler cpu \($c * 1000 | . * 1000 | round / 1000) ms = \($c / ($s | tonumber) * 100 | . * 1000 | round / 1000)% of one core (target < 1%), \($c / $n * 1e6 | round) us/sample"' "$T/out")
	echo "$line"
	echo "$(date -u +%FT%TZ) $line" >>"$OUT"
done
exit $status
