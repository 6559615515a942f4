/* test_load: URL parsing, request bytes, the weighted mix, and the native
 * and curl transports against an in-process server speaking what testsrv
 * does not: chunked bodies, read-until-close bodies, HEAD, junk. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "load/load.h"
#include "load/load_internal.h"
#include "t.h"
#include "base/util.h"

TEST(url_parse)
{
	struct load_url u;
	const char *why = NULL;

	CHECK(load_url_parse("http://127.0.0.1:8080/base/", &u, &why) == 0);
	CHECK_STR(u.host, "127.0.0.1");
	CHECK_STR(u.port, "8080");
	CHECK_STR(u.hostport, "127.0.0.1:8080");
	CHECK_STR(u.origin, "http://127.0.0.1:8080");
	CHECK_STR(u.path, "/base/");
	CHECK(!u.https);
	load_url_release(&u);
	CHECK(load_url_parse("https://example.org?q=1", &u, &why) == 0);
	CHECK(u.https);
	CHECK_STR(u.port, "443");
	CHECK_STR(u.hostport, "example.org");
	CHECK_STR(u.path, "/?q=1");
	load_url_release(&u);
	CHECK(load_url_parse("http://[::1]:81/x", &u, &why) == 0);
	CHECK_STR(u.host, "::1");
	CHECK_STR(u.hostport, "[::1]:81");
	load_url_release(&u);
	CHECK(load_url_parse("ftp://x/", &u, &why) == -1);
	CHECK(load_url_parse("http://:80/", &u, &why) == -1);
	CHECK(load_url_parse("http://h:0/", &u, &why) == -1);
	CHECK(load_url_parse("http://h:65536/", &u, &why) == -1);
	CHECK(load_url_parse("http://h:8x/", &u, &why) == -1);
	CHECK(load_url_parse("http://u:p@h/", &u, &why) == -1);
	CHECK(load_url_parse("http://h/a b", &u, &why) == -1);
}

static struct kv hdr = { (char *)"X-Test", (char *)"1" };
static struct load_request reqs[] = {
	{ .name = (char *)"chunked", .weight = 1, .method = (char *)"GET", .path = (char *)"/chunked" },
	{ .name = (char *)"close", .weight = 1, .method = (char *)"GET", .path = (char *)"/close" },
	{ .name = (char *)"head", .weight = 1, .method = (char *)"HEAD", .path = (char *)"/head" },
	{ .name = (char *)"missing", .weight = 1, .method = (char *)"POST", .path = (char *)"/404",
	  .headers = &hdr, .nheaders = 1, .body = (char *)"abc", .body_len = 3 },
	{ .name = (char *)"junk", .weight = 1, .method = (char *)"GET", .path = (char *)"/junk" },
};

TEST(wire_bytes)
{
	struct load_config cfg;
	struct load_shared sh;
	const char *why;

	memset(&cfg, 0, sizeof(cfg));
	memset(&sh, 0, sizeof(sh));
	cfg.url = "http://127.0.0.1:8080/api/";
	cfg.requests = reqs;
	cfg.nrequests = ARRAY_SIZE(reqs);
	sh.cfg = &cfg;
	sh.tr = &load_curl_transport; /* no name resolution needed */
	CHECK(load_url_parse(cfg.url, &sh.url, &why) == 0);
	CHECK(load_shared_prepare(&sh) == 0);
	CHECK(!strncmp(sh.wire[0].bytes, "GET /api/chunked HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n", 49));
	CHECK(strstr(sh.wire[0].bytes, "Content-Length") == NULL);
	CHECK(sh.wire[2].head && !sh.wire[0].head);
	CHECK(strstr(sh.wire[3].bytes, "X-Test: 1\r\nContent-Length: 3\r\n\r\nabc") != NULL);
	CHECK(sh.wire[3].len == strlen(sh.wire[3].bytes));
	CHECK_STR(sh.wire[3].url, "http://127.0.0.1:8080/api/404");
	load_shared_release(&sh);
}

