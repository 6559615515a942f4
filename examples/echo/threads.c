/*
 * threads: the JSON echo API served by a fixed pool of worker threads, each
 * request blocking its worker for a fixed wait (WAIT_US, default 1000 us):
 * the "Thread.Sleep(1)" of a synchronous handler calling a database.
 *
 *   threads --port P            (env WORKERS: pool size, default 4;
 *                                env WAIT_US: blocking wait per echo, default 1000)
 *
 * One I/O thread owns the listening socket and an epoll set of connections
 * (EPOLLONESHOT: a connection belongs either to the I/O thread or to the
 * worker answering it, never both). When a whole request has arrived it is
 * queued; a free worker takes it, waits (POST /echo only), writes the
 * response, and hands the connection back by re-arming it. With W workers
 * and a 1 ms wait the pool cannot answer more than W * 1000 echo requests a
 * second whatever the CPU: that is the blocking cliff the spec measures.
 *
 * Routes: POST /echo returns the body; GET /healthz -> "ok" (through the
 * pool, no wait); GET /runtime-stats -> {"pool":{"busy","total","max"},
 * "queue":q,"endpoint_calls":{"echo","healthz"},"requests":N}, answered by
 * the I/O thread itself (an admin endpoint that must stay readable while the
 * pool is saturated). "requests" counts every request but /runtime-stats.
 */
#define _GNU_SOURCE
#include "http.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int fd;
	char *buf;
	size_t len, cap;
	struct http_req req;   /* the request being answered by a worker */
	struct conn *next;     /* work queue link */
};

static int epfd;
static int nworkers = 4;
static long wait_us = 1000;

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static struct conn *q_head, *q_tail;
static long q_len;

static atomic_long n_busy, n_requests, n_echo, n_healthz;

static void conn_free(struct conn *c)
{
	close(c->fd);
	free(c->buf);
	free(c);
}

static void enqueue(struct conn *c)
{
	pthread_mutex_lock(&q_lock);
	c->next = NULL;
	if (q_tail)
		q_tail->next = c;
	else
		q_head = c;
	q_tail = c;
	q_len++;
	pthread_cond_signal(&q_cond);
	pthread_mutex_unlock(&q_lock);
}

static struct conn *dequeue(void)
{
	struct conn *c;

	pthread_mutex_lock(&q_lock);
	while (!q_head)
		pthread_cond_wait(&q_cond, &q_lock);
	c = q_head;
	q_head = c->next;
	if (!q_head)
		q_tail = NULL;
	q_len--;
	pthread_mutex_unlock(&q_lock);
	return c;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

static void answer_stats(struct conn *c)
{
	char body[512], out[HTTP_HEAD_MAX + 512];
	long ql;
	int n;

	pthread_mutex_lock(&q_lock);
	ql = q_len;
	pthread_mutex_unlock(&q_lock);
	n = snprintf(body, sizeof(body),
		     "{\"pool\":{\"busy\":%ld,\"total\":%d,\"max\":%d},\"queue\":%ld,"
		     "\"endpoint_calls\":{\"echo\":%ld,\"healthz\":%ld},\"requests\":%ld}\n",
		     atomic_load(&n_busy), nworkers, nworkers, ql, atomic_load(&n_echo),
		     atomic_load(&n_healthz), atomic_load(&n_requests));
	http_write_all(c->fd, out, http_response(out, 200, "application/json", body,
						 (size_t)n, c->req.keep));
}

/*
 * The caller owns c (the I/O thread after an event, or a worker after its
 * response). Either queue the next whole request, or give c back to epoll.
 * After the call the caller must not touch c.
 */
static void dispatch(struct conn *c)
{
	for (;;) {
		int r = http_parse(c->buf, c->len, &c->req);

		if (r < 0) {
			char out[HTTP_HEAD_MAX + 16];

			http_write_all(c->fd, out, http_response(out, 400, "text/plain",
								 "bad request\n", 12, 0));
			conn_free(c);
			return;
		}
		if (r == 0) {
			struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.ptr = c };

			epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
			return;
		}
		if (c->req.route != ROUTE_STATS) {
			enqueue(c);
			return;
		}
		answer_stats(c);
		consume(c, c->req.total);
		if (!c->req.keep) {
			conn_free(c);
			return;
		}
	}
}

static void *worker_main(void *arg)
{
	char *out = malloc(HTTP_HEAD_MAX + HTTP_MAX_BODY);

	if (!out)
		abort();
	for (;;) {
		struct conn *c = dequeue();
		struct http_req *r = &c->req;
		size_t n;

		atomic_fetch_add(&n_busy, 1);
		atomic_fetch_add(&n_requests, 1);
		switch (r->route) {
		case ROUTE_ECHO: {
			struct timespec ts = { wait_us / 1000000, (wait_us % 1000000) * 1000 };

			atomic_fetch_add(&n_echo, 1);
			/* the blocking call: this worker can do nothing else meanwhile */
			while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
				;
			n = http_response(out, 200, "application/json", c->buf + r->body_off,
					  r->body_len, r->keep);
			break;
		}
		case ROUTE_HEALTHZ:
			atomic_fetch_add(&n_healthz, 1);
			n = http_response(out, 200, "text/plain", "ok", 2, r->keep);
			break;
		default:
			n = http_response(out, 404, "text/plain", "not found\n", 10, r->keep);
			break;
		}
		atomic_fetch_sub(&n_busy, 1);
		if (http_write_all(c->fd, out, n) || !r->keep) {
			conn_free(c);
			continue;
		}
		consume(c, r->total);
		dispatch(c);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	const char *e;
	long port;
	int lfd;

	if ((lfd = http_start(argc, argv, "threads", "WORKERS, WAIT_US", &port, &wait_us)) < 0)
		return -lfd;
	if ((e = getenv("WORKERS")) && (nworkers = atoi(e)) < 1) {
		fprintf(stderr, "threads: WORKERS must be >= 1, got '%s'\n", e);
		return 2;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ev.data.ptr = NULL;	/* NULL marks the listening socket */
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	for (int i = 0; i < nworkers; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker_main, NULL)) {
			fprintf(stderr, "threads: cannot start worker %d\n", i);
			return 3;
		}
	}
	fprintf(stderr, "threads: listening on 127.0.0.1:%ld, %d workers, %ld us blocking wait\n",
		port, nworkers, wait_us);

	for (;;) {
		struct epoll_event evs[64];
		int n = epoll_wait(epfd, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (!c) {
				int fd, one = 1;

				while ((fd = accept4(lfd, NULL, NULL,
						     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					struct epoll_event cev = { .events = EPOLLIN | EPOLLONESHOT };

					setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					c = calloc(1, sizeof(*c));
					if (!c || !(c->buf = malloc(c->cap = 4096)))
						abort();
					c->fd = fd;
					cev.data.ptr = c;
					epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &cev);
				}
				continue;
			}
			if (http_read_avail(c->fd, &c->buf, &c->len, &c->cap))
				dispatch(c);
			else
				conn_free(c);
		}
	}
}
