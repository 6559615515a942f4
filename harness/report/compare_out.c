/*
 * compare_out: the phrases compare's writers share (compare_out.h): the
 * Markdown document (compare_md.c), JSON (compare_json.c) and JUnit XML
 * (compare_junit.c) say a correction, a p-value, an MDE and a knee shift
 * the same way.
 */
#include "report/compare_out.h"
#include "base/util.h"

#include <math.h>

const char *cmp_out_correction(int corr)
{
	return corr == CMP_CORRECT_HOLM ? "holm" : "none";
}

void cmp_out_p(struct sbuf *o, const struct cmp_metric *m, int corr)
{
	int up = !(m->ci.mean < 0);
	double p = up ? m->p_up : m->p_down, a = up ? m->padj_up : m->padj_down;

	if (isnan(p)) {
		sbuf_adds(o, "not tested");
		return;
	}
	sbuf_addf(o, "%s %.2g", up ? "rise" : "fall", p);
	if (corr == CMP_CORRECT_HOLM)
		sbuf_addf(o, " → %.2g", a);
}

void cmp_out_mde(struct sbuf *o, const struct cmp_metric *m, int prec)
{
	if (isinf(m->mde))
		sbuf_adds(o, "none (n too small)");
	else if (!isfinite(m->mde))
		sbuf_adds(o, "-");
	else {
		sbuf_addf(o, "%.*f", prec, m->mde);
		if (isfinite(m->mde_pct))
			sbuf_addf(o, " (%.1f%%)", m->mde_pct);
	}
}

int cmp_out_knee_shift(const struct cmp_impl *im, double *d)
{
	if (!im->kbase || !im->knew || im->kbase->kind != KNEE_POINT ||
	    im->knew->kind != KNEE_POINT)
		return 0;
	*d = im->knew->knee_rps - im->kbase->knee_rps;
	return 1;
}
