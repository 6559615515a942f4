/*
 * test_store: the read model round trip. A window written through the
 * runner's writer (store_window_insert + store_window_update, the column
 * list) reads back through store_windows_load field by field, every column
 * of the list; NULL columns read back as NAN / NULL / -1 / absent; the
 * runs and impls rows round-trip through run_record_load; a database with
 * no run, or a stored spec of zero bytes, is an error, never "no rows".
 */
#include "t.h"
#include "model/evidence.h"
#include "model/evidence_load.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_footprint.h"
#include "store/store_saturation.h"
#include "store/store_dep.h"
#include "store/store_seq.h"
#include "store/store_sql.h"
#include "store/store_window.h"
#include "base/util.h"

#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpl[] = "/tmp/test_store.XXXXXX";
static char *root;

#define AT(p, off, type) ((type *)((char *)(p) + (off)))

static int open_db(struct store *st, const char *name)
{
	struct sbuf p = SBUF_INIT;
	int ret;

	sbuf_addf(&p, "%s/%s.db", root, name);
	ret = store_open(st, p.buf, 1);
	sbuf_release(&p);
	return ret;
}

/* Give column i of the list a value no other column has. */
static void fill(const struct store_table *t, void *row)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		const struct store_coldef *c = &t->cols[i];
		struct sbuf sb = SBUF_INIT;

		switch (c->type) {
		case SC_INT: case SC_TRI: *AT(row, c->off, int) = (int)i + 1; break;
		case SC_I64: *AT(row, c->off, int64_t) = 1000000000000LL + (int64_t)i; break;
		case SC_I64_OPT:
			*AT(row, c->off, int64_t) = 2000000000000LL + (int64_t)i;
			*AT(row, c->has, int) = 1;
			break;
		case SC_REAL: *AT(row, c->off, double) = (double)i + 0.25; break;
		case SC_TEXT:
			sbuf_addf(&sb, "text of %s", c->name);
			*AT(row, c->off, char *) = sbuf_detach(&sb, NULL);
			break;
		case SC_BLOB:
			sbuf_addf(&sb, "%c%cblob %s", 0, (char)i, c->name);
			AT(row, c->off, struct store_blob)->p =
				(unsigned char *)sbuf_detach(&sb, &AT(row, c->off, struct store_blob)->len);
			break;
		case SC_ENUM: *AT(row, c->off, int) = 1; break;
		}
	}
}

/* Column c of a and b hold the same value; names the column if not. */
static int same(const struct store_coldef *c, const void *a, const void *b)
{
	const struct store_blob *x, *y;
	const char *s, *u;
	double d, e;

	switch (c->type) {
	case SC_INT: case SC_TRI: case SC_ENUM:
		return *AT(a, c->off, const int) == *AT(b, c->off, const int);
	case SC_I64:
		return *AT(a, c->off, const int64_t) == *AT(b, c->off, const int64_t);
	case SC_I64_OPT:
		return *AT(a, c->has, const int) == *AT(b, c->has, const int) &&
		       *AT(a, c->off, const int64_t) == *AT(b, c->off, const int64_t);
	case SC_REAL:
		d = *AT(a, c->off, const double);
		e = *AT(b, c->off, const double);
		return d == e || (isnan(d) && isnan(e));
	case SC_TEXT:
		s = *AT(a, c->off, char *const);
		u = *AT(b, c->off, char *const);
		return (!s && !u) || (s && u && !strcmp(s, u));
	case SC_BLOB:
		x = AT(a, c->off, const struct store_blob);
		y = AT(b, c->off, const struct store_blob);
		return (!x->p && !y->p) ||
		       (x->p && y->p && x->len == y->len && !memcmp(x->p, y->p, x->len));
	}
	return 0;
}

