/* evidence: the gate's view of a window phase, built the same way live and
 * from the database. */
#include "model/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void evidence_init(struct evidence *e, enum gate_phase phase)
{
	memset(e, 0, sizeof(*e));
	e->phase = phase;
	e->lateness_p99_ms = NAN;
	e->service_p50_ms = NAN;
	e->acct_span_s = NAN;
	e->host_held_s = e->host_held_max_s = e->foreign_cpu_s = e->host_held_ref_s = NAN;
	e->host_wait_s = NAN;
}

void evidence_release_stats(struct evidence *e)
{
	size_t i;

	for (i = 0; i < e->nstats; i++) {
		free(e->stats[i].signal);
		free(e->stats[i].key);
		free(e->stats[i].error);
	}
	e->nstats = 0;
}

void evidence_release(struct evidence *e)
{
	size_t i;

	free(e->p99_ms);
	free(e->p999_ms);
	for (i = 0; i < e->nreq; i++)
		free(e->req_names[i]);
	free(e->req_names);
	free(e->req_sent);
	free(e->acct_backend);
	evidence_release_stats(e);
	free(e->stats);
	for (i = 0; i < e->ndeps; i++)
		free((char *)e->deps[i].name); /* owned here (evidence_add_dep) */
	free(e->deps);
	for (i = 0; i < e->nidle; i++) {   /* owned here (evidence_add_idle) */
		free((char *)e->idle[i].name);
		free((char *)e->idle[i].kind);
		free((char *)e->idle[i].freezer);
	}
	free(e->idle);
	evidence_init(e, e->phase);
}

void evidence_add_dep(struct evidence *e, const struct gate_dep *d)
{
	e->deps = xrealloc(e->deps, (e->ndeps + 1) * sizeof(*e->deps));
	e->deps[e->ndeps] = *d;
	e->deps[e->ndeps].name = xstrdup(d->name ? d->name : "?");
	e->ndeps++;
}

void evidence_add_idle(struct evidence *e, const struct gate_idle *g)
{
	e->idle = xrealloc(e->idle, (e->nidle + 1) * sizeof(*e->idle));
	e->idle[e->nidle] = *g;
	e->idle[e->nidle].name = xstrdup(g->name ? g->name : "?");
	e->idle[e->nidle].kind = xstrdup(g->kind ? g->kind : "implementation");
	e->idle[e->nidle].freezer = g->freezer ? xstrdup(g->freezer) : NULL;
	e->nidle++;
}

void evidence_add_second(struct evidence *e, double p99_ms, double p999_ms)
{
	if (e->nsec == e->asec) {
		size_t a = e->asec;
		XGROW(e->p99_ms, a, e->nsec + 1);
		a = e->asec;
		XGROW(e->p999_ms, a, e->nsec + 1);
		e->asec = a;
	}
	e->p99_ms[e->nsec] = p99_ms;
	e->p999_ms[e->nsec] = p999_ms;
	e->nsec++;
}

void evidence_add_stat(struct evidence *e, double t, const char *signal,
		       const char *key, double value, const char *error)
{
	struct ev_stat *s;

	XGROW(e->stats, e->astats, e->nstats + 1);
	s = &e->stats[e->nstats++];
	s->t = t;
	s->signal = xstrdup(signal ? signal : "");
	s->key = key ? xstrdup(key) : NULL;
	s->value = value;
	s->error = error ? xstrdup(error) : NULL;
}

void evidence_set_requests(struct evidence *e, size_t n, const char *const *names,
			   const uint64_t *sent)
{
	size_t i;

	for (i = 0; i < e->nreq; i++)
		free(e->req_names[i]);
	free(e->req_names);
	free(e->req_sent);
	e->nreq = n;
	e->req_names = xcalloc(n, sizeof(*e->req_names));
	e->req_sent = xcalloc(n, sizeof(*e->req_sent));
	for (i = 0; i < n; i++) {
		e->req_names[i] = xstrdup(names[i]);
		e->req_sent[i] = sent[i];
	}
}

