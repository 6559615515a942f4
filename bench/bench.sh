#!/bin/bash
# make bench: the load engine's cost and rate accuracy against nginx on
# 127.0.0.1, side by side with wrk (closed loop, at saturation: its most
# favourable point) and httperf (open loop). CPU comes from getrusage of
# each whole process (/usr/bin/time %U + %S), never from wall time.
#
# Writes bench/results.txt and prints it. Bounded: about 4 minutes.
# Knobs: BENCH_SECONDS (per measurement, default 4), BENCH_CONNS (8),
# BENCH_RATES ("5000 10000 20000"), HARNESS (default bin/harness),
# BENCH_PERF=0 to skip the perf profile.
. "$(dirname "$0")/lib.sh"
RATES=${BENCH_RATES:-5000 10000 20000}
OUT=$ROOT/bench/results.txt

need() { command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 not found (apt-get install $2)" >&2; exit 3; }; }
need nginx nginx; need wrk wrk; need httperf httperf; need jq jq
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not found (apt-get install time)" >&2; exit 3; }
[ -x "$HARNESS" ] || { echo "bench: $HARNESS not built (make)" >&2; exit 3; }

# ---- nginx on a free loopback port, config from bench/nginx.conf ----
bench_nginx
curl -sf "$URL" >/dev/null || { echo "bench: nginx did not start: $(cat "$W/nginx/err")" >&2; exit 3; }

: >"$OUT"
say() { echo "$*" | tee -a "$OUT"; }
cpu_of() { awk '/^CPU / { print $2 + $3 }' "$1"; }   # user + system seconds
per_req() { awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "nan") printf "%.2f", a / b; else print "nan" }'; }

say "# harness load engine benchmark ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
say "# host: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the box inflates every figure)"
say "# target: nginx $(nginx -v 2>&1 | cut -d/ -f2) at $URL, 1 worker; $CONNS connections; ${SECS} s per point"
say "# CPU = user + system of the whole generator process (getrusage via /usr/bin/time)"
say ""

# ---- (a) wrk at saturation ----
/usr/bin/time -f "CPU %U %S" -o "$W/wrk.time" wrk -t1 -c"$CONNS" -d"${SECS}s" "$URL" >"$W/wrk.out" 2>&1
WRK_REQ=$(awk '/requests in/ { print $1 }' "$W/wrk.out")
WRK_RPS=$(awk '/Requests\/sec/ { print $2 }' "$W/wrk.out")
WRK_CPU=$(cpu_of "$W/wrk.time")
WRK_US=$(per_req "$WRK_CPU" "$WRK_REQ")
say "(a) CPU per completed request"
say "wrk -t1 -c$CONNS (closed loop, saturating): $WRK_REQ requests, $WRK_RPS req/s, CPU $WRK_CPU s, $WRK_US us/request"
say ""
say "(us_per_req: whole process, as for wrk, including ~25 ms of start-up; engine_us: the engine's"
say " own threads, thread CPU clocks; late_p99: lateness p99 in ms)"
printf '%-8s %8s %10s %10s %9s %11s %9s %10s %9s\n' transport rate achieved completed cpu_s us_per_req vs_wrk engine_us late_p99 | tee -a "$OUT"

run_load() { # name transport rate threads -> $W/name.json, $W/name.time
	/usr/bin/time -f "CPU %U %S" -o "$W/$1.time" "$HARNESS" load "$URL" --rate "$3" \
		--duration "$SECS" --connections "$CONNS" --threads "$4" --transport "$2" \
		--json >"$W/$1.json" 2>"$W/$1.err"
}
for tr in native curl; do
	for r in $RATES; do
		run_load "a_${tr}_$r" "$tr" "$r" 1
		n=$(jq .completed "$W/a_${tr}_$r.json")
		c=$(cpu_of "$W/a_${tr}_$r.time")
		us=$(per_req "$c" "$n")
		printf '%-8s %8s %10.1f %10s %9s %11s %9s %10.2f %9s\n' "$tr" "$r" \
			"$(jq .achieved_rps "$W/a_${tr}_$r.json")" "$n" "$c" "$us" \
			"$(ratio "$us" "$WRK_US")" "$(jq .cpu_us_per_request "$W/a_${tr}_$r.json")" \
			"$(jq .lateness_ms.p99 "$W/a_${tr}_$r.json")" | tee -a "$OUT"
		eval "US_${tr}_$r=$us"
	done