static void check_columns(const struct store_table *t, const void *want, const void *got,
			  const char *skip1, const char *skip2)
{
	size_t i;

	for (i = 0; i < t->ncols; i++) {
		if ((skip1 && !strcmp(t->cols[i].name, skip1)) ||
		    (skip2 && !strcmp(t->cols[i].name, skip2)))
			continue;
		if (!same(&t->cols[i], want, got)) {
			printf("#   %s.%s does not read back as written\n", t->name, t->cols[i].name);
			t_cur_failed = 1;
		}
	}
}

static void insert_run(struct store *st, const char *id)
{
	struct run_record r;

	run_record_init(&r);
	r.id = xstrdup(id);
	r.spec_name = xstrdup("n");
	r.spec_path = xstrdup("s.yaml");
	r.spec_text.p = (unsigned char *)xstrdup("version: 1\n");
	r.spec_text.len = 11;
	r.spec_hash = xstrdup("h");
	r.stages = xstrdup("ladder");
	r.created_at = 1;
	r.status = xstrdup("running");
	r.harness_version = xstrdup("v");
	CHECK(store_run_insert(st, &r) == 0);
	run_record_release(&r);
}

TEST(window_round_trip_every_column)
{
	const struct store_table *t = window_table();
	struct store st;
	struct window_row w, back;
	struct window_rows rows;
	struct window_query q = { .stage = NULL, .with_hists = 1 };

	CHECK(open_db(&st, "w") == 0);
	insert_run(&st, "r1");
	window_row_init(&w);
	fill(t, &w);
	free(w.run_id);
	w.run_id = xstrdup("r1");
	w.attempts = 0;          /* written by store_window_set_state only */
	w.state = WINDOW_DONE;
	w.status = WINDOW_FAILED;
	CHECK(store_window_insert(&st, &w) == 0);
	CHECK(w.id > 0);
	CHECK(store_window_update(&st, &w) == 0);
	CHECK(store_windows_load(&st, "r1", &q, &rows) == 0);
	CHECK(rows.n == 1);
	if (rows.n == 1) {
		check_columns(t, &w, &rows.v[0], NULL, NULL);
		CHECK(rows.v[0].status == WINDOW_FAILED);
		CHECK(rows.v[0].has_throttle && rows.v[0].has_oom && rows.v[0].has_majfault);
	}
	window_rows_release(&rows);
	/* Without histograms: the same but the three blobs. */
	q.with_hists = 0;
	CHECK(store_window_load(&st, w.id, 0, &back) == 0);
	CHECK(back.latency_hist.p == NULL && back.service_hist.p == NULL);
	CHECK_STR(back.impl, w.impl);
	NEAR(back.p99_ms, w.p99_ms, 0, "stored as a double");
	window_row_release(&back);
	/* attempts: bumped with the state, never by the writer. */
	CHECK(store_window_set_state(&st, w.id, WINDOW_RUNNING, 1) == 0);
	CHECK(store_window_load(&st, w.id, 0, &back) == 0);
	CHECK(back.attempts == 1 && back.state == WINDOW_RUNNING);
	window_row_release(&back);
	CHECK(store_windows_unrun(&st, "r1") == 0);
	CHECK(store_window_load(&st, w.id, 0, &back) == 0);
	CHECK(back.state == WINDOW_PLANNED);
	window_row_release(&back);
	window_row_release(&w);
	store_close(&st);
}

TEST(window_nulls_read_as_absent)
{
	struct store st;
	struct window_row w, back;

	CHECK(open_db(&st, "n") == 0);
	insert_run(&st, "r1");
	window_row_init(&w);
	w.run_id = xstrdup("r1");
	w.stage = xstrdup("soak");
	w.rung = -1;
	w.impl = xstrdup("a");
	w.rate = 100;
	CHECK(store_window_insert(&st, &w) == 0);
	CHECK(store_window_load(&st, w.id, 1, &back) == 0);
	check_columns(window_table(), &w, &back, "id", NULL);
	CHECK(back.rung == -1);
	CHECK(back.status == WINDOW_STATUS_NONE && back.state == WINDOW_PLANNED);
	CHECK(isnan(back.p99_ms) && isnan(back.cpu_s) && isnan(back.started_at));
	CHECK(back.reasons == NULL && back.acct_backend == NULL && back.latency_hist.p == NULL);
	CHECK(back.warm == -1 && !back.has_throttle && !back.has_oom && !back.has_mem_peak);
	window_row_release(&back);
	window_row_release(&w);
	CHECK(store_window_load(&st, 9999, 0, &back) == -1);   /* no such window */
	window_row_release(&back);
	store_close(&st);
}