TEST(weighted_mix)
{
	struct load_request r[3] = {
		{ .name = (char *)"a", .weight = 70 },
		{ .name = (char *)"b", .weight = 0 },
		{ .name = (char *)"c", .weight = 30 },
	};
	struct load_config cfg;
	struct load_shared sh;
	struct rng rng;
	const char *why;
	int n[3] = { 0, 0, 0 }, i;

	memset(&cfg, 0, sizeof(cfg));
	memset(&sh, 0, sizeof(sh));
	cfg.url = "http://h/";
	cfg.requests = r;
	cfg.nrequests = 3;
	sh.cfg = &cfg;
	sh.tr = &load_curl_transport;
	CHECK(load_url_parse(cfg.url, &sh.url, &why) == 0);
	CHECK(load_shared_prepare(&sh) == 0);
	rng_seed(&rng, 9, 0);
	for (i = 0; i < 100000; i++)
		n[load_pick(&sh, &rng)]++;
	/* Binomial sd at 100000 draws is 0.0014; 0.01 is 7 sd. */
	NEAR(n[0] / 100000.0, 0.7, 0.01, "weight 70 of 100");
	CHECK(n[1] == 0); /* weight 0: never */
	NEAR(n[2] / 100000.0, 0.3, 0.01, "weight 30 of 100");
	load_shared_release(&sh);
}

/* ------------------------------------------------------ a tiny server */

static int srv_fd;

static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[4096];
	size_t have = 0;
	int served = 0;

	for (;;) {
		char *end;
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		const char *resp;
		int close_after = 0;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		end = strstr(buf, "\r\n\r\n");
		if (!end)
			continue;
		if (!strncmp(buf, "GET /chunked ", 13)) {
			resp = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			       "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
		} else if (!strncmp(buf, "GET /slow ", 10)) {
			usleep(10000);   /* 10 ms per answer: closed_loop */
			resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
		} else if (!strncmp(buf, "GET /close ", 11)) {
			resp = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end";
			close_after = 1;
		} else if (!strncmp(buf, "GET /oneshot ", 13)) {
			/* The first request on a connection is answered with
			 * keep-alive; the second finds the connection closed
			 * without an answer: a server's idle timeout firing just
			 * as the request arrives. */
			if (served++)
				break;
			resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
		} else if (!strncmp(buf, "GET /hang ", 10)) {
			/* never answered: the client times out and closes */
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			goto done;
		} else if (!strncmp(buf, "HEAD /head ", 11)) {
			resp = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n";
		} else if (!strncmp(buf, "POST /404 ", 10)) {
			/* The 3-byte body follows the headers. */
			while (strlen(end + 4) < 3) {
				n = read(fd, buf + have, sizeof(buf) - 1 - have);
				if (n <= 0)
					goto done;
				have += (size_t)n;
				buf[have] = 0;
			}
			resp = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
		} else {
			resp = "NOT HTTP AT ALL\r\n\r\n";
			close_after = 1;
		}
		if (write(fd, resp, strlen(resp)) < 0 || close_after)
			break;
		have = 0;
	}
done:
	close(fd);
	return NULL;
}

static void *serve(void *arg)
{
	for (;;) {
		pthread_t t;
		int fd = accept(srv_fd, NULL, NULL);

		if (fd < 0)
			return NULL;
		pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)fd);
		pthread_detach(t);
	}
}

static int start_server(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	pthread_t t;
	int one = 1;

	srv_fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(srv_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(srv_fd, (struct sockaddr *)&a, sizeof(a)) || listen(srv_fd, 128))
		return -1;
	getsockname(srv_fd, (struct sockaddr *)&a, &len);
	pthread_create(&t, NULL, serve, NULL);
	pthread_detach(t);
	return ntohs(a.sin_port);
}

static int port;

/* cfg zeroed, aimed at the test server on this host (url: the caller's
 * buffer of n bytes) with its nreqs requests. */
static void local_cfg(struct load_config *cfg, char *url, size_t n,
		      const struct load_request *reqs, size_t nreqs)
{
	snprintf(url, n, "http://127.0.0.1:%d", port);
	memset(cfg, 0, sizeof(*cfg));
	cfg->url = url;
	cfg->requests = reqs;
	cfg->nrequests = nreqs;
}

