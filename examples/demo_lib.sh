# shellcheck shell=bash
# Sourced by the demos (examples/demo.sh, demo-ledger.sh, demo-containers.sh:
# make demo, demo-ledger, demo-containers) from the checkout's top: the run
# and report of one example spec, and the summary lines they share.
H=bin/harness
RUNS=${HARNESS_RUNS_DIR:-runs}

# demo_run NAME SPEC: run SPEC, then its report. Sets id, rc (the run's exit
# code) and dir (the report's directory); exits with the run's code when it
# did not start, with the report's when that failed. --allow-dirty: a demo
# should run from a modified checkout too; the run is then stamped
# exploratory (and says so) only if the spec itself is dirty.
demo_run() {
	local out
	out=$("$H" run "$2" --runs-dir "$RUNS" --allow-dirty)
	rc=$?
	id=$(printf '%s\n' "$out" | head -n 1)
	if [ -z "$id" ] || [ ! -f "$RUNS/$id/run.db" ]; then
		echo "$1: the run did not start (exit $rc)" >&2
		exit "$rc"
	fi
	dir=$("$H" report "$id" --runs-dir "$RUNS") || exit $?
}

# jq over report.json: the headline (what the evidence supports, the
# report's first line), then each implementation's knee as the report
# words it (an interval when it has one; a point without one says it was
# interpolated between two rungs) and its accepted windows.
# (rates rounded half to even, as the report's %.0f: 5062.5 -> 5062)
DEMO_KNEES='
  def r: if . - floor == 0.5 then (if floor % 2 == 0 then floor else ceil end) else round end;
  .headline,
  "knee per implementation (p\(.slo.percentile // 99) <= \(.slo.threshold_ms) ms):",
  (.impls[] | .knee as $k | "  \(.name): " +
     (if $k == null then "no accepted ladder window"
      elif $k.kind == "floor" then ">= \($k.highest_rung_rps | r) req/s (never crossed)"
      elif $k.kind == "bracket" then
        (if $k.lo_rps == null then "<= \($k.hi_rps | r) req/s"
         else "in (\($k.lo_rps | r), \($k.hi_rps | r)] req/s" end)
      elif $k.at_first_rung then "<= \($k.knee_rps | r) req/s (over the SLO at the first rung)"
      elif $k.interval_rps == null then
        "\($k.knee_rps | r) req/s, interpolated between \($k.lo_rps | r) and \($k.hi_rps | r) (no interval)"
      else "\($k.knee_rps | r) req/s [\($k.interval_rps[0] | r), \($k.interval_rps[1] | r)]" end) +
     "  (\(.windows.accepted)/\(.windows.total) windows accepted)")'

# demo_costs VERSIONS_SED: the knees, then each ladder rung's CPU cost per
# request and p99 per implementation (report.json), the dependencies'
# headroom per rung and the versions (report.md's tables; VERSIONS_SED
# picks the version table's rows).
demo_costs() {
	jq -r "$DEMO_KNEES"',
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
	sed -n "$1" "$dir/report.md" | sed 's/^| \(.*\) | \(.*\) |$/  \1: \2/'
}
