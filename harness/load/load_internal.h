/*
 * load_internal: what the load engine's files share (load.c: schedule,
 * threads, per-second merging; load_record.c: counting and recording,
 * beneath the others; load_req.c: URL, request bytes, mix;
 * load_native.c and load_curl.c: the two transports). Not for other modules.
 *
 * Threading: struct load_shared is written before the worker threads start
 * and only read after (except `stop`). Each struct load_thread belongs to
 * its worker; the coordinator touches only its per-second slots, through
 * the published/consumed handshake described in load.c.
 */
#ifndef HARNESS_LOAD_INTERNAL_H
#define HARNESS_LOAD_INTERNAL_H

#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "load/load.h"
#include "load/load_pool.h"
#include "base/rng.h"
#include "base/util.h"

/* Per-second slots per thread: the coordinator may lag this many seconds
 * behind a worker before the worker waits for it. */
#define LOAD_NSLOT 8

/* Per-thread rate above which the worker wakes on a fixed tick instead of
 * for every event, and the tick's bounds (see batch_ns() in load.c): the
 * upper bound keeps lateness p99 under 1 ms. */
#define LOAD_BATCH_RATE 4000.0
#define LOAD_BATCH_PER_TICK 4.0
#define LOAD_BATCH_MIN_NS 200000.0
#define LOAD_BATCH_MAX_NS 600000.0

/*
 * A string with template references, compiled (load_tmpl.c): literal
 * pieces, variable references and (native wire form) the place of the
 * body's length. Expanded per request from a pool entry's values.
 */
enum tseg_kind { TSEG_LIT, TSEG_VAR, TSEG_CLEN };
struct tseg {
	enum tseg_kind kind;
	uint32_t var;       /* TSEG_VAR: the variable's index */
	size_t off, len;    /* TSEG_LIT: lit.buf[off..off+len) */
};
struct tstr {
	struct tseg *seg;
	size_t nseg, aseg;
	int vars;           /* some segment is a TSEG_VAR */
	struct sbuf lit;
};
void tstr_release(struct tstr *t);
void tstr_lit(struct tstr *t, const char *p, size_t n);
/* Literal text in which {NAME} of a declared variable is a reference. */
void tstr_tmpl(struct tstr *t, const char *p, size_t n, const struct load_var *vars,
	       size_t nvars);
void tstr_clen(struct tstr *t);
/* Length of t expanded with values len[] (TSEG_CLEN: the digits of clen). */
size_t tstr_len(const struct tstr *t, const size_t *len, size_t clen);
/* Append t expanded with val[]/len[] and clen to out. */
void tstr_expand(const struct tstr *t, const char *const *val, const size_t *len, size_t clen,
		 struct sbuf *out);

/* One request kind ready to send. */
struct load_wire {
	char *bytes;        /* native: the whole HTTP/1.1 request */
	size_t len;
	int head;           /* HEAD: the response has no body */
	char *url;          /* curl: origin + base path + request path */
	/* A kind that refers to variables (templated): bytes and url are
	 * NULL; the transports expand these per request (load_wire_expand*). */
	int templated;
	struct tstr t_wire;  /* native: the HTTP/1.1 request, TSEG_CLEN for the body's length */
	struct tstr t_url;   /* curl: the URL */
	struct tstr t_body;  /* the body */
	struct tstr *t_hdr;  /* curl: "Name: value" per header */
	size_t nhdr;
	int hdr_vars;        /* some header value refers to a variable */
};

/*
 * What the engine saw of one response's body, for its request's expect
 * (load_expect.c). Fed only for requests whose expect needs the body
 * (load_shared.need_body); `truncated` is set by a transport for a
 * response cut short after its status line.
 */
#define LOAD_JSON_MAX (256 * 1024)   /* largest body whose JSON is checked */

