/* rtstats: the runtime-stats poller (see rtstats.h). */
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/jsonptr.h"
#include "sandbox/netns.h"
#include "base/promtext.h"
#include "sut/rtstats.h"
#include "base/util.h"

#define MAX_BODY (4u << 20)

struct rtstats {
	char *url;
	double hz;
	int timeout_ms;
	enum stats_format format;
	int netns_fd;                   /* <= 0: the harness's network */
	char *ca_file;                  /* https: CA bundle, or NULL: the system's */
	int insecure;                   /* https: no certificate verification */
	struct spec_signal *signals;
	size_t nsignals;

	pthread_t thread;
	int running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	struct rtstats_poll *polls;     /* guarded by mu */
	size_t npolls, alloc;
};

const char *rtstats_status_name(enum rts_status s)
{
	switch (s) {
	case RTS_OK: return "ok";
	case RTS_HTTP_ERROR: return "http_error";
	case RTS_TIMEOUT: return "timeout";
	case RTS_CONNECT: return "connect";
	case RTS_MALFORMED: return "malformed";
	case RTS_ERROR: return "error";
	}
	return "?";
}

const char *rtstats_kind_name(enum rts_kind k)
{
	switch (k) {
	case RTV_MISSING: return "missing";
	case RTV_NOT_NUMERIC: return "not_numeric";
	case RTV_NUMBER: return "number";
	case RTV_COUNTERS: return "counters";
	}
	return "?";
}

/* ------------------------------------------------------------ extraction */

void rtstats_extract(json_t *doc, const struct spec_signal *signals, size_t n,
		     struct rtstats_value *out)
{
	size_t i, k;
	json_t *v, *m;
	const char *key;

	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		v = doc ? jsonptr_get(doc, signals[i].pointer) : NULL;
		if (!v) {
			out[i].kind = RTV_MISSING;
		} else if (json_is_number(v)) {
			out[i].kind = RTV_NUMBER;
			out[i].num = json_number_value(v);
		} else if (json_is_object(v)) {
			out[i].kind = RTV_COUNTERS;
			json_object_foreach(v, key, m) {
				if (!json_is_number(m)) {
					out[i].kind = RTV_NOT_NUMERIC;
					break;
				}
			}
			if (out[i].kind != RTV_COUNTERS)
				continue;
			out[i].ncounters = json_object_size(v);
			out[i].counters = xcalloc(out[i].ncounters ? out[i].ncounters : 1,
						  sizeof(*out[i].counters));
			k = 0;
			json_object_foreach(v, key, m) {
				out[i].counters[k].name = xstrdup(key);
				out[i].counters[k].value = json_number_value(m);
				k++;
			}
		} else {
			out[i].kind = RTV_NOT_NUMERIC;
		}
	}
}

int rtstats_parse(const char *body, size_t len, const struct spec_signal *signals, size_t n,
		  struct rtstats_value *out, char **err)
{
	json_error_t je;
	json_t *doc = json_loadb(body, len, JSON_DECODE_ANY, &je);
	struct sbuf sb = SBUF_INIT;

	if (!doc) {
		rtstats_extract(NULL, signals, n, out);
		sbuf_addf(&sb, "not JSON at line %d column %d: %s", je.line, je.column, je.text);
		*err = sbuf_detach(&sb, NULL);
		return -1;
	}
	rtstats_extract(doc, signals, n, out);
	json_decref(doc);
	return 0;
}

/* One signal from a Prometheus document: one sample is a number, several
 * are counters named by the labels the selector leaves free, none is
 * missing; NaN is not numeric (a gauge with nothing to report yet). */
static void prom_extract(const struct promtext *doc, const char *selector,
			 struct rtstats_value *out)
{
	struct prom_selector sel;
	const struct prom_sample **m = NULL;
	char *err = NULL;
	size_t n, k;

