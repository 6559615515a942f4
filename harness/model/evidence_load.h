/*
 * evidence_load: a window phase's evidence to and from the run database.
 *
 * The evidence <-> windows-columns mapping exists once, here: the runner
 * writes a window's totals with evidence_to_window_row() and `audit
 * --recheck` reads them back with evidence_load() through the same list,
 * so a recomputed verdict sees exactly what the live one saw.
 */
#ifndef HARNESS_EVIDENCE_LOAD_H
#define HARNESS_EVIDENCE_LOAD_H

#include "model/evidence.h"
#include "store/store.h"

struct window_row;

/* Copy e's phase totals (measured: the window's counts, statuses,
 * generator, accounting flags; warm-up: its seconds and rate) into the
 * columns of w (strings copied). The per-kind transport errors are not in
 * the evidence (it holds their sum): the caller sets err_*. */
void evidence_to_window_row(const struct evidence *e, struct window_row *w);
/* The inverse, into an evidence initialised for its phase; errors = the
 * sum of err_*. The warm-up's counts come from its seconds (see
 * evidence_load). */
void evidence_from_window_row(struct evidence *e, const struct window_row *w);

/* Fill e (initialised here; caller releases) with window wid's evidence
 * for phase (warm-up: its seconds and polls; window: the measured part).
 * -1 after one error() naming the database. */
int evidence_load(struct store *st, int64_t wid, enum gate_phase phase, struct evidence *e);
/* The window's discard_s head (its stored "discard" seconds) as head.h
 * judges it. -1 after one error(). */
int evidence_load_head(struct store *st, int64_t wid, struct evidence *e);

#endif
