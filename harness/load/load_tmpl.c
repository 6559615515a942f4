/*
 * load_tmpl: compiled templates (load_internal.h, struct tstr) and the
 * per-request expansion of a templated request kind from its pool entry.
 * The expansion is a handful of memcpy calls into a buffer the transport
 * owns (a connection's or a transfer's): the values were drawn and
 * formatted when the pool was built.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_internal.h"

#define MAX_VARS 64   /* the spec's limit on workload.vars */

void tstr_release(struct tstr *t)
{
	free(t->seg);
	sbuf_release(&t->lit);
	memset(t, 0, sizeof(*t));
}

static struct tseg *seg_add(struct tstr *t, enum tseg_kind kind)
{
	struct tseg *s;

	if (t->nseg == t->aseg) {
		t->aseg = t->aseg ? 2 * t->aseg : 8;
		t->seg = xrealloc(t->seg, t->aseg * sizeof(*t->seg));
	}
	s = &t->seg[t->nseg++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	return s;
}

void tstr_lit(struct tstr *t, const char *p, size_t n)
{
	struct tseg *s;

	if (!n)
		return;
	if (!t->lit.buf)
		sbuf_init(&t->lit);
	/* Extend the previous literal when it ends where this one starts. */
	if (t->nseg && t->seg[t->nseg - 1].kind == TSEG_LIT &&
	    t->seg[t->nseg - 1].off + t->seg[t->nseg - 1].len == t->lit.len) {
		t->seg[t->nseg - 1].len += n;
	} else {
		s = seg_add(t, TSEG_LIT);
		s->off = t->lit.len;
		s->len = n;
	}
	sbuf_add(&t->lit, p, n);
}

void tstr_tmpl(struct tstr *t, const char *p, size_t n, const struct load_var *vars,
	       size_t nvars)
{
	size_t pos = 0, last = 0, at, nl;
	const char *nm;

	while (load_tmpl_next(p, n, &pos, &at, &nm, &nl)) {
		int v = load_var_find(vars, nvars, nm, nl);

		if (v < 0)
			continue;
		tstr_lit(t, p + last, at - last);
		seg_add(t, TSEG_VAR)->var = (uint32_t)v;
		t->vars = 1;
		last = pos;
	}
	tstr_lit(t, p + last, n - last);
}

void tstr_clen(struct tstr *t)
{
	seg_add(t, TSEG_CLEN);
}

static int digits(size_t x)
{
	int d = 1;

	while (x >= 10) {
		x /= 10;
		d++;
	}
	return d;
}

size_t tstr_len(const struct tstr *t, const size_t *len, size_t clen)
{
	size_t i, n = 0;

	for (i = 0; i < t->nseg; i++) {
		const struct tseg *s = &t->seg[i];

		n += s->kind == TSEG_LIT ? s->len : s->kind == TSEG_VAR ? len[s->var] :
		     (size_t)digits(clen);
	}
	return n;
}

void tstr_expand(const struct tstr *t, const char *const *val, const size_t *len, size_t clen,
		 struct sbuf *out)
{
	char num[24];
	size_t i;

	for (i = 0; i < t->nseg; i++) {
		const struct tseg *s = &t->seg[i];

		if (s->kind == TSEG_LIT) {
			sbuf_add(out, t->lit.buf + s->off, s->len);
		} else if (s->kind == TSEG_VAR) {
			sbuf_add(out, val[s->var], len[s->var]);
		} else {
			int k = snprintf(num, sizeof(num), "%zu", clen);

			sbuf_add(out, num, (size_t)k);
		}
	}
}

void load_wire_expand(const struct load_shared *sh, const struct load_due *d, struct sbuf *out)
{
	const struct load_wire *w = &sh->wire[d->req];
	const char *val[MAX_VARS];
	size_t len[MAX_VARS];

	load_pool_values(sh->pool, d->inst, val, len);
	sbuf_reset(out);
	tstr_expand(&w->t_wire, val, len, tstr_len(&w->t_body, len, 0), out);
}

void load_wire_expand_curl(const struct load_shared *sh, const struct load_due *d,
			   struct sbuf *url, struct sbuf *body, struct curl_slist **hdrs)
{
	const struct load_wire *w = &sh->wire[d->req];
	const char *val[MAX_VARS];
	size_t len[MAX_VARS], i;

	load_pool_values(sh->pool, d->inst, val, len);
	sbuf_reset(url);
	tstr_expand(&w->t_url, val, len, 0, url);
	sbuf_reset(body);
	tstr_expand(&w->t_body, val, len, 0, body);
	if (!w->hdr_vars)
		return;
	/* No "Expect: 100-continue" round trip for bodies (load_curl.c). */
	*hdrs = curl_slist_append(NULL, "Expect:");
	for (i = 0; i < w->nhdr; i++) {
		struct sbuf line = SBUF_INIT;

		tstr_expand(&w->t_hdr[i], val, len, 0, &line);
		*hdrs = curl_slist_append(*hdrs, line.buf);
		sbuf_release(&line);
	}
}
