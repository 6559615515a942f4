/*
 * load_curl: the libcurl transport (HTTPS, HTTP/2, anything the native one
 * does not speak; selectable for any workload).
 *
 * libcurl's multi "socket" interface on the thread's own epoll: curl tells
 * us which sockets to watch (socket callback) and when to call it back
 * (timer callback); we wait with nanosecond precision like the native path
 * and hand curl only the sockets that are ready. One easy handle per
 * connection slot; a transfer is added to the multi handle only when a slot
 * is free, so libcurl's own pending queue stays empty (it would otherwise be
 * scanned on every call). The easy handle is reached from a finished
 * transfer through CURLINFO_PRIVATE (curl's tool_operate does the same).
 *
 * The actual send time is the hand-off to libcurl plus its pre-transfer
 * time (settle_sent); lateness and service time are counted from it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <curl/curl.h>

#include "load/load_internal.h"
#include "sandbox/netns.h"
#include "base/util.h"

#define MAX_EVENTS 256

struct cxfer {
	CURL *easy;
	struct load_thread *th;
	struct load_due due;
	uint64_t added;             /* handed to libcurl (ns) */
	uint64_t sent;              /* added + libcurl's pre-transfer time */
	int configured;             /* request kind the handle is set up for, -1 none */
	int busy;
	int retried;                /* re-sent once on a fresh connection */
	int fresh;                  /* CURLOPT_FRESH_CONNECT is set */
	struct load_check check;    /* the response against its expect */
	struct cxfer *next_free;
	/* A templated request, expanded (load_tmpl.c): libcurl copies the
	 * URL but reads the body from here while the transfer runs. */
	struct sbuf url, body;
	struct curl_slist *hdrs;    /* its own header lines, or NULL */
};

struct ccurl {
	CURLM *multi;
	struct cxfer *x;
	int n;
	struct cxfer *free;
	unsigned inflight;
	uint64_t timer;             /* when curl wants a timeout action; UINT64_MAX none */
	struct curl_slist **hdrs;   /* per request kind */
	struct epoll_event ev[MAX_EVENTS];
};

static size_t discard(char *ptr, size_t size, size_t nmemb, void *ud)
{
	return size * nmemb;
}

/* The write callback of requests whose expect reads the body. */
static size_t check_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct cxfer *x = ud;

	load_check_body(&x->check, &x->th->sh->cfg->requests[x->due.req].expect, ptr,
			size * nmemb);
	return size * nmemb;
}

static int sock_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *sockp)
{
	struct load_thread *th = userp;
	struct ccurl *cc = th->tr;
	struct epoll_event ev;

	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(th->epfd, EPOLL_CTL_DEL, s, NULL);
		curl_multi_assign(cc->multi, s, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	ev.data.fd = s;
	if (sockp) {
		epoll_ctl(th->epfd, EPOLL_CTL_MOD, s, &ev);
	} else {
		if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, s, &ev) && errno == EEXIST)
			epoll_ctl(th->epfd, EPOLL_CTL_MOD, s, &ev);
		curl_multi_assign(cc->multi, s, (void *)1);
	}
	return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct load_thread *th = userp;
	struct ccurl *cc = th->tr;

	cc->timer = timeout_ms < 0 ? UINT64_MAX : now_ns() + (uint64_t)timeout_ms * 1000000ull;
	return 0;
}

static enum load_error_kind map_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
		return LERR_CONNECT;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2_STREAM:
		return LERR_RESET;
	case CURLE_OPERATION_TIMEDOUT:
		return LERR_TIMEOUT;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:    /* "HTTP/0.9 not allowed": not HTTP */
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_HTTP2:
		return LERR_PARSE;
	default:
		return LERR_OTHER;
	}
}

/*
 * A kept-alive connection that broke before any byte of the response came
 * back: the server most likely closed it while idle just as we wrote (a
 * keep-alive timeout). libcurl retries such a request itself, but may pick
 * another cached connection that is just as dead; re-send it once more on
 * a fresh connection, as the native transport does. It keeps its intended
 * and actual send times. 1 when re-sent.
 */
static int retry(struct ccurl *cc, struct cxfer *x, CURLcode rc)
{
	long hdr = 0, conns = 1;

	if (x->retried || (rc != CURLE_GOT_NOTHING && rc != CURLE_RECV_ERROR &&
			   rc != CURLE_SEND_ERROR))
		return 0;
	curl_easy_getinfo(x->easy, CURLINFO_HEADER_SIZE, &hdr);
	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &conns);
	if (hdr || conns)
		return 0;
	curl_multi_remove_handle(cc->multi, x->easy);
	curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT, 1L);
	x->fresh = 1;
	x->retried = 1;
	x->added = now_ns();
	load_check_start(&x->check);
	return curl_multi_add_handle(cc->multi, x->easy) == CURLM_OK;
}

