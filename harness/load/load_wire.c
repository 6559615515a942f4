/*
 * load_wire: load_config and load_stats to and from agent payloads.
 * Field order is the protocol (docs/AGENT_PROTOCOL.md, "LOAD" and
 * "SECOND"): change it only with the protocol version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hist.h"
#include "load/load_wire.h"

/* ------------------------------------------------------------ config */

static void enc_request(struct sbuf *sb, const struct load_request *r)
{
	size_t i;

	enc_str(sb, r->name);
	enc_f64(sb, r->weight);
	enc_str(sb, r->method);
	enc_str(sb, r->path);
	enc_u64(sb, r->nheaders);
	for (i = 0; i < r->nheaders; i++) {
		enc_str(sb, r->headers[i].key);
		enc_str(sb, r->headers[i].value);
	}
	enc_u64(sb, r->body ? 1 : 0);
	if (r->body)
		enc_bytes(sb, r->body, r->body_len);
	enc_u64(sb, r->expect.nstatus);
	for (i = 0; i < r->expect.nstatus; i++)
		enc_u64(sb, (uint64_t)r->expect.status[i]);
	enc_u64(sb, r->expect.body_contains ? 1 : 0);
	if (r->expect.body_contains)
		enc_bytes(sb, r->expect.body_contains, r->expect.body_contains_len);
	enc_u64(sb, r->expect.max_bytes);
	enc_str(sb, r->expect.content_type);
	enc_u64(sb, r->expect.njson);
	for (i = 0; i < r->expect.njson; i++) {
		enc_str(sb, r->expect.json[i].key);
		enc_str(sb, r->expect.json[i].value);
	}
}

int load_wire_enc_config(struct sbuf *sb, const struct load_config *cfg)
{
	struct sbuf ca = SBUF_INIT;
	size_t i;

	enc_str(sb, cfg->url);
	enc_f64(sb, cfg->rate);
	enc_f64(sb, cfg->duration_s);
	enc_u64(sb, (uint64_t)cfg->arrival);
	enc_u64(sb, cfg->seed);
	enc_i64(sb, cfg->connections);
	enc_i64(sb, cfg->backlog_max);
	enc_i64(sb, cfg->timeout_ms);
	enc_i64(sb, cfg->threads);
	enc_u64(sb, (uint64_t)cfg->transport);
	enc_str(sb, cfg->cpus);
	enc_i64(sb, cfg->batch_us);
	enc_i64(sb, cfg->parts > 1 ? cfg->part : 0);
	enc_i64(sb, cfg->parts > 1 ? cfg->parts : 1);
	enc_u64(sb, cfg->nrequests);
	for (i = 0; i < cfg->nrequests; i++)
		enc_request(sb, &cfg->requests[i]);
	/* protocol 2: the HTTP version, insecure, the CA file's bytes */
	enc_u64(sb, (uint64_t)cfg->http);
	enc_u64(sb, cfg->insecure ? 1 : 0);
	if (cfg->ca_file && read_file(cfg->ca_file, &ca, LOAD_WIRE_CA_MAX)) {
		sbuf_release(&ca);
		return -1;
	}
	enc_u64(sb, cfg->ca_file ? 1 : 0);
	if (cfg->ca_file)
		enc_bytes(sb, ca.buf ? ca.buf : "", ca.len);
	sbuf_release(&ca);
	return 0;
}

/* The CA certificates as a file of this host's own (libcurl reads a
 * path), removed by load_wire_config_release. */