	memset(out, 0, sizeof(*out));
	out->kind = RTV_MISSING;
	if (prom_selector_parse(selector, &sel, &err)) {
		free(err);   /* refused by the spec check and by rtstats_start */
		return;
	}
	n = promtext_select(doc, &sel, &m);
	if (n == 1) {
		out->kind = isnan(m[0]->value) ? RTV_NOT_NUMERIC : RTV_NUMBER;
		out->num = m[0]->value;
	} else if (n > 1) {
		out->kind = RTV_COUNTERS;
		out->ncounters = n;
		out->counters = xcalloc(n, sizeof(*out->counters));
		for (k = 0; k < n; k++) {
			out->counters[k].name = promtext_series_name(m[k], &sel);
			out->counters[k].value = m[k]->value;
		}
	}
	free(m);
	prom_selector_release(&sel);
}

int rtstats_parse_prom(const char *body, size_t len, const struct spec_signal *signals,
		       size_t n, struct rtstats_value *out, char **err)
{
	struct promtext doc;
	struct sbuf sb = SBUF_INIT;
	char *why = NULL;
	size_t i;

	if (promtext_parse(body, len, &doc, &why)) {
		for (i = 0; i < n; i++) {
			memset(&out[i], 0, sizeof(out[i]));
			out[i].kind = RTV_MISSING;
		}
		sbuf_addf(&sb, "not Prometheus text: %s", why);
		free(why);
		*err = sbuf_detach(&sb, NULL);
		return -1;
	}
	for (i = 0; i < n; i++)
		prom_extract(&doc, signals[i].pointer, &out[i]);
	promtext_release(&doc);
	return 0;
}

void rtstats_values_release(struct rtstats_value *v, size_t n)
{
	size_t i, k;

	for (i = 0; v && i < n; i++) {
		for (k = 0; k < v[i].ncounters; k++)
			free(v[i].counters[k].name);
		free(v[i].counters);
		v[i].counters = NULL;
		v[i].ncounters = 0;
	}
}

static void copy_poll(struct rtstats_poll *dst, const struct rtstats_poll *src)
{
	size_t i, k;

	*dst = *src;
	dst->error = src->error ? xstrdup(src->error) : NULL;
	dst->values = xcalloc(src->nvalues ? src->nvalues : 1, sizeof(*dst->values));
	for (i = 0; i < src->nvalues; i++) {
		dst->values[i] = src->values[i];
		if (!src->values[i].counters)
			continue;
		dst->values[i].counters = xcalloc(src->values[i].ncounters ? src->values[i].ncounters : 1,
						  sizeof(struct rtstats_counter));
		for (k = 0; k < src->values[i].ncounters; k++) {
			dst->values[i].counters[k].name = xstrdup(src->values[i].counters[k].name);
			dst->values[i].counters[k].value = src->values[i].counters[k].value;
		}
	}
}

static void poll_release(struct rtstats_poll *p)
{
	rtstats_values_release(p->values, p->nvalues);
	free(p->values);
	free(p->error);
}

void rtstats_poll_release(struct rtstats_poll *p)
{
	poll_release(p);
	memset(p, 0, sizeof(*p));
}

void rtstats_polls_free(struct rtstats_poll *p, size_t n)
{
	size_t i;

	for (i = 0; p && i < n; i++)
		poll_release(&p[i]);
	free(p);
}

/* ------------------------------------------------------------ polling */

struct body {
	struct sbuf sb;
	int too_big;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
	struct body *b = ud;

	if (b->sb.len + sz * n > MAX_BODY) {
		b->too_big = 1;
		return 0;
	}
	sbuf_add(&b->sb, p, sz * n);
	return sz * n;
}

