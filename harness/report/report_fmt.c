/* report_fmt: formatting shared by the report writers. */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

const char *report_stamp(const struct report *r)
{
	if (r->exploratory && r->forced)
		return "EXPLORATORY and FORCED: the spec had uncommitted changes (--allow-dirty) "
		       "and the run was resumed with --force after a mismatch; "
		       "not a frozen measurement";
	if (r->exploratory)
		return "EXPLORATORY: the spec had uncommitted changes (--allow-dirty); "
		       "not a frozen measurement";
	if (r->forced)
		return "FORCED: resumed with --force after a spec or commit mismatch; "
		       "not a frozen measurement";
	return "";
}

void report_fmt_num(struct sbuf *out, double v, int prec)
{
	if (!isfinite(v))
		sbuf_adds(out, "-");
	else
		sbuf_addf(out, "%.*f", prec, v);
}

/* Significant digits that suit a latency or a cost: 3 figures. */
void report_fmt_sig(struct sbuf *out, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		sbuf_adds(out, "-");
	else if (a >= 100)
		sbuf_addf(out, "%.0f", v);
	else if (a >= 10)
		sbuf_addf(out, "%.1f", v);
	else if (a >= 1)
		sbuf_addf(out, "%.2f", v);
	else
		sbuf_addf(out, "%.3g", v);
}

void report_fmt_time(struct sbuf *out, double t)
{
	sbuf_add_utc(out, t > 0 ? t : NAN, "%Y-%m-%d %H:%M:%SZ");
}

void report_fmt_mib(struct sbuf *out, double bytes)
{
	report_fmt_sig(out, isfinite(bytes) ? bytes / 1048576.0 : NAN);
}

const char *report_dirty_text(int dirty)
{
	return dirty < 0 ? "unknown" : dirty ? "dirty" : "clean";
}

const char *report_verdict_text(const struct report *r, const struct report_verdict *v,
				char *buf, size_t len)
{
	switch (v->ci.verdict) {
	case VERDICT_TIE:
		snprintf(buf, len, "tie (within +-%g%%)", r->margin_pct);
		break;
	case VERDICT_A_LOWER:
		snprintf(buf, len, "%s lower", r->impls[v->a].name);
		break;
	case VERDICT_B_LOWER:
		snprintf(buf, len, "%s lower", r->impls[v->b].name);
		break;
	default:
		snprintf(buf, len, "inconclusive");
		break;
	}
	return buf;
}

/* "12,345 req/s" style rate. */
void report_fmt_rate(struct sbuf *out, double rps)
{
	if (!isfinite(rps))
		sbuf_adds(out, "-");
	else if (rps >= 100)
		sbuf_addf(out, "%.0f", rps);
	else
		sbuf_addf(out, "%.3g", rps);
}

/* The knee in words: "1234 req/s", ">= 5000 req/s (no crossing)",
 * "in (1350, 2025] req/s: at 2025 req/s ..." (knee.h). */
void report_fmt_knee(struct sbuf *out, const struct report_impl *im)
{
	if (!im->has_knee) {
		sbuf_adds(out, "no valid window");
		return;
	}
	switch (im->kres->kind) {
	case KNEE_FLOOR:
		sbuf_adds(out, ">= ");
		report_fmt_rate(out, im->kres->highest_rung_rps);
		sbuf_adds(out, " req/s (held the SLO at every valid rung; never crossed)");
		return;
	case KNEE_BRACKET:
		if (isnan(im->kres->lo_rps)) {
			sbuf_adds(out, "<= ");
		} else {
			sbuf_adds(out, "in (");
			report_fmt_rate(out, im->kres->lo_rps);
			sbuf_adds(out, ", ");
		}
		report_fmt_rate(out, im->kres->hi_rps);
		sbuf_addf(out, "%s req/s: %s", isnan(im->kres->lo_rps) ? "" : "]", im->kres->reason);
		return;
	case KNEE_POINT:
		if (im->kres->at_first_rung)
			sbuf_adds(out, "<= ");
		report_fmt_rate(out, im->kres->knee_rps);
		sbuf_adds(out, im->kres->at_first_rung ? " req/s (over the SLO at the first rung)"
						      : " req/s");
		/* without an interval, the interpolation is a guess between
		 * two rungs, however far apart: say which */
		if (!im->kres->at_first_rung && !im->kres->has_ci) {
			sbuf_adds(out, ", interpolated between ");
			report_fmt_rate(out, im->kres->lo_rps);
			sbuf_adds(out, " and ");
			report_fmt_rate(out, im->kres->hi_rps);
			sbuf_adds(out, " (no interval)");
		}
		return;
	case KNEE_NONE:
		break;
	}
	sbuf_adds(out, "no valid window");
}

/* The knee's interval in words, with its label. */
void report_fmt_knee_ci(struct sbuf *out, const struct report *r, const struct report_impl *im)
{
	if (!im->has_knee_ci || !isfinite(im->knee_ci.lo)) {
		sbuf_adds(out, "-");
		return;
	}
	if (!im->knee_ci.ncrossed) {
		sbuf_addf(out, "none: no resample of %zu crossed the SLO", im->knee_ci.nboot);
		return;
	}
	sbuf_addf(out, "%.0f%% [", r->level * 100);
	report_fmt_rate(out, im->knee_ci.lo);
	sbuf_adds(out, ", ");
	report_fmt_rate(out, im->knee_ci.hi);
	sbuf_addf(out, "] (%zu of %zu resamples crossed; %s)", im->knee_ci.ncrossed,
		  im->knee_ci.nboot,
		  im->knee_ci.inferential ? "inferential" : "NON-INFERENTIAL: a bracketing rung has fewer valid windows than confirm.reps");
}

double report_hold_rps(const struct report_impl *im)
{
	if (!im->has_knee)
		return NAN;
	switch (im->kres->kind) {
	case KNEE_POINT:
		return im->kres->knee_rps;
	case KNEE_BRACKET:
		return im->kres->lo_rps;     /* NAN when the first rung crossed */
	case KNEE_FLOOR:
		return INFINITY;
	case KNEE_NONE:
		break;
	}
	return NAN;
}

const char *report_wstatus_words(const struct report *r, const char *status, double pslo_ms)
{
	if (status && !strcmp(status, "accepted") && r->spec_ok && isfinite(pslo_ms) &&
	    pslo_ms > r->slo_ms)
		return "valid, over SLO";
	return status;
}
