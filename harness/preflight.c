/*
 * preflight: every request of the mix to every implementation, checked
 * against its expect and, strict, against the reference implementation's
 * answer (contract in preflight.h; docs/DESIGN.md, "Pre-flight").
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonptr.h"
#include "load.h"
#include "load_pool.h"
#include "netns.h"
#include "preflight.h"
#include "util.h"

#define PF_BODY_MAX (1024 * 1024)   /* bytes of a body kept for the checks */
#define PF_LINES_MAX 50             /* failing cases described; the rest counted */

/* One implementation's answer to one case. */
struct response {
	int ok;                 /* a whole response came */
	long status;
	char *ctype;            /* Content-Type's value, or NULL */
	struct sbuf body;
	int too_big;            /* more than PF_BODY_MAX bytes */
	char err[CURL_ERROR_SIZE];
};

static void response_release(struct response *r)
{
	free(r->ctype);
	sbuf_release(&r->body);
	memset(r, 0, sizeof(*r));
}

void preflight_result_init(struct preflight_result *r)
{
	memset(r, 0, sizeof(*r));
	sbuf_init(&r->failures);
}

void preflight_result_release(struct preflight_result *r)
{
	sbuf_release(&r->failures);
	free(r->blamed);
	r->blamed = NULL;
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
	struct response *r = ud;
	size_t len = sz * n;

	if (r->body.len + len > PF_BODY_MAX)
		r->too_big = 1;
	else
		sbuf_add(&r->body, p, len);
	return len;
}

static int has_header(const struct load_request *rq, const char *name)
{
	size_t i;

	for (i = 0; i < rq->nheaders; i++)
		if (!strcasecmp(rq->headers[i].key, name))
			return 1;
	return 0;
}

