/*
 * testsrv: a configurable HTTP/1.1 server for the load-engine, accounting and
 * runner tests. One thread per connection (at most 1024 at once), keep-alive,
 * Content-Length bodies, no pipelining. It never prints per request; it logs
 * its start-up line to stderr. SIGTERM and SIGINT exit 0 at once.
 *
 *   testsrv --port P [--host 127.0.0.1]
 *           [--delay-ms D]                 fixed delay before each response
 *           [--stall-at-ms A --stall-ms L] responses due in [A, A+L) ms after
 *                                          start are held until A+L
 *           [--error-pct X]                request n (1-based) gets HTTP 500
 *                                          when floor(n*X/100) !=
 *                                          floor((n-1)*X/100)
 *           [--mode ok|reset|hang|close|wrong-status|wrong-body|truncated|empty|
 *                   wrong-type|upper]
 *                                          malformed answers (each request):
 *                                          wrong-status: 404 "not found";
 *                                          wrong-body: 200 "WRONG"; truncated:
 *                                          200 promising 100 bytes, 20 sent,
 *                                          then a close (FIN); empty: 200 with
 *                                          an empty body; wrong-type: 200 "ok"
 *                                          as text/html; upper: the echo
 *                                          upper-cased ("meridian" ->
 *                                          "MERIDIAN")
 *           [--exit-after-ms N]            _exit(1) N ms after start
 *           [--crash-once FILE]            with --exit-after-ms: crash only if
 *                                          FILE does not exist (created first)
 *           [--burn-us U]                  burn U us of thread CPU per request
 *           [--leak-kb K]                  allocate and touch K KiB per request
 *                                          (not /healthz), never freed: an
 *                                          implementation that runs out of
 *                                          memory under load
 *           [--stats-mode ok|malformed|500|hang]
 *           [--port-file F]                write the bound port to F
 *           [--count-file F]               its own count of what it served,
 *                                          current after every request and
 *                                          readable after it exits: three
 *                                          unsigned 64-bit words (native
 *                                          order; od -An -t u8): the
 *                                          requests other than /healthz and
 *                                          /runtime-stats received (the
 *                                          --error-pct sequence), of them
 *                                          answered 500 by --error-pct, and
 *                                          /healthz requests
 *           [--workers W]                  at most W requests in their delay
 *                                          and burn at once (the rest wait):
 *                                          capacity W / delay
 *           [--forward-port P]             a chained call: each request other
 *                                          than /healthz first GETs / from
 *                                          127.0.0.1:P (a new connection,
 *                                          read to its close); 502 when that
 *                                          fails
 *           [--forward-host A]             ... from A (IPv4) instead
 *           [--rate-limit R]               token bucket of R req/s (R/10
 *                                          tokens of burst): HTTP 503 at once
 *                                          when empty
 *           [--tail-above R --tail-ms T --tail-every N]
 *                                          the same bucket, answering instead:
 *                                          every Nth (default 100th) request
 *                                          that finds it empty waits T ms
 *                                          more (default 400): a tail of up
 *                                          to 1/N above R req/s, none below
 *                                          (at N = 100 the p99.9 crosses an
 *                                          SLO between T and the body's
 *                                          latency, the p99 does not)
 *           [--reply JSON]                 answer every request but /healthz
 *                                          (when nothing else decides) with
 *                                          200 application/json JSON, instead
 *                                          of the echo
 *           [--spin-idle N]                a hostile neighbour: fork N children
 *                                          that leave the process group
 *                                          (setsid), outlive the server (a
 *                                          SIGTERM sent to its group misses
 *                                          them), and burn a core each
 *                                          whenever no request (other than
 *                                          /healthz) came in the last 200 ms:
 *                                          idle while measured, busy while
 *                                          another arm is (runner_freeze.c)
 *           [--spin-pct P]                 the spinners burn P% of their
 *                                          core (10 ms bursts; default 100)
 *           [--spin-for S]                 the spinners exit S seconds after
 *                                          they start (default: never)
 *   A path /delay/N (N > 0) waits N ms more before its answer.
 *
 * Routes: GET /healthz -> 200 "ok"; GET /runtime-stats -> JSON (see
 * stats_body()); GET /metrics -> the same figures as Prometheus text
 * (prom_body(), also governed by --stats-mode); anything else -> 200 echoing the body ("ok" when empty).
 *
 * Which options touch which route (so tests know what they measure):
 *  - /runtime-stats is governed by --stats-mode only: no delay, stall, burn,
 *    error or mode, and it is not counted anywhere.
 *  - /healthz gets delay, stall and burn, is counted in "requests" and
 *    endpoint_calls.healthz, but is exempt from --error-pct and --mode, so a
 *    runner's readiness probe sees a live server.
 *  - every other request gets everything; the --error-pct sequence number n
 *    counts only these requests; --rate-limit and --workers apply to them
 *    only (a 503 of the bucket is answered before any delay).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define MAX_HEADER (64 * 1024)
#define MAX_BODY (64 * 1024 * 1024)

enum mode { MODE_OK, MODE_RESET, MODE_HANG, MODE_CLOSE, MODE_WRONG_STATUS, MODE_WRONG_BODY,
	    MODE_TRUNCATED, MODE_EMPTY, MODE_WRONG_TYPE, MODE_UPPER };
enum stats_mode { STATS_OK, STATS_MALFORMED, STATS_500, STATS_HANG };

static struct {
	const char *host;
	long port;
	long delay_ms;
	long stall_at_ms, stall_ms;
	uint64_t error_milli_pct;	/* X * 1000, so the test is integer-exact */
	enum mode mode;
	long exit_after_ms;
	const char *crash_once;
	long burn_us;
	long leak_kb;
	long forward_port;
	const char *forward_host;	/* NULL: 127.0.0.1 */
	enum stats_mode stats_mode;
	const char *port_file;
	const char *count_file;
	long workers;
	double rate_limit;
	double tail_above;
	long spin_idle, spin_pct, spin_for_s;
	long tail_ms, tail_every;
	const char *reply;
} opt = { .host = "127.0.0.1", .port = -1, .stall_at_ms = -1, .exit_after_ms = -1,
	    .tail_ms = 400, .tail_every = 100, .spin_pct = 100 };

