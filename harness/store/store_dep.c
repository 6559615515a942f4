/*
 * store_dep: the dep_ceiling and window_dep_stats tables (store_dep.h),
 * described as column lists like store_window.c's.
 */
#include "store/store_dep.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "base/util.h"

#define C(st, col, type) { #col, type, offsetof(struct st, col), 0, NULL, 0 }

static const struct store_coldef ceiling_cols[] = {
	C(dep_ceiling_row, run_id, SC_TEXT),
	C(dep_ceiling_row, name, SC_TEXT),
	C(dep_ceiling_row, idx, SC_INT),
	C(dep_ceiling_row, rate, SC_REAL),
	C(dep_ceiling_row, duration_s, SC_REAL),
	C(dep_ceiling_row, throughput, SC_REAL),
	C(dep_ceiling_row, demand_rps, SC_REAL),
	C(dep_ceiling_row, kept_up, SC_INT),
	C(dep_ceiling_row, exit_code, SC_INT),
};
static const struct store_table ceiling_t = {
	"dep_ceiling", ceiling_cols, ARRAY_SIZE(ceiling_cols), sizeof(struct dep_ceiling_row),
};

static const struct store_coldef stat_cols[] = {
	C(window_dep_stat_row, window_id, SC_I64),
	C(window_dep_stat_row, name, SC_TEXT),
	C(window_dep_stat_row, key, SC_TEXT),
	C(window_dep_stat_row, first, SC_REAL),
	C(window_dep_stat_row, last, SC_REAL),
};
static const struct store_table stat_t = {
	"window_dep_stats", stat_cols, ARRAY_SIZE(stat_cols), sizeof(struct window_dep_stat_row),
};

static int insert(struct store *st, const struct store_table *t, const void *row)
{
	struct store_row r;

	store_row_init(&r, t->name);
	store_row_from(&r, t, 0, row);
	return store_row_insert(st, &r, NULL);
}

int store_dep_ceiling_insert(struct store *st, const struct dep_ceiling_row *r)
{
	return insert(st, &ceiling_t, r);
}

int store_window_dep_stat_insert(struct store *st, const struct window_dep_stat_row *r)
{
	return insert(st, &stat_t, r);
}

int store_dep_ceilings_load(struct store *st, const char *run_id, const char *name,
			    struct dep_ceiling_rows *out)
{
	struct store_row p;
	void *rows = NULL;
	int ret;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	if (name)
		store_row_text(&p, "name", name);
	ret = store_select(st, &ceiling_t, 0, name ? "run_id = ? AND name = ?" : "run_id = ?", &p,
			   "name, idx", &rows, &out->n);
	out->v = rows;
	return ret;
}

int store_dep_ceilings_delete(struct store *st, const char *run_id, const char *name)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	store_row_text(&p, "name", name);
	return store_run_sql(st, "DELETE FROM dep_ceiling WHERE run_id = ? AND name = ?", &p);
}

int store_window_dep_stats_load(struct store *st, const char *run_id,
				struct window_dep_stat_rows *out)
{
	struct store_row p;
	void *rows = NULL;
	int ret;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	ret = store_select(st, &stat_t, 0, "window_id IN (SELECT id FROM windows WHERE run_id = ?)",
			   &p, "window_id, name, key", &rows, &out->n);
	out->v = rows;
	return ret;
}

void dep_ceiling_rows_release(struct dep_ceiling_rows *r)
{
	store_rows_free(&ceiling_t, r->v, r->n);
	r->v = NULL;
	r->n = 0;
}

void window_dep_stat_rows_release(struct window_dep_stat_rows *r)
{
	store_rows_free(&stat_t, r->v, r->n);
	r->v = NULL;
	r->n = 0;
}

const struct store_table *store_dep_table(const char *name)
{
	if (!strcmp(name, ceiling_t.name))
		return &ceiling_t;
	if (!strcmp(name, stat_t.name))
		return &stat_t;
	return NULL;
}
