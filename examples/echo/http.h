/*
 * http: the small HTTP/1.1 request parser and response writer shared by the
 * two echo servers (evloop.c, threads.c). Content-Length bodies, keep-alive,
 * HTTP/1.0 close; no chunked requests (answered 400), no pipelining beyond
 * keeping the bytes that follow a request in the buffer.
 */
#ifndef ECHO_HTTP_H
#define ECHO_HTTP_H

#include <stddef.h>

#define HTTP_MAX_HEADER (16 * 1024)
#define HTTP_MAX_BODY (1024 * 1024)

enum route { ROUTE_ECHO, ROUTE_HEALTHZ, ROUTE_STATS, ROUTE_OTHER };

struct http_req {
	enum route route;
	int keep;            /* keep the connection open after the response */
	size_t body_off;     /* body starts at buf + body_off ... */
	size_t body_len;     /* ... and is body_len bytes long */
	size_t total;        /* bytes of buf this request occupies */
};

/*
 * Parse the request at the start of buf[0..len). Returns 1 with *r filled
 * when a whole request (headers and body) is in the buffer, 0 when more
 * bytes are needed, -1 when the request is malformed or too large (answer
 * 400 and close).
 */
int http_parse(const char *buf, size_t len, struct http_req *r);

/*
 * Write a whole response (status line, headers, body) into out, which must
 * have room for HTTP_HEAD_MAX + blen bytes. Returns its length.
 */
#define HTTP_HEAD_MAX 256
size_t http_response(char *out, int status, const char *ctype, const char *body,
		     size_t blen, int keep);

/* Write all of p to a socket, waiting with poll() when it is non-blocking
 * and full. Returns 0, or -1 when the peer is gone. */
int http_write_all(int fd, const char *p, size_t n);

/* Read all fd has now onto buf[0..*len) (grown by doubling to keep 2 KiB
 * free; it must hold at least 4096 bytes). Returns 1 when the socket would
 * block (everything read), 0 on EOF or an error (close it). */
int http_read_avail(int fd, char **buf, size_t *len, size_t *cap);

/*
 * A server's start, the same for both: the one argument --port P (else a
 * usage line "usage: NAME --port P   (env ENV)"), the wait from the
 * environment's WAIT_US (>= 0) into *wait_us, SIGTERM and SIGINT exit at
 * once, SIGPIPE ignored, and a non-blocking listening socket on
 * 127.0.0.1:P. Returns that socket, or minus the exit code (2 usage, 3 the
 * port) after one line on stderr.
 */
int http_start(int argc, char **argv, const char *name, const char *env, long *port,
	       long *wait_us);

#endif
