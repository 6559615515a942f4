/* store_window: the windows table and its series, through column lists. */
#include "store/store_window.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Write groups of the windows columns. */
enum { WC_PLAN = 1, WC_RESULT = 2, WC_HIST = 4 };

static const char *const state_names[] = { "planned", "running", "done", NULL };
/* In enum window_status's order (judge.h); NONE is NULL. */
static const char *const status_names[] = { "accepted", "failed", "rejected", NULL };

const char *window_state_name(enum window_state s)
{
	return s <= WINDOW_DONE ? state_names[s] : "?";
}

#define W(col, type, grp) { #col, type, offsetof(struct window_row, col), 0, NULL, grp }
#define WH(col, has, grp) { #col, SC_I64_OPT, offsetof(struct window_row, col), \
			    offsetof(struct window_row, has), NULL, grp }
#define R WC_RESULT

static const struct store_coldef window_cols[] = {
	W(id, SC_I64, 0),
	W(run_id, SC_TEXT, WC_PLAN),
	W(stage, SC_TEXT, WC_PLAN),
	W(rung, SC_INT, WC_PLAN),
	W(block, SC_INT, WC_PLAN),
	W(slot, SC_INT, WC_PLAN),
	W(impl, SC_TEXT, WC_PLAN),
	W(rate, SC_REAL, WC_PLAN),
	{ "state", SC_ENUM, offsetof(struct window_row, state), 0, state_names, WC_PLAN | R },
	{ "status", SC_ENUM, offsetof(struct window_row, status), 0, status_names, R },
	W(reasons, SC_TEXT, R),
	W(attempts, SC_INT, 0),
	W(warm, SC_TRI, R),
	W(warmup_s, SC_REAL, R),
	W(warmup_rate, SC_REAL, R),
	W(started_at, SC_REAL, R),
	W(ended_at, SC_REAL, R),
	W(duration_s, SC_REAL, R),
	W(offered_rps, SC_REAL, R),
	W(achieved_rps, SC_REAL, R),
	W(due, SC_I64, R),
	W(sent, SC_I64, R),
	W(completed, SC_I64, R),
	W(dropped, SC_I64, R),
	W(s2xx, SC_I64, R),
	W(s3xx, SC_I64, R),
	W(s4xx, SC_I64, R),
	W(s5xx, SC_I64, R),
	W(s_other, SC_I64, R),
	W(err_connect, SC_I64, R),
	W(err_reset, SC_I64, R),
	W(err_timeout, SC_I64, R),
	W(err_parse, SC_I64, R),
	W(err_other, SC_I64, R),
	W(err_unexpected, SC_I64, R),
	W(protocol, SC_TEXT, R),
	W(bytes_sent, SC_I64, R),
	W(bytes_received, SC_I64, R),
	W(p50_ms, SC_REAL, R),
	W(p90_ms, SC_REAL, R),
	W(p99_ms, SC_REAL, R),
	W(p999_ms, SC_REAL, R),
	W(max_ms, SC_REAL, R),
	W(service_p50_ms, SC_REAL, R),
	W(service_p99_ms, SC_REAL, R),
	W(lateness_p50_ms, SC_REAL, R),
	W(lateness_p99_ms, SC_REAL, R),
	W(lateness_max_ms, SC_REAL, R),
	W(sched_lag_p99_ms, SC_REAL, R),
	W(sched_lag_max_ms, SC_REAL, R),
	W(host_void, SC_I64, R),
	W(latency_hist, SC_BLOB, R | WC_HIST),
	W(service_hist, SC_BLOB, R | WC_HIST),
	W(lateness_hist, SC_BLOB, R | WC_HIST),
	W(gen_cpu_s, SC_REAL, R),
	W(acct_backend, SC_TEXT, R),
	W(cpu_s, SC_REAL, R),
	W(cpu_user_s, SC_REAL, R),
	W(cpu_system_s, SC_REAL, R),
	WH(nr_throttled, has_throttle, R),
	WH(throttled_usec, has_throttle, R),
	W(anon_p50, SC_REAL, R),
	W(anon_p99, SC_REAL, R),
	W(anon_max, SC_REAL, R),
	WH(mem_peak, has_mem_peak, R),
	W(mem_peak_scope, SC_TEXT, R),
	WH(oom, has_oom, R),
	WH(oom_kill, has_oom, R),
	WH(pgmajfault, has_majfault, R),
	W(sampler_cpu_s, SC_REAL, R),
	W(cpu_wait_s, SC_REAL, R),
	W(acct_span_s, SC_REAL, R),
	W(host_held_s, SC_REAL, R),
	W(host_held_max_s, SC_REAL, R),
	W(foreign_cpu_s, SC_REAL, R),
	W(host_held_ref_s, SC_REAL, R),
	W(host_wait_s, SC_REAL, R),
	W(sut_exited, SC_INT, R),
	WH(replaces, has_replaces, WC_PLAN),
};
#undef R