static void run_mix(enum transport tr)
{
	struct load_config cfg;
	struct load_result res;
	const struct load_counts *c;
	char url[64];
	size_t i;

	local_cfg(&cfg, url, sizeof(url), reqs, ARRAY_SIZE(reqs));
	cfg.rate = 400;
	cfg.duration_s = 0.5;
	cfg.seed = 3;
	cfg.connections = 8;
	cfg.backlog_max = 1000;
	cfg.timeout_ms = 2000;
	cfg.threads = 1;
	cfg.transport = tr;
	CHECK(load_run(&cfg, &res) == 0);
	c = &res.total.counts;
	CHECK(c->due == 200);
	CHECK(c->due == c->completed + load_counts_errors(c) + c->dropped);
	for (i = 0; i < 4; i++) {
		const struct load_counts *rc = &res.total.req_counts[i];

		if (rc->completed != rc->due)
			printf("#   %s: %s: due %llu completed %llu errors %llu\n",
			       tr == TRANSPORT_CURL ? "curl" : "native", reqs[i].name,
			       (unsigned long long)rc->due, (unsigned long long)rc->completed,
			       (unsigned long long)load_counts_errors(rc));
		CHECK(rc->due > 0 && rc->completed == rc->due);
	}
	CHECK(res.total.req_counts[0].status[0] == res.total.req_counts[0].due);
	CHECK(res.total.req_counts[3].status[2] == res.total.req_counts[3].due); /* 404: 4xx */
	/* Junk is a parse error (curl: "weird server reply"). */
	for (i = 0; i < LERR_KINDS; i++)
		if (res.total.req_counts[4].errors[i] && i != LERR_PARSE)
			printf("#   junk: %s %llu\n", load_error_name(i),
			       (unsigned long long)res.total.req_counts[4].errors[i]);
	CHECK(res.total.req_counts[4].errors[LERR_PARSE] == res.total.req_counts[4].due);
	CHECK(res.total.req_latency[0].total == res.total.req_counts[0].completed);
	CHECK(res.seconds == 0); /* 0.5 s: no whole second */
	load_result_release(&res);
}

TEST(native_framing)
{
	run_mix(TRANSPORT_NATIVE);
}

TEST(curl_framing)
{
	run_mix(TRANSPORT_CURL);
}

struct seconds_seen {
	unsigned calls;
	uint64_t due;
};

static int count_second(void *ctx, unsigned index, const struct load_stats *s)
{
	struct seconds_seen *ss = ctx;

	CHECK(index == ss->calls);
	ss->calls++;
	ss->due += s->counts.due;
	return 0;
}

TEST(per_second_callbacks)
{
	struct load_request r = { .name = (char *)"c", .weight = 1, .path = (char *)"/chunked" };
	struct seconds_seen ss = { 0, 0 };
	struct load_config cfg;
	struct load_result res;
	char url[64];

	local_cfg(&cfg, url, sizeof(url), &r, 1);
	cfg.rate = 100;
	cfg.duration_s = 2;
	cfg.connections = 4;
	cfg.backlog_max = 100;
	cfg.timeout_ms = 1000;
	cfg.threads = 2;
	cfg.on_second = count_second;
	cfg.ctx = &ss;
	CHECK(load_run(&cfg, &res) == 0);
	CHECK(res.seconds == 2 && ss.calls == 2);
	/* Constant: 100 due in each second, counted in the second it is due
	 * in even when the generator's wake-up slipped past t = 2 s (a busy
	 * box): never in the partial third second. */
	CHECK(ss.due == 200);
	CHECK(res.total.counts.due == 200);
	CHECK(res.total.counts.completed == 200);
	NEAR(res.elapsed_s, 2.0, 0.001, "the schedule's window");
	load_result_release(&res);
}

/* What on_second and on_drain saw, merged. */
struct drain_seen {
	struct load_stats secs, drain;
	unsigned calls, drains, stop_after;
};

static int keep_second(void *ctx, unsigned index, const struct load_stats *s)
{
	struct drain_seen *ds = ctx;

	(void)index;
	load_stats_merge(&ds->secs, s);
	return ++ds->calls == ds->stop_after;
}

static void keep_drain(void *ctx, const struct load_stats *s)
{
	struct drain_seen *ds = ctx;

	ds->drains++;
	load_stats_merge(&ds->drain, s);
}

/* The seconds handed on plus the drain are exactly the totals: counts,
 * per-request counts and histograms. */
static void check_sum(const struct drain_seen *ds, const struct load_stats *t)
{
	struct load_stats sum;
	const struct load_counts *a, *b;
	size_t i;

	load_stats_init(&sum, t->nreq);
	load_stats_merge(&sum, &ds->secs);
	load_stats_merge(&sum, &ds->drain);
	for (i = 0; i <= t->nreq; i++) {
		a = i < t->nreq ? &sum.req_counts[i] : &sum.counts;
		b = i < t->nreq ? &t->req_counts[i] : &t->counts;
		CHECK(a->due == b->due && a->sent == b->sent && a->completed == b->completed);
		CHECK(load_counts_errors(a) == load_counts_errors(b) && a->dropped == b->dropped);
		CHECK(a->errors[LERR_TIMEOUT] == b->errors[LERR_TIMEOUT]);
	}
	CHECK(sum.latency.total == t->latency.total && sum.latency.max == t->latency.max);
	CHECK(sum.service.total == t->service.total);
	CHECK(sum.sched_lag.total == t->sched_lag.total);
	for (i = 0; i < t->nreq; i++)
		CHECK(sum.req_latency[i].total == t->req_latency[i].total);
	load_stats_release(&sum);
}

