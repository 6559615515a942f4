/*
 * history_out: the words history's Markdown and HTML share (history_out.c),
 * so the two formats cannot write a value apart. Report-internal. Each
 * appends to the caller's buffer.
 */
#ifndef HARNESS_HISTORY_OUT_H
#define HARNESS_HISTORY_OUT_H

#include "report/history.h"

struct sbuf;
struct rdoc_block;

/* The value (rates to the request per second, the rest to three figures;
 * "-" when missing) and its interval, " [lo, hi]", when it has one. */
void hist_out_hval(struct sbuf *o, const struct hval *v, enum hist_metric m);
/* The point's knee: "-", ">= floor", "<= value [ci]" or "value [ci]". */
void hist_out_knee(struct sbuf *o, const struct hist_point *p);
/* The latency at the knee's held rung: "4.10 [3.90, 4.30] @ 300", or "-". */
void hist_out_knee_lat(struct sbuf *o, const struct hist_point *p);
/* "RUN: metric at R req/s FROM -> TO unit, regression|improvement", and
 * " (last run: not yet confirmed by a later one)" for a step no later
 * run has kept. */
void hist_out_step(const struct history *h, const struct hist_impl *im,
		   const struct hist_step *s, struct sbuf *o);
/* The fixed-rate columns, 3 x im->nrates of them: column j's heading
 * ("µs/request @ R", "MiB @ R", "pP ms @ R"). */
void hist_out_rate_head(struct sbuf *o, const struct history *h, const struct hist_impl *im,
			size_t j);
/* Point p's cells of a table (t; c a scratch buffer, left empty): its
 * knee, the latency at it, then cost, memory and latency at each fixed
 * rate (hist_out_hval). */
void hist_out_point_cells(struct rdoc_block *t, const struct hist_impl *im,
			  const struct hist_point *p, struct sbuf *c);

#endif