static void poll_once(struct rtstats *r, CURL *c, struct rtstats_poll *p)
{
	struct body b = { SBUF_INIT, 0 };
	struct sbuf sb = SBUF_INIT;
	CURLcode rc;

	memset(p, 0, sizeof(*p));
	p->t_ns = now_ns();
	p->wall = now_wall();
	p->nvalues = r->nsignals;
	p->values = xcalloc(r->nsignals ? r->nsignals : 1, sizeof(*p->values));
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(c);
	p->latency_ms = (now_ns() - p->t_ns) / 1e6;
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &p->http_status);
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		p->status = RTS_TIMEOUT;
		sbuf_addf(&sb, "no answer within %d ms", r->timeout_ms);
	} else if (rc == CURLE_COULDNT_CONNECT) {
		p->status = RTS_CONNECT;
		sbuf_adds(&sb, curl_easy_strerror(rc));
	} else if (rc == CURLE_WRITE_ERROR && b.too_big) {
		p->status = RTS_ERROR;
		sbuf_addf(&sb, "body larger than %u bytes", MAX_BODY);
	} else if (rc != CURLE_OK) {
		p->status = RTS_ERROR;
		sbuf_adds(&sb, curl_easy_strerror(rc));
	} else if (p->http_status < 200 || p->http_status >= 300) {
		p->status = RTS_HTTP_ERROR;
		sbuf_addf(&sb, "HTTP %ld", p->http_status);
	} else if (r->format == STATS_PROMETHEUS
			   ? rtstats_parse_prom(b.sb.buf, b.sb.len, r->signals, r->nsignals,
						p->values, &p->error)
			   : rtstats_parse(b.sb.buf, b.sb.len, r->signals, r->nsignals, p->values,
					   &p->error)) {
		p->status = RTS_MALFORMED;
	} else {
		p->status = RTS_OK;
	}
	if (sb.len)
		p->error = sbuf_detach(&sb, NULL);
	sbuf_release(&sb);
	sbuf_release(&b.sb);
}

static void *poller_main(void *arg)
{
	struct rtstats *r = arg;
	CURL *c = curl_easy_init();
	uint64_t period = (uint64_t)(1e9 / r->hz), next = now_ns();
	struct rtstats_poll p;
	struct timespec ts;

	if (c) {
		curl_easy_setopt(c, CURLOPT_URL, r->url);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(c, CURLOPT_PROXY, "");
		if (r->ca_file)
			curl_easy_setopt(c, CURLOPT_CAINFO, r->ca_file);
		if (r->insecure) {
			curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
			curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
		}
		netns_curl(c, &r->netns_fd);
	}
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		pthread_mutex_unlock(&r->mu);
		if (c)
			poll_once(r, c, &p);
		else {
			memset(&p, 0, sizeof(p));
			p.t_ns = now_ns();
			p.wall = now_wall();
			p.status = RTS_ERROR;
			p.error = xstrdup("cannot initialise libcurl");
			p.nvalues = r->nsignals;
			p.values = xcalloc(r->nsignals ? r->nsignals : 1, sizeof(*p.values));
		}
		pthread_mutex_lock(&r->mu);
		XGROW(r->polls, r->alloc, r->npolls + 1);
		r->polls[r->npolls++] = p;
		next += period;
		if (next < now_ns())     /* a slow poll: skip ticks, never burst */
			next = now_ns() + period;
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&r->mu);
	if (c)
		curl_easy_cleanup(c);
	return NULL;
}

/* r's copy of the n signals to read (names and pointers duplicated). */
static void take_signals(struct rtstats *r, const struct spec_signal *signals, size_t n)
{
	size_t i;

	r->nsignals = n;
	r->signals = xcalloc(n ? n : 1, sizeof(*r->signals));
	for (i = 0; i < n; i++) {
		r->signals[i].name = xstrdup(signals[i].name);
		r->signals[i].pointer = xstrdup(signals[i].pointer);
	}
}