TEST(series_round_trip)
{
	struct store st;
	struct window_row w;
	struct window_second sec;
	struct gate_row g;
	struct window_seconds secs;
	struct gate_rows gates;

	CHECK(open_db(&st, "s") == 0);
	insert_run(&st, "r1");
	window_row_init(&w);
	w.run_id = xstrdup("r1");
	w.stage = xstrdup("ladder");
	w.impl = xstrdup("a");
	w.rate = 100;
	CHECK(store_window_insert(&st, &w) == 0);
	memset(&sec, 0, sizeof(sec));
	sec.window_id = w.id;
	sec.phase = "measured";
	sec.idx = 3;
	sec.p99_ms = 4.5;
	sec.p50_ms = NAN;
	sec.hist.p = (unsigned char *)"\1\2";
	sec.hist.len = 2;
	CHECK(store_second_insert(&st, &sec) == 0);
	memset(&g, 0, sizeof(g));
	g.window_id = w.id;
	g.phase = "window";
	g.gate = "error_rate";
	g.status = "fail";
	g.enforced = 1;
	g.statistic = 0.5;
	g.threshold = NAN;
	g.evaluations = 1;
	CHECK(store_gate_insert(&st, &g) == 0);
	CHECK(store_seconds_load(&st, "r1", -1, "measured", 1, &secs) == 0);
	CHECK(secs.n == 1);
	if (secs.n == 1) {
		CHECK(secs.v[0].idx == 3 && secs.v[0].window_id == w.id);
		NEAR(secs.v[0].p99_ms, 4.5, 0, "stored as a double");
		CHECK(isnan(secs.v[0].p50_ms));
		CHECK(secs.v[0].hist.len == 2 && secs.v[0].hist.p[1] == 2);
	}
	window_seconds_release(&secs);
	CHECK(store_gates_load(&st, NULL, w.id, &gates) == 0);
	CHECK(gates.n == 1);
	if (gates.n == 1) {
		CHECK_STR(gates.v[0].gate, "error_rate");
		CHECK(isnan(gates.v[0].threshold) && gates.v[0].evaluations == 1);
	}
	gate_rows_release(&gates);
	window_row_release(&w);
	store_close(&st);
}

/* The sequential rerun's rule and metrics: every column written is read
 * back, a put replaces the row (run_id, impl[, metric]). */
TEST(seq_round_trip)
{
	struct store st;
	struct seq_rule r, *back = NULL;
	struct seq_metric m, *mback = NULL;
	size_t n = 0;

	struct run_record run;

	CHECK(open_db(&st, "seq") == 0);
	run_record_init(&run);
	fill(run_table(), &run);
	free(run.id);
	run.id = xstrdup("r1");
	CHECK(store_run_insert(&st, &run) == 0);
	run_record_release(&run);
	CHECK(store_seq_rules_load(&st, "r1", &back, &n) == 0 && n == 0);
	memset(&r, 0, sizeof(r));
	fill(store_seq_table("sequential"), &r);
	free(r.run_id);
	r.run_id = xstrdup("r1");
	CHECK(store_seq_rule_put(&st, &r) == 0);
	free(r.outcome);
	r.outcome = xstrdup("no change");
	CHECK(store_seq_rule_put(&st, &r) == 0);
	CHECK(store_seq_rules_load(&st, "r1", &back, &n) == 0 && n == 1);
	if (n == 1)
		check_columns(store_seq_table("sequential"), &r, back, NULL, NULL);
	seq_rules_free(back, n);
	memset(&m, 0, sizeof(m));
	fill(store_seq_table("sequential_metrics"), &m);
	free(m.run_id);
	m.run_id = xstrdup("r1");
	CHECK(store_seq_metric_put(&st, &m) == 0);
	CHECK(store_seq_metrics_load(&st, "r1", &mback, &n) == 0 && n == 1);
	if (n == 1)
		check_columns(store_seq_table("sequential_metrics"), &m, mback, NULL, NULL);
	seq_metrics_free(mback, n);
	store_fields_release(store_seq_table("sequential"), &r);
	store_fields_release(store_seq_table("sequential_metrics"), &m);
	store_close(&st);
}

