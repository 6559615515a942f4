#!/bin/bash
# timing-free: TLS handshakes and their errors, counted
# HTTPS (and HTTP/2 by ALPN) go through the curl transport: nginx with a
# throwaway self-signed certificate on 127.0.0.1.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/load_common.inc"

tls_cert https
P=$(free_port)
nginx_start '$server_protocol' "\
		listen 127.0.0.1:$P ssl http2;
		ssl_certificate $T/cert.pem;
		ssl_certificate_key $T/key.pem;
		location / { return 200 \"secure\\n\"; }"
check "nginx with TLS listens" wait_port "$P"

load tls "https://127.0.0.1:$P/" --rate 100 --duration 1 --cacert "$T/cert.pem" --connections 4
cmp_num "https: every request completed" "$(j tls .completed)" == 100
cmp_num "https: 2xx" "$(j tls '.status["2xx"]')" == 100
check "https: curl transport chosen" test "$(j tls .transport)" = curl
cmp_num "https: every request arrived over HTTP/2 (ALPN)" \
	"$(grep -c '^HTTP/2.0$' "$T/ng/access.log")" == 100
check "https: the protocol recorded is the one nginx logged (HTTP/2)" \
	test "$(j tls .protocol)" = "HTTP/2"
# "secure\n" is 7 body bytes per response, plus the headers curl counts.
cmp_num "https: bytes received count the bodies at least" "$(j tls .bytes_received)" ">=" 700
cmp_num "https: bytes sent counted" "$(j tls .bytes_sent)" ">" 0

# Without the CA the certificate does not verify: connect errors, counted.
# Each failed handshake costs a new connection, and libcurl loads the
# system CA bundle for each (tens of ms; hundreds on a loaded VM or under
# ASan): 50 requests queued on 4 connections once took longer than the
# 5 s drain and ended as timeouts. 10 requests, one connection each.
load untrusted "https://127.0.0.1:$P/" --rate 20 --duration 0.5 --connections 10
cmp_num "untrusted certificate: every request a connect error" \
	"$(j untrusted .errors.connect)" == "$(j untrusted .requests)"
expect_exit "--cacert of a missing file exits 2" 2 "$HARNESS" load "https://127.0.0.1:$P/" \
	--rate 1 --duration 1 --cacert "$T/none.pem"
