/*
 * preflight: every request of the mix to every implementation, checked
 * against its expect and, strict, against the reference implementation's
 * answer (contract in preflight.h; docs/DESIGN.md, "Pre-flight").
 */
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load/load.h"
#include "load/load_pool.h"
#include "sandbox/netns.h"
#include "runner/preflight.h"
#include "runner/preflight_diff.h"
#include "base/util.h"

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
	sbuf_init(&r->noise);
}

void preflight_result_release(struct preflight_result *r)
{
	size_t i;

	sbuf_release(&r->failures);
	sbuf_release(&r->noise);
	for (i = 0; r->first && i < r->ntargets; i++)
		free(r->first[i]);
	free(r->first);
	free(r->blamed);
	r->first = NULL;
	r->blamed = NULL;
	r->ntargets = 0;
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
	sbuf_addf(&url, "%s%s", t->url,
		  t->impl && spec_impl_path(t->impl, rq->name) ? spec_impl_path(t->impl, rq->name)
							       : rq->path);
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

/* The answer as preflight_diff reads it (borrowed from r). */
static struct preflight_answer answer(const struct response *r)
{
	struct preflight_answer a = { r->status, r->ctype, r->body.buf, r->body.len, r->too_big };

	return a;
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

/* A failing case: one line, "LABEL: ...", blaming target who (its first
 * such line kept whole, past PF_LINES_MAX too). */
static void add_failure(struct pf_ctx *c, size_t who, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_failure(struct pf_ctx *c, size_t who, const char *label, const char *fmt, ...)
{
	struct sbuf line = SBUF_INIT;
	va_list ap;

	sbuf_addf(&line, "%s: ", label);
	va_start(ap, fmt);
	sbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	c->out->blamed[who] = 1;
	if (!c->out->first[who])
		c->out->first[who] = xstrdup(line.buf);
	if (c->lines < PF_LINES_MAX) {
		c->lines++;
		sbuf_addf(&c->out->failures, "%s\n", line.buf);
	} else {
		c->more++;
	}
	sbuf_release(&line);
}

/* "BASE POINTER\n" for each line of noise (preflight_diff's), once. */
static void add_noise(struct pf_ctx *c, const char *base, const char *noise)
{
	struct sbuf line = SBUF_INIT;
	const char *p, *e;

	for (p = noise; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		sbuf_reset(&line);
		sbuf_addf(&line, "%s %.*s\n", base, (int)(e - p), p);
		if (!strstr(c->out->noise.buf, line.buf))
			sbuf_adds(&c->out->noise, line.buf);
	}
	sbuf_release(&line);
}

/* Target i's answer against its base b's (asked a second time, once per
 * case, so that what the base itself varies is not held against i). */
static int base_case(struct pf_ctx *c, CURL *curl, const struct load_request *rq,
		     struct response *res, struct response *again, size_t i, const char *label)
{
	const struct spec_preflight *pf = &c->spec->workload.preflight;
	size_t b = (size_t)c->t[i].base;
	struct preflight_answer ref = answer(&res[b]), x = answer(&res[i]), ref2;
	struct sbuf noise = SBUF_INIT;
	char why[512];
	const char *w;

	if (!again[b].ok && !again[b].err[0])
		send_one(curl, c->spec, rq, &c->t[b], &again[b]);
	ref2 = answer(&again[b]);
	c->out->based++;
	w = preflight_diff(&ref, &x, pf->ignore, again[b].ok ? &ref2 : NULL, &noise, why,
			   sizeof(why));
	add_noise(c, c->t[b].name, noise.buf);
	sbuf_release(&noise);
	if (!w)
		return 1;
	add_failure(c, i, label, "%s and %s differ: %s", c->t[b].name, c->t[i].name, w);
	return 0;
}

/* Send rq to every target and check each answer against its expect: 1
 * when all passed; ok[i] set for those that did. */
static int expect_case(struct pf_ctx *c, CURL *curl, const struct load_request *rq,
		       struct response *res, int *ok, const char *label)
{
	char why[256];
	size_t i;
	int pass = 1;

	for (i = 0; i < c->n; i++) {
		const char *w;

		send_one(curl, c->spec, rq, &c->t[i], &res[i]);
		if (!res[i].ok) {
			add_failure(c, i, label, "%s: no response: %s", c->t[i].name, res[i].err);
			pass = 0;
			continue;
		}
		w = load_expect_check(&rq->expect, (int)res[i].status, res[i].ctype,
				      res[i].body.buf, res[i].body.len, why, sizeof(why));
		if (w) {
			add_failure(c, i, label, "%s: %s", c->t[i].name, w);
			pass = 0;
			continue;
		}
		ok[i] = 1;
	}
	return pass;
}

/* equivalence: strict: target i's answer against the reference's. */
static int strict_case(struct pf_ctx *c, const struct response *res, size_t i, const char *label)
{
	struct preflight_answer ref = answer(&res[c->ref]), x = answer(&res[i]);
	char why[512];
	const char *w = preflight_diff(&ref, &x, c->spec->workload.preflight.ignore, NULL, NULL,
				       why, sizeof(why));

	if (!w)
		return 1;
	add_failure(c, i, label, "%s and %s differ: %s", c->t[c->ref].name, c->t[i].name, w);
	return 0;
}

/* One case: rq to every target; 1 when it passed. */
static int run_case(struct pf_ctx *c, CURL *curl, const struct load_request *rq, int send)
{
	const struct spec_preflight *pf = &c->spec->workload.preflight;
	struct response *res = xcalloc(c->n, sizeof(*res)), *again = xcalloc(c->n, sizeof(*res));
	int *ok = xcalloc(c->n, sizeof(*ok));
	struct sbuf label = SBUF_INIT;
	size_t i;
	int pass, based;

	case_label(c, rq, send, &label);
	pass = expect_case(c, curl, rq, res, ok, label.buf);
	for (i = 0; i < c->n; i++) {
		based = pf->base == EQUIV_STRICT && c->t[i].base >= 0;
		/* against its base (both answers met their expect: a missed
		 * expect is said once), with the base's self-check */
		if (based && ok[c->t[i].base] && ok[i])
			pass &= base_case(c, curl, rq, res, again, i, label.buf);
		/* against the reference, unless that is its base, just done */
		if (pf->equivalence == EQUIV_STRICT && i != c->ref && res[i].ok && res[c->ref].ok &&
		    !(based && (size_t)c->t[i].base == c->ref))
			pass &= strict_case(c, res, i, label.buf);
	}
	for (i = 0; i < c->n; i++) {
		response_release(&res[i]);
		response_release(&again[i]);
	}
	free(res);
	free(again);
	free(ok);
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
	preflight_result_release(out);
	preflight_result_init(out);
	out->ntargets = n;
	out->blamed = xcalloc(n ? n : 1, sizeof(*out->blamed));
	out->first = xcalloc(n ? n : 1, sizeof(*out->first));
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
	if (r->based)
		sbuf_adds(sb, "; each commit under test against its @base");
	if (r->noise.len) {
		const char *p, *e;

		sbuf_adds(sb, "; not compared, the base's own two answers differing:");
		for (p = r->noise.buf; *p; p = e + 1) {
			e = strchr(p, '\n');
			sbuf_addf(sb, "%s %.*s", p == r->noise.buf ? "" : ",", (int)(e - p), p);
		}
	}
	if (r->unsent)
		sbuf_addf(sb, "; %u request%s never in the run's pool, not sent", r->unsent,
			  r->unsent == 1 ? "" : "s");
	sbuf_adds(sb, ")");
}