static const struct store_table windows_t = {
	"windows", window_cols, ARRAY_SIZE(window_cols), sizeof(struct window_row),
};

const struct store_table *window_table(void)
{
	return &windows_t;
}

void window_row_init(struct window_row *w)
{
	memset(w, 0, sizeof(*w));
	store_fields_init(&windows_t, w);
	w->state = WINDOW_PLANNED;   /* NOT NULL */
}

void window_row_release(struct window_row *w)
{
	store_fields_release(&windows_t, w);
}

int store_window_insert(struct store *st, struct window_row *w)
{
	struct store_row r;

	store_row_init(&r, "windows");
	store_row_from(&r, &windows_t, WC_PLAN, w);
	return store_row_insert(st, &r, &w->id);
}

int store_window_update(struct store *st, const struct window_row *w)
{
	struct store_row r;

	store_row_init(&r, "windows");
	store_row_from(&r, &windows_t, WC_RESULT, w);
	return store_row_update(st, &r, "id", w->id);
}

int store_window_set_state(struct store *st, int64_t id, enum window_state state, int bump)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "state", window_state_name(state));
	store_row_int(&p, "id", id);
	return store_run_sql(st, bump
		? "UPDATE windows SET state = ?, attempts = attempts + 1 WHERE id = ?"
		: "UPDATE windows SET state = ? WHERE id = ?", &p);
}

int store_windows_unrun(struct store *st, const char *run_id)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	return store_run_sql(st, "UPDATE windows SET state = 'planned'"
				 " WHERE run_id = ? AND state = 'running'", &p);
}

int store_windows_load(struct store *st, const char *run_id, const struct window_query *q,
		       struct window_rows *out)
{
	static const struct window_query all;
	struct sbuf where = SBUF_INIT;
	struct store_row p;
	void *rows;
	int ret;

	if (!q)
		q = &all;
	store_row_init(&p, NULL);
	sbuf_adds(&where, "run_id = ?");
	store_row_text(&p, "run_id", run_id);
	if (q->stage) {
		sbuf_adds(&where, " AND stage = ?");
		store_row_text(&p, "stage", q->stage);
	}
	if (q->impl) {
		sbuf_adds(&where, " AND impl = ?");
		store_row_text(&p, "impl", q->impl);
	}
	if (q->by_block) {
		sbuf_adds(&where, " AND block = ?");
		store_row_int(&p, "block", q->block);
	}
	if (q->done_only)
		sbuf_adds(&where, " AND state = 'done'");
	ret = store_select(st, &windows_t, q->with_hists ? 0 : WC_HIST,
			   where.buf, &p, "id", &rows, &out->n);
	out->v = rows;
	sbuf_release(&where);
	return ret;
}

int store_window_load(struct store *st, int64_t id, int with_hists, struct window_row *out)
{
	struct store_row p;
	void *rows;
	size_t n;

	window_row_init(out);
	store_row_init(&p, NULL);
	store_row_int(&p, "id", id);
	if (store_select(st, &windows_t, with_hists ? 0 : WC_HIST, "id = ?", &p, NULL, &rows, &n))
		return -1;
	if (!n) {
		free(rows);
		return error("%s: no window %lld", st->path, (long long)id);
	}
	/* id is the primary key: one row. */
	*out = *(struct window_row *)rows;
	free(rows);
	return 0;
}

void window_rows_release(struct window_rows *r)
{
	store_rows_free(&windows_t, r->v, r->n);
	r->v = NULL;
	r->n = 0;
}

/* ----------------------------------------------------- a window's series */

#define C(st, col, type) { #col, type, offsetof(struct st, col), 0, NULL, 0 }
#define CH(st, col) { #col, SC_BLOB, offsetof(struct st, col), 0, NULL, WC_HIST }