static double *scratch_buf(struct evidence_scratch *s, size_t n)
{
	double *b = xcalloc(n ? n : 1, sizeof(*b));

	s->bufs = xrealloc(s->bufs, (s->nbufs + 1) * sizeof(*s->bufs));
	s->bufs[s->nbufs++] = b;
	return b;
}

/* The numeric series of one signal within [t0, inf). */
static void build_series(const struct evidence *e, const char *signal, double t0,
			 struct gate_series *gs, struct evidence_scratch *s)
{
	size_t i, n = 0;
	double *t, *v;

	for (i = 0; i < e->nstats; i++)
		if (!strcmp(e->stats[i].signal, signal) && !e->stats[i].key)
			n++;
	t = scratch_buf(s, n);
	v = scratch_buf(s, n);
	memset(gs, 0, sizeof(*gs));
	gs->signal = signal;
	for (i = 0; i < e->nstats; i++) {
		const struct ev_stat *st = &e->stats[i];
		if (st->t < t0)
			continue;
		if (!*st->signal) {       /* a failed poll: every signal missing */
			gs->nmissing++;
			continue;
		}
		if (strcmp(st->signal, signal) || st->key)
			continue;
		if (isnan(st->value)) {
			gs->nmissing++;
			continue;
		}
		t[gs->n] = st->t;
		v[gs->n] = st->value;
		gs->n++;
	}
	gs->t = t;
	gs->v = v;
}

/* The counters of an object signal at the last poll that had any. */
static void build_counters(const struct evidence *e, const char *signal,
			   struct gate_counters *gc, struct evidence_scratch *s)
{
	double last = -INFINITY;
	size_t i, n = 0;
	const char **keys;
	double *vals;

	memset(gc, 0, sizeof(*gc));
	gc->signal = signal;
	for (i = 0; i < e->nstats; i++)
		if (e->stats[i].key && !strcmp(e->stats[i].signal, signal) &&
		    e->stats[i].t > last)
			last = e->stats[i].t;
	if (last == -INFINITY)
		return;
	for (i = 0; i < e->nstats; i++)
		if (e->stats[i].key && !strcmp(e->stats[i].signal, signal) &&
		    e->stats[i].t == last)
			n++;
	keys = xcalloc(n ? n : 1, sizeof(*keys));
	vals = scratch_buf(s, n);
	s->keyarrs = xrealloc(s->keyarrs, (s->nkeyarrs + 1) * sizeof(*s->keyarrs));
	s->keyarrs[s->nkeyarrs++] = keys;
	for (i = 0; i < e->nstats; i++) {
		const struct ev_stat *st = &e->stats[i];
		if (!st->key || strcmp(st->signal, signal) || st->t != last || isnan(st->value))
			continue;
		keys[gc->n] = st->key;
		vals[gc->n] = st->value;
		gc->n++;
	}
	gc->ok = 1;
	gc->keys = keys;
	gc->values = vals;
}

void evidence_gate_input(const struct evidence *e, const struct spec *spec,
			 const struct spec_impl *impl, double trailing_s,
			 struct gate_input *in, struct evidence_scratch *s)
{
	size_t first = 0, i;
	double t0 = 0;