/* Send rq to base once, synchronously, as the load engine would. */
static void send_one(CURL *c, const struct spec *spec, const struct load_request *rq,
		     const struct preflight_target *t, struct response *out)
{
	struct curl_slist *hdrs = NULL;
	struct sbuf url = SBUF_INIT, h = SBUF_INIT;
	const char *ct = NULL;
	size_t i;
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	sbuf_init(&out->body);
	curl_easy_reset(c);
	netns_curl(c, &t->netns_fd);
	sbuf_addf(&url, "%s%s", t->url, rq->path);
	curl_easy_setopt(c, CURLOPT_URL, url.buf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)spec->workload.timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, out->err);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	/* workload.http and workload.tls, as the load engine (load_curl.c) */
	curl_easy_setopt(c, CURLOPT_HTTP_VERSION,
			 spec->workload.http == HTTPV_11 ? (long)CURL_HTTP_VERSION_1_1 :
			 spec->workload.http == HTTPV_H2C ? (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE :
			 (long)CURL_HTTP_VERSION_2TLS);
	if (spec->workload.tls.cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, spec->workload.tls.cacert);
	if (spec->workload.tls.insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	for (i = 0; i < rq->nheaders; i++) {
		sbuf_reset(&h);
		sbuf_addf(&h, "%s: %s", rq->headers[i].key, rq->headers[i].value);
		hdrs = curl_slist_append(hdrs, h.buf);
	}
	if (rq->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
		/* libcurl would add a form Content-Type the engine never sends */
		if (!has_header(rq, "Content-Type"))
			hdrs = curl_slist_append(hdrs, "Content-Type:");
		hdrs = curl_slist_append(hdrs, "Expect:");
	}
	if (!strcmp(rq->method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(rq->method, "GET") || rq->body)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK) {
		out->ok = 1;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
		if (curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
			out->ctype = xstrdup(ct);
	} else if (!out->err[0]) {
		snprintf(out->err, sizeof(out->err), "%s", curl_easy_strerror(rc));
	}
	curl_slist_free_all(hdrs);
	sbuf_release(&url);
	sbuf_release(&h);
}

/* ------------------------------------------------------------ strict */

/* The media type of a Content-Type value: before ';', trimmed. */
static void media_type(const char *v, char *out, size_t len)
{
	size_t n;

	v = v ? v : "";
	while (*v == ' ' || *v == '\t')
		v++;
	n = strcspn(v, ";");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	snprintf(out, len, "%.*s", (int)n, v);
}

/* A JSON value, short, for a message. */
static void show(json_t *v, char *out, size_t len)
{
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	snprintf(out, len, "%.40s%s", s ? s : "(absent)", s && strlen(s) > 40 ? "..." : "");
	free(s);
}

static void sbuf_cut(struct sbuf *sb, size_t len)
{
	sb->len = len;
	if (sb->buf)
		sb->buf[len] = '\0';
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void ptr_push(struct sbuf *p, const char *tok)
{
	sbuf_adds(p, "/");
	for (; *tok; tok++) {
		if (*tok == '~')
			sbuf_adds(p, "~0");
		else if (*tok == '/')
			sbuf_adds(p, "~1");
		else
			sbuf_add(p, tok, 1);
	}
}

/* The first place a and b differ: 1 with its pointer in *at and the two
 * values there in va, vb (borrowed; NULL: absent); 0 when equal. Object
 * members are visited in sorted order, so the answer is reproducible. */
static int json_first_diff(json_t *a, json_t *b, struct sbuf *at, json_t **va, json_t **vb)
{
	size_t keep = at->len, i;

	if (json_is_object(a) && json_is_object(b)) {
		const char **keys = xcalloc(json_object_size(a) + json_object_size(b) + 1,
					    sizeof(*keys));
		const char *k;
		json_t *v;
		size_t n = 0;
		int d = 0;

		json_object_foreach(a, k, v)
			keys[n++] = k;
		json_object_foreach(b, k, v)
			if (!json_object_get(a, k))
				keys[n++] = k;
		qsort(keys, n, sizeof(*keys), cmp_key);
		for (i = 0; i < n && !d; i++) {
			ptr_push(at, keys[i]);
			d = json_first_diff(json_object_get(a, keys[i]), json_object_get(b, keys[i]),
					    at, va, vb);
			if (!d)
				sbuf_cut(at, keep);
		}
		free(keys);
		return d;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		for (i = 0; i < json_array_size(a); i++) {
			char tok[32];

			snprintf(tok, sizeof(tok), "%zu", i);
			ptr_push(at, tok);
			if (json_first_diff(json_array_get(a, i), json_array_get(b, i), at, va, vb))
				return 1;
			sbuf_cut(at, keep);
		}
		return 0;
	}
	if (a && b && json_equal(a, b))
		return 0;
	*va = a;
	*vb = b;
	return 1;
}

/* Why x's answer differs from the reference's, or NULL; written to buf. */
static const char *strict_diff(const struct spec_preflight *pf, const struct response *ref,
			       const struct response *x, char *buf, size_t len)
{
	char ma[128], mb[128];
	json_t *ja, *jb, *va = NULL, *vb = NULL;
	size_t i;
	const char *why = NULL;

	if (ref->status != x->status) {
		snprintf(buf, len, "status %ld vs %ld", ref->status, x->status);
		return buf;
	}
	media_type(ref->ctype, ma, sizeof(ma));
	media_type(x->ctype, mb, sizeof(mb));
	if (strcasecmp(ma, mb)) {
		snprintf(buf, len, "content type \"%.60s\" vs \"%.60s\"", ma, mb);
		return buf;
	}
	if (ref->too_big || x->too_big) {
		snprintf(buf, len, "a body over %d KiB: too large to compare", PF_BODY_MAX / 1024);
		return buf;
	}
	ja = json_loadb(ref->body.buf ? ref->body.buf : "", ref->body.len, JSON_DECODE_ANY, NULL);
	jb = json_loadb(x->body.buf ? x->body.buf : "", x->body.len, JSON_DECODE_ANY, NULL);
	if (ja && jb) {
		struct sbuf at = SBUF_INIT;

		for (i = 0; pf->ignore && pf->ignore[i]; i++) {
			jsonptr_remove(ja, pf->ignore[i]);
			jsonptr_remove(jb, pf->ignore[i]);
		}
		if (json_first_diff(ja, jb, &at, &va, &vb)) {
			char sa[64], sb[64];

			show(va, sa, sizeof(sa));
			show(vb, sb, sizeof(sb));
			snprintf(buf, len, "JSON differs at %s: %s vs %s",
				 at.len ? at.buf : "\"\" (the whole body)", sa, sb);
			why = buf;
		}
		sbuf_release(&at);
	} else if (!!ja != !!jb) {
		snprintf(buf, len, "body is %s vs %s", ja ? "JSON" : "not JSON", jb ? "JSON" : "not JSON");
		why = buf;
	} else if (ref->body.len != x->body.len ||
		   (x->body.len && memcmp(ref->body.buf, x->body.buf, x->body.len))) {
		size_t k = 0, n = ref->body.len < x->body.len ? ref->body.len : x->body.len;

		while (k < n && ref->body.buf[k] == x->body.buf[k])
			k++;
		snprintf(buf, len, "bodies differ (%zu vs %zu bytes; first at byte %zu)",
			 ref->body.len, x->body.len, k);
		why = buf;
	}
	if (ja)
		json_decref(ja);
	if (jb)
		json_decref(jb);
	return why;
}

/* ------------------------------------------------------------- cases */

struct pf_ctx {
	const struct spec *spec;
	const struct preflight_target *t;
	size_t n, ref;
	struct preflight_result *out;
	unsigned lines, more;
};

static void case_label(const struct pf_ctx *c, const struct load_request *rq, int send,
		       struct sbuf *sb)
{
	sbuf_addf(sb, "request %s (%s %.60s%s)", rq->name, rq->method, rq->path,
		  strlen(rq->path) > 60 ? "..." : "");
	if (c->spec->workload.preflight.sends > 1)
		sbuf_addf(sb, " send %d of %d", send + 1, c->spec->workload.preflight.sends);
}

static void add_failure(struct pf_ctx *c, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_failure(struct pf_ctx *c, const char *label, const char *fmt, ...)
{
	va_list ap;

	if (c->lines >= PF_LINES_MAX) {
		c->more++;
		return;
	}
	c->lines++;
	sbuf_addf(&c->out->failures, "%s: ", label);
	va_start(ap, fmt);
	sbuf_vaddf(&c->out->failures, fmt, ap);
	va_end(ap);
	sbuf_adds(&c->out->failures, "\n");
}

/* One case: rq to every target; 1 when it passed. */
static int run_case(struct pf_ctx *c, CURL *curl, const struct load_request *rq, int send)
{
	const struct spec_preflight *pf = &c->spec->workload.preflight;
	struct response *res = xcalloc(c->n, sizeof(*res));
	struct sbuf label = SBUF_INIT;
	char why[256];
	size_t i;
	int pass = 1;

	case_label(c, rq, send, &label);
	for (i = 0; i < c->n; i++) {
		const char *w;

		send_one(curl, c->spec, rq, &c->t[i], &res[i]);
		if (!res[i].ok) {
			add_failure(c, label.buf, "%s: no response: %s", c->t[i].name, res[i].err);
			c->out->blamed[i] = 1;
			pass = 0;
			continue;
		}
		w = load_expect_check(&rq->expect, (int)res[i].status, res[i].ctype,
				      res[i].body.buf, res[i].body.len, why, sizeof(why));
		if (w) {
			add_failure(c, label.buf, "%s: %s", c->t[i].name, w);
			c->out->blamed[i] = 1;
			pass = 0;
		}
	}
	for (i = 0; pf->equivalence == EQUIV_STRICT && i < c->n; i++) {
		const char *w;

		if (i == c->ref || !res[i].ok || !res[c->ref].ok)
			continue;
		w = strict_diff(pf, &res[c->ref], &res[i], why, sizeof(why));
		if (w) {
			add_failure(c, label.buf, "%s and %s differ: %s", c->t[c->ref].name,
				    c->t[i].name, w);
			c->out->blamed[i] = 1;
			pass = 0;
		}
	}
	for (i = 0; i < c->n; i++)
		response_release(&res[i]);
	free(res);
	sbuf_release(&label);
	return pass;
}

/* The first entries of the run's pool (a pool is the prefix of a larger
 * one) in which to find each kind's first sends. */
#define PREFLIGHT_POOL 100000

/* Where the sends of a templated workload are drawn from: the first
 * PREFLIGHT_POOL entries of the run's pool, and the run's whole pool,
 * built only when a kind is missing from that prefix. */
struct pf_pools {
	const struct spec *spec;
	struct load_pool head, all;
	int have_head, have_all;
};

static uint64_t kind_count(const struct load_pool *p, uint32_t r)
{
	uint64_t k, c = 0;

	for (k = 0; k < p->n; k++)
		c += p->req[k] == r;
	return c;
}

/*
 * The pool entry that send s of kind r expands, as the run would send it:
 * the kind's s-th entry of the head, else of the whole pool; when the run's
 * pool holds fewer than s+1 entries of that kind, the run repeats the ones
 * it has (it sends entry k mod n), and so does the pre-flight. *pool is
 * set to the pool holding it. -1: the run never sends kind r (not in its
 * pool at all); -2 after an error() building the whole pool.
 */
static int64_t pf_entry(struct pf_pools *pp, uint32_t r, size_t s, const struct load_pool **pool)
{
	const struct spec_workload *w = &pp->spec->workload;
	uint64_t c;
	int64_t k;

	*pool = &pp->head;
	k = load_pool_nth(&pp->head, r, s);
	if (k >= 0)
		return k;
	if (!pp->have_all && pp->head.n < spec_pool_size(pp->spec)) {
		if (load_pool_build(&pp->all, w->requests, w->nrequests, w->vars, w->nvars,
				    pp->spec->seed, spec_pool_size(pp->spec)))
			return -2;
		pp->have_all = 1;
	}
	if (pp->have_all)
		*pool = &pp->all;
	c = kind_count(*pool, r);
	if (!c)
		return -1;
	return load_pool_nth(*pool, r, s % c);
}

/* One case: send s of request r (expanded from the pool when templated).
 * 0, or -1 when the whole pool could not be built. */
static int pf_case(struct pf_ctx *c, CURL *curl, struct pf_pools *pp, size_t r, int s)
{
	const struct spec_workload *w = &c->spec->workload;
	const struct load_pool *pool;
	struct load_request ex;
	int64_t k;

	if (!pp->have_head) {
		c->out->cases++;
		c->out->passed += run_case(c, curl, &w->requests[r], s);
		return 0;
	}
	k = pf_entry(pp, (uint32_t)r, (size_t)s, &pool);
	if (k == -2)
		return -1;
	if (k < 0) {
		/* The run never sends it: nothing to check, said once. */
		if (!s)
			c->out->unsent++;
		return 0;
	}
	c->out->cases++;
	load_pool_expand(pool, (uint64_t)k, &w->requests[r], w->vars, &ex);
	c->out->passed += run_case(c, curl, &ex, s);
	load_request_expanded_release(&ex);
	return 0;
}

int preflight_run(const struct spec *spec, const struct preflight_target *targets, size_t n,
		  volatile sig_atomic_t *stop, struct preflight_result *out)
{
	const struct spec_workload *w = &spec->workload;
	struct pf_ctx c = { spec, targets, n, 0, out, 0, 0 };
	struct pf_pools pp;
	CURL *curl;
	size_t r;
	int s, ret = 0;

	memset(&pp, 0, sizeof(pp));
	pp.spec = spec;
	free(out->blamed);
	out->blamed = xcalloc(n ? n : 1, sizeof(*out->blamed));
	for (c.ref = 0; c.ref < n && targets[c.ref].candidate; c.ref++)
		;
	if (c.ref == n)
		c.ref = 0;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	curl = curl_easy_init();
	if (!curl)
		return error("pre-flight: libcurl could not be initialised");
	/* A templated workload: send i of kind r is the pool's i-th request of
	 * that kind, as the run will send it (load_pool.h). */
	if (w->nvars) {
		if (load_pool_build(&pp.head, w->requests, w->nrequests, w->vars, w->nvars,
				    spec->seed, spec_pool_size(spec) < PREFLIGHT_POOL ?
				    spec_pool_size(spec) : PREFLIGHT_POOL)) {
			ret = -1;
			goto out;
		}
		pp.have_head = 1;
	}
	for (s = 0; s < w->preflight.sends; s++) {
		for (r = 0; r < w->nrequests; r++) {
			if (stop && *stop) {
				out->interrupted = 1;
				goto out;
			}
			if (pf_case(&c, curl, &pp, r, s)) {
				ret = -1;
				goto out;
			}
		}
	}
out:
	load_pool_release(&pp.head);
	load_pool_release(&pp.all);
	if (c.more)
		sbuf_addf(&out->failures, "(%u more failing case lines not shown)\n", c.more);
	curl_easy_cleanup(curl);
	return ret;
}

void preflight_summary(const struct spec *spec, size_t ntargets,
		       const struct preflight_result *r, struct sbuf *sb)
{
	const struct spec_preflight *pf = &spec->workload.preflight;
	size_t i;

	sbuf_addf(sb, "%u of %u cases passed (%zu implementation%s", r->passed, r->cases,
		  ntargets, ntargets == 1 ? "" : "s");
	if (pf->equivalence == EQUIV_STRICT)
		sbuf_adds(sb, ", strict");
	for (i = 0; pf->ignore && pf->ignore[i]; i++)
		sbuf_addf(sb, "%s%s", i ? ", " : "; ignoring ", pf->ignore[i]);
	if (r->unsent)
		sbuf_addf(sb, "; %u request%s never in the run's pool, not sent", r->unsent,
			  r->unsent == 1 ? "" : "s");
	sbuf_adds(sb, ")");
}