static const struct store_coldef second_cols[] = {
	C(window_second, window_id, SC_I64),
	C(window_second, phase, SC_TEXT),
	C(window_second, idx, SC_INT),
	C(window_second, rate, SC_REAL),
	C(window_second, due, SC_I64),
	C(window_second, sent, SC_I64),
	C(window_second, completed, SC_I64),
	C(window_second, errors, SC_I64),
	C(window_second, dropped, SC_I64),
	C(window_second, s4xx, SC_I64),
	C(window_second, s5xx, SC_I64),
	C(window_second, s_other, SC_I64),
	C(window_second, unexpected, SC_I64),
	C(window_second, p50_ms, SC_REAL),
	C(window_second, p99_ms, SC_REAL),
	C(window_second, p999_ms, SC_REAL),
	C(window_second, max_ms, SC_REAL),
	C(window_second, lateness_p99_ms, SC_REAL),
	C(window_second, sched_lag_p99_ms, SC_REAL),
	CH(window_second, hist),
};
static const struct store_table seconds_t = {
	"seconds", second_cols, ARRAY_SIZE(second_cols), sizeof(struct window_second),
};

static const struct store_coldef request_cols[] = {
	C(window_request, window_id, SC_I64),
	C(window_request, phase, SC_TEXT),
	C(window_request, name, SC_TEXT),
	C(window_request, sent, SC_I64),
	C(window_request, completed, SC_I64),
	C(window_request, errors, SC_I64),
	C(window_request, unexpected, SC_I64),
	C(window_request, p99_ms, SC_REAL),
	CH(window_request, hist),
};
static const struct store_table requests_t = {
	"window_requests", request_cols, ARRAY_SIZE(request_cols), sizeof(struct window_request),
};

static const struct store_coldef acct_cols[] = {
	C(acct_sample_row, window_id, SC_I64),
	C(acct_sample_row, t_ms, SC_REAL),
	C(acct_sample_row, anon_bytes, SC_REAL),
	C(acct_sample_row, cpu_s, SC_REAL),
};
static const struct store_table acct_t = {
	"acct_samples", acct_cols, ARRAY_SIZE(acct_cols), sizeof(struct acct_sample_row),
};

static const struct store_coldef rtstat_cols[] = {
	C(rtstat_row, window_id, SC_I64),
	C(rtstat_row, phase, SC_TEXT),
	C(rtstat_row, t_s, SC_REAL),
	C(rtstat_row, signal, SC_TEXT),
	C(rtstat_row, key, SC_TEXT),
	C(rtstat_row, value, SC_REAL),
	C(rtstat_row, error, SC_TEXT),
};
static const struct store_table rtstats_t = {
	"rtstats", rtstat_cols, ARRAY_SIZE(rtstat_cols), sizeof(struct rtstat_row),
};

static const struct store_coldef gate_cols[] = {
	C(gate_row, window_id, SC_I64),
	C(gate_row, phase, SC_TEXT),
	C(gate_row, gate, SC_TEXT),
	C(gate_row, status, SC_TEXT),
	C(gate_row, enforced, SC_INT),
	C(gate_row, stat_name, SC_TEXT),
	C(gate_row, statistic, SC_REAL),
	C(gate_row, threshold, SC_REAL),
	C(gate_row, evidence, SC_TEXT),
	C(gate_row, evaluations, SC_TRI),
};
static const struct store_table gates_t = {
	"gate_results", gate_cols, ARRAY_SIZE(gate_cols), sizeof(struct gate_row),
};

static const struct store_coldef event_cols[] = {
	C(event_row, id, SC_I64),
	C(event_row, run_id, SC_TEXT),
	{ "window_id", SC_I64_OPT, offsetof(struct event_row, window_id),
	  offsetof(struct event_row, has_window), NULL, 0 },
	C(event_row, t, SC_REAL),
	C(event_row, kind, SC_TEXT),
	C(event_row, detail, SC_TEXT),
};
static const struct store_table events_t = {
	"events", event_cols, ARRAY_SIZE(event_cols), sizeof(struct event_row),
};

static const struct store_coldef unexpected_cols[] = {
	C(unexpected_row, window_id, SC_I64),
	C(unexpected_row, phase, SC_TEXT),
	C(unexpected_row, seq, SC_INT),
	C(unexpected_row, name, SC_TEXT),
	C(unexpected_row, status, SC_INT),
	C(unexpected_row, why, SC_TEXT),
	C(unexpected_row, body, SC_BLOB),
};
static const struct store_table unexpected_t = {
	"unexpected_samples", unexpected_cols, ARRAY_SIZE(unexpected_cols),
	sizeof(struct unexpected_row),
};