static struct rtstats *start(const char *url, double hz, const struct spec_signal *signals,
			     size_t n, enum stats_format format, int timeout_ms, int netns_fd,
			     const char *ca_file, int insecure)
{
	struct rtstats *r;
	pthread_condattr_t ca;
	size_t i;
	int err;

	if (!(hz > 0))
		return error("stats: poll_hz must be > 0, got %g", hz), NULL;
	for (i = 0; i < n; i++) {
		if (format == STATS_PROMETHEUS && !prom_selector_valid(signals[i].pointer))
			return error("stats: signal %s: '%s' is not a metric selector"
				     " (name or name{label=\"value\"})", signals[i].name,
				     signals[i].pointer), NULL;
		if (format != STATS_PROMETHEUS && jsonptr_valid(signals[i].pointer))
			return error("stats: signal %s: '%s' is not a JSON pointer (RFC 6901)",
				     signals[i].name, signals[i].pointer), NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->url = xstrdup(url);
	r->hz = hz;
	r->format = format;
	r->netns_fd = netns_fd;
	r->ca_file = ca_file ? xstrdup(ca_file) : NULL;
	r->insecure = insecure;
	if (timeout_ms <= 0) {
		timeout_ms = (int)(800.0 / hz);
		if (timeout_ms < 100)
			timeout_ms = 100;
		if (timeout_ms > 5000)
			timeout_ms = 5000;
	}
	r->timeout_ms = timeout_ms;
	take_signals(r, signals, n);
	pthread_mutex_init(&r->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cv, &ca);
	pthread_condattr_destroy(&ca);
	err = pthread_create(&r->thread, NULL, poller_main, r);
	if (err) {
		error("stats: cannot start the poller thread: %s", strerror(err));
		rtstats_free(r);
		return NULL;
	}
	r->running = 1;
	return r;
}

struct rtstats *rtstats_fed(const struct spec_signal *signals, size_t n)
{
	struct rtstats *r = xcalloc(1, sizeof(*r));

	take_signals(r, signals, n);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	return r;
}

void rtstats_feed(struct rtstats *r, struct rtstats_poll *p)
{
	pthread_mutex_lock(&r->mu);
	if (r->npolls && p->t_ns < r->polls[r->npolls - 1].t_ns)
		p->t_ns = r->polls[r->npolls - 1].t_ns;
	XGROW(r->polls, r->alloc, r->npolls + 1);
	r->polls[r->npolls++] = *p;
	pthread_mutex_unlock(&r->mu);
	memset(p, 0, sizeof(*p));
}

struct rtstats *rtstats_start_fmt(const char *url, double hz, const struct spec_signal *signals,
				  size_t n, enum stats_format format, int timeout_ms,
				  const char *ca_file, int insecure)
{
	return start(url, hz, signals, n, format, timeout_ms, -1, ca_file, insecure);
}

struct rtstats *rtstats_start_in(int netns_fd, const char *url, double hz,
				 const struct spec_signal *signals, size_t n,
				 enum stats_format format, const char *ca_file, int insecure)
{
	return start(url, hz, signals, n, format, 0, netns_fd, ca_file, insecure);
}

struct rtstats *rtstats_start_timeout(const char *url, double hz,
				      const struct spec_signal *signals, size_t n, int timeout_ms)
{
	return rtstats_start_fmt(url, hz, signals, n, STATS_JSON, timeout_ms, NULL, 0);
}

struct rtstats *rtstats_start(const char *url, double hz, const struct spec_signal *signals,
			      size_t n)
{
	return rtstats_start_fmt(url, hz, signals, n, STATS_JSON, 0, NULL, 0);
}

size_t rtstats_since(struct rtstats *r, uint64_t since_ns, struct rtstats_poll **out)
{
	size_t i, first, n;

	*out = NULL;
	pthread_mutex_lock(&r->mu);
	for (first = 0; first < r->npolls && r->polls[first].t_ns < since_ns; first++)
		;
	n = r->npolls - first;
	if (n) {
		*out = xcalloc(n, sizeof(**out));
		for (i = 0; i < n; i++)
			copy_poll(&(*out)[i], &r->polls[first + i]);
	}
	pthread_mutex_unlock(&r->mu);
	return n;
}

void rtstats_forget_before(struct rtstats *r, uint64_t t_ns)
{
	size_t i, k;

	pthread_mutex_lock(&r->mu);
	for (k = 0; k < r->npolls && r->polls[k].t_ns < t_ns; k++)
		poll_release(&r->polls[k]);
	for (i = k; i < r->npolls; i++)
		r->polls[i - k] = r->polls[i];
	r->npolls -= k;
	pthread_mutex_unlock(&r->mu);
}

size_t rtstats_count(struct rtstats *r)
{
	size_t n;

	pthread_mutex_lock(&r->mu);
	n = r->npolls;
	pthread_mutex_unlock(&r->mu);
	return n;
}

void rtstats_stop(struct rtstats *r)
{
	if (!r || !r->running)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	r->running = 0;
}

void rtstats_free(struct rtstats *r)
{
	size_t i;

	if (!r)
		return;
	rtstats_stop(r);
	for (i = 0; i < r->npolls; i++)
		poll_release(&r->polls[i]);
	free(r->polls);
	for (i = 0; i < r->nsignals; i++) {
		free(r->signals[i].name);
		free(r->signals[i].pointer);
	}
	free(r->signals);
	free(r->url);
	free(r->ca_file);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}