static uint64_t start_ns;
static sem_t conn_slots;
static _Atomic uint64_t *spin_last_ns;	/* --spin-idle: shared with the spinners */
static atomic_ulong n_requests;	/* every request except /runtime-stats */
static atomic_ulong n_work;	/* the --error-pct sequence */
static atomic_ulong n_echo, n_healthz, n_other;
/* --count-file: work requests, their injected 500s, /healthz (a shared
 * mapping of the file: it outlives the process) */
static _Atomic uint64_t no_counts[3];
static _Atomic uint64_t *counts = no_counts;
static sem_t worker_slots;		/* --workers */
static pthread_mutex_t bucket_mu = PTHREAD_MUTEX_INITIALIZER;	/* --rate-limit, --tail-above */
static double bucket_rate;
static atomic_ulong n_over;	/* --tail-above: requests that found the bucket empty */
static double bucket_tokens;
static uint64_t bucket_ns;

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("testsrv: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* --leak-kb: K KiB touched page by page and kept on a list, never freed. */
static void leak(long kb)
{
	static void *_Atomic kept;
	void **block = malloc((size_t)kb * 1024);

	if (!block)
		return;
	memset(block, 0x5a, (size_t)kb * 1024);
	*block = atomic_exchange(&kept, (void *)block);
}

static void burn(long us)
{
	struct timespec ts;
	uint64_t t0, t;
	volatile uint64_t sink = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	do {
		for (int i = 0; i < 200; i++)
			sink += (uint64_t)i * 2654435761u;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	} while (t - t0 < (uint64_t)us * 1000ull);
}

static long arg_long(const char *name, const char *v, long min)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < min)
		die("%s: bad value '%s'", name, v);
	return x;
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (i + 1 >= argc)
			die("%s: missing value (see the comment at the top of testsrv.c)", a);
		v = argv[++i];
		if (!strcmp(a, "--port"))
			opt.port = arg_long(a, v, 0);
		else if (!strcmp(a, "--host"))
			opt.host = v;
		else if (!strcmp(a, "--delay-ms"))
			opt.delay_ms = arg_long(a, v, 0);
		else if (!strcmp(a, "--stall-at-ms"))
			opt.stall_at_ms = arg_long(a, v, 0);
		else if (!strcmp(a, "--stall-ms"))
			opt.stall_ms = arg_long(a, v, 0);
		else if (!strcmp(a, "--error-pct")) {
			char *end;
			double x = strtod(v, &end);

			if (end == v || *end || !(x >= 0 && x <= 100))
				die("--error-pct: want 0..100, got '%s'", v);
			opt.error_milli_pct = (uint64_t)(x * 1000 + 0.5);
		} else if (!strcmp(a, "--mode")) {
			if (!strcmp(v, "ok")) opt.mode = MODE_OK;
			else if (!strcmp(v, "reset")) opt.mode = MODE_RESET;
			else if (!strcmp(v, "hang")) opt.mode = MODE_HANG;
			else if (!strcmp(v, "close")) opt.mode = MODE_CLOSE;
			else if (!strcmp(v, "wrong-status")) opt.mode = MODE_WRONG_STATUS;
			else if (!strcmp(v, "wrong-body")) opt.mode = MODE_WRONG_BODY;
			else if (!strcmp(v, "truncated")) opt.mode = MODE_TRUNCATED;
			else if (!strcmp(v, "empty")) opt.mode = MODE_EMPTY;
			else if (!strcmp(v, "wrong-type")) opt.mode = MODE_WRONG_TYPE;
			else if (!strcmp(v, "upper")) opt.mode = MODE_UPPER;
			else die("--mode: want ok|reset|hang|close|wrong-status|wrong-body|truncated|"
				 "empty|wrong-type|upper, got '%s'", v);
		} else if (!strcmp(a, "--exit-after-ms"))
			opt.exit_after_ms = arg_long(a, v, 0);
		else if (!strcmp(a, "--crash-once"))
			opt.crash_once = v;
		else if (!strcmp(a, "--burn-us"))
			opt.burn_us = arg_long(a, v, 0);
		else if (!strcmp(a, "--leak-kb"))
			opt.leak_kb = arg_long(a, v, 0);
		else if (!strcmp(a, "--forward-port"))
			opt.forward_port = arg_long(a, v, 1);
		else if (!strcmp(a, "--forward-host"))
			opt.forward_host = v;
		else if (!strcmp(a, "--stats-mode")) {
			if (!strcmp(v, "ok")) opt.stats_mode = STATS_OK;
			else if (!strcmp(v, "malformed")) opt.stats_mode = STATS_MALFORMED;
			else if (!strcmp(v, "500")) opt.stats_mode = STATS_500;
			else if (!strcmp(v, "hang")) opt.stats_mode = STATS_HANG;
			else die("--stats-mode: want ok|malformed|500|hang, got '%s'", v);
		} else if (!strcmp(a, "--port-file"))
			opt.port_file = v;
		else if (!strcmp(a, "--count-file"))
			opt.count_file = v;
		else if (!strcmp(a, "--workers"))
			opt.workers = arg_long(a, v, 1);
		else if (!strcmp(a, "--reply"))
			opt.reply = v;
		else if (!strcmp(a, "--rate-limit")) {
			char *end;

			opt.rate_limit = strtod(v, &end);
			if (end == v || *end || !(opt.rate_limit > 0))
				die("--rate-limit: want a rate > 0, got '%s'", v);
		} else if (!strcmp(a, "--tail-above")) {
			char *end;

			opt.tail_above = strtod(v, &end);
			if (end == v || *end || !(opt.tail_above > 0))
				die("--tail-above: want a rate > 0, got '%s'", v);
		} else if (!strcmp(a, "--tail-ms"))
			opt.tail_ms = arg_long(a, v, 1);
		else if (!strcmp(a, "--spin-idle"))
			opt.spin_idle = arg_long(a, v, 1);
		else if (!strcmp(a, "--spin-pct")) {
			opt.spin_pct = arg_long(a, v, 1);
			if (opt.spin_pct > 100)
				die("--spin-pct: want 1 to 100, got '%s'", v);
		} else if (!strcmp(a, "--spin-for"))
			opt.spin_for_s = arg_long(a, v, 1);
		else if (!strcmp(a, "--tail-every"))
			opt.tail_every = arg_long(a, v, 1);
		else
			die("unknown option '%s'", a);
	}
	if (opt.port < 0)
		die("--port is required");
	if (opt.rate_limit > 0 && opt.tail_above > 0)
		die("--rate-limit and --tail-above share one bucket: give one");
	bucket_rate = opt.rate_limit > 0 ? opt.rate_limit : opt.tail_above;
	if (opt.port > 65535)
		die("--port: out of range");
	if ((opt.stall_at_ms >= 0) != (opt.stall_ms > 0))
		die("--stall-at-ms and --stall-ms go together");
	if (opt.crash_once && opt.exit_after_ms < 0)
		die("--crash-once needs --exit-after-ms");
}