struct load_check {
	uint64_t bytes;                  /* body bytes seen */
	int found;                       /* body_contains seen */
	int truncated;
	uint32_t inst;                   /* the request's pool entry (set at dispatch) */
	enum load_proto proto;           /* set by the transport before load_on_done */
	size_t ncarry;                   /* the last bytes seen, for a match
					    across two reads */
	char carry[LOAD_EXPECT_MAX_BODY];
	size_t nhead;                    /* the body's first bytes, for a sample */
	char head[LOAD_SAMPLE_BODY];
	/* Content-Type, for requests whose expect names one (native: from
	 * the parser's header callbacks; curl: CURLINFO_CONTENT_TYPE). */
	int field_is_ct, in_value;       /* native: where the header parse is */
	size_t nfield, nctype;
	char field[16];
	char ctype[LOAD_CTYPE_MAX];
	/* The whole body, for requests whose expect has json pointers (up
	 * to LOAD_JSON_MAX; allocated on first use, freed by
	 * load_check_release). */
	char *jbuf;
	size_t njbuf, ajbuf;
	int jtoo_big;
};

void load_check_start(struct load_check *k);
void load_check_release(struct load_check *k);
void load_check_body(struct load_check *k, const struct load_expect *e, const char *p,
		     size_t n);
/* NULL when a response with this status (and body, when k is given and
 * fed) matches e; else why not, written into buf. */
const char *load_expect_why(const struct load_expect *e, int status,
			    const struct load_check *k, char *buf, size_t len);
/* 1 when e needs the response body. */
int load_expect_needs_body(const struct load_expect *e);
/* Header callbacks' data for a check: a part of a header's name, a part
 * of its value (the parser may split both); Content-Type's is kept. */
void load_check_field(struct load_check *k, const char *p, size_t n);
void load_check_value(struct load_check *k, const char *p, size_t n);

/* A due request: its intended send time (ns, monotonic), kind and,
 * with a pool, its pool entry. */
struct load_due {
	uint64_t intended;
	uint32_t req;
	uint32_t inst;
	int host_void;              /* the host held it back (load.h host_void_ms) */
};

struct load_thread;

/*
 * A transport. dispatch() starts one request on a free connection and
 * returns 0 (the request now belongs to the transport: it will end in
 * load_on_done or load_on_error), or 1 when no connection is free.
 * poll() waits for events until `deadline` (absolute ns) and handles them.
 * expire() fails requests older than timeout_ms and returns the next
 * expiry time (UINT64_MAX when none). abort_all() fails everything still
 * in flight as a timeout.
 */
struct load_transport {
	const char *name;
	int (*init)(struct load_thread *th);
	int (*dispatch)(struct load_thread *th, const struct load_due *d, uint64_t now);
	void (*poll)(struct load_thread *th, uint64_t deadline);
	uint64_t (*expire)(struct load_thread *th, uint64_t now);
	unsigned (*inflight)(struct load_thread *th);
	void (*abort_all)(struct load_thread *th, uint64_t now);
	void (*release)(struct load_thread *th);
};
/* 1 when this libcurl cannot reuse h2c connections (load_curl.c). */
int load_curl_h2c_no_reuse(const struct load_config *cfg);
extern const struct load_transport load_native_transport;
extern const struct load_transport load_curl_transport;

struct load_shared {
	const struct load_config *cfg;
	const struct load_transport *tr;
	struct load_url url;
	struct addrinfo *addr;      /* native: resolved once */
	struct load_wire *wire;     /* [cfg->nrequests] */
	const struct load_pool *pool; /* with variables: cfg->pool or own_pool */
	struct load_pool own_pool;
	double *cum_weight;         /* [cfg->nrequests], cumulative */
	unsigned char *need_body;   /* [cfg->nrequests]: its expect reads the body */
	unsigned char *json_tmpl;   /* [cfg->nrequests]: its expect.json values refer to
				       variables (expanded per response, load_record.c) */
	int any_body;               /* some request's does */
	int any_ctype;              /* some request's expect names a content type */
	uint64_t start_ns, end_ns;  /* the schedule's window */
	uint64_t timeout_ns;
	uint64_t batch_ns;          /* 0: wake per event; else the tick */
	int nthreads;
	int closed;                 /* cfg->closed: no schedule (closed_fill) */
	atomic_int stop;
};

/* Build wire forms, weights; resolve the host for native. */
int load_shared_prepare(struct load_shared *sh);
void load_shared_release(struct load_shared *sh);
/* Choose a request kind by weight. */
uint32_t load_pick(const struct load_shared *sh, struct rng *r);
/* Templated kinds (load_tmpl.c): d's request expanded from its pool
 * entry. The native form (the whole HTTP/1.1 request) into out; the curl
 * form: the URL into url (NUL-terminated), the body into body, and, when
 * its headers refer to variables, the header lines into *hdrs (a new
 * curl_slist the caller frees; else left alone). */
