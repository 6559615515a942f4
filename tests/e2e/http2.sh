#!/bin/bash
# timing-free: the protocol recorded against nginx's log
# HTTP versions and TLS (issue 13, item 5): nginx (Debian) with a
# throwaway certificate serves HTTP/2 over TLS on one port and h2c (HTTP/2
# over plain TCP) on another; `harness load` with --http 2 / 1.1 / h2c, and
# a run of nginx itself over https with workload.http "2" and tls.cacert:
# the protocol recorded (load's JSON, each window's windows.protocol) is
# the one nginx logs ($server_protocol), and the report shows it, through
# a load agent too (--agent local); the
# run's runtime stats are polled over https with the same CA.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

tls_cert http2
# nginx.conf for PORT (TLS + HTTP/2) and PORT2 (h2c), logging into LOG.
conf() { # conf FILE PORT PORT2 LOG
	cat >"$1" <<CONF
worker_processes 1;
daemon off;
error_log stderr warn;
pid $1.pid;
events { worker_connections 256; }
http {
	log_format proto '\$server_port \$server_protocol';
	access_log $4 proto;
	client_body_temp_path tmp/body; proxy_temp_path tmp/proxy;
	fastcgi_temp_path tmp/fastcgi; uwsgi_temp_path tmp/uwsgi; scgi_temp_path tmp/scgi;
	server {
		listen 127.0.0.1:$2 ssl http2;
		ssl_certificate $T/cert.pem;
		ssl_certificate_key $T/key.pem;
		location / { return 200 "secure\n"; }
		location = /stats { access_log off; default_type application/json; return 200 '{"calls": 7}'; }
	}
	server {
		listen 127.0.0.1:$3 http2;
		location / { return 200 "h2c\n"; }
	}
}
CONF
}
mkdir -p "$T/ng/tmp"
P=$(free_port)
P2=$(free_port)
conf "$T/ng/nginx.conf" "$P" "$P2" "$T/ng/access.log"
bg nginx -p "$T/ng" -c "$T/ng/nginx.conf" 2>"$T/ng/err"
check "nginx listens (TLS)" wait_port "$P"
check "nginx listens (h2c)" wait_port "$P2"

# logged PORT PROTO: lines nginx logged for PORT with that protocol.
logged() { grep -c "^$1 $2\$" "$T/ng/access.log"; }

load h2 "https://127.0.0.1:$P/" --rate 100 --duration 0.5 --cacert "$T/cert.pem" --http 2
cmp_num "--http 2: every request completed" "$(j h2 .completed)" == 50
check "--http 2: the recorded protocol is HTTP/2" test "$(j h2 .protocol)" = HTTP/2
cmp_num "--http 2: nginx logged 50 HTTP/2.0 requests" "$(logged "$P" HTTP/2.0)" == 50

load h11 "https://127.0.0.1:$P/" --rate 100 --duration 0.5 --cacert "$T/cert.pem" --http 1.1
check "--http 1.1 over TLS: the recorded protocol is HTTP/1.1" test "$(j h11 .protocol)" = HTTP/1.1
cmp_num "--http 1.1 over TLS: nginx logged 50 HTTP/1.1 requests" "$(logged "$P" HTTP/1.1)" == 50

load ins "https://127.0.0.1:$P/" --rate 100 --duration 0.3 --insecure
cmp_num "--insecure: no CA, every request completed" "$(j ins .completed)" == 30

load h2c "http://127.0.0.1:$P2/" --rate 100 --duration 0.5 --http h2c
cmp_num "--http h2c: every request completed" "$(j h2c .completed)" == 50
check "--http h2c: the curl transport is chosen" test "$(j h2c .transport)" = curl
check "--http h2c: the recorded protocol is HTTP/2" test "$(j h2c .protocol)" = HTTP/2
cmp_num "--http h2c: nginx logged 50 HTTP/2.0 requests" "$(logged "$P2" HTTP/2.0)" == 50
# The same through a load agent (`--agent local`, the agent protocol's
# version 2 carries the HTTP version, insecure and the CA file's bytes).
agent_load() { # agent_load OUT WHAT PORT PROTO LOAD-ARGS...: 50 requests, nginx's count of them
	local out=$1 what=$2 port=$3 proto=$4 before; shift 4
	before=$(logged "$port" "$proto")
	load "$out" "$@" --rate 100 --duration 0.5 --agent local
	cmp_num "agent, $what: every request completed" "$(j "$out" .completed)" == 50
	cmp_num "agent, $what: nginx logged 50 more $proto requests" "$(( $(logged "$port" "$proto") - before ))" == 50
}
agent_load ah2 "--http 2 with --cacert" "$P" HTTP/2.0 "https://127.0.0.1:$P/" --cacert "$T/cert.pem" --http 2
check "agent --http 2 with --cacert: the recorded protocol is HTTP/2" test "$(j ah2 .protocol)" = HTTP/2
agent_load ah11 "--http 1.1 over TLS" "$P" HTTP/1.1 "https://127.0.0.1:$P/" --cacert "$T/cert.pem" --http 1.1
check "agent --http 1.1 over TLS: the recorded protocol is HTTP/1.1" test "$(j ah11 .protocol)" = HTTP/1.1
agent_load ains "--insecure" "$P" HTTP/2.0 "https://127.0.0.1:$P/" --insecure
agent_load ah2c "--http h2c" "$P2" HTTP/2.0 "http://127.0.0.1:$P2/" --http h2c
check "agent --http h2c: the recorded protocol is HTTP/2" test "$(j ah2c .protocol)" = HTTP/2