	memset(in, 0, sizeof(*in));
	memset(s, 0, sizeof(*s));
	/* Whole seconds: a fractional trailing_s rounds up (0.5 s judges the
	 * last second, never none). */
	if (e->phase == GATE_PHASE_WARMUP && trailing_s > 0 && e->nsec > (size_t)ceil(trailing_s)) {
		first = e->nsec - (size_t)ceil(trailing_s);
		t0 = (double)first;
	}
	in->phase = e->phase;
	in->impl_name = impl ? impl->name : NULL;
	in->error_rate_max = spec ? spec->slo.error_rate_max : NAN;
	in->slo_ms = spec ? spec_slo_tightest_ms(spec) : NAN;
	in->slo_percentile = spec ? spec->slo.percentile : NAN;
	in->generator_threads = spec && spec->workload.threads > 0 ? spec->workload.threads : 1;
	/* Load agents (workload.generators): their CPU is summed, and so
	 * are their threads. */
	if (spec && spec->workload.ngenerators) {
		int wt = in->generator_threads;
		size_t i;

		in->generator_threads = 0;
		for (i = 0; i < spec->workload.ngenerators; i++)
			in->generator_threads += spec->workload.generators[i].threads > 0 ?
						 spec->workload.generators[i].threads : wt;
	}
	in->nsec = e->nsec - first;
	in->p99_ms = e->p99_ms ? e->p99_ms + first : NULL;
	in->p999_ms = e->p999_ms ? e->p999_ms + first : NULL;
	in->duration_s = e->duration_s;
	in->offered_rps = e->offered_rps;
	in->achieved_rps = e->achieved_rps;
	in->due = e->due;
	in->answered = e->secs_completed;
	in->sent = e->sent;
	in->completed = e->completed;
	in->errors = e->errors;
	in->dropped = e->dropped;
	memcpy(in->status, e->status, sizeof(in->status));
	in->status_other = e->status_other;
	in->unexpected = e->unexpected;
	in->lateness_p99_ms = e->lateness_p99_ms;
	in->host_void = e->host_void;
	in->service_p50_ms = e->service_p50_ms;
	in->generator_cpu_pct = e->duration_s > 0 ? 100.0 * e->generator_cpu_s / e->duration_s : NAN;
	in->nreq = e->nreq;
	in->req_names = (const char *const *)e->req_names;
	in->req_sent = e->req_sent;
	in->acct_backend = e->acct_backend;
	in->acct_span_s = e->acct_span_s;
	in->host_held_s = e->host_held_s;
	in->host_held_max_s = e->host_held_max_s;
	in->foreign_cpu_s = e->foreign_cpu_s;
	in->host_held_ref_s = e->host_held_ref_s;
	in->host_wait_s = e->host_wait_s;
	in->has_throttle = e->has_throttle;
	in->has_oom = e->has_oom;
	in->has_majfault = e->has_majfault;
	in->nr_throttled = e->nr_throttled;
	in->throttled_usec = e->throttled_usec;
	in->oom_events = e->oom_events;
	in->oom_kills = e->oom_kills;
	in->major_faults = e->major_faults;
	in->sut_exited = e->sut_exited;
	in->ndeps = e->ndeps;
	in->deps = e->deps;
	in->nidle = e->nidle;
	in->idle = e->idle;

	if (!impl || !(impl->nsignals + impl->nderived))
		return;
	s->series = xcalloc(impl->nsignals + impl->nderived, sizeof(*s->series));
	s->counters = xcalloc(impl->nsignals, sizeof(*s->counters));
	for (i = 0; i < impl->nsignals; i++) {
		const char *sig = impl->signals[i].name;
		build_series(e, sig, t0, &s->series[s->nseries++], s);
		build_counters(e, sig, &s->counters[s->ncounters], s);
		if (s->counters[s->ncounters].ok)
			s->ncounters++;
	}
	in->nseries = s->nseries;
	in->series = s->series;
	in->ncounters = s->ncounters;
	in->counters = s->counters;
	evidence_derived(e, impl, t0, in, s);
}

void evidence_scratch_release(struct evidence_scratch *s)
{
	size_t i;

	for (i = 0; i < s->nbufs; i++)
		free(s->bufs[i]);
	free(s->bufs);
	for (i = 0; i < s->nkeyarrs; i++)
		free(s->keyarrs[i]);
	free(s->keyarrs);
	free(s->series);
	free(s->counters);
	free(s->derived);
	memset(s, 0, sizeof(*s));
}

int evidence_no_answer(const struct evidence *e)
{
	return e->due > 0 && e->secs_completed == 0;
}