/*
 * The request's actual send time: the hand-off to libcurl plus its
 * pre-transfer time (connection set-up, TLS, or the reuse checks), as the
 * native transport counts from its first write. A request that never got
 * that far (connect errors) was never sent, as with the native transport.
 */
static void settle_sent(struct load_thread *th, struct cxfer *x, int ok, uint64_t now)
{
	curl_off_t pre = 0;
	uint64_t t;

	if (curl_easy_getinfo(x->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) != CURLE_OK || pre < 0)
		pre = 0;
	if (!ok && !pre)
		return;
	t = x->added + (uint64_t)pre * 1000ull;
	x->sent = t < now ? t : now;
	load_on_sent(th, &x->due, x->sent);
}

/* The transfer's HTTP bytes and version, as libcurl counts them. */
static void count_bytes(struct load_thread *th, struct cxfer *x)
{
	long req = 0, hdr = 0, ver = 0;
	curl_off_t down = 0;

	curl_easy_getinfo(x->easy, CURLINFO_REQUEST_SIZE, &req);
	curl_easy_getinfo(x->easy, CURLINFO_HEADER_SIZE, &hdr);
	curl_easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &down);
	curl_easy_getinfo(x->easy, CURLINFO_HTTP_VERSION, &ver);
	th->cur->counts.bytes_sent += req > 0 ? (uint64_t)req : 0;
	th->cur->counts.bytes_received += (hdr > 0 ? (uint64_t)hdr : 0) +
					  (down > 0 ? (uint64_t)down : 0);
	if (th->sh->cfg->requests[x->due.req].expect.content_type) {
		char *ct = NULL;

		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
		if (ct) {
			load_check_field(&x->check, "Content-Type", 12);
			load_check_value(&x->check, ct, strlen(ct));
		}
	}
	x->check.proto = ver == CURL_HTTP_VERSION_1_0 ? LPROTO_HTTP10 :
			 ver == CURL_HTTP_VERSION_2_0 ? LPROTO_HTTP2 :
			 ver == CURL_HTTP_VERSION_3 ? LPROTO_HTTP3 : LPROTO_HTTP11;
}

/* The server answered, then closed (FIN: libcurl's "partial file"; an RST
 * stays a reset) in the middle of the body: an answer, truncated, and not
 * the one expected (load.h). Marks x's check. */
static int truncated(struct cxfer *x, CURLcode rc)
{
	long status = 0;

	if (rc != CURLE_PARTIAL_FILE)
		return 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status <= 0)
		return 0;
	x->check.truncated = 1;
	return 1;
}

/*
 * Collect finished transfers. `woke` is when the wait that delivered their
 * last bytes returned (0: unknown): the response was complete by then, and
 * libcurl's own processing after it is the generator's time, not the
 * server's, so it is not counted in latency or service time.
 */
static void harvest(struct load_thread *th, uint64_t woke)
{
	struct ccurl *cc = th->tr;
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(cc->multi, &left))) {
		struct cxfer *x = NULL;
		CURLcode rc;
		uint64_t now;

		if (m->msg != CURLMSG_DONE)
			continue;
		/* m does not survive curl_multi_remove_handle: copy first. */
		rc = m->data.result;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (rc != CURLE_OK && retry(cc, x, rc))
			continue;
		now = now_ns();
		if (woke && woke >= x->added && woke < now)
			now = woke;
		settle_sent(th, x, rc == CURLE_OK, now);
		count_bytes(th, x);
		if (rc == CURLE_OK || truncated(x, rc)) {
			long status = 0;

			curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
			load_on_done(th, &x->due, x->sent, now, (int)status, &x->check);
		} else {
			load_on_error(th, x->due.req, map_error(rc), now);
		}
		curl_multi_remove_handle(cc->multi, x->easy);
		cc->inflight--;
		x->busy = 0;
		x->next_free = cc->free;
		cc->free = x;
	}
}

static void configure(struct load_thread *th, struct cxfer *x, uint32_t req)
{
	const struct load_request *r = &th->sh->cfg->requests[req];
	const char *method = r->method && *r->method ? r->method : "GET";
	struct ccurl *cc = th->tr;
	CURL *e = x->easy;

	if (!th->sh->wire[req].templated)
		curl_easy_setopt(e, CURLOPT_URL, th->sh->wire[req].url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, cc->hdrs[req]);
	if (th->sh->need_body[req]) {
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, check_write);
		curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	} else {
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	}
	curl_easy_setopt(e, CURLOPT_NOBODY, 0L);
	curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
	if (!strcasecmp(method, "HEAD")) {
		curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	} else if ((r->body || strcasecmp(method, "GET")) && th->sh->wire[req].templated) {
		/* the body is set per request (expand) */
		if (strcasecmp(method, "POST"))
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	} else if (r->body || strcasecmp(method, "GET")) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(r->body ? r->body_len : 0));
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body ? r->body : "");
		if (strcasecmp(method, "POST"))
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	}
	x->configured = (int)req;
}

