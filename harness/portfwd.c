/*
 * portfwd: dependency ports relayed into a sandbox's network namespace
 * (see portfwd.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns.h"
#include "portfwd.h"
#include "util.h"

/* One relayed connection: in (accepted in the namespace), out (to the
 * host's port), a thread per direction. */
struct conn {
	int in, out;
	pthread_t t[2];
	int nthreads;
	int done;                       /* directions finished; guarded by f->mu */
	struct conn *next;
};

struct portfwd;

struct pipe_dir {
	int from, to;
	struct portfwd *f;
	struct conn *c;
};

struct portfwd {
	int *listen_fds, *ports;
	size_t n;
	int wake[2];                    /* the acceptor's stop pipe */
	pthread_t acceptor;
	int running;
	pthread_mutex_t mu;
	struct conn *conns;             /* guarded by mu */
	unsigned long count;            /* guarded by mu */
	int inward_ns;                  /* portfwd_inward: where relays connect; else -1 */
};

static void sockaddr_lo(struct sockaddr_in *sa, int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* One direction: copy until end-of-file or an error, then pass the
 * end-of-file on (shutdown of the writing side), so request/response
 * protocols that half-close work. */
static void *copy_main(void *arg)
{
	struct pipe_dir *d = arg;
	char buf[65536];
	ssize_t n, w, off;

	for (;;) {
		n = read(d->from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (off = 0; off < n; off += w) {
			w = write(d->to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				goto out;
		}
	}
out:
	shutdown(d->to, SHUT_WR);
	shutdown(d->from, SHUT_RD);
	pthread_mutex_lock(&d->f->mu);
	d->c->done++;
	pthread_mutex_unlock(&d->f->mu);
	free(d);
	return NULL;
}

/* Join and free the connections whose both directions have ended (the
 * acceptor calls it before each new one: a long run's reconnecting
 * client does not pile up descriptors). */
static void reap(struct portfwd *f)
{
	struct conn **pp, *c;
	int k;

	pthread_mutex_lock(&f->mu);
	for (pp = &f->conns; (c = *pp);) {
		if (c->done < c->nthreads) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		for (k = 0; k < c->nthreads; k++)
			pthread_join(c->t[k], NULL);
		close(c->in);
		close(c->out);
		free(c);
	}
	pthread_mutex_unlock(&f->mu);
}

static void relay(struct portfwd *f, int in, int port)
{
	struct sockaddr_in sa;
	struct conn *c;
	int out = netns_socket(f->inward_ns, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, i;

	sockaddr_lo(&sa, port);
	if (out < 0 || connect(out, (struct sockaddr *)&sa, sizeof(sa))) {
		/* the dependency is down: the sandbox sees its connection reset */
		if (out >= 0)
			close(out);
		close(in);
		return;
	}
	setsockopt(in, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	reap(f);
	c = xcalloc(1, sizeof(*c));
	c->in = in;
	c->out = out;
	/* listed before its threads run: they count themselves done in it */
	pthread_mutex_lock(&f->mu);
	c->next = f->conns;
	f->conns = c;
	f->count++;
	for (i = 0; i < 2; i++) {
		struct pipe_dir *d = xmalloc(sizeof(*d));
		d->from = i ? out : in;
		d->to = i ? in : out;
		d->f = f;
		d->c = c;
		if (pthread_create(&c->t[i], NULL, copy_main, d)) {
			free(d);
			shutdown(in, SHUT_RDWR);
			shutdown(out, SHUT_RDWR);
			break;
		}
		c->nthreads++;
	}
	pthread_mutex_unlock(&f->mu);
}

static void *acceptor_main(void *arg)
{
	struct portfwd *f = arg;
	struct pollfd *p = xcalloc(f->n + 1, sizeof(*p));
	size_t i;

	for (i = 0; i < f->n; i++) {
		p[i].fd = f->listen_fds[i];
		p[i].events = POLLIN;
	}
	p[f->n].fd = f->wake[0];
	p[f->n].events = POLLIN;
	for (;;) {
		if (poll(p, f->n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[f->n].revents)
			break;
		for (i = 0; i < f->n; i++) {
			int in;

			if (!p[i].revents)
				continue;
			in = accept4(f->listen_fds[i], NULL, NULL, SOCK_CLOEXEC);
			if (in >= 0)
				relay(f, in, f->ports[i]);
		}
	}
	free(p);
	return NULL;
}

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

struct portfwd *portfwd_start(int netns_fd, const int *ports, size_t n)
{
	struct portfwd *f = xcalloc(1, sizeof(*f));
	struct sockaddr_in sa;
	size_t i;
	int one = 1;

	f->listen_fds = xcalloc(n ? n : 1, sizeof(*f->listen_fds));
	f->ports = xcalloc(n ? n : 1, sizeof(*f->ports));
	f->wake[0] = f->wake[1] = -1;
	f->inward_ns = -1;
	pthread_mutex_init(&f->mu, NULL);
	for (i = 0; i < n; i++)
		f->listen_fds[i] = -1;
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
	if (pipe2(f->wake, O_CLOEXEC) || pthread_create(&f->acceptor, NULL, acceptor_main, f)) {
		error("sandbox: cannot start the dependency port relay: %s", strerror(errno));
		goto fail;
	}
	f->running = 1;
	return f;
fail:
	portfwd_stop(f);
	return NULL;
}

struct portfwd *portfwd_inward(int netns_fd, int port)
{
	struct portfwd *f = xcalloc(1, sizeof(*f));
	struct sockaddr_in sa;
	int one = 1;

	f->listen_fds = xcalloc(1, sizeof(*f->listen_fds));
	f->ports = xcalloc(1, sizeof(*f->ports));
	f->wake[0] = f->wake[1] = -1;
	f->inward_ns = netns_fd;
	pthread_mutex_init(&f->mu, NULL);
	f->n = 1;
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
	if (pipe2(f->wake, O_CLOEXEC) || pthread_create(&f->acceptor, NULL, acceptor_main, f)) {
		error("sandbox: cannot start the port relay: %s", strerror(errno));
		goto fail;
	}
	f->running = 1;
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

void portfwd_stop(struct portfwd *f)
{
	struct conn *c, *next;
	size_t i;
	int k;

	if (!f)
		return;
	if (f->running) {
		if (write(f->wake[1], "q", 1) < 0)
			(void)0;
		pthread_join(f->acceptor, NULL);
	}
	for (c = f->conns; c; c = next) {
		next = c->next;
		shutdown(c->in, SHUT_RDWR);
		shutdown(c->out, SHUT_RDWR);
		for (k = 0; k < c->nthreads; k++)
			pthread_join(c->t[k], NULL);
		close(c->in);
		close(c->out);
		free(c);
	}
	for (i = 0; i < f->n; i++)
		if (f->listen_fds[i] >= 0)
			close(f->listen_fds[i]);
	for (k = 0; k < 2; k++)
		if (f->wake[k] >= 0)
			close(f->wake[k]);
	pthread_mutex_destroy(&f->mu);
	free(f->listen_fds);
	free(f->ports);
	free(f);
}