/* ---- I/O ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Block until the peer closes (or errors); used by hang behaviours. */
static void hold_until_peer_closes(int fd)
{
	char junk[4096];

	for (;;) {
		ssize_t r = read(fd, junk, sizeof(junk));

		if (r == 0 || (r < 0 && errno != EINTR))
			return;
	}
}

/* --forward-port: GET / from the backend on a new connection, read to its
 * close. 0 when it answered with a 2xx status line. */
static int forward(void)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
	struct sockaddr_in sa;
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok = 0;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)opt.forward_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (opt.forward_host && inet_pton(AF_INET, opt.forward_host, &sa.sin_addr) != 1) {
		close(fd);
		return -1;
	}
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) && !write_all(fd, req, sizeof(req) - 1)) {
		while ((n = read(fd, buf + (got < 16 ? got : 16), sizeof(buf) - 16)) > 0 ||
		       (n < 0 && errno == EINTR))
			if (n > 0 && got < 16)
				got += (size_t)n;
		buf[got < 16 ? got : 16] = 0;
		ok = !strncmp(buf, "HTTP/1.1 2", 10);
	}
	close(fd);
	return ok ? 0 : -1;
}

static int respond(int fd, int status, const char *ctype, const char *body, size_t blen,
		   int keep)
{
	char head[256];
	const char *reason = status == 200 ? "OK" : status == 400 ? "Bad Request"
		: status == 500 ? "Internal Server Error"
		: status == 503 ? "Service Unavailable" : "Error";
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
			 status, reason, ctype, blen, keep ? "" : "Connection: close\r\n");

	if (write_all(fd, head, (size_t)n) || write_all(fd, body, blen))
		return -1;
	return 0;
}

