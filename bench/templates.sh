#!/bin/bash
# The CPU cost of templated requests (workload.vars) against fixed ones:
# the same GET mix to nginx, once with fixed paths and headers, once with
# a Zipf id in the path and a csv value in a header, both transports,
# alternated 3 times; the median CPU per completed request of each, and
# the ratio templated / fixed (issue 13: within 10%). Called by bench.sh
# with URL set; alone it starts nginx itself. Knobs: BENCH_SECONDS (5),
# BENCH_CONNS (8), TEMPLATE_RATE (10000), HARNESS.
. "$(dirname "$0")/lib.sh"
RATE=${TEMPLATE_RATE:-10000}
[ -n "${URL:-}" ] || bench_nginx
printf 'id,user\n' >"$W/users.csv"
for i in $(seq 1 1000); do printf '%d,user%d@example.com\n' "$i" "$i"; done >>"$W/users.csv"
spec() { # spec FILE PATH HEADER [VARS]
	cat >"$1" <<YAML
version: 1
name: bench-templates
seed: 11
slo: { percentile: 99, threshold_ms: 20 }
implementations:
  - { name: nginx, start: [sleep, "1"], health: { url: "http://127.0.0.1:{port}/" } }
workload:
  connections: $CONNS
$4
  requests:
    - { name: get, weight: 9, path: "$2", headers: { X-User: "$3" } }
    - { name: other, weight: 1, path: /other }
stages:
  ladder: { start_rps: $RATE, step: 2, max_rps: $RATE, window_s: $SECS }
YAML
}
spec "$W/fixed.yaml" /items/42 user42@example.com ""
spec "$W/tmpl.yaml" "/items/{id}" "{user}" "  vars:
    id: { zipf: { n: 5000000, s: 1.1 } }
    user: { csv: users.csv, column: user }"
cpu_of() { awk '/^CPU / { print $2 + $3 }' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "(d) templated vs fixed requests: CPU per completed request at $RATE req/s, $CONNS connections,"
echo "    ${SECS} s, median of 3 alternated runs (engine: its threads' clocks; process: getrusage,"
echo "    including drawing the pool of rate x duration requests)"
printf '%-8s %-10s %10s %11s %11s\n' transport kind completed engine_us process_us
for tr in native curl; do
	for k in 1 2 3; do
		for kind in fixed tmpl; do
			/usr/bin/time -f "CPU %U %S" -o "$W/$tr.$kind.$k.time" "$HARNESS" load \
				"$W/$kind.yaml" --impl nginx --url "$URL" --rate "$RATE" --duration "$SECS" \
				--transport "$tr" --json >"$W/$tr.$kind.$k.json" 2>"$W/$tr.$kind.$k.err"
			n=$(jq .completed "$W/$tr.$kind.$k.json")
			echo "$(jq .cpu_us_per_request "$W/$tr.$kind.$k.json")" >>"$W/$tr.$kind.engine"
			awk -v c="$(cpu_of "$W/$tr.$kind.$k.time")" -v n="$n" \
				'BEGIN { printf "%.3f\n", (n > 0 ? c * 1e6 / n : 0) }' >>"$W/$tr.$kind.process"
			echo "$n" >>"$W/$tr.$kind.n"
		done
	done
	for kind in fixed tmpl; do
		printf '%-8s %-10s %10s %11s %11s\n' "$tr" "$kind" "$(median <"$W/$tr.$kind.n")" \
			"$(median <"$W/$tr.$kind.engine")" "$(median <"$W/$tr.$kind.process")"
	done
	e=$(awk -v a="$(median <"$W/$tr.tmpl.engine")" -v b="$(median <"$W/$tr.fixed.engine")" \
		'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	p=$(awk -v a="$(median <"$W/$tr.tmpl.process")" -v b="$(median <"$W/$tr.fixed.process")" \
		'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	echo "ratio templated / fixed, $tr: engine ${e}x, process ${p}x (target <= 1.10)"
done
