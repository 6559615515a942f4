/*
 * test_cells: windows grouped into cells (stage x rate x implementation):
 * the pre-registered n is the windows that replace nothing, valid counts
 * accepted and failed, the first rejected window no replacement names is
 * the one to replace next, and a cell is short only once all its windows
 * are done with fewer valid than planned. The run quality line names it.
 */
#include <stdlib.h>

#include "model/cells.h"
#include "model/run_quality.h"
#include "store/store_window.h"
#include "t.h"
#include "base/util.h"

static void win(struct window_row *w, int64_t id, const char *stage, const char *impl,
		double rate, enum window_state state, enum window_status status,
		int64_t replaces)
{
	window_row_init(w);
	w->id = id;
	w->stage = xstrdup(stage);
	w->impl = xstrdup(impl);
	w->rate = rate;
	w->state = state;
	w->status = status;
	if (replaces) {
		w->has_replaces = 1;
		w->replaces = replaces;
	}
}

TEST(counts_replacements_and_short_cells)
{
	struct window_row w[8];
	struct cells c;
	const struct cell *a, *b, *f;
	struct run_quality q;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	/* a@100: 1 rejected (3) replaced by 7 (accepted): n 2, valid 2 */
	win(&w[0], 1, "ladder", "a", 100, WINDOW_DONE, WINDOW_ACCEPTED, 0);
	win(&w[1], 3, "ladder", "a", 100, WINDOW_DONE, WINDOW_REJECTED, 0);
	win(&w[2], 7, "ladder", "a", 100, WINDOW_DONE, WINDOW_ACCEPTED, 3);
	/* b@100: both rejected, one replacement rejected too: short 0/2 */
	win(&w[3], 2, "ladder", "b", 100, WINDOW_DONE, WINDOW_REJECTED, 0);
	win(&w[4], 4, "ladder", "b", 100, WINDOW_DONE, WINDOW_REJECTED, 0);
	win(&w[5], 8, "ladder", "b", 100 * (1 + 1e-12), WINDOW_DONE, WINDOW_REJECTED, 2);
	/* b@200 failed (valid, never replaced) and one still planned */
	win(&w[6], 5, "ladder", "b", 200, WINDOW_DONE, WINDOW_FAILED, 0);
	win(&w[7], 6, "ladder", "b", 200, WINDOW_PLANNED, WINDOW_STATUS_NONE, 0);
	cells_init(&c);
	cells_from_windows(&c, w, 8);
	CHECK(c.n == 3);
	a = cells_find(&c, "ladder", "a", 100);
	b = cells_find(&c, "ladder", "b", 100);
	f = cells_find(&c, "ladder", "b", 200);
	CHECK(a && a->planned == 2 && a->valid == 2 && a->rejected == 1 && a->replacements == 1);
	CHECK(a && a->unreplaced == 0 && !cell_short(a));
	/* rates equal to 1e-9 relative are one cell; 2 is replaced by 8, so 4
	 * is the next to replace */
	CHECK(b && b->planned == 2 && b->valid == 0 && b->rejected == 3 && b->replacements == 1);
	CHECK(b && b->unreplaced == 4 && cell_short(b));
	CHECK(f && f->valid == 1 && f->failed == 1 && f->pending == 1 && !cell_short(f));
	CHECK(!cells_find(&c, "confirm", "a", 100));

	run_quality_init(&q);
	run_quality_cells(&q, &c);
	CHECK(q.replacements == 2 && q.nshort == 1);
	run_quality_format(&q, &sb);
	CHECK(strstr(sb.buf, ", 2 replacements; 1 cell short: ladder 100 req/s b 0/2 valid;") != NULL);
	sbuf_release(&sb);
	run_quality_release(&q);
	cells_release(&c);
	for (i = 0; i < 8; i++)
		window_row_release(&w[i]);
}

/* Sequential confirm's extra blocks add valid windows but not to n: a
 * rejected one among them leaves the cell whole. */
TEST(sequential_blocks_are_not_preregistered)
{
	struct window_row w[4];
	struct cells c;
	const struct cell *a;
	size_t i;

	win(&w[0], 1, "confirm", "a", 100, WINDOW_DONE, WINDOW_ACCEPTED, 0);
	win(&w[1], 2, "confirm", "a", 100, WINDOW_DONE, WINDOW_ACCEPTED, 0);
	win(&w[2], 3, "confirm", "a", 100, WINDOW_DONE, WINDOW_REJECTED, 0);
	win(&w[3], 4, "confirm", "a", 100, WINDOW_DONE, WINDOW_ACCEPTED, 0);
	w[2].block = CELLS_SEQ_BLOCK_BASE;
	w[3].block = CELLS_SEQ_BLOCK_BASE + 1;
	cells_init(&c);
	cells_from_windows(&c, w, 4);
	a = cells_find(&c, "confirm", "a", 100);
	CHECK(a && a->planned == 2 && a->sequential == 2 && a->valid == 3 && !cell_short(a));
	cells_release(&c);
	for (i = 0; i < 4; i++)
		window_row_release(&w[i]);
}

int main(void)
{
	RUN(sequential_blocks_are_not_preregistered);
	RUN(counts_replacements_and_short_cells);
	return t_done();
}
