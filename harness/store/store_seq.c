/* store_seq: the sequential and sequential_metrics tables (store_seq.h). */
#include "store/store_seq.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define C(st, col, type) { #col, type, offsetof(struct st, col), 0, NULL, 0 }

static const struct store_coldef rule_cols[] = {
	C(seq_rule, run_id, SC_TEXT),
	C(seq_rule, impl, SC_TEXT),
	C(seq_rule, alpha, SC_REAL),
	C(seq_rule, t_star, SC_REAL),
	C(seq_rule, margin_pct, SC_REAL),
	C(seq_rule, margin_ms, SC_REAL),
	C(seq_rule, margin_cpu_us, SC_REAL),
	C(seq_rule, max_minutes, SC_REAL),
	C(seq_rule, max_blocks, SC_INT),
	C(seq_rule, started_at, SC_REAL),
	C(seq_rule, rates, SC_TEXT),
	C(seq_rule, outcome, SC_TEXT),
	C(seq_rule, stop, SC_TEXT),
	C(seq_rule, blocks, SC_INT),
	C(seq_rule, rounds, SC_INT),
	C(seq_rule, elapsed_s, SC_REAL),
	C(seq_rule, method, SC_TEXT),
	C(seq_rule, guard, SC_TEXT),
	C(seq_rule, margin_rule, SC_TEXT),
};
static const struct store_table rules_t = {
	"sequential", rule_cols, ARRAY_SIZE(rule_cols), sizeof(struct seq_rule),
};

static const struct store_coldef metric_cols[] = {
	C(seq_metric, run_id, SC_TEXT),
	C(seq_metric, impl, SC_TEXT),
	C(seq_metric, metric, SC_TEXT),
	C(seq_metric, verdict, SC_TEXT),
	C(seq_metric, rounds, SC_INT),
	C(seq_metric, est_pct, SC_REAL),
	C(seq_metric, lo_pct, SC_REAL),
	C(seq_metric, hi_pct, SC_REAL),
	C(seq_metric, margin_pct, SC_REAL),
	C(seq_metric, mde_pct, SC_REAL),
	C(seq_metric, need_s, SC_REAL),
};
static const struct store_table metrics_t = {
	"sequential_metrics", metric_cols, ARRAY_SIZE(metric_cols), sizeof(struct seq_metric),
};

static int put(struct store *st, const struct store_table *t, const void *row)
{
	struct store_row r;

	store_row_init(&r, t->name);
	store_row_from(&r, t, 0, row);
	return store_row_upsert(st, &r);
}

static int load(struct store *st, const struct store_table *t, const char *run_id,
		const char *order, void **out, size_t *n)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	return store_select(st, t, 0, "run_id = ?", &p, order, out, n);
}

int store_seq_rule_put(struct store *st, const struct seq_rule *r)
{
	return put(st, &rules_t, r);
}

int store_seq_rules_load(struct store *st, const char *run_id, struct seq_rule **out,
			 size_t *n)
{
	return load(st, &rules_t, run_id, "impl", (void **)out, n);
}

void seq_rules_free(struct seq_rule *v, size_t n)
{
	store_rows_free(&rules_t, v, n);
}

int store_seq_metric_put(struct store *st, const struct seq_metric *m)
{
	return put(st, &metrics_t, m);
}

int store_seq_metrics_load(struct store *st, const char *run_id, struct seq_metric **out,
			   size_t *n)
{
	return load(st, &metrics_t, run_id, "impl, metric", (void **)out, n);
}

void seq_metrics_free(struct seq_metric *v, size_t n)
{
	store_rows_free(&metrics_t, v, n);
}

const struct store_table *store_seq_table(const char *name)
{
	if (!strcmp(name, rules_t.name))
		return &rules_t;
	if (!strcmp(name, metrics_t.name))
		return &metrics_t;
	return NULL;
}
