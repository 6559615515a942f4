# bench/lib.sh: what the bench scripts share (sourced by bench.sh,
# templates.sh and sandbox.sh): the repository as the working directory,
# ROOT, HARNESS (default bin/harness), SECS and CONNS from the knobs
# BENCH_SECONDS (5) and BENCH_CONNS (8), a scratch directory W removed on
# exit together with the nginx bench_nginx started.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HARNESS=${HARNESS:-$ROOT/bin/harness}
SECS=${BENCH_SECONDS:-5}
CONNS=${BENCH_CONNS:-8}
W=$(mktemp -d /tmp/harness-bench.XXXXXX)
NGINX_PID=

cleanup() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# bench_nginx: nginx on a free loopback port, its config from
# bench/nginx.conf (1 worker), under $W/nginx; sets PORT, URL, NGINX_PID.
bench_nginx() {
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p "$W/nginx/tmp" "$W/nginx/logs"
	sed "s/127\.0\.0\.1:18980/127.0.0.1:$PORT/" bench/nginx.conf >"$W/nginx/nginx.conf"
	nginx -p "$W/nginx" -c "$W/nginx/nginx.conf" -g "pid $W/nginx/nginx.pid;" 2>"$W/nginx/err" &
	NGINX_PID=$!
	for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break; sleep 0.05; done
	URL=http://127.0.0.1:$PORT/
}
