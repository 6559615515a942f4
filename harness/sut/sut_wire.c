/*
 * sut_wire: the --sut frames' payloads, field by field in the order
 * docs/AGENT_PROTOCOL.md lists them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sut/sut_wire.h"
#include "base/util.h"

static void enc_argv(struct sbuf *sb, char *const *argv)
{
	size_t n = 0, i;

	while (argv && argv[n])
		n++;
	enc_u64(sb, n);
	for (i = 0; i < n; i++)
		enc_str(sb, argv[i]);
}

static char **dec_argv(struct dec *d)
{
	uint64_t n = dec_u64(d), i;
	char **v;

	if (d->bad || n > 4096) {
		d->bad = 1;
		return NULL;
	}
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = dec_str(d);
	return v;
}

void sut_wire_enc_start(struct sbuf *sb, const struct sut_wire_start *w)
{
	const struct spec_impl *im = &w->impl;
	size_t i;

	enc_str(sb, im->name);
	enc_str(sb, im->repo);
	enc_argv(sb, im->start);
	enc_u64(sb, im->nenv);
	for (i = 0; i < im->nenv; i++) {
		enc_str(sb, im->env[i].key);
		enc_str(sb, im->env[i].value);
	}
	enc_str(sb, im->health_url);
	enc_f64(sb, im->health_timeout_s);
	enc_str(sb, im->cpus);
	enc_u64(sb, im->memory_max_bytes);
	enc_u64(sb, im->pids_max);
	enc_str(sb, w->label);
	enc_u64(sb, (uint64_t)w->port);
	enc_u64(sb, (uint64_t)w->backend);
	enc_u64(sb, (uint64_t)w->sample_ms);
	enc_f64(sb, w->stop_grace_s);
	enc_u64(sb, (uint64_t)w->https);
	enc_u64(sb, (uint64_t)w->insecure);
	enc_str(sb, w->ca_file);
	enc_u64(sb, (uint64_t)w->sandbox.on);
	enc_str(sb, w->sandbox.user);
	enc_u64(sb, (uint64_t)(w->sandbox.uid < 0 ? 0 : w->sandbox.uid));
	enc_u64(sb, (uint64_t)w->sandbox.ro);
	enc_f64(sb, w->sandbox.cpu_max);
	enc_str(sb, w->sandbox.hide);
	enc_u64(sb, w->sandbox.log_max_bytes);
	enc_u64(sb, w->sandbox.relay_max);
	enc_str(sb, im->stats_url);
	enc_f64(sb, im->stats_poll_hz);
	enc_u64(sb, (uint64_t)im->stats_format);
	enc_u64(sb, im->nsignals);
	for (i = 0; i < im->nsignals; i++) {
		enc_str(sb, im->signals[i].name);
		enc_str(sb, im->signals[i].pointer);
	}
}

int sut_wire_dec_start(struct dec *d, struct sut_wire_start *w)
{
	struct spec_impl *im = &w->impl;
	uint64_t n, i, backend, format;

	memset(w, 0, sizeof(*w));
	im->name = dec_str(d);
	im->repo = dec_str(d);
	im->start = dec_argv(d);
	n = dec_u64(d);
	if (n > 4096)
		d->bad = 1;
	if (!d->bad) {
		im->env = xcalloc(n + 1, sizeof(*im->env));
		im->nenv = n;
		for (i = 0; i < n; i++) {
			im->env[i].key = dec_str(d);
			im->env[i].value = dec_str(d);
		}
	}
	im->health_url = dec_str(d);
	im->health_timeout_s = dec_f64(d);
	im->cpus = dec_str(d);
	im->memory_max_bytes = dec_u64(d);
	im->pids_max = dec_u64(d);
	w->label = dec_str(d);
	w->port = (int)dec_u64(d);
	backend = dec_u64(d);
	w->backend = backend <= ACCT_PROCFS ? (enum acct_backend)backend : ACCT_AUTO;
	w->sample_ms = (int)dec_u64(d);
	w->stop_grace_s = dec_f64(d);
	w->https = (int)dec_u64(d);
	w->insecure = (int)dec_u64(d);
	w->ca_file = dec_str(d);
	w->sandbox.on = (int)dec_u64(d);
	w->sandbox.user = dec_str(d);
	n = dec_u64(d);
	w->sandbox.uid = n <= 0x7fffffff ? (int)n : -1;
	w->sandbox.ro = (int)dec_u64(d);
	w->sandbox.cpu_max = dec_f64(d);
	w->sandbox.hide = dec_str(d);
	w->sandbox.log_max_bytes = dec_u64(d);
	n = dec_u64(d);
	w->sandbox.relay_max = n <= 65536 ? (unsigned)n : 65536;
	if (w->sandbox.on && w->sandbox.uid <= 0)
		d->bad = 1;   /* never root, never unknown */
	im->stats_url = dec_str(d);
	im->stats_poll_hz = dec_f64(d);
	format = dec_u64(d);
	im->stats_format = format == STATS_PROMETHEUS ? STATS_PROMETHEUS : STATS_JSON;
	n = dec_u64(d);
	if (n > 4096)
		d->bad = 1;
	if (!d->bad) {
		im->signals = xcalloc(n + 1, sizeof(*im->signals));
		im->nsignals = n;
		for (i = 0; i < n; i++) {
			im->signals[i].name = dec_str(d);
			im->signals[i].pointer = dec_str(d);
			if (!im->signals[i].name || !im->signals[i].pointer)
				d->bad = 1;
		}
	}
	if (format > STATS_PROMETHEUS || (im->stats_url && !(im->stats_poll_hz > 0)))
		d->bad = 1;
	for (i = 0; !d->bad && i < im->nenv; i++)
		if (!im->env[i].key || !im->env[i].value)
			d->bad = 1;
	if (d->bad || backend > ACCT_PROCFS || !im->name || !im->start || !im->start[0] ||
	    w->port < 0 || w->port > 65535) {
		sut_wire_start_release(w);
		return -1;
	}
	return 0;
}