/* A templated request: its URL, body and (when they refer to variables)
 * header lines from its pool entry. */
static void expand(struct load_thread *th, struct cxfer *x, const struct load_due *d)
{
	const struct load_request *r = &th->sh->cfg->requests[d->req];
	const char *method = r->method && *r->method ? r->method : "GET";
	struct curl_slist *h = NULL;
	CURL *e = x->easy;

	load_wire_expand_curl(th->sh, d, &x->url, &x->body, &h);
	curl_easy_setopt(e, CURLOPT_URL, x->url.buf);
	if (!strcasecmp(method, "HEAD"))
		;
	else if (r->body || strcasecmp(method, "GET")) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body.len);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body.len ? x->body.buf : "");
		if (strcasecmp(method, "POST"))
			curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
	}
	if (h) {
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
		curl_slist_free_all(x->hdrs);
		x->hdrs = h;
	}
}

/*
 * libcurl before 8.0.0 breaks a prior-knowledge HTTP/2 (h2c) connection
 * when it reuses it: every request after the first fails with "Error in
 * the HTTP2 framing layer" (curl issue 10634, fixed in 8.0.0; Debian 12
 * ships 7.88.1). There, each h2c request gets a connection of its own:
 * still HTTP/2, but no multiplexing and a TCP handshake per request
 * (load_run warns).
 */
int load_curl_h2c_no_reuse(const struct load_config *cfg)
{
	return cfg->http == HTTPV_H2C && curl_version_info(CURLVERSION_NOW)->version_num < 0x080000;
}

static int curl_init_thread(struct load_thread *th)
{
	const struct load_config *cfg = th->sh->cfg;
	struct ccurl *cc = xcalloc(1, sizeof(*cc));
	size_t r, h;
	int i;

	th->tr = cc;
	cc->timer = UINT64_MAX;
	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (th->epfd < 0)
		return error("load: epoll_create1: %s", strerror(errno));
	cc->multi = curl_multi_init();
	if (!cc->multi)
		return error("load: curl_multi_init failed");
	curl_multi_setopt(cc->multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
	curl_multi_setopt(cc->multi, CURLMOPT_SOCKETDATA, th);
	curl_multi_setopt(cc->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	curl_multi_setopt(cc->multi, CURLMOPT_TIMERDATA, th);
	curl_multi_setopt(cc->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)th->conns);
	curl_multi_setopt(cc->multi, CURLMOPT_MAXCONNECTS, (long)th->conns);
	if (load_curl_h2c_no_reuse(cfg))
		curl_multi_setopt(cc->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_NOTHING);
	cc->hdrs = xcalloc(cfg->nrequests, sizeof(*cc->hdrs));
	for (r = 0; r < cfg->nrequests; r++) {
		const struct load_request *rq = &cfg->requests[r];
		struct sbuf sb = SBUF_INIT;

		/* No "Expect: 100-continue" round trip for bodies. */
		cc->hdrs[r] = curl_slist_append(NULL, "Expect:");
		for (h = 0; h < rq->nheaders; h++) {
			sbuf_reset(&sb);
			sbuf_addf(&sb, "%s: %s", rq->headers[h].key, rq->headers[h].value);
			cc->hdrs[r] = curl_slist_append(cc->hdrs[r], sb.buf);
		}
		sbuf_release(&sb);
	}
	cc->n = th->conns;
	cc->x = xcalloc((size_t)cc->n, sizeof(*cc->x));
	for (i = cc->n - 1; i >= 0; i--) {
		struct cxfer *x = &cc->x[i];
		CURL *e = curl_easy_init();

		if (!e)
			return error("load: curl_easy_init failed");
		x->easy = e;
		x->th = th;
		x->configured = -1;
		curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)x);
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)cfg->timeout_ms);
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)cfg->timeout_ms);
		curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(e, CURLOPT_USERAGENT, "harness");
		if (cfg->ca_file)
			curl_easy_setopt(e, CURLOPT_CAINFO, cfg->ca_file);
		netns_curl(e, &cfg->netns_fd);
		if (cfg->insecure) {
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
			curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
		}
		curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
				 cfg->http == HTTPV_11 ? (long)CURL_HTTP_VERSION_1_1 :
				 cfg->http == HTTPV_H2C ? (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE :
				 (long)CURL_HTTP_VERSION_2TLS);
		/* HTTP/2: wait for the connection to say whether it multiplexes
		 * rather than opening one per transfer before it knows. */
		if (cfg->http != HTTPV_11 && !load_curl_h2c_no_reuse(cfg))
			curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
		if (load_curl_h2c_no_reuse(cfg))
			curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
		x->next_free = cc->free;
		cc->free = x;
	}
	return 0;
}