void load_wire_expand(const struct load_shared *sh, const struct load_due *d, struct sbuf *out);
struct curl_slist;
void load_wire_expand_curl(const struct load_shared *sh, const struct load_due *d,
			   struct sbuf *url, struct sbuf *body, struct curl_slist **hdrs);

/* One sent request, for the send-times dump (ns after the start). */
struct load_send {
	uint64_t actual, intended;
};

struct load_thread {
	int id;
	struct load_shared *sh;
	pthread_t tid;
	int conns;                  /* this thread's connection cap */
	int epfd;
	void *tr;                   /* transport state */

	/* Schedule: this thread's slice. */
	struct rng rng;
	struct rng proc;            /* poisson split between parts: the one
				       process every part draws */
	uint64_t j;                 /* index within the slice */
	uint64_t due_slot;          /* the schedule's slot of next_due: constant,
				       part + parts * (j * threads + id); poisson,
				       the arrival's index in the one process */
	uint64_t proc_n;            /* poisson: arrivals of the process drawn */
	double next_rel;            /* poisson: next due, ns after start */
	uint64_t next_due;
	uint64_t quota;             /* closed: requests it may still send */
	int scheduling;
	uint64_t sched_end;         /* when scheduling stopped */
	int rt;                     /* runs SCHED_FIFO (rtsched_enter took) */
	/* Host stalls (load.h host_void_ms; load.c hold_mark, hold_check):
	 * when the thread began its last wait (wall, its own CPU, its major
	 * faults), and what the wake-up found: held_ok 1 when nothing of
	 * its own held it (own_ns its CPU since the mark). */
	int hold_armed, held_ok;
	uint64_t hold_wall, hold_cpu, hold_majflt, own_ns;

	/* Backlog: a ring of due requests waiting for a connection. */
	struct load_due *bl;
	size_t bl_cap, bl_head, bl_len;

	/* Per-second results: slot[sec % LOAD_NSLOT] is being written. */
	struct load_stats slot[LOAD_NSLOT];
	struct load_stats *cur;
	uint64_t sec, sec_end;
	_Atomic int64_t published;  /* seconds <= this are complete */
	_Atomic int64_t consumed;   /* seconds <= this are merged and reset */
	atomic_int done;

	double cpu_s;
	double cpu_mark;            /* thread CPU when the current second began */
	struct load_send *sends;    /* for the send-times dump */
	size_t nsends, sends_alloc;
};

/* Called by transports. `now` is a fresh now_ns(). */
void load_tick(struct load_thread *th, uint64_t now);
void load_on_sent(struct load_thread *th, const struct load_due *d, uint64_t now);
/* k: what was seen of the response (NULL: nothing but the status). */
/* d: the request as made due (its kind, intended send, host_void: a
 * void request is counted, its latency and service time not recorded). */
void load_on_done(struct load_thread *th, const struct load_due *d,
		  uint64_t sent, uint64_t now, int status, const struct load_check *k);

/* Host stalls (load_hold.c; load.h host_void_ms). load_hold_mark: the
 * thread is about to wait (a real-time worker with host_void_ms only;
 * else nothing). load_hold_check: it woke at now, before anything else
 * of the iteration. load_hold_void: whether a request due at intended,
 * handled at now (the same now) is void. load_hold_spoil: the thread
 * waited on its own account (the coordinator): nothing until the next
 * mark is void. */
void load_hold_mark(struct load_thread *th);
void load_hold_check(struct load_thread *th, uint64_t now);
int load_hold_void(const struct load_thread *th, uint64_t intended, uint64_t now);
void load_hold_spoil(struct load_thread *th);
void load_on_error(struct load_thread *th, uint32_t req, enum load_error_kind k,
		   uint64_t now);

/* CPU time of the calling thread, seconds. */
double load_thread_cpu_s(void);

/* epoll_pwait2 until deadline (absolute ns); returns its result. */
struct epoll_event;
int load_epoll_wait(int epfd, struct epoll_event *ev, int max, uint64_t deadline);

#endif