TEST(run_record_round_trip)
{
	struct store st;
	struct run_record r, back;
	struct run_impl im;
	struct host_fact f = { "r9", "kernel", "6.1" };
	const char *text;
	size_t len;

	CHECK(open_db(&st, "r") == 0);
	CHECK(run_record_load(&st, NULL, &back) == -1);   /* database holds no run */
	run_record_release(&back);
	run_record_init(&r);
	fill(run_table(), &r);
	free(r.id);
	r.id = xstrdup("r9");
	CHECK(store_run_insert(&st, &r) == 0);
	run_impl_init(&im);
	fill(run_impl_table(), &im);
	free(im.run_id);
	im.run_id = xstrdup("r9");
	CHECK(store_impl_insert(&st, &im) == 0);
	CHECK(store_host_fact_upsert(&st, &f) == 0);
	CHECK(run_record_load(&st, NULL, &back) == 0);
	check_columns(run_table(), &r, &back, NULL, NULL);
	CHECK(back.nimpls == 1 && back.nhost == 1);
	if (back.nimpls == 1)
		check_columns(run_impl_table(), &im, &back.impls[0], NULL, NULL);
	if (back.nhost == 1)
		CHECK_STR(back.host[0].value, "6.1");
	CHECK(run_record_impl(&back, im.name) == &back.impls[0]);
	CHECK(run_record_spec(&back, "x", &text, &len) == 0 && len == r.spec_text.len);
	run_record_release(&back);
	CHECK(run_record_load(&st, "nope", &back) == -1);
	run_record_release(&back);
	/* A zero-length stored spec is an error, never handed to a parser. */
	free(r.spec_text.p);
	r.spec_text.p = xmalloc(1);
	r.spec_text.len = 0;
	CHECK(run_record_spec(&r, "x", &text, &len) == -1);
	CHECK(store_impl_set_knee(&st, "r9", im.name, 123.5, 1, "bracket", 100, 123.5,
				  "at 123.5 req/s every valid window failed") == 0);
	CHECK(run_record_load(&st, "r9", &back) == 0);
	if (back.nimpls == 1) {
		CHECK(back.impls[0].knee_rps == 123.5 && back.impls[0].knee_crossed == 1);
		CHECK_STR(back.impls[0].knee_kind, "bracket");
		CHECK(back.impls[0].knee_lo_rps == 100 && back.impls[0].knee_hi_rps == 123.5);
		CHECK_STR(back.impls[0].knee_reason, "at 123.5 req/s every valid window failed");
	}
	run_record_release(&back);
	run_impl_release(&im);
	run_record_release(&r);
	store_close(&st);
}

/* The evidence a window gate saw live, written through the runner's map
 * (evidence_to_window_row) and read back by audit --recheck's
 * (evidence_load): the same numbers, so a recheck cannot drift. */
