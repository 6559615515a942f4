/* compare_headline: compare's one line (headline.h). */
#include "report/headline.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "report/compare.h"
#include "report/compare_pooled.h"
#include "base/util.h"

/* A cell's shift with its interval in % of base, or 0 when untested. */
static int cell_pct(const struct cmp_metric *m, double *est, double *lo, double *hi)
{
	if (!(m->base > 0) || !isfinite(m->ci.mean) || !isfinite(m->ci.lo) ||
	    !isfinite(m->ci.hi))
		return 0;
	*est = 100 * m->ci.mean / m->base;
	*lo = 100 * m->ci.lo / m->base;
	*hi = 100 * m->ci.hi / m->base;
	return 1;
}

/* How strongly a cell speaks for verdict v: its shift's size for a
 * regression or an improvement, how far its interval reaches past zero
 * otherwise (the widest doubt). */
static double cell_weight(enum cmp_verdict v, const struct cmp_metric *m)
{
	double e, lo, hi;

	if (!cell_pct(m, &e, &lo, &hi))
		return -1;
	if (v == CMP_REGRESSION || v == CMP_IMPROVEMENT)
		return m->verdict == v ? fabs(e) : -1;
	if (v == CMP_INCONCLUSIVE)
		return hi;
	return fmax(fabs(lo), fabs(hi));
}

/* The cell that speaks most for the implementation's verdict:
 * "p99 +18.0% [+9.1%, +27.3%] at 400 req/s". 0 when none. */
static int best_cell(const struct compare *c, const struct cmp_impl *im, struct sbuf *o,
		     const struct cmp_metric **which)
{
	const struct cmp_metric *best = NULL;
	double w = -1, rate = 0, e, lo, hi;
	const char *name = "";
	size_t i;

	for (i = 0; i < im->nrates; i++) {
		const struct cmp_rate *r = &im->rates[i];
		const struct cmp_metric *m[2] = { &r->p99, &r->cpu };
		int k;

		for (k = 0; k < 2; k++)
			if (cell_weight(im->verdict, m[k]) > w) {
				w = cell_weight(im->verdict, m[k]);
				best = m[k];
				rate = r->rate;
				name = k ? "CPU/request" : "latency";
			}
	}
	if (!best || !cell_pct(best, &e, &lo, &hi) || !isfinite(best->margin))
		return 0;
	*which = best;
	if (!strcmp(name, "latency"))
		sbuf_addf(o, "p%g", c->new_.slo_pct);
	else
		sbuf_adds(o, name);
	sbuf_addf(o, " %+.1f%% [%+.1f%%, %+.1f%%] at %g req/s", e, lo, hi, rate);
	return 1;
}

/* A pooled metric's verdict word: "undecided" for inconclusive. */
static const char *pooled_word(enum cmp_verdict v)
{
	return v == CMP_INCONCLUSIVE ? "undecided" : cmp_verdict_name(v);
}

/* Every tested pooled metric: "latency +4.0% [-1.2%, +9.3%] over 4 rates
 * (no change, margin ±81.7%)", the verdict word left out where it is
 * the implementation's. 0 when none was tested. */
static int pooled_figures(const struct compare *c, const struct cmp_impl *im, struct sbuf *o)
{
	char nm[96];
	size_t i;
	int n = 0;

	for (i = 0; i < im->npooled; i++) {
		const struct cmp_pooled *x = &im->pooled[i];

		if (x->verdict == CMP_NA || !isfinite(x->est_pct) || !isfinite(x->lo_pct) ||
		    !isfinite(x->hi_pct))
			continue;
		sbuf_addf(o, "%s%s %+.1f%% [%+.1f%%, %+.1f%%] over %zu rate%s (", n++ ? "; " : "",
			  cmp_pooled_name(c, x, nm, sizeof(nm)), x->est_pct, x->lo_pct, x->hi_pct,
			  x->nrates, x->nrates == 1 ? "" : "s");
		if (x->verdict != im->verdict)
			sbuf_addf(o, "%s, ", pooled_word(x->verdict));
		if (x->base_ref > 0 && isfinite(x->margin))
			sbuf_addf(o, "margin ±%.3g%%)", 100 * x->margin / x->base_ref);
		else
			sbuf_addf(o, "margin ±%g%%)", c->margin_pct);
	}
	return n > 0;
}

