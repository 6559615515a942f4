/* cells: windows grouped by stage x rate x implementation (cells.h). */
#include "model/cells.h"

#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "store/store_window.h"
#include "base/util.h"

void cells_init(struct cells *c)
{
	memset(c, 0, sizeof(*c));
}

void cells_release(struct cells *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].stage);
		free(c->v[i].impl);
	}
	free(c->v);
	cells_init(c);
}

const struct cell *cells_find(const struct cells *c, const char *stage, const char *impl,
			      double rate)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].stage, stage) && !strcmp(c->v[i].impl, impl) &&
		    rate_same(c->v[i].rate, rate))
			return &c->v[i];
	return NULL;
}

static struct cell *cell_get(struct cells *c, const char *stage, const char *impl, double rate)
{
	struct cell *x = (struct cell *)cells_find(c, stage, impl, rate);

	if (x)
		return x;
	XGROW(c->v, c->alloc, c->n + 1);
	x = &c->v[c->n++];
	memset(x, 0, sizeof(*x));
	x->stage = xstrdup(stage);
	x->impl = xstrdup(impl);
	x->rate = rate;
	return x;
}

/* Is window id named by some window's replaces? */
static int replaced(const struct window_row *w, size_t n, int64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i].has_replaces && w[i].replaces == id)
			return 1;
	return 0;
}

void cells_from_windows(struct cells *c, const struct window_row *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct cell *x = cell_get(c, w[i].stage ? w[i].stage : "",
					  w[i].impl ? w[i].impl : "", w[i].rate);

		if (w[i].has_replaces)
			x->replacements++;
		else if (w[i].block >= CELLS_SEQ_BLOCK_BASE && w[i].block < (1 << 24))
			x->sequential++;
		else
			x->planned++;
		if (w[i].state != WINDOW_DONE) {
			x->pending++;
			continue;
		}
		if (w[i].status == WINDOW_ACCEPTED || w[i].status == WINDOW_FAILED)
			x->valid++;
		if (w[i].status == WINDOW_FAILED)
			x->failed++;
		if (w[i].status == WINDOW_REJECTED) {
			x->rejected++;
			if (!x->unreplaced && !replaced(w, n, w[i].id))
				x->unreplaced = w[i].id;
		}
	}
}

int cells_load(struct store *st, const char *run_id, const char *stage, const char *impl,
	       struct cells *out)
{
	struct window_query q = { .stage = stage, .impl = impl };
	struct window_rows wins;

	cells_init(out);
	if (store_windows_load(st, run_id, &q, &wins))
		return -1;
	cells_from_windows(out, wins.v, wins.n);
	window_rows_release(&wins);
	return 0;
}

int cell_short(const struct cell *c)
{
	return !c->pending && c->valid < c->planned;
}

void cells_block_text(int block, struct sbuf *out)
{
	if (block >= CELLS_REPL_BLOCK_BASE)
		sbuf_addf(out, "replacement round %d", (block - CELLS_REPL_BLOCK_BASE) % 64 + 1);
	else if (block >= CELLS_SEQ_BLOCK_BASE)
		sbuf_addf(out, "sequential block %d",
			  (block - CELLS_SEQ_BLOCK_BASE) % CELLS_SEQ_BLOCKS_PER_RATE);
	else
		sbuf_addf(out, "block %d", block);
}