void sut_wire_start_release(struct sut_wire_start *w)
{
	struct spec_impl *im = &w->impl;
	size_t i;

	free(im->name);
	free(im->repo);
	strv_free(im->start);
	for (i = 0; im->env && i < im->nenv; i++) {
		free(im->env[i].key);
		free(im->env[i].value);
	}
	free(im->env);
	free(im->health_url);
	free(im->cpus);
	free(im->stats_url);
	for (i = 0; im->signals && i < im->nsignals; i++) {
		free(im->signals[i].name);
		free(im->signals[i].pointer);
	}
	free(im->signals);
	free(w->label);
	free(w->ca_file);
	free(w->sandbox.user);
	free(w->sandbox.hide);
	memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------- fetch */

void sut_wire_enc_fetch(struct sbuf *sb, const struct sut_wire_fetch *f)
{
	enc_str(sb, f->name);
	enc_str(sb, f->repo);
	enc_str(sb, f->ref);
	enc_str(sb, f->user);
	enc_str(sb, f->password);
	enc_u64(sb, f->disk_max_bytes);
}

int sut_wire_dec_fetch(struct dec *d, struct sut_wire_fetch *f)
{
	memset(f, 0, sizeof(*f));
	f->name = dec_str(d);
	f->repo = dec_str(d);
	f->ref = dec_str(d);
	f->user = dec_str(d);
	f->password = dec_str(d);
	f->disk_max_bytes = dec_u64(d);
	if (d->bad || !f->name || !*f->name || !f->repo) {
		sut_wire_fetch_release(f);
		return -1;
	}
	return 0;
}

void sut_wire_fetch_release(struct sut_wire_fetch *f)
{
	free(f->name);
	free(f->repo);
	free(f->ref);
	if (f->password)
		explicit_bzero(f->password, strlen(f->password));
	free(f->user);
	free(f->password);
	memset(f, 0, sizeof(*f));
}

/* ------------------------------------------------------------ window */

void sut_wire_enc_window(struct sbuf *sb, const struct account_window *w)
{
	enc_str(sb, w->backend);
	enc_f64(sb, w->duration_s);
	enc_f64(sb, w->cpu_s);
	enc_f64(sb, w->user_s);
	enc_f64(sb, w->system_s);
	enc_u64(sb, (uint64_t)w->has_throttle);
	enc_u64(sb, w->nr_throttled);
	enc_u64(sb, w->throttled_usec);
	enc_f64(sb, w->anon_p50);
	enc_f64(sb, w->anon_p99);
	enc_f64(sb, w->anon_max);
	enc_u64(sb, w->nsamples);    /* streamed before it (ACCT_SAMPLE) */
	enc_u64(sb, (uint64_t)w->has_peak);
	enc_u64(sb, w->mem_peak);
	enc_str(sb, w->peak_scope);
	enc_u64(sb, (uint64_t)w->has_oom);
	enc_u64(sb, w->oom);
	enc_u64(sb, w->oom_kill);
	enc_u64(sb, (uint64_t)w->has_majfault);
	enc_u64(sb, w->pgmajfault);
	enc_f64(sb, w->sampler_cpu_s);
	enc_u64(sb, (uint64_t)w->has_wait);     /* since protocol 9 */
	enc_f64(sb, w->wait_s);
	enc_u64(sb, (uint64_t)w->has_held);     /* since protocol 10 */
	enc_f64(sb, w->held_s);
	enc_f64(sb, w->held_max_s);
	enc_f64(sb, w->foreign_cpu_s);
	enc_f64(sb, w->held_wait_s);
}

/* The static name of a backend or peak scope sent as a string. */
static const char *static_name(const char *s, int backend)
{
	enum acct_backend b;

	if (!s)
		return NULL;
	if (backend)
		return account_backend_parse(s, &b) ? "?" : account_backend_name(b);
	return !strcmp(s, "window") ? "window" : "lifetime";
}

int sut_wire_dec_window(struct dec *d, struct account_window *w, uint64_t *nsamples)
{
	char *backend, *scope;

	memset(w, 0, sizeof(*w));
	backend = dec_str(d);
	w->backend = static_name(backend, 1);
	free(backend);
	w->duration_s = dec_f64(d);
	w->cpu_s = dec_f64(d);
	w->user_s = dec_f64(d);
	w->system_s = dec_f64(d);
	w->has_throttle = (int)dec_u64(d);
	w->nr_throttled = dec_u64(d);
	w->throttled_usec = dec_u64(d);
	w->anon_p50 = dec_f64(d);
	w->anon_p99 = dec_f64(d);
	w->anon_max = dec_f64(d);
	*nsamples = dec_u64(d);
	w->has_peak = (int)dec_u64(d);
	w->mem_peak = dec_u64(d);
	scope = dec_str(d);
	w->peak_scope = static_name(scope, 0);
	free(scope);
	w->has_oom = (int)dec_u64(d);
	w->oom = dec_u64(d);
	w->oom_kill = dec_u64(d);
	w->has_majfault = (int)dec_u64(d);
	w->pgmajfault = dec_u64(d);
	w->sampler_cpu_s = dec_f64(d);
	w->has_wait = (int)dec_u64(d);
	w->wait_s = dec_f64(d);
	if (!w->has_wait)
		w->wait_s = NAN;
	w->has_held = (int)dec_u64(d);
	w->held_s = dec_f64(d);
	w->held_max_s = dec_f64(d);
	w->foreign_cpu_s = dec_f64(d);
	w->held_wait_s = dec_f64(d);
	if (!w->has_held)
		w->held_s = w->held_max_s = w->foreign_cpu_s = w->held_wait_s = NAN;
	if (d->bad || !w->backend) {
		account_window_release(w);
		return -1;
	}
	return 0;
}

/* ----------------------------------------------------------- streamed */

void sut_wire_enc_sample(struct sbuf *sb, const struct account_sample *s)
{
	enc_f64(sb, s->t_ms);
	enc_u64(sb, s->anon);
	enc_f64(sb, s->cpu_s);
}

int sut_wire_dec_sample(struct dec *d, struct account_sample *s)
{
	s->t_ms = dec_f64(d);
	s->anon = dec_u64(d);
	s->cpu_s = dec_f64(d);
	return d->bad ? -1 : 0;
}

void sut_wire_enc_poll(struct sbuf *sb, int64_t t, const struct rtstats_poll *p)
{
	size_t i, k;

	enc_i64(sb, t);
	enc_f64(sb, p->latency_ms);
	enc_u64(sb, (uint64_t)p->status);
	enc_i64(sb, p->http_status);
	enc_str(sb, p->error);
	enc_u64(sb, p->nvalues);
	for (i = 0; i < p->nvalues; i++) {
		const struct rtstats_value *v = &p->values[i];

		enc_u64(sb, (uint64_t)v->kind);
		enc_f64(sb, v->num);
		enc_u64(sb, v->kind == RTV_COUNTERS ? v->ncounters : 0);
		for (k = 0; v->kind == RTV_COUNTERS && k < v->ncounters; k++) {
			enc_str(sb, v->counters[k].name);
			enc_f64(sb, v->counters[k].value);
		}
	}
}

int sut_wire_dec_poll(struct dec *d, int64_t *t, struct rtstats_poll *p)
{
	uint64_t n, i, k, status, kind;

	memset(p, 0, sizeof(*p));
	*t = dec_i64(d);
	p->latency_ms = dec_f64(d);
	status = dec_u64(d);
	p->status = status <= RTS_ERROR ? (enum rts_status)status : RTS_ERROR;
	p->http_status = (long)dec_i64(d);
	p->error = dec_str(d);
	n = dec_u64(d);
	if (d->bad || n > 4096 || status > RTS_ERROR)
		d->bad = 1;
	else {
		p->values = xcalloc(n ? n : 1, sizeof(*p->values));
		p->nvalues = n;
	}
	for (i = 0; !d->bad && i < n; i++) {
		struct rtstats_value *v = &p->values[i];

		kind = dec_u64(d);
		v->kind = kind <= RTV_COUNTERS ? (enum rts_kind)kind : RTV_MISSING;
		v->num = dec_f64(d);
		k = dec_u64(d);
		if (kind > RTV_COUNTERS || k > 100000 || (k && kind != RTV_COUNTERS)) {
			d->bad = 1;
			break;
		}
		if (kind == RTV_COUNTERS) {
			v->counters = xcalloc(k ? k : 1, sizeof(*v->counters));
			v->ncounters = k;
		}
		for (kind = 0; !d->bad && kind < k; kind++) {
			v->counters[kind].name = dec_str(d);
			v->counters[kind].value = dec_f64(d);
			if (!v->counters[kind].name)
				d->bad = 1;
		}
	}
	if (d->bad) {
		rtstats_poll_release(p);
		return -1;
	}
	return 0;
}

/* -------------------------------------------------------------- hits */

void sut_wire_enc_hits(struct sbuf *sb, const struct sut_wire_hits *h)
{
	enc_u64(sb, (uint64_t)h->kernel.has_pids);
	enc_u64(sb, h->kernel.pids_refused);
	enc_u64(sb, (uint64_t)h->kernel.has_oom);
	enc_u64(sb, h->kernel.oom_kill);
	enc_str(sb, h->disk_full[0] ? h->disk_full : NULL);
}

int sut_wire_dec_hits(struct dec *d, struct sut_wire_hits *h)
{
	char *disk;

	memset(h, 0, sizeof(*h));
	h->kernel.has_pids = (int)dec_u64(d);
	h->kernel.pids_refused = dec_u64(d);
	h->kernel.has_oom = (int)dec_u64(d);
	h->kernel.oom_kill = dec_u64(d);
	disk = dec_str(d);
	if (d->bad) {
		free(disk);
		memset(h, 0, sizeof(*h));
		return -1;
	}
	if (disk)
		snprintf(h->disk_full, sizeof(h->disk_full), "%s", disk);
	free(disk);
	return 0;
}

/* ------------------------------------------------------------- facts */

void sut_wire_enc_facts(struct sbuf *sb, const struct hostfacts *h)
{
	size_t i;

	enc_u64(sb, h->n);
	for (i = 0; i < h->n; i++) {
		enc_str(sb, h->keys[i]);
		enc_str(sb, h->values[i]);
	}
}

int sut_wire_dec_facts(struct dec *d, struct hostfacts *h)
{
	uint64_t n = dec_u64(d), i;

	if (n > 1000)
		d->bad = 1;
	for (i = 0; !d->bad && i < n; i++) {
		char *k = dec_str(d), *v = dec_str(d);

		if (k && v)
			hostfacts_set(h, k, v);
		else
			d->bad = 1;
		free(k);
		free(v);
	}
	if (d->bad) {
		hostfacts_release(h);
		return -1;
	}
	return 0;
}
