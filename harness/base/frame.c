/*
 * frame: length-prefixed frames on a descriptor, and the payload fields.
 * Reads poll() the descriptor so a caller can bound its wait; writes loop
 * over short writes and EINTR.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/frame.h"

int frame_write(int fd, int type, const void *payload, size_t len)
{
	unsigned char hdr[5];
	size_t n = len + 1, off = 0;
	struct sbuf sb = SBUF_INIT;
	int ret = 0;

	if (n > FRAME_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	hdr[4] = (unsigned char)type;
	/* One write per frame, so frames from two threads never interleave
	 * mid-frame when the caller serialises whole calls. */
	sbuf_add(&sb, hdr, sizeof(hdr));
	sbuf_add(&sb, payload, len);
	while (off < sb.len) {
		ssize_t w = write(fd, sb.buf + off, sb.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = -1;
			break;
		}
		off += (size_t)w;
	}
	sbuf_release(&sb);
	return ret;
}

/* Read exactly n bytes, waiting until deadline (now_ns; 0: for ever).
 * 0, 1 at EOF before any byte, -1 on error or EOF mid-way, -2 timeout
 * before any byte (-1 after some). */
static int read_full(int fd, void *buf, size_t n, uint64_t deadline)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int to = -1, r;
		ssize_t k;

		if (deadline) {
			uint64_t now = now_ns();

			if (now >= deadline)
				return got ? -1 : -2;
			to = (int)((deadline - now + 999999) / 1000000);
		}
		r = poll(&p, 1, to);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			return got ? -1 : 1;
		got += (size_t)k;
	}
	return 0;
}

int frame_read(int fd, int *type, struct sbuf *payload, int timeout_ms, const char **why)
{
	unsigned char hdr[5];
	uint64_t deadline = timeout_ms >= 0 ? now_ns() + (uint64_t)timeout_ms * 1000000ull : 0;
	uint32_t n;
	int r;

	*why = "";
	sbuf_reset(payload);
	r = read_full(fd, hdr, sizeof(hdr), deadline);
	if (r == 1 || r == -2)
		return r;
	if (r) {
		*why = "connection lost mid-frame";
		return -1;
	}
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n < 1 || n > FRAME_MAX) {
		*why = "bad frame length (not an agent speaking this protocol?)";
		return -1;
	}
	*type = hdr[4];
	if (n > 1) {
		char *buf = xmalloc(n - 1);

		/* The rest of a started frame: no deadline, it is on its way. */
		r = read_full(fd, buf, n - 1, 0);
		if (!r)
			sbuf_add(payload, buf, n - 1);
		free(buf);
		if (r) {
			*why = "connection lost mid-frame";
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ fields */

void enc_u64(struct sbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	sbuf_add(sb, b, n);
}

void enc_i64(struct sbuf *sb, int64_t v)
{
	/* zigzag */
	enc_u64(sb, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void enc_f64(struct sbuf *sb, double v)
{
	unsigned char b[8];
	uint64_t bits;
	int i;

	memcpy(&bits, &v, 8);
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(bits >> (8 * i));
	sbuf_add(sb, b, 8);
}

void enc_bytes(struct sbuf *sb, const void *p, size_t n)
{
	enc_u64(sb, n);
	sbuf_add(sb, p, n);
}

void enc_str(struct sbuf *sb, const char *s)
{
	if (!s) {
		enc_u64(sb, 0);
		return;
	}
	enc_u64(sb, strlen(s) + 1);
	sbuf_add(sb, s, strlen(s));
}

void dec_init(struct dec *d, const void *p, size_t n)
{
	d->p = p;
	d->end = d->p + n;
	d->bad = 0;
}

uint64_t dec_u64(struct dec *d)
{
	uint64_t v = 0;
	int shift = 0;

	while (!d->bad) {
		unsigned char c;

		if (d->p >= d->end || shift > 63) {
			d->bad = 1;
			break;
		}
		c = *d->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

int64_t dec_i64(struct dec *d)
{
	uint64_t u = dec_u64(d);

	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

double dec_f64(struct dec *d)
{
	uint64_t bits = 0;
	double v;
	int i;

	if (d->bad || d->end - d->p < 8) {
		d->bad = 1;
		return 0;
	}
	for (i = 0; i < 8; i++)
		bits |= (uint64_t)d->p[i] << (8 * i);
	d->p += 8;
	memcpy(&v, &bits, 8);
	return v;
}

const void *dec_bytes(struct dec *d, size_t *n)
{
	uint64_t len = dec_u64(d);
	const void *p;

	*n = 0;
	if (d->bad || len > (uint64_t)(d->end - d->p)) {
		d->bad = 1;
		return NULL;
	}
	p = d->p;
	d->p += len;
	*n = (size_t)len;
	return p;
}

char *dec_str(struct dec *d)
{
	uint64_t len = dec_u64(d);
	char *s;

	if (d->bad || !len)
		return NULL;
	len--;
	if (len > (uint64_t)(d->end - d->p)) {
		d->bad = 1;
		return NULL;
	}
	if (memchr(d->p, 0, (size_t)len)) {
		d->bad = 1;
		return NULL;
	}
	s = xstrndup((const char *)d->p, (size_t)len);
	d->p += len;
	return s;
}