static int stats_body(char *buf, size_t len)
{
	unsigned long n = atomic_load(&n_requests);
	unsigned long total = n >= 50 ? 8 : n / 7;

	return snprintf(buf, len,
			"{\"gc\":{\"collections\":%lu,\"heap_committed_bytes\":%lu},"
			"\"pool\":{\"total\":%lu,\"max\":8},"
			"\"endpoint_calls\":{\"echo\":%lu,\"healthz\":%lu,\"other\":%lu},"
			"\"requests\":%lu,"
			"\"nested\":{\"a\":{\"b\":[1,2,{\"c\":3}]},\"str\":\"x\","
			"\"tilde~key\":7,\"slash/key\":8}}\n",
			n / 100, 64ul * 1024 * 1024, total, atomic_load(&n_echo),
			atomic_load(&n_healthz), atomic_load(&n_other), n);
}

/* The figures of stats_body() as client_golang would expose them. */
static int prom_body(char *buf, size_t len)
{
	unsigned long n = atomic_load(&n_requests);
	unsigned long total = n >= 50 ? 8 : n / 7;

	return snprintf(buf, len,
			"# HELP testsrv_gc_collections_total GC cycles (one per 100 requests).\n"
			"# TYPE testsrv_gc_collections_total counter\n"
			"testsrv_gc_collections_total %lu\n"
			"# HELP testsrv_heap_committed_bytes Committed heap.\n"
			"# TYPE testsrv_heap_committed_bytes gauge\n"
			"testsrv_heap_committed_bytes %lu\n"
			"# HELP testsrv_pool_connections Pool connections by state.\n"
			"# TYPE testsrv_pool_connections gauge\n"
			"testsrv_pool_connections{pool=\"main\",state=\"busy\"} %lu\n"
			"testsrv_pool_connections{pool=\"main\",state=\"max\"} 8\n"
			"# HELP testsrv_requests_total Requests by name; \"quoted\" \\ help.\n"
			"# TYPE testsrv_requests_total counter\n"
			"testsrv_requests_total{request=\"echo\"} %lu\n"
			"testsrv_requests_total{request=\"healthz\"} %lu\n"
			"testsrv_requests_total{request=\"other\"} %lu\n"
			"# HELP testsrv_ratio Not yet known.\n"
			"# TYPE testsrv_ratio gauge\n"
			"testsrv_ratio NaN\n",
			n / 100, 64ul * 1024 * 1024, total, atomic_load(&n_echo),
			atomic_load(&n_healthz), atomic_load(&n_other));
}