/* 1 s of a mix where one request in two hangs past the timeout (300 ms):
 * the ones due in the last 300 ms time out after the last whole second,
 * in the drain; stopped after its first second, everything after it is
 * the drain's. */
static void run_drain(unsigned seconds, unsigned stop_after)
{
	struct load_request r[2] = {
		{ .name = (char *)"c", .weight = 1, .path = (char *)"/chunked" },
		{ .name = (char *)"h", .weight = 1, .path = (char *)"/hang" },
	};
	struct drain_seen ds;
	struct load_config cfg;
	struct load_result res;
	char url[64];

	memset(&ds, 0, sizeof(ds));
	load_stats_init(&ds.secs, 2);
	load_stats_init(&ds.drain, 2);
	ds.stop_after = stop_after;
	local_cfg(&cfg, url, sizeof(url), r, 2);
	cfg.rate = 100;
	cfg.duration_s = seconds;
	cfg.connections = 64;
	cfg.backlog_max = 1000;
	cfg.timeout_ms = 300;
	cfg.threads = 2;
	cfg.on_second = keep_second;
	cfg.on_drain = keep_drain;
	cfg.ctx = &ds;
	CHECK(load_run(&cfg, &res) == 0);
	CHECK(ds.drains == 1);
	CHECK(ds.calls == (stop_after ? stop_after : seconds));
	check_sum(&ds, &res.total);
	CHECK(res.total.counts.due == res.total.counts.completed +
	      load_counts_errors(&res.total.counts) + res.total.counts.dropped);
	/* Every hung request is a timeout; those due in the last 300 ms of
	 * the seconds handed on fail after them, in the drain (about 15 of
	 * ~50 hung per second; at least one whatever the draw). */
	CHECK(res.total.req_counts[1].errors[LERR_TIMEOUT] == res.total.req_counts[1].due);
	CHECK(ds.drain.counts.errors[LERR_TIMEOUT] > 0);
	CHECK(ds.drain.counts.errors[LERR_TIMEOUT] < res.total.counts.errors[LERR_TIMEOUT]);
	if (stop_after)
		CHECK(ds.drain.counts.due > 0 && res.stopped_early);
	else
		CHECK(ds.secs.counts.due + ds.drain.counts.due == 100u * seconds);
	load_stats_release(&ds.secs);
	load_stats_release(&ds.drain);
	load_result_release(&res);
}

TEST(drain_is_handed_on)
{
	run_drain(1, 0);
}

TEST(drain_after_an_early_stop)
{
	run_drain(2, 1);
}

/* A generator stalled from t = 1 s to 2.3 s, past the schedule's end
 * (load.h test_stall_ms): what fell due meanwhile is made due at 2.3 s,
 * late, and still counted in seconds 0 and 1, where it was due (it once
 * went to the partial third second: a window's due fell short of its
 * schedule, agent_run.sh's 799 or 790 of 800). */
TEST(due_counted_in_its_own_second)
{
	struct load_request r = { .name = (char *)"r", .weight = 1, .path = (char *)"/chunked" };
	struct seconds_seen ss = { 0, 0 };
	struct load_config cfg;
	struct load_result res;
	char url[64];

	local_cfg(&cfg, url, sizeof(url), &r, 1);
	cfg.rate = 100;
	cfg.duration_s = 2;
	cfg.connections = 4;
	cfg.backlog_max = 1000;
	cfg.timeout_ms = 2000;
	cfg.threads = 1;
	cfg.test_stall_ms = 1300;
	cfg.on_second = count_second;
	cfg.ctx = &ss;
	CHECK(load_run(&cfg, &res) == 0);
	CHECK(res.seconds == 2 && ss.calls == 2);
	CHECK(ss.due == 200);
	if (res.total.counts.completed != 200)
		printf("#   due %llu completed %llu errors %llu dropped %llu\n",
		       (unsigned long long)res.total.counts.due,
		       (unsigned long long)res.total.counts.completed,
		       (unsigned long long)load_counts_errors(&res.total.counts),
		       (unsigned long long)res.total.counts.dropped);
	CHECK(res.total.counts.due == 200 && res.total.counts.completed == 200);
	/* they were late: the stall shows in the schedule lag */
	CHECK(res.total.sched_lag.total == 200 && hist_percentile_ms(&res.total.sched_lag, 99) > 1000);
	load_result_release(&res);
}

