/*
 * portfwd: dependency ports relayed into a sandbox's network namespace
 * (see portfwd.h). One thread per forwarder, an epoll loop over its
 * listeners and every relayed connection (non-blocking, a buffer per
 * direction): the harness spends one thread and two descriptors a
 * connection whatever the sandbox does, and at most max_conns of them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/netns.h"
#include "sandbox/portfwd.h"
#include "base/util.h"

#define RELAY_BUF 16384

/* One direction of a connection: bytes read from `from`, not yet written
 * to `to`. */
struct half {
	char buf[RELAY_BUF];
	size_t off, len;
	int eof;                        /* `from` ended: nothing more to read */
	int shut;                       /* ... and the end passed on (SHUT_WR) */
};

struct conn;

/* What an epoll event points at: a listener (conn NULL, index of its
 * port), the wake pipe (conn NULL, index -1), or one side of a conn. */
struct ep {
	struct conn *c;
	int idx;
	uint32_t events;                /* the interest registered now */
};

/* One relayed connection: fd[0] accepted (in), fd[1] the other end
 * (out); h[0] carries in -> out, h[1] out -> in. */
struct conn {
	int fd[2];
	int connecting;                 /* out's connect() still under way */
	struct ep ep[2];
	struct half h[2];
	struct conn *prev, *next;
};

struct portfwd {
	int *listen_fds, *ports;
	struct ep *listen_ep;
	size_t n;
	int wake[2];                    /* the relay thread's stop pipe */
	struct ep wake_ep;
	int epfd;
	int spare;                      /* /dev/null, given up to shed a connection */
	pthread_t thread;
	int running;
	unsigned max_conns;             /* 0: none */
	unsigned open;                  /* relay thread only */
	struct conn *conns;             /* relay thread only */
	pthread_mutex_t mu;
	unsigned long count, refused;   /* guarded by mu */
	int inward_ns;                  /* portfwd_inward: where relays connect; else -1 */
};

static void sockaddr_lo(struct sockaddr_in *sa, int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ------------------------------------------------------- connections */

/* Drop the connection: both descriptors closed now, the struct freed by
 * the loop after the batch of events that may still point at it. */
static void conn_close(struct portfwd *f, struct conn *c, struct conn **dead)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (c->ep[k].events)
			epoll_ctl(f->epfd, EPOLL_CTL_DEL, c->fd[k], NULL);
		close(c->fd[k]);
		c->fd[k] = -1;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		f->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = *dead;
	*dead = c;
	f->open--;
}

/*
 * Register what side k waits for: readable while its half has no bytes
 * in flight and has not ended, writable while the other half has bytes
 * for it. A side that waits for nothing is out of the epoll set (a hung
 * up socket would otherwise be reported on every wait).
 */
static int conn_watch(struct portfwd *f, struct conn *c)
{
	struct epoll_event e;
	uint32_t want;
	int k, op;

	for (k = 0; k < 2; k++) {
		want = (!c->h[k].eof && !c->h[k].len ? EPOLLIN : 0) |
		       (c->h[!k].len ? EPOLLOUT : 0);
		if (c->connecting)
			want = k ? EPOLLOUT : 0;
		if (want == c->ep[k].events)
			continue;
		op = !want ? EPOLL_CTL_DEL : c->ep[k].events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
		memset(&e, 0, sizeof(e));
		e.events = want;
		e.data.ptr = &c->ep[k];
		if (epoll_ctl(f->epfd, op, c->fd[k], &e))
			return -1;
		c->ep[k].events = want;
	}
	return 0;
}

/*
 * Move what can move on half k (fd[k] to fd[!k]) without blocking, a few
 * buffers at most (the other connections get their turn; epoll is level
 * triggered), passing an end-of-file on as a half-close (request and
 * response protocols that half-close work). -1: the connection is dead.
 */
static int pump(struct conn *c, int k)
{
	struct half *h = &c->h[k];
	ssize_t n;
	int round;

	for (round = 0; round < 4; round++) {
		if (h->len) {
			n = send(c->fd[!k], h->buf + h->off, h->len, MSG_NOSIGNAL);
			if (n < 0)
				return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
			h->off += (size_t)n;
			h->len -= (size_t)n;
			if (h->len)
				return 0;
			h->off = 0;
		}
		if (h->eof) {
			if (!h->shut)
				shutdown(c->fd[!k], SHUT_WR);
			h->shut = 1;
			return 0;
		}
		n = recv(c->fd[k], h->buf, sizeof(h->buf), 0);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		if (n == 0)
			h->eof = 1;
		h->len = (size_t)n;
	}
	return 0;
}

/* out's connect() ended (it is writable): 0 when it connected; the
 * dependency down: -1 (the sandbox sees its connection end). */
