/*
 * load_native: the default transport for http:// (wrk's way). Non-blocking
 * sockets on the thread's epoll, request bytes built once (load_req.c),
 * responses parsed by Debian's libhttp-parser (Content-Length, chunked,
 * read-until-close). One request per connection at a time (no pipelining),
 * HTTP/1.1 keep-alive.
 *
 * Per request on a warm connection: one send(), one recv() (two for large
 * responses), and a share of one epoll_pwait2(); the socket stays registered
 * for EPOLLIN only, so no epoll_ctl on the hot path (wrk re-arms EPOLLOUT
 * for every request).
 *
 * Connections are opened lazily, when a due request finds no idle one, up
 * to the thread's cap; idle connections are reused most-recent-first. Every
 * connection is on exactly one of three lists: idle, busy (in dispatch
 * order, so the oldest request's deadline is at its head) or closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <http_parser.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>

#include "load/load_internal.h"
#include "sandbox/netns.h"
#include "base/util.h"

#define RBUF_SIZE (64 * 1024)
#define MAX_EVENTS 256

enum nstate { N_CLOSED, N_CONNECTING, N_IDLE, N_BUSY };

struct nconn {
	int fd;
	enum nstate state;
	struct nconn *prev, *next;   /* list links */
	struct load_thread *th;
	http_parser parser;
	struct load_due due;         /* the request in flight */
	uint64_t sent, deadline;
	size_t wpos;                 /* bytes of the request written */
	const char *wbytes;          /* the request: its kind's wire bytes, or wbuf */
	size_t wlen;
	struct sbuf wbuf;            /* a templated request, expanded (load_tmpl.c) */
	int want_out;                /* EPOLLOUT registered */
	int complete;                /* set by on_message_complete */
	int reused;                  /* the connection carried a request before */
	int retried;                 /* this request was re-sent once */
	int recorded;                /* load_on_sent done for this request */
	size_t got;                  /* response bytes received */
	struct load_check check;     /* the response against its expect */
};

struct nlist {
	struct nconn head;           /* sentinel */
};

struct native {
	struct nconn *c;
	int n;
	struct nlist idle, busy, closed;
	unsigned inflight;
	int tstamp;                  /* use kernel receive timestamps */
	int64_t real_minus_mono;     /* for converting them, refreshed per poll */
	char *rbuf;
	http_parser_settings settings;
	struct epoll_event ev[MAX_EVENTS];
};

/* --------------------------------------------------------------- lists */

static void list_init(struct nlist *l)
{
	l->head.prev = l->head.next = &l->head;
}

static int list_empty(const struct nlist *l)
{
	return l->head.next == &l->head;
}

static void list_del(struct nconn *c)
{
	c->prev->next = c->next;
	c->next->prev = c->prev;
	c->prev = c->next = c;
}

static void list_push_front(struct nlist *l, struct nconn *c)
{
	c->next = l->head.next;
	c->prev = &l->head;
	l->head.next->prev = c;
	l->head.next = c;
}

static void list_push_back(struct nlist *l, struct nconn *c)
{
	c->prev = l->head.prev;
	c->next = &l->head;
	l->head.prev->next = c;
	l->head.prev = c;
}

/* ------------------------------------------------------------- parsing */

static int on_headers_complete(http_parser *p)
{
	struct nconn *c = p->data;

	/* A response to HEAD has headers only, whatever they announce. */
	return c->th->sh->wire[c->due.req].head ? 1 : 0;
}

/* Installed only when some request's expect names a content type. */
static int on_header_field(http_parser *p, const char *at, size_t len)
{
	struct nconn *c = p->data;

	if (c->th->sh->cfg->requests[c->due.req].expect.content_type)
		load_check_field(&c->check, at, len);
	return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
	struct nconn *c = p->data;

	if (c->th->sh->cfg->requests[c->due.req].expect.content_type)
		load_check_value(&c->check, at, len);
	return 0;
}

/* Installed only when some request's expect reads the body. */
static int on_body(http_parser *p, const char *at, size_t len)
{
	struct nconn *c = p->data;
	const struct load_shared *sh = c->th->sh;

	if (sh->need_body[c->due.req])
		load_check_body(&c->check, &sh->cfg->requests[c->due.req].expect, at, len);
	return 0;
}

static int on_message_complete(http_parser *p)
{
	struct nconn *c = p->data;

	c->complete = 1;
	/* Stop right after this message: more bytes would be unsolicited. */
	http_parser_pause(p, 1);
	return 0;
}