/* A server that drops every kept-alive connection when the second request
 * arrives: that request is re-sent once on a new connection. No errors. */
static void run_oneshot(enum transport tr)
{
	struct load_request r = { .name = (char *)"o", .weight = 1, .path = (char *)"/oneshot" };
	struct load_config cfg;
	struct load_result res;
	char url[64];

	local_cfg(&cfg, url, sizeof(url), &r, 1);
	cfg.rate = 500;
	cfg.duration_s = 0.5;
	cfg.connections = 2;
	cfg.backlog_max = 1000;
	cfg.timeout_ms = 2000;
	cfg.threads = 1;
	cfg.transport = tr;
	CHECK(load_run(&cfg, &res) == 0);
	CHECK(res.total.counts.due == 250);
	CHECK(res.total.counts.completed == 250);
	if (load_counts_errors(&res.total.counts))
		printf("#   %s: reset %llu other %llu\n", tr == TRANSPORT_CURL ? "curl" : "native",
		       (unsigned long long)res.total.counts.errors[LERR_RESET],
		       (unsigned long long)res.total.counts.errors[LERR_OTHER]);
	CHECK(load_counts_errors(&res.total.counts) == 0);
	load_result_release(&res);
}

TEST(native_server_closes_kept_alive)
{
	run_oneshot(TRANSPORT_NATIVE);
}

TEST(curl_server_closes_kept_alive)
{
	run_oneshot(TRANSPORT_CURL);
}

TEST(setup_errors)
{
	struct load_request r = { .name = (char *)"x", .weight = 1 };
	struct load_config cfg;
	struct load_result res;

	memset(&cfg, 0, sizeof(cfg));
	cfg.url = "http://127.0.0.1:9/";
	cfg.requests = &r;
	cfg.nrequests = 1;
	cfg.rate = 0;
	cfg.duration_s = 1;
	cfg.connections = 1;
	cfg.timeout_ms = 10;
	cfg.threads = 1;
	CHECK(load_run(&cfg, &res) == -1);
	load_result_release(&res);
	cfg.rate = 10;
	cfg.url = "https://127.0.0.1:9/";
	cfg.transport = TRANSPORT_NATIVE;
	CHECK(load_run(&cfg, &res) == -1);
	load_result_release(&res);
	CHECK_STR(load_error_name(LERR_TIMEOUT), "timeout");
	CHECK_STR(load_error_name(LERR_CONNECT), "connect");
}

/* Closed loop (load.h `closed`): a connection sends again only once its
 * answer came. 4 connections to a server answering in 10 ms for 0.5 s
 * can complete at most 4 x 50 = 200 requests (plus none in flight: each
 * finishes); a loaded 2-core box makes it fewer, never more, but at least
 * the 4 first sends (a host at load 9 beside SCHED_FIFO generators may
 * leave the loop few round trips: once "at least 20" failed). Every
 * latency is a service time (>= 10 ms: the server's sleep). The loop ends
 * with its last answer: at most its slowest request after the 0.5 s
 * (the last send), plus 0.5 s for the engine's own wake-up (was under
 * 1 s flat, which a host stall can move). With a count, exactly that
 * many are sent, across 2 threads. */
TEST(closed_loop)
{
	struct load_request slow = { .name = (char *)"s", .weight = 1, .path = (char *)"/slow" };
	struct load_request fast = { .name = (char *)"f", .weight = 1, .path = (char *)"/chunked" };
	struct load_config cfg;
	struct load_result res;
	const struct load_counts *c;
	char url[64];

	local_cfg(&cfg, url, sizeof(url), &slow, 1);
	cfg.closed = 1;
	cfg.duration_s = 0.5;
	cfg.connections = 4;
	cfg.backlog_max = 0;
	cfg.timeout_ms = 2000;
	cfg.threads = 1;
	CHECK(load_run(&cfg, &res) == 0);
	c = &res.total.counts;
	CHECK(c->completed >= 4 && c->completed <= 200);
	CHECK(c->due == c->completed && c->sent == c->completed && !c->dropped);
	CHECK(hist_percentile_ms(&res.total.latency, 0) >= 10.0);
	CHECK(res.elapsed_s >= 0.5 && res.elapsed_s < 0.5 + res.total.latency.max / 1e9 + 0.5);
	printf("# closed loop: %llu completed in %.3f s, slowest %.1f ms\n",
	       (unsigned long long)c->completed, res.elapsed_s, res.total.latency.max / 1e6);
	NEAR(res.achieved_rps, c->completed / res.elapsed_s, 1e-6, "throughput");
	load_result_release(&res);

	cfg.requests = &fast;
	cfg.max_requests = 301;
	cfg.duration_s = 30;
	cfg.threads = 2;
	CHECK(load_run(&cfg, &res) == 0);
	c = &res.total.counts;
	CHECK(c->due == 301 && c->completed == 301);
	CHECK(res.elapsed_s < 30);
	load_result_release(&res);
}