#define CO(st, col, flag) { #col, SC_I64_OPT, offsetof(struct st, col), offsetof(struct st, flag), NULL, 0 }
static const struct store_coldef dep_cols[] = {
	C(window_dep_row, window_id, SC_I64),
	C(window_dep_row, name, SC_TEXT),
	C(window_dep_row, cpus, SC_TEXT),
	C(window_dep_row, ncpus, SC_REAL),
	C(window_dep_row, duration_s, SC_REAL),
	C(window_dep_row, cpu_s, SC_REAL),
	CO(window_dep_row, nr_throttled, has_throttle),
	CO(window_dep_row, throttled_usec, has_throttle),
	CO(window_dep_row, oom_kill, has_oom),
	C(window_dep_row, anon_max, SC_REAL),
	C(window_dep_row, exited, SC_INT),
	C(window_dep_row, demand_rps, SC_REAL),
	C(window_dep_row, ceiling_rps, SC_REAL),
	C(window_dep_row, stats_first_start, SC_REAL),
	C(window_dep_row, stats_first_end, SC_REAL),
	C(window_dep_row, stats_last_start, SC_REAL),
	C(window_dep_row, stats_last_end, SC_REAL),
};
#undef CO
static const struct store_table deps_t = {
	"window_deps", dep_cols, ARRAY_SIZE(dep_cols), sizeof(struct window_dep_row),
};

static const struct store_coldef reset_cols[] = {
	C(window_reset_row, window_id, SC_I64),
	C(window_reset_row, name, SC_TEXT),
	C(window_reset_row, kind, SC_TEXT),
	C(window_reset_row, duration_s, SC_REAL),
	C(window_reset_row, exit_code, SC_INT),
	C(window_reset_row, detail, SC_TEXT),
};
static const struct store_table resets_t = {
	"window_resets", reset_cols, ARRAY_SIZE(reset_cols), sizeof(struct window_reset_row),
};

static const struct store_coldef idle_cols[] = {
	C(window_idle_row, window_id, SC_I64),
	C(window_idle_row, name, SC_TEXT),
	C(window_idle_row, kind, SC_TEXT),
	C(window_idle_row, frozen, SC_TEXT),
	C(window_idle_row, duration_s, SC_REAL),
	C(window_idle_row, cpu_s, SC_REAL),
};
static const struct store_table idle_t = {
	"window_idle", idle_cols, ARRAY_SIZE(idle_cols), sizeof(struct window_idle_row),
};

static const struct store_coldef block_cols[] = {
	C(block_row, run_id, SC_TEXT),
	C(block_row, stage, SC_TEXT),
	C(block_row, rung, SC_INT),
	C(block_row, block, SC_INT),
	C(block_row, rate, SC_REAL),
	C(block_row, order_json, SC_TEXT),
};
static const struct store_table blocks_t = {
	"blocks", block_cols, ARRAY_SIZE(block_cols), sizeof(struct block_row),
};

static int insert(struct store *st, const struct store_table *t, const void *row)
{
	struct store_row r;

	store_row_init(&r, t->name);
	store_row_from(&r, t, 0, row);
	return store_row_insert(st, &r, NULL);
}

int store_block_insert(struct store *st, const struct block_row *b)
{
	return insert(st, &blocks_t, b);
}

int store_second_insert(struct store *st, const struct window_second *r)
{
	return insert(st, &seconds_t, r);
}

int store_request_insert(struct store *st, const struct window_request *r)
{
	return insert(st, &requests_t, r);
}

int store_acct_sample_insert(struct store *st, const struct acct_sample_row *r)
{
	return insert(st, &acct_t, r);
}

int store_rtstat_insert(struct store *st, const struct rtstat_row *r)
{
	return insert(st, &rtstats_t, r);
}

int store_gate_insert(struct store *st, const struct gate_row *r)
{
	return insert(st, &gates_t, r);
}

int store_unexpected_insert(struct store *st, const struct unexpected_row *r)
{
	return insert(st, &unexpected_t, r);
}

int store_window_dep_insert(struct store *st, const struct window_dep_row *r)
{
	return insert(st, &deps_t, r);
}

int store_window_reset_insert(struct store *st, const struct window_reset_row *r)
{
	return insert(st, &resets_t, r);
}

int store_window_idle_insert(struct store *st, const struct window_idle_row *r)
{
	return insert(st, &idle_t, r);
}


/*
 * The rows of a series table for one window (wid >= 0) or for every
 * window of run_id, optionally of one phase. `extra`: a constant condition
 * (or NULL).
 */
