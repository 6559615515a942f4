/*
 * load: the open-loop load engine.
 *
 * Requests are due on an absolute schedule (constant: start + k/rate;
 * poisson: exponential gaps from a seeded PRNG), independent of responses.
 * A due request with no free connection waits in a bounded backlog; past
 * backlog_max it is counted as dropped. Latency is measured from the
 * intended send time, service time from the actual send, lateness is
 * actual - intended send.
 *
 * One event loop per thread; each thread owns its connections and its slice
 * of the schedule (thread i sends requests k with k % threads == i); the
 * coordinating thread merges per-second results and calls on_second.
 *
 * Two transports behind one interface: native (epoll + libhttp-parser,
 * plain HTTP/1.1) and curl (libcurl multi: HTTPS, HTTP/2, everything else).
 *
 * Accounting: every due request ends as completed (by status class), an
 * error of one kind, or dropped: due == completed + errors + dropped.
 * A completed response is also checked against its request's expect
 * (load_request.h; default: any 2xx or 3xx): one that does not match is
 * counted as `unexpected` as well (a subset of completed), and the first
 * LOAD_SAMPLES of them per stats are kept as samples. Only requests whose
 * expect looks at the body (body_contains, max_bytes) have their bodies
 * read by the engine; the others are discarded unseen, as before. A
 * response cut short by the server closing the connection (FIN) after its
 * status line (a truncated body) is completed and unexpected; an RST is
 * still a reset error. After
 * the duration, requests in flight or in the backlog get up to timeout_ms
 * more; the rest are counted as timeout errors. A request is attributed to
 * the second in which it completed or failed (due and dropped: the second
 * in which the generator made it due). What is in no on_second call (the
 * drain after the last whole second, a fractional last second, every
 * second after an early stop) is handed to on_drain, once, at the end:
 * load_result.total == the on_second seconds merged + the drain.
 *
 * A kept-alive connection that breaks before any byte of a response (the
 * server closed it while idle as we wrote) gets the request re-sent once
 * on a new connection; it keeps its intended and actual send times.
 *
 * Above 4000 req/s per thread the workers wake on a short tick instead of
 * per event (CPU; see load.c): lateness grows to at most the tick (<= 600
 * us); the native transport times responses by the kernel's receive
 * timestamp, the curl one when it sees them.
 */
#ifndef HARNESS_LOAD_H
#define HARNESS_LOAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hist.h"
#include "load/load_request.h"

struct load_pool;

/* A target URL, parsed (load_req.c): what `harness load URL` checks
 * before it runs, and what the engine connects to. */
struct load_url {
	int https;
	char *host;         /* without brackets */
	char *port;         /* decimal */
	char *hostport;     /* as written in the Host header */
	char *origin;       /* scheme://host[:port] */
	char *path;         /* path and query, "" when none; no trailing '/' for a base */
};

/* Parse an http:// or https:// URL. 0, or -1 with *why set to a static
 * message. Fills u (release with load_url_release). */
int load_url_parse(const char *url, struct load_url *u, const char **why);
void load_url_release(struct load_url *u);

enum load_error_kind {
	LERR_CONNECT,   /* connection refused / unreachable / connect timeout */
	LERR_RESET,     /* connection reset or closed before a full response */
	LERR_TIMEOUT,   /* no full response within timeout_ms */
	LERR_PARSE,     /* the response was not valid HTTP */
	LERR_OTHER,
	LERR_KINDS
};
const char *load_error_name(enum load_error_kind k); /* "connect", "reset", ... */

/* The HTTP version a response came in (native: what the status line says,
 * always 1.x; curl: CURLINFO_HTTP_VERSION). */
enum load_proto { LPROTO_HTTP10, LPROTO_HTTP11, LPROTO_HTTP2, LPROTO_HTTP3, LPROTO_KINDS };

struct load_counts {
	uint64_t sent;              /* requests written to a connection */
	uint64_t completed;         /* full responses, any status */
	uint64_t status[4];         /* 2xx, 3xx, 4xx, 5xx */
	uint64_t status_other;      /* a status outside 200..599 */
	uint64_t unexpected;        /* completed, but not what the request expects */
	uint64_t errors[LERR_KINDS];
	uint64_t dropped;           /* backlog full: never sent */
	uint64_t due;               /* requests the schedule made due */
	uint64_t proto[LPROTO_KINDS]; /* completed responses by HTTP version */
	/* HTTP bytes (before TLS): native, what it wrote and read on its
	 * sockets; curl, what libcurl counts (CURLINFO_REQUEST_SIZE; header
	 * size + body size received). Counted in the second they moved in
	 * (curl: in which the transfer ended); not per request kind. */
	uint64_t bytes_sent, bytes_received;
};
/* Transport errors (every kind); unexpected responses and dropped requests
 * are not in it. */
