/*
 * load_pool: drawing the pool (see load_pool.h for the streams). Zipf
 * ranks come from zipf.c; uniform integers and csv rows from rng_below;
 * UUIDs are 122 random bits with the version-4 and variant bits set.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_pool.h"
#include "base/rng.h"
#include "base/util.h"
#include "load/zipf.h"

/* ----------------------------------------------------------- references */

static int name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

int load_tmpl_next(const char *s, size_t len, size_t *pos, size_t *at, const char **name,
		   size_t *namelen)
{
	size_t i, j;

	for (i = *pos; i + 2 < len; i++) {
		if (s[i] != '{' || !name_start(s[i + 1]))
			continue;
		for (j = i + 2; j < len && name_char(s[j]); j++)
			;
		if (j < len && s[j] == '}') {
			*at = i;
			*name = s + i + 1;
			*namelen = j - i - 1;
			*pos = j + 1;
			return 1;
		}
	}
	*pos = len;
	return 0;
}

int load_var_find(const struct load_var *vars, size_t nvars, const char *name, size_t len)
{
	size_t v;

	for (v = 0; v < nvars; v++)
		if (vars[v].name && strlen(vars[v].name) == len && !memcmp(vars[v].name, name, len))
			return (int)v;
	return -1;
}

/* Mark in uses[] (when non-NULL) the variables s refers to; count them. */
static size_t scan_uses(const char *s, size_t len, const struct load_var *vars, size_t nvars,
			unsigned char *uses)
{
	size_t pos = 0, at, nl, count = 0;
	const char *nm;
	int v;

	if (!s)
		return 0;
	while (load_tmpl_next(s, len, &pos, &at, &nm, &nl)) {
		v = load_var_find(vars, nvars, nm, nl);
		if (v < 0)
			continue;
		count++;
		if (uses)
			uses[v] = 1;
	}
	return count;
}

static size_t request_uses(const struct load_request *r, const struct load_var *vars,
			   size_t nvars, unsigned char *uses)
{
	size_t h, n = 0;

	n += scan_uses(r->path, r->path ? strlen(r->path) : 0, vars, nvars, uses);
	for (h = 0; h < r->nheaders; h++)
		n += scan_uses(r->headers[h].value, strlen(r->headers[h].value), vars, nvars, uses);
	n += scan_uses(r->body, r->body_len, vars, nvars, uses);
	for (h = 0; h < r->expect.njson; h++)
		n += scan_uses(r->expect.json[h].value, strlen(r->expect.json[h].value), vars,
			       nvars, uses);
	return n;
}

int load_request_uses_vars(const struct load_request *r, const struct load_var *vars,
			   size_t nvars)
{
	return nvars && request_uses(r, vars, nvars, NULL) > 0;
}

/* -------------------------------------------------------------- drawing */

struct drawer {
	const struct load_var *var;
	struct rng rng;
	struct zipf zipf;
};

static const char hexd[] = "0123456789abcdef";

/* The value of d's variable for entry k, into buf (>= 64 bytes); its
 * length, with *out pointing at it (buf, or a csv value). */
static size_t draw(struct drawer *d, uint64_t k, char *buf, size_t cap, const char **out)
{
	const struct load_var *v = d->var;
	uint64_t x, y;
	int n = 0, i, j;

	*out = buf;
	switch (v->kind) {
	case LVAR_ZIPF:
		n = snprintf(buf, cap, "%" PRIu64, zipf_draw(&d->zipf, &d->rng));
		break;
	case LVAR_UNIFORM: {
		int64_t lo = v->uniform[0], hi = v->uniform[1];

		n = snprintf(buf, cap, "%" PRId64,
			     lo + (int64_t)rng_below(&d->rng, (uint64_t)(hi - lo) + 1));
		break;
	}
	case LVAR_CSV:
		*out = v->values[rng_below(&d->rng, v->nvalues)];
		return strlen(*out);
	case LVAR_SEQUENCE:
		n = snprintf(buf, cap, "%" PRIu64, v->sequence.start + k);
		break;
	case LVAR_UUID:
		x = rng_next(&d->rng);
		y = rng_next(&d->rng);
		x = (x & ~0xf000ull) | 0x4000ull;                 /* version 4 */
		y = (y & 0x3fffffffffffffffull) | 0x8000000000000000ull; /* variant 10 */
		for (i = 0, j = 0; i < 32; i++) {
			uint64_t w = i < 16 ? x : y;
			int sh = 60 - 4 * (i % 16);

			if (i == 8 || i == 12 || i == 16 || i == 20)
				buf[j++] = '-';
			buf[j++] = hexd[(w >> sh) & 0xf];
		}
		buf[j] = 0;
		n = j;
		break;
	}
	return n > 0 ? (size_t)n : 0;
}