/* ------------------------------------------------------- state changes */

static void conn_close(struct native *nt, struct nconn *c)
{
	if (c->state == N_BUSY || c->state == N_CONNECTING)
		nt->inflight--;
	if (c->fd >= 0)
		close(c->fd);   /* also removes it from the epoll set */
	c->fd = -1;
	c->state = N_CLOSED;
	c->want_out = 0;
	list_del(c);
	list_push_front(&nt->closed, c);
}

static void conn_fail(struct native *nt, struct nconn *c, enum load_error_kind k)
{
	load_on_error(c->th, c->due.req, k, now_ns());
	conn_close(nt, c);
}

static void set_events(struct nconn *c, int out)
{
	struct epoll_event ev;

	if (c->want_out == out)
		return;
	ev.events = EPOLLIN | (out ? EPOLLOUT : 0);
	ev.data.ptr = c;
	epoll_ctl(c->th->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	c->want_out = out;
}

static void conn_lost(struct native *nt, struct nconn *c);

/* Write (the rest of) the request. */
static void conn_write(struct native *nt, struct nconn *c)
{
	ssize_t n;

	if (!c->recorded) {
		c->sent = now_ns();
		load_on_sent(c->th, &c->due, c->sent);
		c->recorded = 1;
	}
	while (c->wpos < c->wlen) {
		n = send(c->fd, c->wbytes + c->wpos, c->wlen - c->wpos, MSG_NOSIGNAL);
		if (n > 0) {
			c->wpos += (size_t)n;
			c->th->cur->counts.bytes_sent += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_events(c, 1);
			return;
		}
		conn_lost(nt, c);
		return;
	}
	set_events(c, 0);
}

/* Put the request on connection c (idle or closed) and start it. */
static void conn_start(struct native *nt, struct nconn *c, const struct load_due *d,
		       uint64_t now)
{
	struct load_thread *th = c->th;
	const struct load_wire *w = &th->sh->wire[d->req];

	c->due = *d;
	c->wpos = 0;
	if (w->templated) {
		load_wire_expand(th->sh, d, &c->wbuf);
		c->wbytes = c->wbuf.buf;
		c->wlen = c->wbuf.len;
	} else {
		c->wbytes = w->bytes;
		c->wlen = w->len;
	}
	c->complete = 0;
	c->reused = c->state == N_IDLE;
	c->retried = 0;
	c->recorded = 0;
	c->got = 0;
	load_check_start(&c->check);
	c->check.inst = d->inst;
	c->deadline = now + th->sh->timeout_ns;
	http_parser_init(&c->parser, HTTP_RESPONSE);
	c->parser.data = c;
	list_del(c);
	list_push_back(&nt->busy, c);
	nt->inflight++;
	if (c->state == N_IDLE) {
		c->state = N_BUSY;
		conn_write(nt, c);
		return;
	}
	/* Closed: open a new connection. */
	{
		const struct addrinfo *ai = th->sh->addr, *a;

		/* "localhost" may list ::1 first while the server listens on
		 * 127.0.0.1 only: prefer IPv4 when there is one. */
		for (a = ai; a; a = a->ai_next)
			if (a->ai_family == AF_INET) {
				ai = a;
				break;
			}
		struct epoll_event ev;
		int one = 1, fd;

		c->state = N_CONNECTING;
		fd = netns_socket(th->sh->cfg->netns_fd,
				  ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				  ai->ai_protocol);
		if (fd < 0) {
			conn_fail(nt, c, LERR_OTHER);
			return;
		}
		c->fd = fd;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (nt->tstamp) {
			int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

			setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags));
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			conn_fail(nt, c, LERR_CONNECT);
			return;
		}
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = c;
		c->want_out = 1;
		if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, fd, &ev))
			conn_fail(nt, c, LERR_OTHER);
	}
}

/*
 * The connection broke under a request. When it was a kept-alive one and
 * nothing of the response came back, the server had most likely closed it
 * while idle (keep-alive timeout) just as we wrote: re-send the request
 * once on a new connection, as browsers and libcurl do. It keeps its
 * intended and actual send times, so the retry shows in its latency.
 * Anything else is a reset.
 */
