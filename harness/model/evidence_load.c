/* evidence_load: a window phase's evidence to and from the run database,
 * exactly as the runner built it live (see runner_window.c). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/evidence.h"
#include "model/evidence_load.h"
#include "store/store_window.h"
#include "base/util.h"

/* ------------------------------------------- evidence <-> windows columns */

enum ev_kind { EV_REAL, EV_U64, EV_INT, EV_TEXT };

struct ev_map {
	size_t ev, row;
	enum ev_kind kind;
};

#define M(evf, rowf, k) \
	{ offsetof(struct evidence, evf), offsetof(struct window_row, rowf), k }

/* The measured part of a window. */
static const struct ev_map measured_map[] = {
	M(duration_s, duration_s, EV_REAL),
	M(offered_rps, offered_rps, EV_REAL),
	M(achieved_rps, achieved_rps, EV_REAL),
	M(due, due, EV_U64),
	M(sent, sent, EV_U64),
	M(completed, completed, EV_U64),
	M(dropped, dropped, EV_U64),
	M(status[ST_2XX], s2xx, EV_U64),
	M(status[ST_3XX], s3xx, EV_U64),
	M(status[ST_4XX], s4xx, EV_U64),
	M(status[ST_5XX], s5xx, EV_U64),
	M(status_other, s_other, EV_U64),
	M(unexpected, err_unexpected, EV_U64),
	/* The generator gate judges the generator's own schedule lag. */
	M(lateness_p99_ms, sched_lag_p99_ms, EV_REAL),
	M(host_void, host_void, EV_U64),
	M(service_p50_ms, service_p50_ms, EV_REAL),
	M(generator_cpu_s, gen_cpu_s, EV_REAL),
	M(acct_backend, acct_backend, EV_TEXT),
	M(acct_span_s, acct_span_s, EV_REAL),
	M(host_held_s, host_held_s, EV_REAL),
	M(host_held_max_s, host_held_max_s, EV_REAL),
	M(foreign_cpu_s, foreign_cpu_s, EV_REAL),
	M(host_held_ref_s, host_held_ref_s, EV_REAL),
	M(host_wait_s, host_wait_s, EV_REAL),
	M(has_throttle, has_throttle, EV_INT),
	M(nr_throttled, nr_throttled, EV_U64),
	M(throttled_usec, throttled_usec, EV_U64),
	M(has_oom, has_oom, EV_INT),
	M(oom_events, oom, EV_U64),
	M(oom_kills, oom_kill, EV_U64),
	M(has_majfault, has_majfault, EV_INT),
	M(major_faults, pgmajfault, EV_U64),
	M(sut_exited, sut_exited, EV_INT),
};

/* The warm-up (its counts are the sums of its seconds). */
static const struct ev_map warmup_map[] = {
	M(duration_s, warmup_s, EV_REAL),
	M(offered_rps, warmup_rate, EV_REAL),
	M(sut_exited, sut_exited, EV_INT),
};

#define AT(p, off, type) ((type *)((char *)(p) + (off)))

static void map_copy(const struct ev_map *m, size_t n, void *dst, int dst_is_ev,
		     const void *src)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t d = dst_is_ev ? m[i].ev : m[i].row, s = dst_is_ev ? m[i].row : m[i].ev;
		const char *t;

		switch (m[i].kind) {
		case EV_REAL: *AT(dst, d, double) = *AT(src, s, const double); break;
		case EV_INT: *AT(dst, d, int) = *AT(src, s, const int); break;
		case EV_U64:	/* uint64_t <-> int64_t: same bits */
			*AT(dst, d, uint64_t) = *AT(src, s, const uint64_t);
			break;
		case EV_TEXT:
			t = *AT(src, s, char *const);
			free(*AT(dst, d, char *));
			*AT(dst, d, char *) = t ? xstrdup(t) : NULL;
			break;
		}
	}
}

void evidence_to_window_row(const struct evidence *e, struct window_row *w)
{
	if (e->phase == GATE_PHASE_WARMUP)
		map_copy(warmup_map, ARRAY_SIZE(warmup_map), w, 0, e);
	else
		map_copy(measured_map, ARRAY_SIZE(measured_map), w, 0, e);
}

void evidence_from_window_row(struct evidence *e, const struct window_row *w)
{
	if (e->phase == GATE_PHASE_WARMUP) {
		map_copy(warmup_map, ARRAY_SIZE(warmup_map), e, 1, w);
		e->lateness_p99_ms = NAN;
		e->generator_cpu_s = NAN;
		e->acct_span_s = NAN;
		e->host_held_s = e->host_held_max_s = e->foreign_cpu_s = NAN;
		e->host_held_ref_s = e->host_wait_s = NAN;
		return;
	}
	map_copy(measured_map, ARRAY_SIZE(measured_map), e, 1, w);
	e->errors = (uint64_t)(w->err_connect + w->err_reset + w->err_timeout + w->err_parse +
			       w->err_other);
}

/* ------------------------------------------------------------ loading */