uint64_t load_counts_errors(const struct load_counts *c);
void load_counts_add(struct load_counts *dst, const struct load_counts *src);
/* The HTTP versions responses came in, most responses first, joined by
 * ',' (e.g. "HTTP/2,HTTP/1.1") into buf; NULL when nothing completed. */
const char *load_counts_protocol(const struct load_counts *c, char *buf, size_t len);

/* An unexpected response, kept for the audit. */
#define LOAD_SAMPLES 3
#define LOAD_SAMPLE_BODY 200
struct load_sample {
	uint32_t req;                    /* index of the request kind */
	int status;
	char why[96];                    /* what did not match */
	size_t body_len;                 /* bytes in body (0 when the body was not read) */
	char body[LOAD_SAMPLE_BODY];     /* the body's first bytes */
};

/* Results of one second (index = seconds since the load started) or of
 * a whole run. Histograms are indexed like the config's requests;
 * `latency` is all requests merged. A request is counted due (and
 * dropped, and its schedule lag recorded) in the second of its intended
 * send time, however late the generator got to it; it is attributed to
 * the second in which it completed (or failed). */
struct load_stats {
	size_t nreq;
	struct load_counts counts;
	struct load_counts *req_counts;  /* [nreq] */
	struct hist latency;             /* from intended send, all requests */
	struct hist service;             /* from actual send */
	struct hist lateness;            /* actual - intended send, per sent request:
					    includes waiting for a free connection */
	struct hist sched_lag;           /* intended send -> the engine took the request
					    off its schedule (sent it, queued it or dropped
					    it), per due request: the generator's own
					    lateness, without the server's backpressure */
	struct hist *req_latency;        /* [nreq] */
	double cpu_s;                    /* generator CPU spent on this second:
					    worker thread clocks + the merge */
	uint64_t host_void;              /* due requests the host held back
					    (load_config.host_void_ms): due,
					    sent and counted as ever, their
					    schedule lag, latency and service
					    time in no histogram; counted in the
					    second they were due in. Local
					    engine only (not on the agent wire:
					    an agent's are 0) */
	size_t nsamples;                 /* the first unexpected responses */
	struct load_sample samples[LOAD_SAMPLES];
};
void load_stats_init(struct load_stats *s, size_t nreq);
void load_stats_release(struct load_stats *s);
void load_stats_reset(struct load_stats *s);
void load_stats_merge(struct load_stats *dst, const struct load_stats *src);

struct load_config {
	const char *url;            /* base, e.g. "http://127.0.0.1:8080"; request paths appended */
	const struct load_request *requests;
	size_t nrequests;
	double rate;                /* requests per second, > 0 */
	double duration_s;          /* > 0 */
	enum arrival arrival;
	uint64_t seed;
	int connections;
	int backlog_max;
	int timeout_ms;
	int threads;
	enum transport transport;
	const char *cpus;           /* pin generator threads, or NULL */