done
say ""

# ---- (b) the highest rate held: achieved within 1% of offered and
# lateness p99 under 1 ms; rates climb by 1.5x from 5000 until one fails. ----
say "(b) highest rate held (achieved >= 99% of offered, lateness p99 < 1 ms), $CONNS connections"
printf '%-8s %7s %10s   %s\n' transport threads held_rps "first failing rate (achieved, lateness p99 ms)" | tee -a "$OUT"
for tr in native curl; do
	for th in 1 2; do
		held=0; failed="-"; r=5000
		while [ "$r" -le 200000 ]; do
			run_load "b_${tr}_${th}_$r" "$tr" "$r" "$th"
			f=$W/b_${tr}_${th}_$r.json
			okr=$(jq '(.achieved_rps >= 0.99 * .target_rps) and (.lateness_ms.p99 < 1)' "$f" 2>/dev/null)
			if [ "$okr" = true ]; then held=$r; else
				failed="$r ($(jq -r '"\(.achieved_rps | floor), \(.lateness_ms.p99)"' "$f" 2>/dev/null))"
				break
			fi
			r=$(awk -v r="$r" 'BEGIN { printf "%d", r * 1.5 }')
		done
		printf '%-8s %7s %10s   %s\n' "$tr" "$th" "$held" "$failed" | tee -a "$OUT"
	done
done
say ""

# ---- (c) httperf, open loop, same rates: rate accuracy (and its CPU) ----
say "(c) httperf (open loop, one connection per request as httperf paces connections)"
printf '%-8s %8s %10s %9s %11s %s\n' tool rate achieved cpu_s us_per_req errors | tee -a "$OUT"
for r in $RATES; do
	n=$((r * SECS))
	/usr/bin/time -f "CPU %U %S" -o "$W/h_$r.time" httperf --server 127.0.0.1 --port "$PORT" \
		--uri / --rate "$r" --num-conns "$n" --num-calls 1 --timeout 5 >"$W/h_$r.out" 2>&1
	ach=$(awk '/^Request rate:/ { print $3 }' "$W/h_$r.out")
	rep=$(awk '/^Total:/ { print $7 }' "$W/h_$r.out")
	err=$(awk '/^Errors: total/ { print $3 }' "$W/h_$r.out")
	c=$(cpu_of "$W/h_$r.time")
	printf '%-8s %8s %10s %9s %11s %s\n' httperf "$r" "$ach" "$c" "$(per_req "$c" "$rep")" "$err" | tee -a "$OUT"
done
say ""

# ---- ratios ----
say "ratios: CPU per request / wrk's (target for native: <= 1.20)"
for r in $RATES; do
	eval "n=\$US_native_$r; c=\$US_curl_$r"
	say "  $r req/s: native $(ratio "$n" "$WRK_US")x, curl $(ratio "$c" "$WRK_US")x"
done

# ---- templated vs fixed requests (workload.vars): CPU per request ----
say ""
URL=$URL HARNESS=$HARNESS BENCH_SECONDS=$SECS BENCH_CONNS=$CONNS bash bench/templates.sh 2>&1 | tee -a "$OUT"

# ---- sampling cost of the accounting module, when its script exists ----
if [ -f bench/account.sh ]; then
	say ""
	bash bench/account.sh 2>&1 | tee -a "$OUT"
fi

# ---- what the bubblewrap sandbox costs a measured nginx ----
if [ -f bench/sandbox.sh ]; then
	say ""
	bash bench/sandbox.sh 2>&1 | tee -a "$OUT"
fi

# ---- where the native transport's CPU goes (perf, when it works here) ----
if [ "${BENCH_PERF:-1}" = 1 ] && command -v perf >/dev/null 2>&1; then
	r=$(echo "$RATES" | awk '{ print $NF }')
	if perf record -q -o "$W/perf.data" -- "$HARNESS" load "$URL" --rate "$r" --duration 2 \
		--connections "$CONNS" >/dev/null 2>"$W/perf.err"; then
		say ""
		say "perf: native transport at $r req/s, top symbols (self time)"
		perf report -i "$W/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null |
			grep -E '^ +[0-9]' | head -15 | tee -a "$OUT"
	fi
fi
echo "bench: wrote $OUT" >&2