/* ---- one request ---- */

/* Take one token of the --rate-limit (or --tail-above) bucket; 0 when it
 * is empty. */
static int take_token(void)
{
	double burst = bucket_rate / 10 > 1 ? bucket_rate / 10 : 1;
	uint64_t now = mono_ns();
	int ok;

	pthread_mutex_lock(&bucket_mu);
	if (!bucket_ns) {
		bucket_ns = now;
		bucket_tokens = burst;
	}
	bucket_tokens += (double)(now - bucket_ns) / 1e9 * bucket_rate;
	if (bucket_tokens > burst)
		bucket_tokens = burst;
	bucket_ns = now;
	ok = bucket_tokens >= 1;
	if (ok)
		bucket_tokens -= 1;
	pthread_mutex_unlock(&bucket_mu);
	return ok;
}

/*
 * Handle one parsed request. Returns 1 to keep the connection, 0 to close it
 * normally, -1 when the connection was already dealt with (reset, hang).
 */
static int handle(int fd, const char *method, const char *path, const char *body, size_t blen,
		  int keep)
{
	int is_prom = !strcmp(path, "/metrics");
	int is_stats = is_prom || !strcmp(path, "/runtime-stats");
	int is_health = !strcmp(path, "/healthz");
	int status = 200;
	uint64_t due;

	if (is_stats) {
		char sb[2048];
		int n;

		switch (opt.stats_mode) {
		case STATS_HANG:
			hold_until_peer_closes(fd);
			return -1;
		case STATS_500:
			return respond(fd, 500, "text/plain", "error\n", 6, keep) ? 0 : keep;
		case STATS_MALFORMED: {
			static const char bad[] = "{\"gc\":{\"collections\":1,,]";

			return respond(fd, 200, "application/json", bad, sizeof(bad) - 1, keep)
				? 0 : keep;
		}
		case STATS_OK:
			break;
		}
		if (is_prom) {
			n = prom_body(sb, sizeof(sb));
			return respond(fd, 200, "text/plain; version=0.0.4; charset=utf-8", sb,
				       (size_t)n, keep) ? 0 : keep;
		}
		n = stats_body(sb, sizeof(sb));
		return respond(fd, 200, "application/json", sb, (size_t)n, keep) ? 0 : keep;
	}

	atomic_fetch_add(&n_requests, 1);
	if (spin_last_ns && strcmp(path, "/healthz"))
		atomic_store(spin_last_ns, mono_ns());
	if (is_health) {
		atomic_fetch_add(&n_healthz, 1);
		atomic_fetch_add(&counts[2], 1);
	}
	else if (!strcmp(method, "POST") && !strcmp(path, "/echo"))
		atomic_fetch_add(&n_echo, 1);
	else
		atomic_fetch_add(&n_other, 1);

	if (!is_health) {
		uint64_t n = atomic_fetch_add(&n_work, 1) + 1;

		atomic_fetch_add(&counts[0], 1);
		uint64_t x = opt.error_milli_pct;

		if (x && (n * x) / 100000 != ((n - 1) * x) / 100000)
			status = 500;
		if (opt.mode == MODE_HANG) {
			hold_until_peer_closes(fd);
			return -1;
		}
	}

	if (!is_health && opt.rate_limit > 0 && !take_token())
		return respond(fd, 503, "text/plain", "over the rate limit\n", 20, keep) ? 0 : keep;
	if (!is_health && opt.workers)
		while (sem_wait(&worker_slots) == -1 && errno == EINTR)
			;
	if (opt.delay_ms)
		sleep_ms(opt.delay_ms);
	if (!is_health && opt.tail_above > 0 && !take_token() &&
	    atomic_fetch_add(&n_over, 1) % (unsigned long)opt.tail_every ==
		    (unsigned long)opt.tail_every - 1)
		sleep_ms(opt.tail_ms);
	/* /delay/N...: N ms more for this request (per-request latencies) */
	if (!strncmp(path, "/delay/", 7) && atoi(path + 7) > 0)
		sleep_ms(atoi(path + 7));
	if (opt.burn_us)
		burn(opt.burn_us);
	if (!is_health && opt.leak_kb)
		leak(opt.leak_kb);
	if (!is_health && opt.workers)
		sem_post(&worker_slots);
	if (!is_health && opt.forward_port && forward())
		return respond(fd, 502, "text/plain", "backend failed\n", 15, keep) ? 0 : keep;
	due = mono_ns();
	if (opt.stall_at_ms >= 0) {
		uint64_t a = start_ns + (uint64_t)opt.stall_at_ms * 1000000ull;
		uint64_t b = a + (uint64_t)opt.stall_ms * 1000000ull;

		if (due >= a && due < b)
			sleep_until(b);
	}

	if (!is_health && opt.mode == MODE_RESET) {
		static const char half[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
					   "Content-Length: 100\r\n\r\nhalf a respo";
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		write_all(fd, half, sizeof(half) - 1);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		return -1;	/* the caller's close() now sends RST */
	}
	if (!is_health && opt.mode == MODE_CLOSE)
		keep = 0;
	if (!is_health && opt.mode == MODE_TRUNCATED) {
		static const char part[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
					   "Content-Length: 100\r\n\r\nok, twenty bytes....";

		write_all(fd, part, sizeof(part) - 1);
		shutdown(fd, SHUT_WR);	/* a FIN, not an RST */
		return 0;
	}
	if (!is_health && opt.mode == MODE_WRONG_STATUS)
		return respond(fd, 404, "text/plain", "not found\n", 10, keep) ? 0 : keep;
	if (!is_health && opt.mode == MODE_WRONG_BODY)
		return respond(fd, 200, "text/plain", "WRONG", 5, keep) ? 0 : keep;
	if (!is_health && opt.mode == MODE_WRONG_TYPE)
		return respond(fd, 200, "text/html; charset=utf-8", "ok", 2, keep) ? 0 : keep;
	if (!is_health && opt.mode == MODE_EMPTY)
		return respond(fd, 200, "text/plain", "", 0, keep) ? 0 : keep;

	if (status == 500) {
		atomic_fetch_add(&counts[1], 1);
		return respond(fd, 500, "text/plain", "injected error\n", 15, keep) ? 0 : keep;
	}
	if (!is_health && opt.reply)
		return respond(fd, 200, "application/json", opt.reply, strlen(opt.reply), keep)
			? 0 : keep;
	if (is_health || blen == 0)
		return respond(fd, 200, "text/plain", "ok", 2, keep) ? 0 : keep;
	if (opt.mode == MODE_UPPER) {
		char *up = malloc(blen);
		size_t i;
		int ok;

		if (!up)
			return 0;
		for (i = 0; i < blen; i++)
			up[i] = body[i] >= 'a' && body[i] <= 'z' ? (char)(body[i] - 'a' + 'A') : body[i];
		ok = !respond(fd, 200, "application/octet-stream", up, blen, keep);
		free(up);
		return ok ? keep : 0;
	}
	return respond(fd, 200, "application/octet-stream", body, blen, keep) ? 0 : keep;
}

/* ---- one connection ---- */

static char *find_crlf2(char *p, size_t n)
{
	return memmem(p, n, "\r\n\r\n", 4);
}

/* Value of header `name` in the header block [p, end), or NULL. */
static char *header(char *p, char *end, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);

	while (p < end) {
		char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			char *v = p + nl + 1;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			*vlen = (size_t)(eol - v);
			return v;
		}
		p = eol + 2;
	}
	return NULL;
}