TEST(evidence_round_trip)
{
	struct store st;
	struct evidence e, back;
	struct window_row w;
	int k;

	CHECK(open_db(&st, "e") == 0);
	insert_run(&st, "r1");
	evidence_init(&e, GATE_PHASE_WINDOW);
	e.duration_s = 3;
	e.offered_rps = 200;
	e.achieved_rps = 198.5;
	e.due = 600;
	e.sent = 599;
	e.completed = 590;
	e.dropped = 1;
	for (k = 0; k < ST_CLASSES; k++)
		e.status[k] = 100 + (uint64_t)k;
	e.status_other = 7;
	e.lateness_p99_ms = 0.75;
	e.generator_cpu_s = 0.125;
	e.acct_backend = xstrdup("procfs");
	e.has_throttle = 1;
	e.nr_throttled = 4;
	e.throttled_usec = 5000;
	e.has_oom = 1;
	e.oom_events = 2;
	e.oom_kills = 1;
	e.has_majfault = 1;
	e.major_faults = 9;
	e.sut_exited = 1;
	window_row_init(&w);
	w.run_id = xstrdup("r1");
	w.stage = xstrdup("ladder");
	w.impl = xstrdup("a");
	w.rate = 200;
	CHECK(store_window_insert(&st, &w) == 0);
	evidence_to_window_row(&e, &w);
	w.err_connect = 3;     /* the evidence holds the transport errors' sum */
	w.err_timeout = 2;
	w.state = WINDOW_DONE;
	w.status = WINDOW_FAILED;
	CHECK(store_window_update(&st, &w) == 0);
	CHECK(evidence_load(&st, w.id, GATE_PHASE_WINDOW, &back) == 0);
	CHECK(back.duration_s == 3 && back.offered_rps == 200 && back.achieved_rps == 198.5);
	CHECK(back.due == 600 && back.sent == 599 && back.completed == 590 && back.dropped == 1);
	for (k = 0; k < ST_CLASSES; k++)
		CHECK(back.status[k] == 100 + (uint64_t)k);
	CHECK(back.status_other == 7 && back.errors == 5);
	CHECK(back.lateness_p99_ms == 0.75 && back.generator_cpu_s == 0.125);
	CHECK_STR(back.acct_backend, "procfs");
	CHECK(back.has_throttle && back.nr_throttled == 4 && back.throttled_usec == 5000);
	CHECK(back.has_oom && back.oom_events == 2 && back.oom_kills == 1);
	CHECK(back.has_majfault && back.major_faults == 9 && back.sut_exited == 1);
	evidence_release(&back);
	/* Without accounting: the flags read back absent. */
	e.has_throttle = e.has_oom = e.has_majfault = 0;
	free(e.acct_backend);
	e.acct_backend = NULL;
	evidence_to_window_row(&e, &w);
	CHECK(store_window_update(&st, &w) == 0);
	CHECK(evidence_load(&st, w.id, GATE_PHASE_WINDOW, &back) == 0);
	CHECK(!back.has_throttle && !back.has_oom && !back.has_majfault && !back.acct_backend);
	evidence_release(&back);
	evidence_release(&e);
	window_row_release(&w);
	store_close(&st);
}

/* The closed loop's rows and the footprint's (schema 14): every column
 * written is read back; a saturation put replaces (run_id, impl, rep);
 * footprint rows accumulate, numbered by the database. */