expect_exit "--http h2c with --transport native is refused" 3 "$HARNESS" load \
	"http://127.0.0.1:$P2/" --rate 10 --duration 0.2 --http h2c --transport native
expect_exit "--http 3 is a usage error" 2 "$HARNESS" load "http://127.0.0.1:$P2/" \
	--rate 10 --duration 0.2 --http 3

# A run of nginx over https: the harness starts it on {port} (the h2c
# server on a port of our choosing), checks its health over TLS with the
# spec's CA, and records each window's protocol.
mkdir -p "$T/run/tmp"
conf "$T/run/nginx.tmpl" @PORT@ "$(free_port)" "$T/run/access.log"
cat >"$T/spec.yaml" <<YAML
version: 1
name: e2e-http2
slo: { percentile: 99, threshold_ms: 50 }
implementations:
  - name: nginx
    start: [bash, -c, 'sed "s/@PORT@/\$1/" nginx.tmpl >nginx.conf && exec nginx -p . -c nginx.conf', x, "{port}"]
    repo: $T/run
    health: { url: "https://127.0.0.1:{port}/", timeout_s: 10 }
    stats: { url: "https://127.0.0.1:{port}/stats", poll_hz: 4, signals: { calls: /calls } }
    restart: never
workload:
  http: "2"
  tls: { cacert: cert.pem }
  connections: 8
  requests:
    - { name: page, path: /x, expect: { body_contains: secure } }
stages:
  ladder: { start_rps: 100, step: 2, max_rps: 100, reps: 1, window_s: 2, discard_s: 1 }
$(warmup_at 100 2 'hot_set_touched')
window_gates: [error_rate, sut_alive]
YAML
cp "$T/cert.pem" "$T/cert.pem.copy"
expect_exit "check accepts http and tls" 0 "$HARNESS" check "$T/spec.yaml"
check "check prints the HTTP version and the CA file" grep -q "^http: *2, https, cacert $T/cert.pem" "$T/out"
RUNS="$T/runs"
"$HARNESS" run "$T/spec.yaml" --allow-dirty --runs-dir "$RUNS" --run-id h2 >"$T/run.out" 2>"$T/run.err"
q() { sqlite3 "$RUNS/h2/run.db" "$1"; }
done_w=$(q "SELECT COUNT(*) FROM windows WHERE state = 'done'")
cmp_num "run over https: a window measured (stderr: $(tail -n 2 "$T/run.err" | tr '\n' ' '))" "$done_w" ">=" 1
cmp_num "run over https: every window recorded HTTP/2" \
	"$(q "SELECT COUNT(*) FROM windows WHERE state = 'done' AND protocol = 'HTTP/2'")" == "$done_w"
cmp_num "run over https: nginx logged only HTTP/2.0 (health checks, warm-up, window)" \
	"$(grep -vc ' HTTP/2.0$' "$T/run/access.log")" == 0
cmp_num "run over https: nginx logged the window's requests" \
	"$(grep -c ' HTTP/2.0$' "$T/run/access.log")" ">=" "$(q "SELECT SUM(completed) FROM windows WHERE state = 'done'")"
# Runtime stats over https are verified with the same CA (tls.cacert):
# a poll refused by certificate verification is a row with an error.
cmp_num "run over https: runtime stats polled, read with the spec's CA" \
	"$(q "SELECT COUNT(*) FROM rtstats WHERE signal = 'calls' AND value = 7")" ">=" 4
cmp_num "run over https: no stats poll failed ($(q "SELECT error FROM rtstats WHERE error IS NOT NULL LIMIT 1"))" \
	"$(q "SELECT COUNT(*) FROM rtstats WHERE error IS NOT NULL")" == 0
"$HARNESS" report h2 --runs-dir "$RUNS" -o "$T/rep" >/dev/null 2>&1
check "the report shows the protocol" grep -q "HTTP/2" "$T/rep/report.md"
