/* See http.h. Deliberately small: the examples are about the servers'
 * concurrency models, not about HTTP. */
#define _GNU_SOURCE
#include "http.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* Value of header `name` in [p, end), or NULL; *vlen is its length. */
static const char *header(const char *p, const char *end, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);

	while (p < end) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			*vlen = (size_t)(eol - v);
			return v;
		}
		p = eol + 2;
	}
	return NULL;
}

static int starts(const char *p, size_t n, const char *word)
{
	size_t wl = strlen(word);

	return n >= wl && !memcmp(p, word, wl);
}

/* The echo route's path: $ECHO_PATH (read once), default /echo. The echo
 * story (story.yaml) serves it as /sleep-async and /sleep-sync. */
static const char *echo_path(size_t *len)
{
	static const char *p;
	static size_t n;

	if (!p) {
		const char *e = getenv("ECHO_PATH");

		p = e && e[0] == '/' ? e : "/echo";
		n = strlen(p);
	}
	*len = n;
	return p;
}

int http_parse(const char *buf, size_t len, struct http_req *r)
{
	const char *hend = memmem(buf, len, "\r\n\r\n", 4), *line_end, *sp1, *sp2, *v;
	size_t vlen, hlen, plen, blen = 0;

	if (!hend)
		return len > HTTP_MAX_HEADER ? -1 : 0;
	hlen = (size_t)(hend - buf) + 4;
	line_end = memmem(buf, hlen, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
	if (!sp2)
		return -1;

	/* route on method and path (query string ignored) */
	plen = (size_t)(sp2 - sp1 - 1);
	{
		const char *q = memchr(sp1 + 1, '?', plen);

		if (q)
			plen = (size_t)(q - sp1 - 1);
	}
#define PATH_IS(s) (plen == sizeof(s) - 1 && !memcmp(sp1 + 1, s, plen))
	const char *ep;
	size_t eplen;

	ep = echo_path(&eplen);
	if (starts(buf, (size_t)(sp1 - buf), "POST") && plen == eplen && !memcmp(sp1 + 1, ep, plen))
		r->route = ROUTE_ECHO;
	else if (starts(buf, (size_t)(sp1 - buf), "GET") && PATH_IS("/healthz"))
		r->route = ROUTE_HEALTHZ;
	else if (starts(buf, (size_t)(sp1 - buf), "GET") && PATH_IS("/runtime-stats"))
		r->route = ROUTE_STATS;
	else
		r->route = ROUTE_OTHER;
#undef PATH_IS

	r->keep = !memmem(sp2, (size_t)(line_end - sp2), "HTTP/1.0", 8);
	if ((v = header(line_end + 2, hend + 2, "Connection", &vlen))) {
		if (vlen >= 5 && !strncasecmp(v, "close", 5))
			r->keep = 0;
		else if (vlen >= 10 && !strncasecmp(v, "keep-alive", 10))
			r->keep = 1;
	}
	if (header(line_end + 2, hend + 2, "Transfer-Encoding", &vlen))
		return -1;
	if ((v = header(line_end + 2, hend + 2, "Content-Length", &vlen))) {
		char tmp[24], *end;

		if (vlen == 0 || vlen >= sizeof(tmp))
			return -1;
		memcpy(tmp, v, vlen);
		tmp[vlen] = 0;
		blen = strtoul(tmp, &end, 10);
		if (*end || blen > HTTP_MAX_BODY)
			return -1;
	}
	if (len < hlen + blen)
		return 0;
	r->body_off = hlen;
	r->body_len = blen;
	r->total = hlen + blen;
	return 1;
}

size_t http_response(char *out, int status, const char *ctype, const char *body,
		     size_t blen, int keep)
{
	const char *reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request";
	int n = snprintf(out, HTTP_HEAD_MAX,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n",
			 status, reason, ctype, blen, keep ? "" : "Connection: close\r\n");

	memcpy(out + n, body, blen);
	return (size_t)n + blen;
}

int http_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = { .fd = fd, .events = POLLOUT };

				if (poll(&pfd, 1, 5000) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int http_read_avail(int fd, char **buf, size_t *len, size_t *cap)
{
	for (;;) {
		ssize_t r;

		if (*cap - *len < 2048) {
			*cap *= 2;
			if (!(*buf = realloc(*buf, *cap)))
				abort();
		}
		r = read(fd, *buf + *len, *cap - *len);
		if (r > 0) {
			*len += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 && errno == EAGAIN;
	}
}

static void on_term(int sig)
{
	(void)sig;
	_exit(0);
}

static int listen_on(long port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1024)) {
		close(fd);
		return -1;
	}
	return fd;
}

int http_start(int argc, char **argv, const char *name, const char *env, long *port,
	       long *wait_us)
{
	struct sigaction sa = { .sa_handler = on_term };
	const char *e;
	int fd;

	*port = -1;
	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--port"))
			*port = atol(argv[i + 1]);
	if (*port <= 0 || *port > 65535 || argc != 3) {
		fprintf(stderr, "usage: %s --port P   (env %s)\n", name, env);
		return -2;
	}
	if ((e = getenv("WAIT_US")) && (*wait_us = atol(e)) < 0) {
		fprintf(stderr, "%s: WAIT_US must be >= 0, got '%s'\n", name, e);
		return -2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((fd = listen_on(*port)) < 0) {
		fprintf(stderr, "%s: 127.0.0.1:%ld: %s\n", name, *port, strerror(errno));
		return -3;
	}
	return fd;
}