TEST(saturation_footprint_round_trip)
{
	struct store st;
	struct saturation_row s, *sback = NULL;
	struct footprint_row f, *fback = NULL;
	size_t n = 0;

	CHECK(open_db(&st, "story") == 0);
	insert_run(&st, "r1");
	memset(&s, 0, sizeof(s));
	fill(store_saturation_table(), &s);
	free(s.run_id);
	s.run_id = xstrdup("r1");
	CHECK(store_saturation_put(&st, &s) == 0);
	CHECK(store_saturation_put(&st, &s) == 0);
	CHECK(store_saturation_load(&st, "r1", &sback, &n) == 0 && n == 1);
	if (n == 1)
		check_columns(store_saturation_table(), &s, sback, NULL, NULL);
	saturation_rows_free(sback, n);
	memset(&f, 0, sizeof(f));
	fill(store_footprint_table(), &f);
	free(f.run_id);
	f.run_id = xstrdup("r1");
	CHECK(store_footprint_add(&st, &f) == 0);
	CHECK(store_footprint_add(&st, &f) == 0);
	CHECK(store_footprint_load(&st, "r1", &fback, &n) == 0 && n == 2);
	if (n == 2) {
		check_columns(store_footprint_table(), &f, &fback[1], "id", NULL);
		CHECK(fback[0].id != fback[1].id);
	}
	footprint_rows_free(fback, n);
	store_fields_release(store_saturation_table(), &s);
	store_fields_release(store_footprint_table(), &f);
	store_close(&st);
}

/* Every column of every table of the schema (all migrations) is in one
 * column list, and every list entry is a column: a migration that adds a
 * column without its list entry (or the reverse) fails here. */
TEST(column_lists_cover_the_schema)
{
	struct store st;
	sqlite3_stmt *t, *c;
	int tables = 0;

	CHECK(open_db(&st, "schema") == 0);
	t = store_prepare(&st, "SELECT name FROM sqlite_master WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%' ORDER BY name");
	CHECK(t != NULL);
	while (t && sqlite3_step(t) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(t, 0);
		const struct store_table *list = store_window_table(name);
		size_t i, ncols = 0;

		if (!list)
			list = store_run_table(name);
		if (!list)
			list = store_seq_table(name);
		if (!list && !strcmp(name, "saturation"))
			list = store_saturation_table();
		if (!list && !strcmp(name, "footprint"))
			list = store_footprint_table();
		if (!list)
			list = store_dep_table(name);
		tables++;
		if (!list) {
			printf("#   table %s has no column list\n", name);
			t_cur_failed = 1;
			continue;
		}
		c = store_prepare(&st, "SELECT name FROM pragma_table_info(?)");
		if (c)
			sqlite3_bind_text(c, 1, name, -1, SQLITE_STATIC);
		while (c && sqlite3_step(c) == SQLITE_ROW) {
			const char *col = (const char *)sqlite3_column_text(c, 0);

			for (i = 0; i < list->ncols && strcmp(list->cols[i].name, col); i++)
				;
			if (i == list->ncols) {
				printf("#   %s.%s is not in its column list\n", name, col);
				t_cur_failed = 1;
			}
			ncols++;
		}
		sqlite3_finalize(c);
		if (ncols != list->ncols) {
			printf("#   %s: %zu columns, %zu in its list\n", name, ncols, list->ncols);
			t_cur_failed = 1;
		}
	}
	sqlite3_finalize(t);
	CHECK(tables >= 12);
	store_close(&st);
}

TEST(status_names)
{
	enum window_status s;

	CHECK(window_status_parse("failed", &s) == 0 && s == WINDOW_FAILED);
	CHECK(window_status_parse("accepted", &s) == 0 && s == WINDOW_ACCEPTED);
	CHECK(window_status_parse("rejected", &s) == 0 && s == WINDOW_REJECTED);
	CHECK(window_status_parse(NULL, &s) == -1);
	CHECK(window_status_parse("maybe", &s) == -1);
	CHECK_STR(window_status_name(WINDOW_FAILED), "failed");
	CHECK_STR(window_status_name(WINDOW_STATUS_NONE), "");
}

int main(void)
{
	root = mkdtemp(tmpl);
	if (!root)
		return 1;
	RUN(window_round_trip_every_column);
	RUN(window_nulls_read_as_absent);
	RUN(series_round_trip);
	RUN(run_record_round_trip);
	RUN(evidence_round_trip);
	RUN(saturation_footprint_round_trip);
	RUN(column_lists_cover_the_schema);
	RUN(seq_round_trip);
	RUN(status_names);
	t_rm_rf(root);
	return t_done();
}