static void conn_lost(struct native *nt, struct nconn *c)
{
	struct load_due d = c->due;
	uint64_t sent = c->sent;
	int recorded = c->recorded;

	if (!c->reused || c->got || c->retried) {
		conn_fail(nt, c, LERR_RESET);
		return;
	}
	conn_close(nt, c);
	conn_start(nt, c, &d, now_ns());
	/* A new connection writes only once connected: in time to keep the
	 * first send's record. */
	c->retried = 1;
	c->recorded = recorded;
	c->sent = sent;
}

/* A whole response arrived on c at `now`. */
static void conn_done(struct native *nt, struct nconn *c, uint64_t now, int extra)
{
	int keep = http_should_keep_alive(&c->parser) && !extra;

	c->check.proto = c->parser.http_major == 1 && c->parser.http_minor == 0 ?
			 LPROTO_HTTP10 : LPROTO_HTTP11;
	load_on_done(c->th, &c->due, c->sent, now, c->parser.status_code, &c->check);
	if (!keep) {
		conn_close(nt, c);
		return;
	}
	nt->inflight--;
	c->state = N_IDLE;
	list_del(c);
	list_push_front(&nt->idle, c);
}

/*
 * recv() that also returns the kernel's software receive timestamp of the
 * data (SO_TIMESTAMPING works on TCP: the stamp of the last segment read),
 * converted to the monotonic clock; *arrival is 0 when there was none.
 * So a response read up to one tick after it arrived (batched worker,
 * load.c), or after our thread woke up, is timed when it arrived.
 */
static ssize_t recv_stamped(struct native *nt, int fd, uint64_t *arrival)
{
	char control[CMSG_SPACE(sizeof(struct scm_timestamping))];
	struct iovec iov = { nt->rbuf, RBUF_SIZE };
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = sizeof(control);
	n = recvmsg(fd, &mh, 0);
	*arrival = 0;
	if (n <= 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		struct scm_timestamping ts;
		int64_t real;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SO_TIMESTAMPING)
			continue;
		memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
		real = (int64_t)ts.ts[0].tv_sec * 1000000000 + ts.ts[0].tv_nsec;
		if (real > nt->real_minus_mono)
			*arrival = (uint64_t)(real - nt->real_minus_mono);
	}
	return n;
}

static void conn_readable(struct native *nt, struct nconn *c)
{
	uint64_t arrival = 0;
	size_t parsed;
	ssize_t n;

	for (;;) {
		n = nt->tstamp ? recv_stamped(nt, c->fd, &arrival) :
				 recv(c->fd, nt->rbuf, RBUF_SIZE, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (c->state == N_BUSY)
				conn_lost(nt, c);
			else
				conn_close(nt, c);
			return;
		}
		if (c->state != N_BUSY) {
			/* Idle: the server closed it (or sent junk). Not an error:
			 * no request was on it. */
			conn_close(nt, c);
			return;
		}
		c->got += (size_t)n;
		c->th->cur->counts.bytes_received += (uint64_t)n;
		parsed = http_parser_execute(&c->parser, &nt->settings, nt->rbuf, (size_t)n);
		if (c->complete) {
			http_parser_pause(&c->parser, 0);
			uint64_t now = now_ns();

			/* The kernel's stamp of the last segment, when it is
			 * plausible; else the time we looked. */
			if (!arrival || arrival > now || arrival < c->sent)
				arrival = now;
			conn_done(nt, c, arrival, parsed < (size_t)n);
			return;
		}
		if (n == 0 && c->parser.status_code) {
			/* The server answered, then closed (FIN, not RST) in the
			 * middle of the body: an answer, truncated, and not the
			 * one expected (load.h). */
			c->check.truncated = 1;
			load_on_done(c->th, &c->due, c->sent, now_ns(), c->parser.status_code,
				     &c->check);
			conn_close(nt, c);
			return;
		}
		if (n == 0) {
			/* EOF before a whole response. */
			conn_lost(nt, c);
			return;
		}
		if (HTTP_PARSER_ERRNO(&c->parser) != HPE_OK) {
			conn_fail(nt, c, LERR_PARSE);
			return;
		}
		if ((size_t)n < RBUF_SIZE)
			return;
	}
}

static void conn_event(struct native *nt, struct nconn *c, uint32_t events)
{
	if (c->state == N_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			conn_fail(nt, c, LERR_CONNECT);
			return;
		}
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (events & (EPOLLERR | EPOLLHUP)) {
			conn_fail(nt, c, LERR_CONNECT);
			return;
		}
		c->state = N_BUSY;
		conn_write(nt, c);
		return;
	}
	if ((events & EPOLLOUT) && c->state == N_BUSY && c->want_out) {
		conn_write(nt, c);
		if (c->state != N_BUSY)
			return;
	}
	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))
		conn_readable(nt, c);
}