static int read_seconds(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	struct window_seconds secs;
	size_t i;

	if (store_seconds_load(st, NULL, wid, phase, 0, &secs))
		return -1;
	for (i = 0; i < secs.n; i++) {
		const struct window_second *s = &secs.v[i];

		evidence_add_second(e, s->p99_ms, s->p999_ms);
		e->secs_completed += (uint64_t)s->completed;
		if (e->phase == GATE_PHASE_WARMUP) {
			e->due += (uint64_t)s->due;
			e->sent += (uint64_t)s->sent;
			e->completed += (uint64_t)s->completed;
			e->errors += (uint64_t)s->errors;
			e->dropped += (uint64_t)s->dropped;
			e->status[ST_4XX] += (uint64_t)s->s4xx;
			e->status[ST_5XX] += (uint64_t)s->s5xx;
			e->status_other += (uint64_t)s->s_other;
			e->unexpected += (uint64_t)s->unexpected;
		}
	}
	window_seconds_release(&secs);
	return 0;
}

static int read_requests(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	struct window_requests reqs;
	const char **names;
	uint64_t *sent;
	size_t i;

	if (store_requests_load(st, wid, phase, &reqs))
		return -1;
	names = xcalloc(reqs.n + 1, sizeof(*names));
	sent = xcalloc(reqs.n + 1, sizeof(*sent));
	for (i = 0; i < reqs.n; i++) {
		names[i] = reqs.v[i].name ? reqs.v[i].name : "";
		sent[i] = (uint64_t)reqs.v[i].sent;
	}
	evidence_set_requests(e, reqs.n, names, sent);
	free(names);
	free(sent);
	window_requests_release(&reqs);
	return 0;
}

static int read_stats(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	struct rtstat_rows rows;
	size_t i;

	if (store_rtstats_load(st, wid, phase, &rows))
		return -1;
	for (i = 0; i < rows.n; i++)
		evidence_add_stat(e, rows.v[i].t_s, rows.v[i].signal, rows.v[i].key,
				  rows.v[i].value, rows.v[i].error);
	rtstat_rows_release(&rows);
	return 0;
}

/* The dependencies over the measured part (window_deps, schema 9). */
static int read_deps(struct store *st, int64_t wid, struct evidence *e)
{
	struct window_dep_rows rows;
	size_t i;

	if (store_window_deps_load(st, NULL, wid, &rows))
		return -1;
	for (i = 0; i < rows.n; i++) {
		const struct window_dep_row *r = &rows.v[i];
		struct gate_dep d;

		memset(&d, 0, sizeof(d));
		d.name = r->name;
		d.ncpus = r->ncpus;
		d.duration_s = r->duration_s;
		d.cpu_s = r->cpu_s;
		d.has_throttle = r->has_throttle;
		d.nr_throttled = (uint64_t)r->nr_throttled;
		d.exited = r->exited;
		d.demand_rps = r->demand_rps;
		d.ceiling_rps = r->ceiling_rps;
		evidence_add_dep(e, &d);
	}
	window_dep_rows_release(&rows);
	return 0;
}

/* The idle arms and dependencies over the measured part (window_idle,
 * schema 13; none for a window recorded before). */
static int read_idle(struct store *st, int64_t wid, struct evidence *e)
{
	struct window_idle_rows rows;
	size_t i;

	if (store_window_idle_load(st, NULL, wid, &rows))
		return -1;
	for (i = 0; i < rows.n; i++) {
		const struct window_idle_row *r = &rows.v[i];
		struct gate_idle g;

		memset(&g, 0, sizeof(g));
		g.name = r->name;
		g.kind = r->kind;
		g.freezer = r->frozen;
		g.duration_s = r->duration_s;
		g.cpu_s = r->cpu_s;
		evidence_add_idle(e, &g);
	}
	window_idle_rows_release(&rows);
	return 0;
}

int evidence_load_head(struct store *st, int64_t wid, struct evidence *e)
{
	evidence_init(e, GATE_PHASE_WARMUP);
	return read_seconds(st, wid, "discard", e);
}

int evidence_load(struct store *st, int64_t wid, enum gate_phase phase, struct evidence *e)
{
	const char *ph = phase == GATE_PHASE_WARMUP ? "warmup" : "measured";
	struct window_row w;
	int ret = -1;

	evidence_init(e, phase);
	if (store_window_load(st, wid, 0, &w))
		return -1;
	evidence_from_window_row(e, &w);
	if (read_seconds(st, wid, ph, e) || read_requests(st, wid, ph, e) ||
	    read_stats(st, wid, ph, e) ||
	    (phase == GATE_PHASE_WINDOW && (read_deps(st, wid, e) || read_idle(st, wid, e))))
		goto out;
	if (phase == GATE_PHASE_WARMUP)
		e->achieved_rps = e->duration_s > 0 ? (double)e->completed / e->duration_s : NAN;
	ret = 0;
out:
	window_row_release(&w);
	return ret;
}
