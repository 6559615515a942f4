/* store_footprint: the footprint table (store_footprint.h). */
#include "store/store_footprint.h"

#include <stddef.h>

#include "base/util.h"

#define C(col, type) { #col, type, offsetof(struct footprint_row, col), 0, NULL, 0 }

/* id is read back, never written: the database numbers the rows. */
#define FP_READ_ONLY 1u
#define FP_WRITE 2u

static const struct store_coldef cols[] = {
	{ "id", SC_I64, offsetof(struct footprint_row, id), 0, NULL, FP_READ_ONLY },
	{ "run_id", SC_TEXT, offsetof(struct footprint_row, run_id), 0, NULL, FP_WRITE },
	{ "impl", SC_TEXT, offsetof(struct footprint_row, impl), 0, NULL, FP_WRITE },
	{ "at", SC_REAL, offsetof(struct footprint_row, at), 0, NULL, FP_WRITE },
	{ "startup_ms", SC_REAL, offsetof(struct footprint_row, startup_ms), 0, NULL, FP_WRITE },
	{ "rss_kb", SC_I64, offsetof(struct footprint_row, rss_kb), 0, NULL, FP_WRITE },
	{ "pss_kb", SC_I64, offsetof(struct footprint_row, pss_kb), 0, NULL, FP_WRITE },
	{ "artifact_bytes", SC_I64, offsetof(struct footprint_row, artifact_bytes), 0, NULL, FP_WRITE },
};
static const struct store_table table = {
	"footprint", cols, ARRAY_SIZE(cols), sizeof(struct footprint_row),
};

int store_footprint_add(struct store *st, const struct footprint_row *r)
{
	struct store_row row;

	store_row_init(&row, table.name);
	store_row_from(&row, &table, FP_WRITE, r);
	return store_row_upsert(st, &row);
}

int store_footprint_load(struct store *st, const char *run_id, struct footprint_row **out,
			 size_t *n)
{
	struct store_row p;

	store_row_init(&p, NULL);
	store_row_text(&p, "run_id", run_id);
	return store_select(st, &table, 0, "run_id = ?", &p, "impl, at, id", (void **)out, n);
}

void footprint_rows_free(struct footprint_row *v, size_t n)
{
	store_rows_free(&table, v, n);
}

const struct store_table *store_footprint_table(void)
{
	return &table;
}