static int read_series(struct store *st, const struct store_table *t, const char *run_id,
		       int64_t wid, const char *phase, const char *extra, unsigned skip,
		       const char *order, void **rows, size_t *n)
{
	struct sbuf where = SBUF_INIT;
	struct store_row p;
	int ret;

	store_row_init(&p, NULL);
	if (wid >= 0) {
		sbuf_adds(&where, "window_id = ?");
		store_row_int(&p, "window_id", wid);
	} else {
		sbuf_adds(&where, "window_id IN (SELECT id FROM windows WHERE run_id = ?)");
		store_row_text(&p, "run_id", run_id);
	}
	if (phase) {
		sbuf_adds(&where, " AND phase = ?");
		store_row_text(&p, "phase", phase);
	}
	if (extra)
		sbuf_addf(&where, " AND %s", extra);
	ret = store_select(st, t, skip, where.buf, &p, order, rows, n);
	sbuf_release(&where);
	return ret;
}

int store_seconds_load(struct store *st, const char *run_id, int64_t wid, const char *phase,
		       int with_hists, struct window_seconds *out)
{
	void *rows;
	int ret = read_series(st, &seconds_t, run_id, wid, phase, NULL,
			      with_hists ? 0 : WC_HIST, "window_id, phase, idx", &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_requests_load(struct store *st, int64_t wid, const char *phase,
			struct window_requests *out)
{
	void *rows;
	int ret = read_series(st, &requests_t, NULL, wid, phase, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_acct_samples_load(struct store *st, const char *run_id, int64_t wid,
			    struct acct_samples *out)
{
	void *rows;
	int ret = read_series(st, &acct_t, run_id, wid, NULL, NULL, 0, "window_id, t_ms",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_rtstats_load(struct store *st, int64_t wid, const char *phase,
		       struct rtstat_rows *out)
{
	void *rows;
	int ret = read_series(st, &rtstats_t, NULL, wid, phase, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_gates_load(struct store *st, const char *run_id, int64_t wid,
		     struct gate_rows *out)
{
	void *rows;
	int ret = read_series(st, &gates_t, run_id, wid, NULL, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_events_load(struct store *st, const char *run_id, int64_t wid,
		      struct event_rows *out)
{
	struct store_row p;
	void *rows;
	int ret;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	if (wid >= 0)
		store_row_int(&p, "window_id", wid);
	ret = store_select(st, &events_t, 0, wid >= 0 ? "run_id = ? AND window_id = ?"
			   : "run_id = ?", &p, "id", &rows, &out->n);
	out->v = rows;
	return ret;
}

int store_unexpected_load(struct store *st, int64_t wid, struct unexpected_rows *out)
{
	void *rows;
	int ret = read_series(st, &unexpected_t, NULL, wid, NULL, NULL, 0,
			      "window_id, phase DESC, seq", &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_window_deps_load(struct store *st, const char *run_id, int64_t wid,
			   struct window_dep_rows *out)
{
	void *rows;
	int ret = read_series(st, &deps_t, run_id, wid, NULL, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_window_resets_load(struct store *st, const char *run_id, int64_t wid,
			     struct window_reset_rows *out)
{
	void *rows;
	int ret = read_series(st, &resets_t, run_id, wid, NULL, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

int store_window_idle_load(struct store *st, const char *run_id, int64_t wid,
			   struct window_idle_rows *out)
{
	void *rows;
	int ret = read_series(st, &idle_t, run_id, wid, NULL, NULL, 0, "window_id, rowid",
			      &rows, &out->n);

	out->v = rows;
	return ret;
}

const struct store_table *store_window_table(const char *name)
{
	static const struct store_table *const all[] = {
		&windows_t, &blocks_t, &seconds_t, &requests_t, &acct_t, &rtstats_t,
		&gates_t, &events_t, &unexpected_t, &deps_t, &resets_t, &idle_t,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

#define RELEASE(fn, type, table)                        \
	void fn(type *r)                                \
	{                                               \
		store_rows_free(&table, r->v, r->n);    \
		r->v = NULL;                            \
		r->n = 0;                               \
	}
RELEASE(window_seconds_release, struct window_seconds, seconds_t)
RELEASE(window_requests_release, struct window_requests, requests_t)
RELEASE(acct_samples_release, struct acct_samples, acct_t)
RELEASE(rtstat_rows_release, struct rtstat_rows, rtstats_t)
RELEASE(gate_rows_release, struct gate_rows, gates_t)
RELEASE(event_rows_release, struct event_rows, events_t)
RELEASE(unexpected_rows_release, struct unexpected_rows, unexpected_t)
RELEASE(window_dep_rows_release, struct window_dep_rows, deps_t)
RELEASE(window_reset_rows_release, struct window_reset_rows, resets_t)
RELEASE(window_idle_rows_release, struct window_idle_rows, idle_t)