/* The figure that decided, in words: the pooled shifts, or the cell that
 * speaks most for the verdict with its margin. 0 when there is none. */
static int figure(const struct compare *c, const struct cmp_impl *im, struct sbuf *o)
{
	const char *by = im->decided_by ? im->decided_by : "";
	const struct cmp_metric *m = NULL;
	struct sbuf f = SBUF_INIT;
	int ok = 0;

	if (strstr(by, "pooled") && pooled_figures(c, im, o))
		return 1;
	if (strcmp(by, "cells") && strcmp(by, "cell") && !strstr(by, "pooled"))
		return 0;
	if (!best_cell(c, im, &f, &m))
		goto out;
	ok = 1;
	if (im->verdict == CMP_NO_CHANGE)
		sbuf_adds(o, "every cell within its margin; the widest: ");
	else if (im->verdict == CMP_NO_REGRESSION)
		sbuf_adds(o, "no cell rose beyond its margin; the widest: ");
	sbuf_addf(o, "%s (margin ±%.3g%%)", f.buf, 100 * m->margin / m->base);
out:
	sbuf_release(&f);
	return ok;
}

/* "a: p99 +500.0% [+443.0%, +510.0%] at 100 req/s"; the verdict named
 * when it is not the headline's answer. */
static void impl_words(const struct compare *c, const struct cmp_impl *im, const char *ans,
		       struct sbuf *o)
{
	sbuf_adds(o, im->name);
	if (strcasecmp(ans, cmp_verdict_name(im->verdict)))
		sbuf_addf(o, " (%s)", cmp_verdict_name(im->verdict));
	sbuf_adds(o, ": ");
	if (!figure(c, im, o))
		sbuf_addf(o, "%.*s", (int)strcspn(im->why ? im->why : "-", "\n"),
			  im->why ? im->why : "-");
}

static const char *answer(const struct compare *c)
{
	size_t i;
	int all_same = 1;
	enum cmp_verdict first = CMP_NA;

	if (!c->judged)
		return "No answer";
	if (c->exit_code == 1)
		return "Regression";
	if (c->exit_code != 0)
		return "Inconclusive";
	for (i = 0; i < c->nimpls; i++) {
		if (!c->impls[i].judged)
			continue;
		if (first == CMP_NA)
			first = c->impls[i].verdict;
		all_same &= c->impls[i].verdict == first;
	}
	return !all_same ? "No regression" : first == CMP_IMPROVEMENT ? "Improvement" :
	       first == CMP_NO_CHANGE ? "No change" : "No regression";
}

void compare_headline(const struct compare *c, struct sbuf *out)
{
	const char *ans = answer(c);
	size_t i, shown = 0;
	int pass;

	sbuf_addf(out, "%s: ", ans);
	if (!c->judged) {
		sbuf_adds(out, "no implementation is judged (none paired with a control arm by"
			       " rerun --with-baseline; --judge-unpaired or --impl judges across runs)");
		return;
	}
	/* regressions first, then the undecided, then the rest */
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < c->nimpls; i++) {
			const struct cmp_impl *im = &c->impls[i];
			int p = im->verdict == CMP_REGRESSION ? 0 : im->verdict == CMP_INCONCLUSIVE ? 1 : 2;

			if (!im->judged || p != pass)
				continue;
			if (shown++ == 3) {
				sbuf_addf(out, "; %d more judged below", c->judged - 3);
				return;
			}
			if (shown > 1)
				sbuf_adds(out, "; ");
			impl_words(c, im, ans, out);
		}
}