/* ------------------------------------------------------ the interface */

static int native_init(struct load_thread *th)
{
	struct native *nt = xcalloc(1, sizeof(*nt));
	int i;

	th->tr = nt;
	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (th->epfd < 0)
		return error("load: epoll_create1: %s", strerror(errno));
	nt->n = th->conns;
	/* Kernel receive timestamps: exact arrival times whether the worker
	 * is batched or not (then they leave out our own wake-up latency). */
	nt->tstamp = 1;
	nt->c = xcalloc((size_t)nt->n, sizeof(*nt->c));
	nt->rbuf = xmalloc(RBUF_SIZE);
	list_init(&nt->idle);
	list_init(&nt->busy);
	list_init(&nt->closed);
	http_parser_settings_init(&nt->settings);
	/* Only HEAD needs a look at the headers: no callback otherwise. */
	for (i = 0; (size_t)i < th->sh->cfg->nrequests; i++)
		if (th->sh->wire[i].head)
			nt->settings.on_headers_complete = on_headers_complete;
	nt->settings.on_message_complete = on_message_complete;
	if (th->sh->any_body)
		nt->settings.on_body = on_body;
	if (th->sh->any_ctype) {
		nt->settings.on_header_field = on_header_field;
		nt->settings.on_header_value = on_header_value;
	}
	for (i = nt->n - 1; i >= 0; i--) {
		struct nconn *c = &nt->c[i];

		c->fd = -1;
		c->th = th;
		c->state = N_CLOSED;
		list_push_front(&nt->closed, c);
	}
	return 0;
}

static int native_dispatch(struct load_thread *th, const struct load_due *d, uint64_t now)
{
	struct native *nt = th->tr;
	struct nconn *c;

	if (!list_empty(&nt->idle))
		c = nt->idle.head.next;
	else if (!list_empty(&nt->closed))
		c = nt->closed.head.next;
	else
		return 1;
	conn_start(nt, c, d, now);
	return 0;
}

static void native_poll(struct load_thread *th, uint64_t deadline)
{
	struct native *nt = th->tr;
	int n, i;

	if (nt->tstamp) {
		struct timespec r, m;

		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m);
		nt->real_minus_mono = ((int64_t)r.tv_sec - m.tv_sec) * 1000000000 +
				      (r.tv_nsec - m.tv_nsec);
	}
	n = load_epoll_wait(th->epfd, nt->ev, MAX_EVENTS, deadline);
	for (i = 0; i < n; i++)
		conn_event(nt, nt->ev[i].data.ptr, nt->ev[i].events);
}

static uint64_t native_expire(struct load_thread *th, uint64_t now)
{
	struct native *nt = th->tr;

	while (!list_empty(&nt->busy)) {
		struct nconn *c = nt->busy.head.next;

		if (c->deadline > now)
			return c->deadline;
		conn_fail(nt, c, c->state == N_CONNECTING ? LERR_CONNECT : LERR_TIMEOUT);
	}
	return UINT64_MAX;
}

static unsigned native_inflight(struct load_thread *th)
{
	return ((struct native *)th->tr)->inflight;
}

static void native_abort_all(struct load_thread *th, uint64_t now)
{
	struct native *nt = th->tr;

	while (!list_empty(&nt->busy))
		conn_fail(nt, nt->busy.head.next, LERR_TIMEOUT);
}

static void native_release(struct load_thread *th)
{
	struct native *nt = th->tr;
	int i;

	if (nt) {
		for (i = 0; i < nt->n; i++) {
			if (nt->c[i].fd >= 0)
				close(nt->c[i].fd);
			load_check_release(&nt->c[i].check);
			sbuf_release(&nt->c[i].wbuf);
		}
		free(nt->c);
		free(nt->rbuf);
		free(nt);
	}
	th->tr = NULL;
	if (th->epfd >= 0)
		close(th->epfd);
	th->epfd = -1;
}

const struct load_transport load_native_transport = {
	.name = "native",
	.init = native_init,
	.dispatch = native_dispatch,
	.poll = native_poll,
	.expire = native_expire,
	.inflight = native_inflight,
	.abort_all = native_abort_all,
	.release = native_release,
};