static void vals_add(struct load_pool *p, const void *data, size_t n)
{
	if (p->nvals + n > p->avals) {
		p->avals = p->avals ? p->avals * 2 : 1 << 16;
		while (p->avals < p->nvals + n)
			p->avals *= 2;
		p->vals = xrealloc(p->vals, p->avals);
	}
	memcpy(p->vals + p->nvals, data, n);
	p->nvals += n;
}

static uint32_t pick(const double *cum, size_t n, struct rng *r)
{
	double x;
	size_t lo = 0, hi = n - 1;

	if (n <= 1)
		return 0;
	x = rng_uniform(r) * cum[n - 1];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x < cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return (uint32_t)lo;
}

int load_pool_build(struct load_pool *p, const struct load_request *reqs, size_t nreq,
		    const struct load_var *vars, size_t nvars, uint64_t seed, uint64_t n)
{
	struct drawer *d = NULL;
	double *cum = NULL, sum = 0;
	struct rng mix;
	struct sha256 h;
	char buf[80];
	size_t r, v;
	uint64_t k;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!n || !nreq)
		return error("load: a request pool needs requests and a size > 0");
	p->n = n;
	p->nreq = nreq;
	p->nvars = nvars;
	p->uses = xcalloc(nreq * (nvars ? nvars : 1), 1);
	cum = xcalloc(nreq, sizeof(*cum));
	for (r = 0; r < nreq; r++) {
		if (nvars)
			request_uses(&reqs[r], vars, nvars, p->uses + r * nvars);
		sum += reqs[r].weight > 0 ? reqs[r].weight : 0;
		cum[r] = sum;
	}
	if (!(sum > 0)) {
		error("load: the request weights sum to %g; want > 0", sum);
		goto out;
	}
	d = xcalloc(nvars ? nvars : 1, sizeof(*d));
	for (v = 0; v < nvars; v++) {
		d[v].var = &vars[v];
		rng_seed(&d[v].rng, seed, LOAD_POOL_STREAM_VAR + v);
		if (vars[v].kind == LVAR_ZIPF)
			zipf_init(&d[v].zipf, vars[v].zipf.n, vars[v].zipf.s);
		if (vars[v].kind == LVAR_CSV && !vars[v].nvalues) {
			error("load: variable %s: its csv file has no values", vars[v].name);
			goto out;
		}
		if (vars[v].kind == LVAR_UNIFORM && vars[v].nuniform != 2) {
			error("load: variable %s: uniform wants [lo, hi]", vars[v].name);
			goto out;
		}
	}
	rng_seed(&mix, seed, LOAD_POOL_STREAM_MIX);
	p->req = xmalloc(n * sizeof(*p->req));
	p->off = xmalloc(n * sizeof(*p->off));
	sha256_init(&h);
	for (k = 0; k < n; k++) {
		uint32_t q = pick(cum, nreq, &mix);

		p->req[k] = q;
		p->off[k] = p->nvals;
		for (v = 0; v < nvars; v++) {
			const char *val;
			size_t len = draw(&d[v], k, buf, sizeof(buf), &val);
			uint16_t l16;

			if (!p->uses[q * nvars + v])
				continue;
			if (len > LOAD_VAR_VALUE_MAX) {
				error("load: variable %s: a value of %zu bytes (at most %d)",
				      vars[v].name, len, LOAD_VAR_VALUE_MAX);
				goto out;
			}
			l16 = (uint16_t)len;
			vals_add(p, &l16, sizeof(l16));
			vals_add(p, val, len);
		}
		sha256_update(&h, &q, sizeof(q));
		sha256_update(&h, p->vals + p->off[k], p->nvals - p->off[k]);
	}
	sha256_final_hex(&h, p->digest);
	ret = 0;
out:
	free(cum);
	free(d);
	if (ret)
		load_pool_release(p);
	return ret;
}

void load_pool_release(struct load_pool *p)
{
	free(p->req);
	free(p->off);
	free(p->vals);
	free(p->uses);
	memset(p, 0, sizeof(*p));
}

