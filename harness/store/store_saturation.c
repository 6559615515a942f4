/* store_saturation: the saturation table (store_saturation.h). */
#include "store/store_saturation.h"

#include <stddef.h>

#include "base/util.h"

#define C(col, type) { #col, type, offsetof(struct saturation_row, col), 0, NULL, 0 }

static const struct store_coldef cols[] = {
	C(run_id, SC_TEXT),
	C(impl, SC_TEXT),
	C(rep, SC_INT),
	C(connections, SC_INT),
	C(elapsed_s, SC_REAL),
	C(requests, SC_I64),
	C(errors, SC_I64),
	C(throughput_rps, SC_REAL),
	C(p50_ms, SC_REAL),
	C(p90_ms, SC_REAL),
	C(p99_ms, SC_REAL),
	C(p999_ms, SC_REAL),
	C(max_ms, SC_REAL),
	C(cpu_s, SC_REAL),
	C(gen_cpu_pct, SC_REAL),
	C(exited, SC_INT),
	C(hist, SC_BLOB),
};
static const struct store_table table = {
	"saturation", cols, ARRAY_SIZE(cols), sizeof(struct saturation_row),
};

int store_saturation_put(struct store *st, const struct saturation_row *r)
{
	struct store_row row;

	store_row_init(&row, table.name);
	store_row_from(&row, &table, 0, r);
	return store_row_upsert(st, &row);
}

int store_saturation_load(struct store *st, const char *run_id, struct saturation_row **out,
			  size_t *n)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	return store_select(st, &table, 0, "run_id = ?", &p, "impl, rep", (void **)out, n);
}

void saturation_rows_free(struct saturation_row *v, size_t n)
{
	store_rows_free(&table, v, n);
}

const struct store_table *store_saturation_table(void)
{
	return &table;
}
