/*
 * cells: a run's windows grouped into cells (stage x offered rate x
 * implementation), the unit whose pre-registered number of valid windows
 * replacement windows restore (docs/DESIGN.md, "Replacement windows").
 *
 * A cell's pre-registered n is the count of its windows that replace
 * nothing (the blocks the stage planned); a window with `replaces` set is
 * a replacement for a rejected one. Valid = accepted + failed. A cell is
 * short when all its windows are done and fewer than n are valid (its
 * replacements ran out, retries.max_per_cell). Sequential confirm's extra
 * blocks (numbered from CELLS_SEQ_BLOCK_BASE up, below the replacement
 * blocks' 2^24) are neither: they add valid windows (`sequential`) but
 * not to n, so a rejected one among them never makes a cell short.
 *
 * Ownership: struct cells owns its strings; cells_release() frees them.
 */
#ifndef HARNESS_CELLS_H
#define HARNESS_CELLS_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct window_row;

/* Sequential confirm block k at confirm rate i: base + i x 1024 + k. */
#define CELLS_SEQ_BLOCK_BASE (1 << 23)
#define CELLS_SEQ_BLOCKS_PER_RATE 1024
/* Replacement rounds (and their partners) from here up (runner_blocks.c). */
#define CELLS_REPL_BLOCK_BASE (1 << 24)

struct cell {
	char *stage, *impl;
	double rate;                 /* offered req/s */
	size_t planned;              /* pre-registered: windows replacing nothing */
	size_t valid, failed, rejected;   /* done windows by status (valid counts failed) */
	size_t replacements;         /* windows replacing a rejected one */
	size_t sequential;           /* sequential confirm's extra windows */
	size_t pending;              /* planned or running */
	int64_t unreplaced;          /* earliest rejected window no replacement names; 0: none */
};

struct cells {
	struct cell *v;
	size_t n, alloc;
};

void cells_init(struct cells *c);
void cells_release(struct cells *c);
/* Group n windows (ordered by id) into cells, in order of first
 * appearance. Never fails. */
void cells_from_windows(struct cells *c, const struct window_row *w, size_t n);
/* The cells of run_id (stage, impl: NULL for any). -1 after an error(). */
int cells_load(struct store *st, const char *run_id, const char *stage, const char *impl,
	       struct cells *out);
/* The cell of (stage, impl, rate) (one rung: rate.h rate_same), or NULL. */
const struct cell *cells_find(const struct cells *c, const char *stage, const char *impl,
			      double rate);
/* Every window done and fewer valid than pre-registered. */
int cell_short(const struct cell *c);

struct sbuf;
/* A window's block as a reader reads it, never the internal number:
 * "block 7", "sequential block 3" (sequential confirm), "replacement
 * round 2" (a replacement window or its partners). */
void cells_block_text(int block, struct sbuf *out);

#endif