uint64_t load_pool_bytes(const struct load_pool *p)
{
	return p->n * (sizeof(*p->req) + sizeof(*p->off)) + p->avals + p->nreq * p->nvars;
}

void load_pool_values(const struct load_pool *p, uint64_t k, const char **val, size_t *len)
{
	const char *at = p->vals + p->off[k];
	uint32_t q = p->req[k];
	size_t v;

	for (v = 0; v < p->nvars; v++) {
		uint16_t l16;

		if (!p->uses[q * p->nvars + v])
			continue;
		memcpy(&l16, at, sizeof(l16));
		val[v] = at + sizeof(l16);
		len[v] = l16;
		at += sizeof(l16) + l16;
	}
}

/* ------------------------------------------------------------ expansion */

/* Entry k's values and what its request uses: what subst() reads. */
struct entry {
	const char *val[LOAD_MAX_VARS];
	size_t vlen[LOAD_MAX_VARS];
	const unsigned char *uses;
	const struct load_var *vars;
	size_t nvars;
};

static void entry_of(const struct load_pool *p, uint64_t k, const struct load_var *vars,
		     struct entry *e)
{
	e->uses = p->uses + (size_t)p->req[k] * p->nvars;
	e->vars = vars;
	e->nvars = p->nvars;
	load_pool_values(p, k, e->val, e->vlen);
}

/* s[0..len) with the entry's values substituted: a new string (its length
 * into *n when n is not NULL). */
static char *subst(const struct entry *e, const char *s, size_t len, size_t *n)
{
	struct sbuf out = SBUF_INIT;
	size_t pos = 0, last = 0, at, nl;
	const char *nm;
	int v;

	while (load_tmpl_next(s, len, &pos, &at, &nm, &nl)) {
		v = load_var_find(e->vars, e->nvars, nm, nl);
		if (v < 0 || !e->uses[v])
			continue;
		sbuf_add(&out, s + last, at - last);
		sbuf_add(&out, e->val[v], e->vlen[v]);
		last = pos;
	}
	sbuf_add(&out, s + last, len - last);
	return sbuf_detach(&out, n);
}

void load_pool_expand(const struct load_pool *p, uint64_t k, const struct load_request *r,
		      const struct load_var *vars, struct load_request *out)
{
	struct entry e;
	size_t h;

	*out = *r;
	entry_of(p, k, vars, &e);
	if (r->path)
		out->path = subst(&e, r->path, strlen(r->path), NULL);
	out->headers = xcalloc(r->nheaders + 1, sizeof(*out->headers));
	for (h = 0; h < r->nheaders; h++) {
		out->headers[h].key = xstrdup(r->headers[h].key);
		out->headers[h].value = subst(&e, r->headers[h].value,
					      strlen(r->headers[h].value), NULL);
	}
	if (r->body)
		out->body = subst(&e, r->body, r->body_len, &out->body_len);
	load_pool_expand_expect(p, k, &r->expect, vars, &out->expect);
}

void load_pool_expand_expect(const struct load_pool *p, uint64_t k, const struct load_expect *e,
			     const struct load_var *vars, struct load_expect *out)
{
	struct entry en;
	size_t i;

	*out = *e;
	out->json = NULL;
	if (!e->njson)
		return;
	entry_of(p, k, vars, &en);
	out->json = xcalloc(e->njson, sizeof(*out->json));
	for (i = 0; i < e->njson; i++) {
		out->json[i].key = xstrdup(e->json[i].key);
		out->json[i].value = subst(&en, e->json[i].value, strlen(e->json[i].value), NULL);
	}
}

void load_expect_expanded_release(struct load_expect *out)
{
	size_t i;

	for (i = 0; out->json && i < out->njson; i++) {
		free(out->json[i].key);
		free(out->json[i].value);
	}
	free(out->json);
	out->json = NULL;
}

void load_request_expanded_release(struct load_request *out)
{
	size_t h;

	free(out->path);
	for (h = 0; h < out->nheaders; h++) {
		free(out->headers[h].key);
		free(out->headers[h].value);
	}
	free(out->headers);
	free(out->body);
	load_expect_expanded_release(&out->expect);
	memset(out, 0, sizeof(*out));
}

int64_t load_pool_nth(const struct load_pool *p, uint32_t r, size_t j)
{
	uint64_t k;

	for (k = 0; k < p->n; k++)
		if (p->req[k] == r && !j--)
			return (int64_t)k;
	return -1;
}