static int curl_dispatch(struct load_thread *th, const struct load_due *d, uint64_t now)
{
	struct ccurl *cc = th->tr;
	struct cxfer *x = cc->free;

	if (!x)
		return 1;
	cc->free = x->next_free;
	if (x->configured != (int)d->req)
		configure(th, x, d->req);
	if (th->sh->wire[d->req].templated)
		expand(th, x, d);
	if (x->fresh) {
		curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT, 0L);
		x->fresh = 0;
	}
	x->retried = 0;
	x->due = *d;
	load_check_start(&x->check);
	x->check.inst = d->inst;
	x->added = x->sent = now_ns();
	cc->inflight++;
	x->busy = 1;
	if (curl_multi_add_handle(cc->multi, x->easy) != CURLM_OK) {
		cc->inflight--;
		x->busy = 0;
		load_on_error(th, d->req, LERR_OTHER, now_ns());
		x->next_free = cc->free;
		cc->free = x;
	}
	return 0;
}

static void curl_poll(struct load_thread *th, uint64_t deadline)
{
	struct ccurl *cc = th->tr;
	uint64_t woke;
	int n, i, running;

	if (cc->timer < deadline)
		deadline = cc->timer;
	n = load_epoll_wait(th->epfd, cc->ev, MAX_EVENTS, deadline);
	woke = n > 0 ? now_ns() : 0;
	for (i = 0; i < n; i++) {
		uint32_t e = cc->ev[i].events;
		int flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) |
			    (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
			    (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

		curl_multi_socket_action(cc->multi, cc->ev[i].data.fd, flags, &running);
	}
	if (cc->timer <= now_ns()) {
		cc->timer = UINT64_MAX;
		curl_multi_socket_action(cc->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	}
	harvest(th, woke);
}

static uint64_t curl_expire(struct load_thread *th, uint64_t now)
{
	/* libcurl enforces CURLOPT_TIMEOUT_MS through its timer. */
	return ((struct ccurl *)th->tr)->timer;
}

static unsigned curl_inflight(struct load_thread *th)
{
	return ((struct ccurl *)th->tr)->inflight;
}

static void curl_abort_all(struct load_thread *th, uint64_t now)
{
	struct ccurl *cc = th->tr;
	int i;

	harvest(th, 0);
	for (i = 0; i < cc->n; i++) {
		struct cxfer *x = &cc->x[i];

		if (!x->busy)
			continue;
		settle_sent(th, x, 0, now);
		load_on_error(th, x->due.req, LERR_TIMEOUT, now);
		curl_multi_remove_handle(cc->multi, x->easy);
		cc->inflight--;
		x->busy = 0;
		x->next_free = cc->free;
		cc->free = x;
	}
}

static void curl_release(struct load_thread *th)
{
	struct ccurl *cc = th->tr;
	size_t r;
	int i;

	if (cc) {
		for (i = 0; i < cc->n && cc->x; i++) {
			load_check_release(&cc->x[i].check);
			sbuf_release(&cc->x[i].url);
			sbuf_release(&cc->x[i].body);
			if (cc->x[i].easy) {
				if (cc->multi)
					curl_multi_remove_handle(cc->multi, cc->x[i].easy);
				curl_easy_cleanup(cc->x[i].easy);
			}
			curl_slist_free_all(cc->x[i].hdrs);
		}
		if (cc->multi)
			curl_multi_cleanup(cc->multi);
		for (r = 0; cc->hdrs && r < th->sh->cfg->nrequests; r++)
			curl_slist_free_all(cc->hdrs[r]);
		free(cc->hdrs);
		free(cc->x);
		free(cc);
	}
	th->tr = NULL;
	if (th->epfd >= 0)
		close(th->epfd);
	th->epfd = -1;
}

const struct load_transport load_curl_transport = {
	.name = "curl",
	.init = curl_init_thread,
	.dispatch = curl_dispatch,
	.poll = curl_poll,
	.expire = curl_expire,
	.inflight = curl_inflight,
	.abort_all = curl_abort_all,
	.release = curl_release,
};