static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		goto out;
	for (;;) {
		char *hend, *sp1, *sp2, *v, *hdrs;
		char method[16], path[1024];
		size_t vlen, hlen, blen = 0, need;
		int keep, r;

		/* read until the end of the header block */
		while (!(hend = find_crlf2(buf, len))) {
			ssize_t n;

			if (len >= MAX_HEADER)
				goto out;
			if (cap - len < 4096) {
				char *nb = realloc(buf, cap * 2);

				if (!nb)
					goto out;
				buf = nb;
				cap *= 2;
			}
			n = read(fd, buf + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto out;
			len += (size_t)n;
		}
		hlen = (size_t)(hend - buf) + 4;

		/* request line: METHOD SP PATH SP VERSION CRLF */
		sp1 = memchr(buf, ' ', hlen);
		sp2 = sp1 ? memchr(sp1 + 1, ' ', hlen - (size_t)(sp1 + 1 - buf)) : NULL;
		hdrs = memmem(buf, hlen, "\r\n", 2) + 2;
		if (!sp1 || !sp2 || sp2 > hdrs || (size_t)(sp1 - buf) >= sizeof(method) ||
		    (size_t)(sp2 - sp1 - 1) >= sizeof(path)) {
			respond(fd, 400, "text/plain", "bad request\n", 12, 0);
			goto out;
		}
		memcpy(method, buf, (size_t)(sp1 - buf));
		method[sp1 - buf] = 0;
		memcpy(path, sp1 + 1, (size_t)(sp2 - sp1 - 1));
		path[sp2 - sp1 - 1] = 0;
		{
			char *q = strchr(path, '?');

			if (q)
				*q = 0;
		}
		keep = !memmem(sp2, (size_t)(hdrs - sp2), "HTTP/1.0", 8);
		if ((v = header(hdrs, hend + 2, "Connection", &vlen))) {
			if (vlen >= 5 && !strncasecmp(v, "close", 5))
				keep = 0;
			else if (vlen >= 10 && !strncasecmp(v, "keep-alive", 10))
				keep = 1;
		}
		if ((v = header(hdrs, hend + 2, "Content-Length", &vlen))) {
			char tmp[24];

			if (vlen == 0 || vlen >= sizeof(tmp))
				goto bad;
			memcpy(tmp, v, vlen);
			tmp[vlen] = 0;
			blen = strtoul(tmp, &v, 10);
			if (*v || blen > MAX_BODY)
				goto bad;
		}

		/* read the body */
		need = hlen + blen;
		if (need + 1 > cap) {
			char *nb = realloc(buf, need + 1);

			if (!nb)
				goto out;
			buf = nb;
			cap = need + 1;
		}
		while (len < need) {
			ssize_t n = read(fd, buf + len, cap - len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto out;
			len += (size_t)n;
		}

		r = handle(fd, method, path, buf + hlen, blen, keep);
		if (r <= 0)
			goto out;
		memmove(buf, buf + need, len - need);
		len -= need;
	}
bad:
	respond(fd, 400, "text/plain", "bad request\n", 12, 0);
out:
	free(buf);
	close(fd);
	sem_post(&conn_slots);
	return NULL;
}

/* ---- process ---- */

static void on_term(int sig)
{
	_exit(0);
}

static void *crash_main(void *arg)
{
	sleep_until(start_ns + (uint64_t)opt.exit_after_ms * 1000000ull);
	_exit(1);
	return NULL;
}

static void write_port_file(const char *path, int port)
{
	char tmp[4096], text[16];
	int fd, n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) >= (int)sizeof(tmp))
		die("--port-file: path too long");
	n = snprintf(text, sizeof(text), "%d\n", port);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) || rename(tmp, path))
		die("--port-file %s: %s", path, strerror(errno));
}