	/* Called on the calling thread after each whole second with that
	 * second's stats. Return non-zero to stop the run early. May be NULL. */
	int (*on_second)(void *ctx, unsigned index, const struct load_stats *sec);
	/* Called once on the calling thread after every worker has finished
	 * (before load_run returns 0), with everything in load_result.total
	 * that was in no on_second call: requests that completed or failed
	 * after the last whole second (timeouts at the end of the grace
	 * period included), requests made due after it, and every second
	 * after an early stop. Called even when that is nothing (all counts
	 * 0). May be NULL. */
	void (*on_drain)(void *ctx, const struct load_stats *drain);
	void *ctx;
	/* When non-NULL and set non-zero (e.g. by a signal handler), the run
	 * stops at the next tick. */
	volatile sig_atomic_t *stop;
	/* When non-NULL, every sent request's actual and intended send time
	 * (ns after the schedule's start, "actual intended" per line, sorted
	 * by actual) is written there at the end; for tests of the arrival
	 * process. */
	const char *send_times_path;
	/* Wake-up policy: 0 = automatic (per event below 4000 req/s per
	 * thread, above it a tick of ~4 requests, 200..600 us), > 0 = always
	 * this tick (us), < 0 = always per event. */
	int batch_us;
	/* curl transport: CA certificates (PEM file) to verify https servers
	 * with, instead of the system's; NULL for the system's. */
	const char *ca_file;
	/* > 0: open every connection inside this network namespace (netns.h;
	 * a sandboxed implementation's loopback), the caller's descriptor,
	 * open for the whole run; <= 0: the harness's own network. */
	int netns_fd;
	/* This generator's share of a schedule split between `parts`
	 * generators (0 and 0, or 0 and 1: the whole schedule). Constant:
	 * slot k belongs to part k % parts, and within it to thread
	 * (k / parts) % threads. Poisson: every generator thread draws the
	 * same seeded process at the full rate and keeps the arrivals a
	 * uniform draw per arrival gives its part and thread (independent
	 * thinning: each share is Poisson at rate/parts, the union is the
	 * one process, whatever the split). */
	int part, parts;
	/* When non-zero, the schedule's start (now_ns() clock); it must be
	 * in the future. 0: 20 ms after load_run is called. */
	uint64_t start_ns;
	int insecure;               /* curl: do not verify certificates */
	/*
	 * > 0: a request a real-time worker (base/rtsched.h) handled more
	 * than this many ms after it was due, through time the thread spent
	 * neither running nor blocked on its own account while it waited for
	 * that very moment (the kernel or the hypervisor did not run it: a
	 * stall of the host), is void: load_stats.host_void. The thread's
	 * own work (CPU since it began to wait), a major page fault, a wait
	 * for the coordinator, a SCHED_OTHER thread and the first wait of a
	 * run never make a request void. 0: none is (agents, `harness
	 * load`). docs/DESIGN.md "Host stalls".
	 */
	double host_void_ms;
	/* TEST-ONLY (> 0): every generator thread stops scheduling for this
	 * many ms once, when half the schedule has passed, as a starved
	 * generator would: what falls due meanwhile is handled late, and its
	 * lateness is real (runner_testhook.c). Never sent to agents. */
	double test_stall_ms;
	/* HTTP version asked for (load_request.h): HTTPV_2 is libcurl's
	 * default (HTTP/2 by ALPN over https, 1.1 over http://; the native
	 * transport, http:// only, speaks 1.1); HTTPV_H2C needs curl (auto
	 * picks it); HTTPV_11 never upgrades. */
	enum http_version http;
	/*
	 * Closed loop (stages.saturation), when non-zero: no schedule and no
	 * rate (ignored); every connection sends its next request as soon as
	 * its previous answer came, for duration_s or until max_requests were
	 * sent (0: no count; duration_s is then the cap), then the requests in
	 * flight finish (timeout_ms at most). Each request's intended send is
	 * the moment a connection took it, so latency is the service time
	 * (and lateness nothing): what wrk and ab report, never comparable
	 * with the open loop's latency under a schedule. elapsed_s runs from
	 * the start to the last answer; achieved_rps is the throughput. Part
	 * and parts are ignored (one generator).
	 */
	int closed;
	uint64_t max_requests;

	/*
	 * Template variables (workload.vars, at most LOAD_MAX_VARS; read-only,
	 * owned by the caller). With variables, the k-th request of the
	 * schedule takes its kind and values from entry k mod n of a pool
	 * (load_pool.h): `pool` when non-NULL (built by the caller, e.g. once
	 * per run, and shared), else one built here from pool_seed with
	 * pool_size entries (0: the requests due, rate * duration, at most
	 * LOAD_POOL_AUTO_MAX). Every load replays its pool from entry 0.
	 */
	const struct load_var *vars;
	size_t nvars;
	const struct load_pool *pool;
	uint64_t pool_seed, pool_size;
};
#define LOAD_POOL_AUTO_MAX 4000000ull

struct load_result {
	struct load_stats total;
	double elapsed_s;           /* wall time from schedule start to end */
	double offered_rps;         /* due / elapsed */
	double achieved_rps;        /* completed / elapsed */
	double generator_cpu_s;     /* CPU of the engine's threads (thread clocks) */
	unsigned seconds;           /* number of on_second calls made */
	int stopped_early;
	int threads;                /* generator (worker) threads */
	int rt_threads;             /* of them, those that ran SCHED_FIFO
				       (base/rtsched.h; the others SCHED_OTHER) */
};

/* Whether one whole response is what e expects, for callers outside the
 * engine (the pre-flight, harness/runner/preflight.h): its status, its
 * Content-Type header's value (NULL: none) and its body. NULL when it
 * matches; else why not (the same words as a window's samples), written
 * into buf. */
const char *load_expect_check(const struct load_expect *e, int status, const char *content_type,
			      const char *body, size_t len, char *buf, size_t buflen);

/* Run the load. Fills res (caller releases with load_result_release).
 * Returns 0, or -1 with an error() for a setup failure (bad URL, no such
 * transport); failures of requests are counted, never returned. */
int load_run(const struct load_config *cfg, struct load_result *res);
void load_result_release(struct load_result *res);

#endif