/* The thread's own CPU, ns. */
static uint64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * load_hold (load.h host_void_ms): a request is void only when the thread
 * was waiting for it and was not run for longer than the limit beyond its
 * own CPU. A sleep stands for the stall here (the thread does not run);
 * a CPU spin for the generator's own work; a wait for the coordinator
 * spoils the wake-up; a SCHED_OTHER thread and no limit never void.
 */
TEST(host_hold)
{
	struct load_config cfg;
	struct load_shared sh;
	struct load_thread th;
	uint64_t now, c0;

	memset(&cfg, 0, sizeof(cfg));
	memset(&sh, 0, sizeof(sh));
	memset(&th, 0, sizeof(th));
	cfg.host_void_ms = 5;
	sh.cfg = &cfg;
	th.sh = &sh;
	th.rt = 1;

	/* not run for 20 ms while waiting for a request due 1 ms in */
	load_hold_mark(&th);
	CHECK(th.hold_armed);
	sleep_until_ns(th.hold_wall + 20000000ull);
	now = now_ns();
	load_hold_check(&th, now);
	CHECK(th.held_ok);
	CHECK(th.own_ns < 2000000ull);
	CHECK(load_hold_void(&th, th.hold_wall + 1000000ull, now));
	CHECK(!load_hold_void(&th, now - 4000000ull, now));      /* 4 ms late: under 5 */
	CHECK(!load_hold_void(&th, th.hold_wall - 1, now));      /* due before the wait */
	load_hold_check(&th, now_ns());                          /* one check per mark */
	CHECK(!th.held_ok);
	CHECK(!load_hold_void(&th, th.hold_wall + 1000000ull, now));

	/* its own work: 20 ms of CPU, then 10 ms not run */
	load_hold_mark(&th);
	c0 = own_cpu_ns();
	while (own_cpu_ns() < c0 + 20000000ull)
		;
	sleep_until_ns(now_ns() + 10000000ull);
	now = now_ns();
	load_hold_check(&th, now);
	CHECK(th.held_ok);
	CHECK(th.own_ns >= 20000000ull);
	/* late by its CPU + 4 ms: the host's part is under the limit */
	CHECK(!load_hold_void(&th, now - th.own_ns - 4000000ull, now));
	/* late by its CPU + 6 ms (and after the wait began): void */
	CHECK(now - th.own_ns - 6000000ull > th.hold_wall);
	CHECK(load_hold_void(&th, now - th.own_ns - 6000000ull, now));

	/* a wait for the coordinator after the wake-up: nothing void */
	load_hold_mark(&th);
	sleep_until_ns(th.hold_wall + 20000000ull);
	now = now_ns();
	load_hold_check(&th, now);
	load_hold_spoil(&th);
	CHECK(!load_hold_void(&th, th.hold_wall + 1000000ull, now));

	/* SCHED_OTHER, or no limit: never marks */
	th.rt = 0;
	load_hold_mark(&th);
	CHECK(!th.hold_armed);
	th.rt = 1;
	cfg.host_void_ms = 0;
	load_hold_mark(&th);
	CHECK(!th.hold_armed);
	load_hold_check(&th, now_ns());
	CHECK(!th.held_ok);
}

int main(void)
{
	port = start_server();
	RUN(url_parse);
	RUN(wire_bytes);
	RUN(weighted_mix);
	RUN(native_framing);
	RUN(curl_framing);
	RUN(per_second_callbacks);
	RUN(drain_is_handed_on);
	RUN(drain_after_an_early_stop);
	RUN(due_counted_in_its_own_second);
	RUN(native_server_closes_kept_alive);
	RUN(curl_server_closes_kept_alive);
	RUN(setup_errors);
	RUN(closed_loop);
	RUN(host_hold);
	return t_done();
}