static int connected(struct conn *c)
{
	socklen_t len = sizeof(int);
	int err = 0;

	c->connecting = 0;
	return getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &len) || err ? -1 : 0;
}

static void conn_event(struct portfwd *f, struct conn *c, struct conn **dead)
{
	if ((c->connecting && connected(c)) || pump(c, 0) || pump(c, 1) || (c->h[0].shut && c->h[1].shut) || conn_watch(f, c))
		conn_close(f, c, dead);
}

/* Relay the accepted connection in to the port's 127.0.0.1 on the other
 * side, connecting without blocking (a dependency whose backlog is full
 * answers late: the other connections go on meanwhile); a dependency
 * that is down: the sandbox sees its connection end. */
static void conn_open(struct portfwd *f, int in, int port)
{
	struct sockaddr_in sa;
	struct conn *c;
	int out = netns_socket(f->inward_ns, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, k;
	int rc = -1;

	sockaddr_lo(&sa, port);
	if (out >= 0 && !set_nonblock(out))
		rc = connect(out, (struct sockaddr *)&sa, sizeof(sa));
	if (rc && errno != EINPROGRESS) {
		if (out >= 0)
			close(out);
		close(in);
		return;
	}
	setsockopt(in, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = xcalloc(1, sizeof(*c));
	c->fd[0] = in;
	c->fd[1] = out;
	c->connecting = rc != 0;
	for (k = 0; k < 2; k++)
		c->ep[k].c = c;
	c->next = f->conns;
	if (f->conns)
		f->conns->prev = c;
	f->conns = c;
	f->open++;
	pthread_mutex_lock(&f->mu);
	f->count++;
	pthread_mutex_unlock(&f->mu);
	if (conn_watch(f, c)) {
		struct conn *dead = NULL;

		conn_close(f, c, &dead);
		free(dead);
	}
}

static void count_refused(struct portfwd *f)
{
	pthread_mutex_lock(&f->mu);
	f->refused++;
	pthread_mutex_unlock(&f->mu);
}

/*
 * The harness out of descriptors (EMFILE, ENFILE): the waiting connection
 * is taken with the spare descriptor and closed, counted as refused;
 * left waiting, its listener would stay readable and the loop spin.
 * 0 when one was taken so.
 */
static int shed(struct portfwd *f, int i)
{
	int in;

	if ((errno != EMFILE && errno != ENFILE) || f->spare < 0)
		return -1;
	close(f->spare);
	in = accept4(f->listen_fds[i], NULL, NULL, SOCK_CLOEXEC);
	if (in >= 0) {
		close(in);
		count_refused(f);
	}
	f->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return in >= 0 ? 0 : -1;
}

/* Every connection waiting on listener i: relayed, or past max_conns
 * closed at once and counted. */
static void accept_all(struct portfwd *f, int i)
{
	int in;

	for (;;) {
		in = accept4(f->listen_fds[i], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (in < 0) {
			if (shed(f, i))
				return;
			continue;
		}
		if (f->max_conns && f->open >= f->max_conns) {
			close(in);
			count_refused(f);
			continue;
		}
		conn_open(f, in, f->ports[i]);
	}
}

static void *relay_main(void *arg)
{
	struct portfwd *f = arg;
	struct epoll_event ev[64];
	struct conn *dead, *c;
	int n, i, stop = 0;

	while (!stop) {
		n = epoll_wait(f->epfd, ev, 64, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		dead = NULL;
		for (i = 0; i < n; i++) {
			struct ep *p = ev[i].data.ptr;

			if (p == &f->wake_ep)
				stop = 1;
			else if (!p->c)
				accept_all(f, p->idx);
			else if (p->c->fd[0] >= 0)      /* not closed earlier in this batch */
				conn_event(f, p->c, &dead);
		}
		for (; dead; dead = c) {
			c = dead->next;
			free(dead);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------ set-up */

/*
 * bind() 127.0.0.1:port in the sandbox's namespace, waiting for it: bwrap
 * reports its child's pid (--info-fd) right after clone(), and a loaded
 * host can have us bind before the new namespace takes the address
 * (EADDRNOTAVAIL, "Cannot assign requested address": seen in 1 of 5
 * sandbox.sh runs beside a parallel test lane, the arm's start then failing
 * as if it were the implementation's fault). Up to LOOPBACK_WAIT_S, then
 * the error stands.
 */
#define LOOPBACK_WAIT_S 10.0

static int bind_lo(int fd, const struct sockaddr_in *sa)
{
	double t0 = now_wall();

	for (;;) {
		if (!bind(fd, (const struct sockaddr *)sa, sizeof(*sa)))
			return 0;
		if (errno != EADDRNOTAVAIL || now_wall() - t0 > LOOPBACK_WAIT_S)
			return -1;
		usleep(5000);
	}
}

static struct portfwd *fwd_new(size_t n, int inward_ns, unsigned max_conns)
{
	struct portfwd *f = xcalloc(1, sizeof(*f));
	size_t i;

	f->listen_fds = xcalloc(n, sizeof(*f->listen_fds));
	f->ports = xcalloc(n, sizeof(*f->ports));
	f->listen_ep = xcalloc(n, sizeof(*f->listen_ep));
	for (i = 0; i < n; i++) {
		f->listen_fds[i] = -1;
		f->listen_ep[i].idx = (int)i;
	}
	f->n = n;
	f->wake[0] = f->wake[1] = -1;
	f->wake_ep.idx = -1;
	f->epfd = -1;
	f->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	f->inward_ns = inward_ns;
	f->max_conns = max_conns;
	pthread_mutex_init(&f->mu, NULL);
	return f;
}

/* The listeners (bound and listening) and the stop pipe into a new epoll
 * set, and its thread. -1 with errno. */
static int fwd_run(struct portfwd *f)
{
	struct epoll_event e;
	size_t i;

	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f->epfd < 0 || pipe2(f->wake, O_CLOEXEC))
		return -1;
	for (i = 0; i <= f->n; i++) {
		int fd = i < f->n ? f->listen_fds[i] : f->wake[0];

		memset(&e, 0, sizeof(e));
		e.events = EPOLLIN;
		e.data.ptr = i < f->n ? &f->listen_ep[i] : &f->wake_ep;
		if (set_nonblock(fd) || epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &e))
			return -1;
	}
	if ((errno = pthread_create(&f->thread, NULL, relay_main, f)))
		return -1;
	f->running = 1;
	return 0;
}

struct portfwd *portfwd_start(int netns_fd, const int *ports, size_t n, unsigned max_conns)
{
	struct portfwd *f = fwd_new(n ? n : 1, -1, max_conns);
	struct sockaddr_in sa;
	size_t i;
	int one = 1;

	f->n = n;
	for (i = 0; i < n; i++) {
		f->ports[i] = ports[i];
		f->listen_fds[i] = netns_socket(netns_fd, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sockaddr_lo(&sa, ports[i]);
		setsockopt(f->listen_fds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (f->listen_fds[i] < 0 || bind_lo(f->listen_fds[i], &sa) ||
		    listen(f->listen_fds[i], 128)) {
			error("sandbox: cannot forward dependency port %d into the sandbox: %s",
			      ports[i], strerror(errno));
			goto fail;
		}
	}
	if (fwd_run(f)) {
		error("sandbox: cannot start the dependency port relay: %s", strerror(errno));
		goto fail;
	}
	return f;
fail:
	portfwd_stop(f);
	return NULL;
}

struct portfwd *portfwd_inward(int netns_fd, int port)
{
	struct portfwd *f = fwd_new(1, netns_fd, 0);
	struct sockaddr_in sa;
	int one = 1;

	f->ports[0] = port;
	f->listen_fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sockaddr_lo(&sa, port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	setsockopt(f->listen_fds[0], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (f->listen_fds[0] < 0 || bind(f->listen_fds[0], (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(f->listen_fds[0], 1024)) {
		error("sandbox: cannot listen on port %d for the sandboxed implementation: %s", port,
		      strerror(errno));
		goto fail;
	}
	if (fwd_run(f)) {
		error("sandbox: cannot start the port relay: %s", strerror(errno));
		goto fail;
	}
	return f;
fail:
	portfwd_stop(f);
	return NULL;
}

unsigned long portfwd_count(struct portfwd *f)
{
	unsigned long n;

	pthread_mutex_lock(&f->mu);
	n = f->count;
	pthread_mutex_unlock(&f->mu);
	return n;
}

unsigned long portfwd_refused(struct portfwd *f)
{
	unsigned long n;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->mu);
	n = f->refused;
	pthread_mutex_unlock(&f->mu);
	return n;
}

void portfwd_stop(struct portfwd *f)
{
	struct conn *dead = NULL, *c;
	size_t i;
	int k;

	if (!f)
		return;
	if (f->running) {
		if (write(f->wake[1], "q", 1) < 0)
			(void)0;
		pthread_join(f->thread, NULL);
	}
	while (f->conns)
		conn_close(f, f->conns, &dead);
	for (; dead; dead = c) {
		c = dead->next;
		free(dead);
	}
	for (i = 0; i < f->n; i++)
		if (f->listen_fds[i] >= 0)
			close(f->listen_fds[i]);
	for (k = 0; k < 2; k++)
		if (f->wake[k] >= 0)
			close(f->wake[k]);
	if (f->epfd >= 0)
		close(f->epfd);
	if (f->spare >= 0)
		close(f->spare);
	pthread_mutex_destroy(&f->mu);
	free(f->listen_fds);
	free(f->ports);
	free(f->listen_ep);
	free(f);
}