static void map_count_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	void *m;

	if (fd < 0 || ftruncate(fd, sizeof(no_counts)))
		die("--count-file %s: %s", path, strerror(errno));
	m = mmap(NULL, sizeof(no_counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("--count-file %s: mmap: %s", path, strerror(errno));
	close(fd);
	counts = m;
}

/* --spin-idle: children that burn a core each whenever the server had no
 * request in the last 200 ms, and outlive it (their own session: only
 * what signals the whole cgroup or tree reaches them). */
static void spin_start(long n, int lfd)
{
	void *m = mmap(NULL, sizeof(*spin_last_ns), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long i;

	if (m == MAP_FAILED)
		die("--spin-idle: mmap: %s", strerror(errno));
	spin_last_ns = m;
	atomic_store(spin_last_ns, 0);
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			die("--spin-idle: fork: %s", strerror(errno));
		if (p)
			continue;
		close(lfd);
		setsid();
		for (;;) {
			volatile unsigned long x = 0;
			uint64_t t = mono_ns();

			if (opt.spin_for_s && t - start_ns >= (uint64_t)opt.spin_for_s * 1000000000ull)
				_exit(0);
			/* quiet while served: 20 wake-ups a second, nothing
			 * its own server's latency would show */
			if (t - atomic_load(spin_last_ns) < 200000000ull) {
				sleep_ms(50);
				continue;
			}
			while (mono_ns() - t < 10000000ull)
				x++;
			/* --spin-pct: 10 ms of every 1000 / P */
			if (opt.spin_pct < 100)
				sleep_ms(10 * (100 - opt.spin_pct) / opt.spin_pct);
		}
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	pthread_attr_t attr;
	int lfd, one = 1, crash = 0;

	start_ns = mono_ns();
	parse_args(argc, argv);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (opt.exit_after_ms >= 0) {
		crash = 1;
		if (opt.crash_once) {
			int fd = open(opt.crash_once, O_WRONLY | O_CREAT | O_EXCL, 0644);

			if (fd < 0 && errno == EEXIST)
				crash = 0;
			else if (fd < 0)
				die("--crash-once %s: %s", opt.crash_once, strerror(errno));
			else
				close(fd);
		}
	}

	if (inet_pton(AF_INET, opt.host, &addr.sin_addr) != 1)
		die("--host: not an IPv4 address: '%s'", opt.host);
	addr.sin_port = htons((uint16_t)opt.port);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 1024))
		die("bind %s:%ld: %s", opt.host, opt.port, strerror(errno));
	if (getsockname(lfd, (struct sockaddr *)&addr, &alen))
		die("getsockname: %s", strerror(errno));
	if (opt.port_file)
		write_port_file(opt.port_file, ntohs(addr.sin_port));
	if (opt.count_file)
		map_count_file(opt.count_file);

	if (crash) {
		pthread_t t;

		if (pthread_create(&t, NULL, crash_main, NULL))
			die("pthread_create failed");
		pthread_detach(t);
	}
	if (opt.spin_idle)
		spin_start(opt.spin_idle, lfd);
	sem_init(&conn_slots, 0, MAX_CONNS);
	if (opt.workers)
		sem_init(&worker_slots, 0, (unsigned)opt.workers);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);

	fprintf(stderr, "testsrv: listening on %s:%d (delay %ld ms, error %.3f%%, mode %d%s)\n",
		opt.host, ntohs(addr.sin_port), opt.delay_ms, opt.error_milli_pct / 1000.0,
		(int)opt.mode, crash ? ", will crash" : "");

	for (;;) {
		pthread_t t;
		int fd;

		while (sem_wait(&conn_slots) == -1 && errno == EINTR)
			;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			sem_post(&conn_slots);
			if (errno == EMFILE || errno == ENFILE)
				sleep_ms(10);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&t, &attr, conn_main, (void *)(intptr_t)fd)) {
			close(fd);
			sem_post(&conn_slots);
		}
	}
	return 0;
}
