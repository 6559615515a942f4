/* util: allocation, errors, clocks, buffers, files, hashing. */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ alloc */

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "harness: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void xgrow(void **p, size_t *alloc, size_t want, size_t sz)
{
	size_t n;

	if (want <= *alloc)
		return;
	n = *alloc ? *alloc * 2 : 8;
	while (n < want)
		n *= 2;
	*p = xrealloc(*p, n * sz);
	*alloc = n;
}

/* ----------------------------------------------------------------- errors */

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "harness: %s%s\n", prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

/* ----------------------------------------------------------------- clocks */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sleep_until_ns(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* ------------------------------------------------------------------- sbuf */

char sbuf_empty_[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = sbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sbuf_init(sb);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	size_t n;

	if (sb->buf == NULL)
		sbuf_init(sb);
	if (want <= sb->alloc)
		return;
	n = sb->alloc ? sb->alloc : 64;
	while (n < want)
		n *= 2;
	if (sb->alloc) {
		sb->buf = xrealloc(sb->buf, n);
	} else {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	}
	sb->alloc = n;
}

void sbuf_add(struct sbuf *sb, const void *data, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	sbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *sbuf_detach(struct sbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	if (!sb->alloc)
		p = xstrdup("");
	else
		p = sb->buf;
	sbuf_init(sb);
	return p;
}

/* A character and what it is written as. */
struct esc {
	char c;
	const char *as;
};

static const struct esc json_esc[] = {
	{ '"', "\\\"" }, { '\\', "\\\\" }, { '\n', "\\n" }, { '\r', "\\r" },
	{ '\t', "\\t" }, { 0, NULL },
};

static const struct esc xml_esc[] = {
	{ '&', "&amp;" }, { '<', "&lt;" }, { '>', "&gt;" }, { '"', "&quot;" },
	{ '\'', "&#39;" }, { 0, NULL },
};

/*
 * One escaper for both: each character of s in the table is written as it
 * says; any other control character (below 0x20) as \u00XX when json, else
 * dropped (XML 1.0 cannot carry it) but for a newline or a tab; the rest
 * as it is.
 */
static void sbuf_add_escaped(struct sbuf *sb, const char *s, const struct esc *t, int json)
{
	const unsigned char *p;
	const struct esc *e;

	for (p = (const unsigned char *)s; p && *p; p++) {
		for (e = t; e->as && (unsigned char)e->c != *p; e++)
			;
		if (e->as)
			sbuf_adds(sb, e->as);
		else if (*p >= 0x20 || (!json && (*p == '\n' || *p == '\t')))
			sbuf_add(sb, p, 1);
		else if (json)
			sbuf_addf(sb, "\\u%04x", *p);
	}
}

void sbuf_add_json_str(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, "\"", 1);
	sbuf_add_escaped(sb, s, json_esc, 1);
	sbuf_add(sb, "\"", 1);
}

void sbuf_add_utc(struct sbuf *sb, double unix_s, const char *fmt)
{
	char buf[64];
	time_t t = (time_t)unix_s;
	struct tm tm;

	if (!isfinite(unix_s) || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), fmt, &tm)) {
		sbuf_adds(sb, "-");
		return;
	}
	sbuf_adds(sb, buf);
}

void sbuf_add_xml(struct sbuf *sb, const char *s)
{
	sbuf_add_escaped(sb, s, xml_esc, 0);
}

/* ------------------------------------------------------------------ files */

int read_fd(int fd, struct sbuf *sb, size_t max)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		sbuf_add(sb, buf, (size_t)n);
		total += (size_t)n;
		if (max && total > max)
			return 1;
	}
}

int read_file(const char *path, struct sbuf *sb, size_t max)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("%s: cannot read: %s", path, strerror(errno));
	r = read_fd(fd, sb, max);
	if (r < 0)
		error("%s: read error: %s", path, strerror(errno));
	else if (r > 0)
		error("%s: file too large (over %zu bytes)", path, max);
	close(fd);
	return r ? -1 : 0;
}

int write_file(const char *path, const void *data, size_t n)
{
	struct sbuf tmp = SBUF_INIT;
	const char *p = data;
	int fd, ret = -1;

	sbuf_addf(&tmp, "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("%s: cannot write: %s", tmp.buf, strerror(errno));
		goto out;
	}
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			error("%s: write error: %s", path, strerror(errno));
			close(fd);
			unlink(tmp.buf);
			goto out;
		}
		p += w;
		n -= (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp.buf, path) < 0) {
		error("%s: write error: %s", path, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&tmp);
	return ret;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path), *s;
	int ret = -1;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			error("%s: cannot create directory: %s", p, strerror(errno));
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST) {
		error("%s: cannot create directory: %s", p, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(p);
	return ret;
}

/* One parser for both: strtod into *d, or strtol (base 10) into *l; 0 when
 * the whole of a non-empty s was the number and it did not overflow. */
static int parse_num(const char *s, double *d, long *l)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	if (d)
		*d = strtod(s, &end);
	else
		*l = strtol(s, &end, 10);
	return errno || *end || end == s ? -1 : 0;
}

int parse_double(const char *s, double *out)
{
	return parse_num(s, out, NULL);
}

int parse_long(const char *s, long *out)
{
	return parse_num(s, NULL, out);
}

int stderr_is_tty(void)
{
	return isatty(2);
}

/* ------------------------------------------------------ forked watchers */

void ignore_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

int watch_owner(int rd)
{
	ssize_t n;
	char c;
	int fd, i;

	ignore_stop_signals();
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (dup2(rd, 0) < 0)
		_exit(1);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0))
#endif
		for (i = 3; i < 4096; i++)
			close(i);
	do
		n = read(0, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? (unsigned char)c : -1;
}

/* ---------------------------------------------------------------- sha-256 */

/* FIPS 180-4. Written for clarity; hashing specs is not a hot path. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *c, const unsigned char *p)
{
	uint32_t w[64], a, b, cc, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1;
		d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
}

void sha256_init(struct sha256 *c)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
	c->nbuf = 0;
}

void sha256_update(struct sha256 *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	while (n) {
		size_t take = 64 - c->nbuf;
		if (take > n)
			take = n;
		memcpy(c->buf + c->nbuf, p, take);
		c->nbuf += take;
		p += take;
		n -= take;
		if (c->nbuf == 64) {
			sha256_block(c, c->buf);
			c->nbuf = 0;
		}
	}
}

void sha256_final_hex(struct sha256 *c, char out[65])
{
	uint64_t bits = c->len * 8;
	unsigned char pad = 0x80, zero = 0, lenbuf[8];
	int i;

	sha256_update(c, &pad, 1);
	while (c->nbuf != 56)
		sha256_update(c, &zero, 1);
	for (i = 0; i < 8; i++)
		lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, lenbuf, 8);
	for (i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", c->h[i]);
	out[64] = '\0';
}

void sha256_hex(const void *data, size_t n, char out[65])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, data, n);
	sha256_final_hex(&c, out);
}
