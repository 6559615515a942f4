/*
 * evloop: the JSON echo API served by one thread running one epoll event
 * loop with non-blocking sockets. POST /echo waits the same fixed time as
 * the threads server (WAIT_US, default 1000 us), but without blocking: the
 * response is parked on a timer queue and the loop serves other connections
 * meanwhile (the "await Task.Delay(1)" of seed 000). Capacity is bounded by
 * CPU, not by the wait.
 *
 *   evloop --port P             (env WAIT_US: wait per echo, default 1000)
 *
 * Routes: POST /echo returns the body; GET /healthz -> "ok"; GET
 * /runtime-stats -> {"pool":{"busy":1,"total":1,"max":1},"waiting":w,
 * "endpoint_calls":{"echo","healthz"},"requests":N} (the pool is the loop
 * itself, busy while it answers; "waiting" counts parked echo responses;
 * "requests" counts every request but /runtime-stats).
 *
 * Every wait has the same length, so the timer queue is a FIFO ordered by
 * due time; one timerfd is armed for its head.
 */
#define _GNU_SOURCE
#include "http.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum state { READING, WAITING, WRITING };

struct conn {
	int fd;                /* -1 once closed while parked on the timer queue */
	enum state state;
	int keep;              /* keep-alive after the pending response */
	char *buf;             /* request bytes */
	size_t len, cap;
	char *out;             /* the pending response */
	size_t outlen, outoff, outcap;
	uint64_t due;          /* WAITING: when the response may go */
	struct conn *tnext;    /* timer queue link */
};

static int epfd, tfd;
static long wait_us = 1000;
static struct conn *t_head, *t_tail;
static long n_waiting, n_requests, n_echo, n_healthz;
static int listen_marker, timer_marker;	/* their addresses tag epoll events */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	if (c->state == WAITING)
		return;		/* freed when its timer entry is popped */
	free(c->buf);
	free(c->out);
	free(c);
}

static void arm_timer(void)
{
	struct itimerspec its = { 0 };

	if (t_head) {
		its.it_value.tv_sec = (time_t)(t_head->due / 1000000000ull);
		its.it_value.tv_nsec = (long)(t_head->due % 1000000000ull);
	}
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Build the response to c->req into c->out. */
static void respond(struct conn *c, int status, const char *ctype, const char *body,
		    size_t blen)
{
	size_t need = HTTP_HEAD_MAX + blen;

	if (need > c->outcap) {
		if (!(c->out = realloc(c->out, need)))
			abort();
		c->outcap = need;
	}
	c->outlen = http_response(c->out, status, ctype, body, blen, c->keep);
	c->outoff = 0;
}

static void set_events(struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Returns 1 when the response is out, 0 when waiting for EPOLLOUT, -1 on
 * error (c is closed and freed). */
static int flush(struct conn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			set_events(c, EPOLLIN | EPOLLOUT);
			return 0;
		}
		if (w < 0) {
			conn_close(c);
			return -1;
		}
		c->outoff += (size_t)w;
	}
	return 1;
}

static void process(struct conn *c);

/* The pending response is out: close, or go on with the next request. */
static void written(struct conn *c)
{
	if (!c->keep) {
		conn_close(c);
		return;
	}
	c->state = READING;
	process(c);
}

/* Answer every whole request in c's buffer, until one has to wait. */
static void process(struct conn *c)
{
	while (c->state == READING) {
		struct http_req r;
		int rc = http_parse(c->buf, c->len, &r);

		if (rc == 0)
			return;
		c->keep = rc > 0 ? r.keep : 0;
		if (rc < 0) {
			respond(c, 400, "text/plain", "bad request\n", 12);
		} else if (r.route == ROUTE_STATS) {
			char body[512];
			int n = snprintf(body, sizeof(body),
					 "{\"pool\":{\"busy\":1,\"total\":1,\"max\":1},\"waiting\":%ld,"
					 "\"endpoint_calls\":{\"echo\":%ld,\"healthz\":%ld},"
					 "\"requests\":%ld}\n",
					 n_waiting, n_echo, n_healthz, n_requests);

			respond(c, 200, "application/json", body, (size_t)n);
		} else if (r.route == ROUTE_HEALTHZ) {
			n_requests++;
			n_healthz++;
			respond(c, 200, "text/plain", "ok", 2);
		} else if (r.route == ROUTE_ECHO) {
			n_requests++;
			n_echo++;
			respond(c, 200, "application/json", c->buf + r.body_off, r.body_len);
		} else {
			n_requests++;
			respond(c, 404, "text/plain", "not found\n", 10);
		}
		if (rc > 0) {
			memmove(c->buf, c->buf + r.total, c->len - r.total);
			c->len -= r.total;
		}
		if (rc > 0 && r.route == ROUTE_ECHO && wait_us > 0) {
			c->state = WAITING;
			c->due = mono_ns() + (uint64_t)wait_us * 1000ull;
			c->tnext = NULL;
			if (t_tail)
				t_tail->tnext = c;
			else
				t_head = c;
			t_tail = c;
			n_waiting++;
			if (t_head == c)
				arm_timer();
			return;
		}
		c->state = WRITING;
		rc = flush(c);
		if (rc <= 0)
			return;
		if (!c->keep) {
			conn_close(c);
			return;
		}
		c->state = READING;
	}
}

static void on_timer(void)
{
	uint64_t expirations, now = mono_ns();

	if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	while (t_head && t_head->due <= now) {
		struct conn *c = t_head;

		t_head = c->tnext;
		if (!t_head)
			t_tail = NULL;
		n_waiting--;
		c->state = WRITING;
		if (c->fd < 0) {	/* the peer left while we waited */
			free(c->buf);
			free(c->out);
			free(c);
			continue;
		}
		if (flush(c) == 1)
			written(c);
	}
	arm_timer();
}

static void on_readable(struct conn *c)
{
	if (!http_read_avail(c->fd, &c->buf, &c->len, &c->cap)) {
		conn_close(c);	/* EOF or error */
		return;
	}
	if (c->state == READING)
		process(c);
}

static void on_accept(int lfd)
{
	int fd, one = 1;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct conn *c = calloc(1, sizeof(*c));
		struct epoll_event ev = { .events = EPOLLIN };

		if (!c || !(c->buf = malloc(c->cap = 4096)))
			abort();
		c->fd = fd;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ev.data.ptr = c;
		epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	long port;
	int lfd;

	if ((lfd = http_start(argc, argv, "evloop", "WAIT_US", &port, &wait_us)) < 0)
		return -lfd;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ev.data.ptr = &listen_marker;
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &timer_marker;
	epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
	fprintf(stderr, "evloop: listening on 127.0.0.1:%ld, %ld us non-blocking wait\n",
		port, wait_us);

	for (;;) {
		struct epoll_event evs[128];
		int n = epoll_wait(epfd, evs, 128, -1);

		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			struct conn *c = p;

			if (p == &listen_marker) {
				on_accept(lfd);
			} else if (p == &timer_marker) {
				on_timer();
			} else if (evs[i].events & EPOLLOUT) {
				if (c->state == WRITING) {
					int rc = flush(c);

					if (rc == 1) {
						set_events(c, EPOLLIN);
						written(c);
					}
				}
			} else {
				on_readable(c);
			}
		}
	}
}
