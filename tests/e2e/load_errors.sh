#!/bin/bash
# timing-free: errors counted by kind
# release-only: under make asan expect.sh, load_https.sh and http2.sh reach its code but 23 lines (load_curl.c 19, load.c 3, cmd_load_opts.c 1), left to the release build for make asan's time budget (tests/run.sh: the sanitized set by line coverage)
# Failures are counted under their own kind, the run ends on time, nothing
# hangs or crashes. Both transports.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

for tr in native curl; do
	# Refused: nothing listens on the port.
	P=$(free_port)
	load ref_$tr "http://127.0.0.1:$P/" --rate 200 --duration 0.5 --transport $tr
	cmp_num "$tr: refused: harness exits 1 (error rate 1 > --error-rate-max)" "$LOAD_RC" == 1
	cmp_num "$tr: refused: every request is a connect error" \
		"$(j ref_$tr .errors.connect)" == "$(j ref_$tr .requests)"
	cmp_num "$tr: refused: 100 requests due" "$(j ref_$tr .requests)" == 100
	cmp_num "$tr: refused: ends on time" "$WALL" "<" 3

	# Reset: the server writes half a response, then RST.
	srv --mode reset
	load rst_$tr "http://127.0.0.1:$PORT/" --rate 200 --duration 0.5 --transport $tr
	cmp_num "$tr: reset: every request is a reset error" \
		"$(j rst_$tr .errors.reset)" == "$(j rst_$tr .requests)"
	cmp_num "$tr: reset: nothing completed" "$(j rst_$tr .completed)" == 0
	cmp_num "$tr: reset: ends on time" "$WALL" "<" 3
	stop_srv

	# Never answers: every request times out (300 ms), including those
	# still in flight when the 0.5 s schedule ends (counted after the
	# timeout_ms grace period), so the run lasts about 0.8 s.
	srv --mode hang
	load hang_$tr "http://127.0.0.1:$PORT/" --rate 200 --duration 0.5 --transport $tr \
		--timeout-ms 300
	cmp_num "$tr: hang: every request is a timeout" \
		"$(j hang_$tr .errors.timeout)" == "$(j hang_$tr .requests)"
	cmp_num "$tr: hang: 100 requests due" "$(j hang_$tr .requests)" == 100
	cmp_num "$tr: hang: ends on time (0.5 s + 0.3 s grace)" "$WALL" "<" 3
	cmp_num "$tr: hang: no other error kind" \
		"$(j hang_$tr '.errors.connect + .errors.reset + .errors.parse + .errors.other')" == 0
	stop_srv

	# Backlog: 1 connection, a 50 ms server, 200 req/s for 0.5 s, backlog 5: the
	# server answers 20/s, so most requests overflow the backlog and are
	# dropped, and every request is still accounted for.
	srv --delay-ms 50
	load bl_$tr "http://127.0.0.1:$PORT/" --rate 200 --duration 0.5 --transport $tr \
		--connections 1 --backlog-max 5
	cmp_num "$tr: backlog: drops counted" "$(j bl_$tr .dropped)" ">=" 60
	check "$tr: backlog: every request accounted for" test "$(accounted bl_$tr)" = true
	stop_srv

	# HTTP 5xx from the server are completions, by status class.
	srv --error-pct 10
	load e5_$tr "http://127.0.0.1:$PORT/" --rate 400 --duration 0.5 --transport $tr
	cmp_num "$tr: 10% of responses are 5xx" "$(j e5_$tr '.status["5xx"]')" == 20
	cmp_num "$tr: 2xx are the rest" "$(j e5_$tr '.status["2xx"]')" == 180
	stop_srv
done