static int write_ca(struct load_wire_config *w, const void *p, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	struct sbuf path = SBUF_INIT;
	int fd, ok;

	sbuf_addf(&path, "%s/harness-agent-ca.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path.buf);
	if (fd < 0) {
		error("agent: cannot create %s: %s", path.buf, strerror(errno));
		sbuf_release(&path);
		return -1;
	}
	ok = write(fd, p, n) == (ssize_t)n;
	close(fd);
	w->ca_path = sbuf_detach(&path, NULL);
	return ok ? 0 : -1;
}

/* A byte string as a NUL-terminated copy (bodies may hold NULs: the
 * length is kept beside it). */
static char *dup_bytes(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

static void dec_request(struct dec *d, struct load_request *r)
{
	const void *p;
	size_t i, n;
	uint64_t k;

	memset(r, 0, sizeof(*r));
	r->name = dec_str(d);
	r->weight = dec_f64(d);
	r->method = dec_str(d);
	r->path = dec_str(d);
	k = dec_u64(d);
	if (k > 10000)
		d->bad = 1;
	if (d->bad)
		return;
	r->headers = xcalloc(k ? k : 1, sizeof(*r->headers));
	r->nheaders = (size_t)k;
	for (i = 0; i < r->nheaders; i++) {
		r->headers[i].key = dec_str(d);
		r->headers[i].value = dec_str(d);
	}
	if (dec_u64(d)) {
		p = dec_bytes(d, &n);
		if (p) {
			r->body = dup_bytes(p, n);
			r->body_len = n;
		}
	}
	k = dec_u64(d);
	if (k > 1000)
		d->bad = 1;
	if (d->bad)
		return;
	r->expect.status = xcalloc(k ? k : 1, sizeof(int));
	r->expect.nstatus = (size_t)k;
	for (i = 0; i < r->expect.nstatus; i++)
		r->expect.status[i] = (int)dec_u64(d);
	if (dec_u64(d)) {
		p = dec_bytes(d, &n);
		if (p) {
			r->expect.body_contains = dup_bytes(p, n);
			r->expect.body_contains_len = n;
		}
	}
	r->expect.max_bytes = dec_u64(d);
	r->expect.content_type = dec_str(d);
	k = dec_u64(d);
	if (k > 10000)
		d->bad = 1;
	if (d->bad)
		return;
	r->expect.json = xcalloc(k ? k : 1, sizeof(*r->expect.json));
	r->expect.njson = (size_t)k;
	for (i = 0; i < r->expect.njson; i++) {
		r->expect.json[i].key = dec_str(d);
		r->expect.json[i].value = dec_str(d);
	}
}

int load_wire_dec_config(struct dec *d, struct load_wire_config *w)
{
	struct load_config *c = &w->cfg;
	uint64_t n;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->url = dec_str(d);
	c->url = w->url;
	c->rate = dec_f64(d);
	c->duration_s = dec_f64(d);
	c->arrival = dec_u64(d) ? ARRIVAL_POISSON : ARRIVAL_CONSTANT;
	c->seed = dec_u64(d);
	c->connections = (int)dec_i64(d);
	c->backlog_max = (int)dec_i64(d);
	c->timeout_ms = (int)dec_i64(d);
	c->threads = (int)dec_i64(d);
	n = dec_u64(d);
	c->transport = n == TRANSPORT_NATIVE ? TRANSPORT_NATIVE :
		       n == TRANSPORT_CURL ? TRANSPORT_CURL : TRANSPORT_AUTO;
	w->cpus = dec_str(d);
	c->cpus = w->cpus;
	c->batch_us = (int)dec_i64(d);
	c->part = (int)dec_i64(d);
	c->parts = (int)dec_i64(d);
	n = dec_u64(d);
	if (n > 100000)
		d->bad = 1;
	if (!d->bad) {
		w->reqs = xcalloc(n ? n : 1, sizeof(*w->reqs));
		w->nreqs = (size_t)n;
		for (i = 0; i < w->nreqs && !d->bad; i++)
			dec_request(d, &w->reqs[i]);
	}
	c->requests = w->reqs;
	c->nrequests = w->nreqs;
	n = dec_u64(d);
	c->http = n == HTTPV_11 ? HTTPV_11 : n == HTTPV_H2C ? HTTPV_H2C : HTTPV_2;
	c->insecure = dec_u64(d) != 0;
	if (dec_u64(d) && !d->bad) {
		size_t len;
		const void *p = dec_bytes(d, &len);

		if (!p || write_ca(w, p, len))
			d->bad = 1;
		c->ca_file = w->ca_path;
	}
	if (d->bad || c->part < 0 || c->parts < 1 || c->part >= c->parts) {
		load_wire_config_release(w);
		return -1;
	}
	return 0;
}

void load_wire_config_release(struct load_wire_config *w)
{
	size_t i, k;

	for (i = 0; i < w->nreqs; i++) {
		struct load_request *r = &w->reqs[i];

		free(r->name);
		free(r->method);
		free(r->path);
		for (k = 0; k < r->nheaders; k++) {
			free(r->headers[k].key);
			free(r->headers[k].value);
		}
		free(r->headers);
		free(r->body);
		free(r->expect.status);
		free(r->expect.body_contains);
		free(r->expect.content_type);
		for (k = 0; k < r->expect.njson; k++) {
			free(r->expect.json[k].key);
			free(r->expect.json[k].value);
		}
		free(r->expect.json);
	}
	free(w->reqs);
	free(w->url);
	free(w->cpus);
	if (w->ca_path)
		unlink(w->ca_path);
	free(w->ca_path);
	memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------- stats */

static void enc_counts(struct sbuf *sb, const struct load_counts *c)
{
	int k;

	enc_u64(sb, c->sent);
	enc_u64(sb, c->completed);
	for (k = 0; k < 4; k++)
		enc_u64(sb, c->status[k]);
	enc_u64(sb, c->status_other);
	enc_u64(sb, c->unexpected);
	enc_u64(sb, LERR_KINDS);
	for (k = 0; k < LERR_KINDS; k++)
		enc_u64(sb, c->errors[k]);
	enc_u64(sb, c->dropped);
	enc_u64(sb, c->due);
	enc_u64(sb, LPROTO_KINDS);
	for (k = 0; k < LPROTO_KINDS; k++)
		enc_u64(sb, c->proto[k]);
	enc_u64(sb, c->bytes_sent);
	enc_u64(sb, c->bytes_received);
}

static void dec_counts(struct dec *d, struct load_counts *c)
{
	int k;

	memset(c, 0, sizeof(*c));
	c->sent = dec_u64(d);
	c->completed = dec_u64(d);
	for (k = 0; k < 4; k++)
		c->status[k] = dec_u64(d);
	c->status_other = dec_u64(d);
	c->unexpected = dec_u64(d);
	if (dec_u64(d) != LERR_KINDS)
		d->bad = 1;
	for (k = 0; k < LERR_KINDS; k++)
		c->errors[k] = dec_u64(d);
	c->dropped = dec_u64(d);
	c->due = dec_u64(d);
	if (dec_u64(d) != LPROTO_KINDS)
		d->bad = 1;
	for (k = 0; k < LPROTO_KINDS; k++)
		c->proto[k] = dec_u64(d);
	c->bytes_sent = dec_u64(d);
	c->bytes_received = dec_u64(d);
}

static void enc_hist(struct sbuf *sb, const struct hist *h)
{
	struct sbuf b = SBUF_INIT;

	hist_serialize(h, &b);
	enc_bytes(sb, b.buf, b.len);
	sbuf_release(&b);
}

static void dec_hist(struct dec *d, struct hist *h)
{
	size_t n;
	const void *p = dec_bytes(d, &n);

	if (!p || hist_deserialize(h, p, n))
		d->bad = 1;
}

void load_wire_enc_stats(struct sbuf *sb, const struct load_stats *s)
{
	size_t i;

	enc_u64(sb, s->nreq);
	enc_counts(sb, &s->counts);
	for (i = 0; i < s->nreq; i++)
		enc_counts(sb, &s->req_counts[i]);
	enc_hist(sb, &s->latency);
	enc_hist(sb, &s->service);
	enc_hist(sb, &s->lateness);
	enc_hist(sb, &s->sched_lag);
	for (i = 0; i < s->nreq; i++)
		enc_hist(sb, &s->req_latency[i]);
	enc_f64(sb, s->cpu_s);
	enc_u64(sb, s->nsamples);
	for (i = 0; i < s->nsamples; i++) {
		const struct load_sample *x = &s->samples[i];

		enc_u64(sb, x->req);
		enc_i64(sb, x->status);
		enc_str(sb, x->why);
		enc_bytes(sb, x->body, x->body_len);
	}
}

int load_wire_dec_stats(struct dec *d, struct load_stats *s)
{
	size_t i, n;
	uint64_t k;

	load_stats_reset(s);
	if (dec_u64(d) != s->nreq)
		return -1;
	dec_counts(d, &s->counts);
	for (i = 0; i < s->nreq; i++)
		dec_counts(d, &s->req_counts[i]);
	dec_hist(d, &s->latency);
	dec_hist(d, &s->service);
	dec_hist(d, &s->lateness);
	dec_hist(d, &s->sched_lag);
	for (i = 0; i < s->nreq; i++)
		dec_hist(d, &s->req_latency[i]);
	s->cpu_s = dec_f64(d);
	k = dec_u64(d);
	if (k > LOAD_SAMPLES)
		d->bad = 1;
	for (i = 0; i < k && !d->bad; i++) {
		struct load_sample *x = &s->samples[i];
		char *why = NULL;
		const void *body;

		x->req = (uint32_t)dec_u64(d);
		x->status = (int)dec_i64(d);
		why = dec_str(d);
		snprintf(x->why, sizeof(x->why), "%s", why ? why : "");
		free(why);
		body = dec_bytes(d, &n);
		if (n > sizeof(x->body) || x->req >= s->nreq)
			d->bad = 1;
		else if (body)
			memcpy(x->body, body, n);
		x->body_len = n;
		s->nsamples = i + 1;
	}
	return d->bad ? -1 : 0;
}
