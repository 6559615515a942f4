/*
 * report_doc: what the report says, section by section, as blocks that
 * report_md.c and report_html.c render. Numbers come from struct report
 * (report_rollup.c); this file only words and arranges them.
 */
#include "report_doc.h"
#include "spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* ------------------------------------------------------------ builder */

static struct rdoc_block *add(struct rdoc *d, enum rdoc_kind kind, const char *text)
{
	struct rdoc_block *b;

	XGROW(d->b, d->alloc, d->n + 1);
	b = &d->b[d->n++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->text = text ? xstrdup(text) : NULL;
	return b;
}

static void addf(struct rdoc *d, enum rdoc_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void addf(struct rdoc *d, enum rdoc_kind kind, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add(d, kind, sb.buf);
	sbuf_release(&sb);
}

static void push_cell(struct rdoc_block *t, const char *s)
{
	t->cells = xrealloc(t->cells, (t->ncells + 1) * sizeof(*t->cells));
	t->cells[t->ncells++] = xstrdup(s ? s : "");
}

/* Push the scratch buffer as the next cell and empty it. */
static void cell(struct rdoc_block *t, struct sbuf *c)
{
	push_cell(t, c->buf);
	sbuf_reset(c);
}

static void cellf(struct rdoc_block *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cellf(struct rdoc_block *t, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	push_cell(t, sb.buf);
	sbuf_release(&sb);
}

static struct rdoc_block *table(struct rdoc *d, const char *id, size_t ncols, ...)
{
	struct rdoc_block *t = add(d, RDOC_TABLE, id);
	va_list ap;
	size_t i;

	t->ncols = ncols;
	va_start(ap, ncols);
	for (i = 0; i < ncols; i++)
		push_cell(t, va_arg(ap, const char *));
	va_end(ap);
	return t;
}

void rdoc_release(struct rdoc *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		free(d->b[i].text);
		for (k = 0; k < d->b[i].ncells; k++)
			free(d->b[i].cells[k]);
		free(d->b[i].cells);
	}
	free(d->b);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------ helpers */

/* "5.73 [5.60, 5.93]"; a '*' marks an interval whose real coverage is
 * below the level (too few requests for that percentile). */
static void pct(struct sbuf *c, const struct report *r, const struct report_pct *p)
{
	report_fmt_sig(c, p->ms);
	if (isfinite(p->lo_ms)) {
		sbuf_adds(c, " [");
		report_fmt_sig(c, p->lo_ms);
		sbuf_adds(c, ", ");
		report_fmt_sig(c, p->hi_ms);
		sbuf_adds(c, "]");
		if (p->coverage < r->level - 1e-9)
			sbuf_adds(c, "*");
	}
}

/* "failed: error_rate 2; rejected: generator 1", or "-". */
static void reasons(struct sbuf *c, const struct report_reason *v, size_t n)
{
	size_t i;
	int k, any = 0;

	for (k = 0; k < 2; k++) {
		int first = 1;

		for (i = 0; i < n; i++) {
			size_t m = k ? v[i].rejected : v[i].failed;

			if (!m)
				continue;
			if (first)
				sbuf_addf(c, "%s%s: ", any ? "; " : "", k ? "rejected" : "failed");
			sbuf_addf(c, "%s%s %zu", first ? "" : ", ", v[i].name, m);
			first = 0;
			any = 1;
		}
	}
	if (!any)
		sbuf_adds(c, "-");
}

/* "9 accepted, 2 failed, 1 rejected of 12" */
static void counts(struct sbuf *c, size_t total, size_t accepted, size_t failed)
{
	sbuf_addf(c, "%zu accepted, %zu failed, %zu rejected of %zu", accepted, failed,
		  total - accepted - failed, total);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* ------------------------------------------------------------ sections */

/* Dependencies' accounting grouped by dependency, stage and rate. */
struct dep_group {
	const char *name, *stage;
	double rate;
	size_t n, exited;
	double cores_sum, ncpus, peak_pct;
	int64_t throttled;           /* -1: not counted */
};

static const struct report_window *window_by_id(const struct report *r, int64_t id)
{
	size_t i;

	for (i = 0; i < r->nwindows; i++)
		if (r->windows[i].id == id)
			return &r->windows[i];
	return NULL;
}

static void dep_group_add(struct dep_group *g, const struct report_dep *d)
{
	double used = d->duration_s > 0 ? d->cpu_s / d->duration_s : NAN;

	g->n++;
	g->exited += d->exited != 0;
	if (isfinite(used)) {
		g->cores_sum += used;
		if (d->ncpus > 0 && 100 * used / d->ncpus > g->peak_pct)
			g->peak_pct = 100 * used / d->ncpus;
	}
	g->ncpus = d->ncpus;
	if (d->nr_throttled >= 0)
		g->throttled = (g->throttled < 0 ? 0 : g->throttled) + d->nr_throttled;
}

/* Headroom per rung: how much of its cores each dependency used, so "the
 * database never broke" is measured. */
static void dependencies(const struct report *r, struct rdoc *d)
{
	struct dep_group *g = NULL;
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i, k, ng = 0, ag = 0;

	if (!r->ndep_rows)
		return;
	add(d, RDOC_H2, "Dependencies");
	add(d, RDOC_P, "Each dependency's CPU over the measured windows, in cores and as a share "
	    "of the cores it may use (its cpus, else every online cpu); dependency_headroom "
	    "rejects a window above its max_cpu_pct (default 90%), throttled, or with the "
	    "dependency exiting.");
	for (i = 0; i < r->ndep_rows; i++) {
		const struct report_window *w = window_by_id(r, r->dep_rows[i].window_id);
		const char *stage = w ? w->stage : "?";
		double rate = w ? w->rate : NAN;

		for (k = 0; k < ng; k++)
			if (!strcmp(g[k].name, r->dep_rows[i].name) && !strcmp(g[k].stage, stage) &&
			    g[k].rate == rate)
				break;
		if (k == ng) {
			XGROW(g, ag, ng + 1);
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng].name = r->dep_rows[i].name;
			g[ng].stage = stage;
			g[ng].rate = rate;
			g[ng].throttled = -1;
			ng++;
		}
		dep_group_add(&g[k], &r->dep_rows[i]);
	}
	t = table(d, "dependency_headroom", 8, "dependency", "stage", "rate", "windows",
		  "cores used (mean)", "of cores", "peak % of its cores", "throttled / exited");
	for (k = 0; k < ng; k++) {
		cellf(t, "%s", g[k].name);
		cellf(t, "%s", g[k].stage);
		report_fmt_rate(&c, g[k].rate);
		cell(t, &c);
		cellf(t, "%zu", g[k].n);
		cellf(t, "%.2f", g[k].cores_sum / (double)g[k].n);
		report_fmt_num(&c, g[k].ncpus, 0);
		cell(t, &c);
		cellf(t, "%s%.1f", g[k].peak_pct > 90 ? RDOC_STRONG : "", g[k].peak_pct);
		if (g[k].throttled < 0)
			cellf(t, "- / %zu", g[k].exited);
		else
			cellf(t, "%lld / %zu", (long long)g[k].throttled, g[k].exited);
	}
	free(g);
	sbuf_release(&c);
}

static void provenance(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	add(d, RDOC_H2, "Provenance");
	t = table(d, "provenance", 2, "field", "value");
	cellf(t, "run");
	cellf(t, "%s", or_dash(r->run_id));
	cellf(t, "status");
	cellf(t, "%s%s%s", or_dash(r->status), r->failure ? ": " : "", r->failure ? r->failure : "");
	cellf(t, "spec");
	cellf(t, "%s (%s)", or_dash(r->spec_name), or_dash(r->spec_path));
	cellf(t, "spec hash");
	cellf(t, "%s", or_dash(r->spec_hash));
	cellf(t, "spec commit");
	cellf(t, "%s (%s%s%s)", or_dash(r->spec_commit), report_dirty_text(r->spec_dirty),
	      r->spec_branch ? ", branch " : "", r->spec_branch ? r->spec_branch : "");
	cellf(t, "spec repository");
	cellf(t, "%s", or_dash(r->spec_repo));
	cellf(t, "seed");
	cellf(t, "%llu", (unsigned long long)r->seed);
	cellf(t, "stages");
	cellf(t, "%s", or_dash(r->stages));
	cellf(t, "started");
	report_fmt_time(&c, r->created_at);
	cell(t, &c);
	cellf(t, "finished");
	report_fmt_time(&c, r->finished_at);
	cell(t, &c);
	cellf(t, "harness (run)");
	cellf(t, "%s", or_dash(r->run_harness_version));
	cellf(t, "harness (report)");
	cellf(t, "%s", or_dash(r->report_version));
	cellf(t, "exploratory");
	cellf(t, "%s", r->exploratory ? RDOC_STRONG "yes" : "no");
	cellf(t, "forced");
	cellf(t, "%s", r->forced ? RDOC_STRONG "yes" : "no");
	if (r->parent_run) {
		cellf(t, "rerun of");
		cellf(t, "%s", r->parent_run);
	}

	if (r->nversions) {
		t = table(d, "versions", 2, "component", "version (output of its version command)");
		for (i = 0; i < r->nversions; i++) {
			cellf(t, "%s", r->versions[i].key);
			cellf(t, "%s", r->versions[i].value);
		}
	}
	t = table(d, "implementations", 6, "implementation", "commit", "branch", "tree",
		  "diff hash", "repository");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];

		cellf(t, "%s", im->name);
		cellf(t, "%s", or_dash(im->commit));
		cellf(t, "%s", or_dash(im->branch));
		cellf(t, "%s%s", im->dirty > 0 ? RDOC_STRONG : "", report_dirty_text(im->dirty));
		cellf(t, "%s", or_dash(im->diff_hash));
		cellf(t, "%s%s%s", or_dash(im->remote_url ? im->remote_url : im->repo),
		      im->ref_asked ? " @ " : "", im->ref_asked ? im->ref_asked : "");
	}
	if (r->nhost) {
		t = table(d, "host", 2, "host fact", "value");
		for (i = 0; i < r->nhost; i++) {
			cellf(t, "%s", r->host[i].key);
			cellf(t, "%s", or_dash(r->host[i].value));
		}
	}
	if (r->nevents) {
		sbuf_adds(&c, "Events recorded during the run: ");
		for (i = 0; i < r->nevents; i++)
			sbuf_addf(&c, "%s%s %zu", i ? ", " : "", r->events[i].kind, r->events[i].count);
		sbuf_adds(&c, ".");
		add(d, RDOC_P, c.buf);
		sbuf_reset(&c);
	}
	sbuf_release(&c);
}

static void knees(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (r->spec_ok)
		addf(d, RDOC_H2, "Knees (SLO: %s <= %g ms, error rate <= %g)", r->slo_label,
		     r->slo_ms, r->error_rate_max);
	else
		add(d, RDOC_H2, "Knees (SLO unknown: none computed)");
	addf(d, RDOC_P, "Per implementation, never pooled: isotonic (PAVA) fit of the rung-mean %s "
	     "over the valid (accepted and failed) ladder, refine and confirm windows, weighted by "
	     "requests; a rung crosses outright when every valid window failed or its pooled share "
	     "of requests not answered as expected breaks the error promise (docs/DESIGN.md, "
	     "\"The knee\"). The knee is the first crossing, interpolated between rungs, or a "
	     "bracket (lo, hi] when failed windows made it. Interval: %.0f%% bootstrap over the "
	     "valid windows within each rung (%zu resamples, seed %llu); inferential only when "
	     "both bracketing rungs hold at least %zu valid windows (confirm.reps).",
	     r->slo_label, r->level * 100, r->nboot, (unsigned long long)r->seed, r->min_reps);
	t = table(d, "knees", 7, "implementation", "knee", "interval", "rungs used",
		  "windows accepted/total", "CPU ms/req CV across ladder rungs",
		  "knee the run used (confirm, soak)");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];

		cellf(t, "%s", im->name);
		report_fmt_knee(&c, im);
		cell(t, &c);
		report_fmt_knee_ci(&c, r, im);
		cell(t, &c);
		cellf(t, "%zu", im->has_knee ? im->knee.rungs : 0);
		sbuf_addf(&c, "%zu/%zu", im->accepted, im->total);
		if (im->not_done)
			sbuf_addf(&c, " (+%zu not run)", im->not_done);
		cell(t, &c);
		if (isfinite(im->cpu_cv))
			cellf(t, "%.1f%% (%zu rungs)", im->cpu_cv * 100, im->cpu_cv_rungs);
		else
			cellf(t, "- (%zu rungs)", im->cpu_cv_rungs);
		if (im->run_knee_crossed == 0)
			sbuf_adds(&c, "not crossed");
		if (isfinite(im->run_knee_rps)) {
			sbuf_adds(&c, im->run_knee_crossed == 0 ? " (>= " : "");
			report_fmt_rate(&c, im->run_knee_rps);
			sbuf_adds(&c, im->run_knee_crossed == 0 ? " req/s)" : " req/s");
		} else if (im->run_knee_crossed != 0) {
			sbuf_adds(&c, "-");
		}
		cell(t, &c);
	}
	sbuf_release(&c);
}

static void promise(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t = NULL;
	size_t i;

	if (r->spec_ok)
		addf(d, RDOC_H2, "Latency promise (%s <= %g ms), confirm stage", r->slo_label,
		     r->slo_ms);
	else
		add(d, RDOC_H2, "Latency promise (SLO unknown), confirm stage");
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		if (strcmp(g->stage, "confirm"))
			continue;
		if (!t) {
			sbuf_addf(&c, "%s of the merged accepted windows [CI]", r->slo_label);
			t = table(d, "promise", 7, "implementation", "rate (req/s)", c.buf, "holds",
				  "worst window (ms)", "windows under SLO", "accepted/total");
			sbuf_reset(&c);
		}
		cellf(t, "%s", r->impls[g->impl].name);
		report_fmt_rate(&c, g->rate);
		cell(t, &c);
		pct(&c, r, &g->pslo);
		cell(t, &c);
		cellf(t, "%s", !isfinite(g->pslo.ms) || !isfinite(r->slo_ms) ? "-" :
			       g->pslo.ms <= r->slo_ms ? "yes" : RDOC_STRONG "no");
		report_fmt_sig(&c, g->worst_pslo_ms);
		cell(t, &c);
		cellf(t, "%zu/%zu", g->under_slo, g->accepted);
		cellf(t, "%zu/%zu", g->accepted, g->total);
	}
	if (!t)
		add(d, RDOC_P, "No confirm windows in this run.");
	sbuf_release(&c);
}

/* A rung resting on a short cell (cells.h): every number of its row
 * rests on fewer valid windows than the stage planned. */
static void short_note(const struct report *r, const struct report_rung *g, struct sbuf *c)
{
	const struct cell *x = cells_find(&r->cells, g->stage, r->impls[g->impl].name, g->rate);

	if (x && cell_short(x))
		sbuf_addf(c, " SHORT: %zu/%zu valid", x->valid, x->planned);
}

static void rungs(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	add(d, RDOC_H2, "Rungs");
	addf(d, RDOC_P, "Accepted windows only (failed windows are valid measurements over the SLO "
	     "and count for the knee; rejected ones are void; SHORT: fewer valid windows than "
	     "the stage planned, after replacements, see the cell table). Percentiles (ms) from the merged histogram of the "
	     "group's accepted windows (never averaged), with %.0f%% order-statistic intervals; "
	     "CPU = sum of CPU / sum of completed requests; memory = p99 of the pooled anon samples. "
	     "* : too few requests for that percentile, the interval's real coverage is below %.0f%%.",
	     r->level * 100, r->level * 100);
	sbuf_addf(&c, "isotonic fit of mean %s", r->slo_label);
	t = table(d, "rungs", 11, "implementation", "stage", "rate (req/s)", "accepted/total",
		  "failed / rejected by", "p50", "p99 [CI]", "p99.9 [CI]", c.buf, "CPU ms/req",
		  "anon p99 (MiB)");
	sbuf_reset(&c);
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		cellf(t, "%s", r->impls[g->impl].name);
		cellf(t, "%s", g->stage);
		report_fmt_rate(&c, g->rate);
		cell(t, &c);
		sbuf_addf(&c, "%zu/%zu", g->accepted, g->total);
		if (g->not_done)
			sbuf_addf(&c, " (+%zu not run)", g->not_done);
		short_note(r, g, &c);
		cell(t, &c);
		reasons(&c, g->reasons, g->nreasons);
		cell(t, &c);
		report_fmt_sig(&c, g->p50.ms);
		cell(t, &c);
		pct(&c, r, &g->p99);
		cell(t, &c);
		pct(&c, r, &g->p999);
		cell(t, &c);
		report_fmt_sig(&c, g->fit_ms);
		cell(t, &c);
		report_fmt_sig(&c, g->cpu_ms_per_req);
		cell(t, &c);
		report_fmt_mib(&c, g->anon_p99);
		cell(t, &c);
	}
	sbuf_release(&c);
}

/* " [0.91, 1.20]" when the ratio has an interval (report_ratio.c) */
static void ratio_ci(struct sbuf *c, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		sbuf_addf(c, " [%.2f, %.2f]", lo, hi);
}

static void ratios(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (!r->nratios)
		return;
	for (i = 0; i < r->nratios && r->ratios[i].base == r->ratios[0].base; i++)
		;
	if (i == r->nratios)
		addf(d, RDOC_H2, "Ratios to %s, each stamped with its rate",
		     r->impls[r->ratios[0].base].name);
	else
		add(d, RDOC_H2, "Ratios between implementations, each stamped with its rate");
	addf(d, RDOC_P, "A ratio is a curve, not a number: > 1 means more than the base at that "
	     "stage and rate (merged percentiles, pooled CPU and memory of accepted windows). "
	     "[lo, hi]: a conservative interval from each side's own %.0f%% interval (the "
	     "percentile's order-statistic interval; a t interval over the windows' CPU per "
	     "request), lo = a.lo / b.hi, hi = a.hi / b.lo.", r->level * 100);
	t = table(d, "ratios", 6, "implementation / base", "stage", "rate (req/s)", r->slo_label,
		  "CPU ms/req", "anon p99");
	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];

		cellf(t, "%s / %s", r->impls[q->impl].name, r->impls[q->base].name);
		cellf(t, "%s", q->stage);
		report_fmt_rate(&c, q->rate);
		cell(t, &c);
		report_fmt_num(&c, q->pslo, 2);
		ratio_ci(&c, q->pslo_lo, q->pslo_hi);
		cell(t, &c);
		report_fmt_num(&c, q->cpu, 2);
		ratio_ci(&c, q->cpu_lo, q->cpu_hi);
		cell(t, &c);
		report_fmt_num(&c, q->anon, 2);
		cell(t, &c);
	}
	sbuf_release(&c);
}

static void verdicts(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	char buf[128];
	size_t i;

	if (!r->nverdicts)
		return;
	add(d, RDOC_H2, "Paired verdicts");
	addf(d, RDOC_P, "Over blocks: a block pairs only when both implementations' windows were "
	     "accepted. Difference = A - B by the method named (HL: Hodges-Lehmann shift with its "
	     "Wilcoxon signed-rank interval; t: mean with a paired t interval; CS: mean with "
	     "Robbins' normal-mixture confidence sequence, the rule a sequential confirm stopped "
	     "by), at %.0f%%; a tie when the interval lies within +-%g%% of the pairs' mean "
	     "(compare.margin_pct); A or B lower only when the two-sided p, %s, is <= %g; too few "
	     "pairs for the level is inconclusive. MDE: the smallest |A - B| found with %.0f%% "
	     "power at that level given n (docs/STATISTICS.md).", r->level * 100, r->margin_pct,
	     r->correction == CMP_CORRECT_HOLM ? "Holm-adjusted over every verdict tested"
					       : "uncorrected (compare.correction none)",
	     1 - r->level, STAT_MDE_POWER * 100);
	if (r->nverdicts)
		addf(d, RDOC_P, "Correction: %s over %zu verdicts tested.",
		     r->correction == CMP_CORRECT_HOLM ? "Holm" : "none", r->verdicts[0].family);
	t = table(d, "verdicts", 13, "stage", "rate (req/s)", "A", "B", "metric", "pairs/blocks",
		  "mean A", "mean B", "A - B [CI]", "method", "p (adjusted)", "MDE", "verdict");
	for (i = 0; i < r->nverdicts; i++) {
		const struct report_verdict *v = &r->verdicts[i];

		cellf(t, "%s", v->stage);
		report_fmt_rate(&c, v->rate);
		cell(t, &c);
		cellf(t, "%s", r->impls[v->a].name);
		cellf(t, "%s", r->impls[v->b].name);
		cellf(t, "%s", strcmp(v->metric, "p99_ms") ? "CPU ms/req" : r->slo_label);
		cellf(t, "%zu/%zu", v->ci.n, v->blocks);
		report_fmt_sig(&c, v->mean_a);
		cell(t, &c);
		report_fmt_sig(&c, v->mean_b);
		cell(t, &c);
		report_fmt_sig(&c, v->ci.n ? v->ci.mean : NAN);
		if (isfinite(v->ci.lo)) {
			sbuf_adds(&c, " [");
			report_fmt_sig(&c, v->ci.lo);
			sbuf_adds(&c, ", ");
			report_fmt_sig(&c, v->ci.hi);
			sbuf_adds(&c, "]");
		}
		cell(t, &c);
		cellf(t, "%s", v->method == STAT_CS ? "CS" : v->method == STAT_T ? "t" : "HL");
		if (isnan(v->p))
			cellf(t, "not tested");
		else if (r->correction == CMP_CORRECT_HOLM)
			cellf(t, "%.2g (%.2g)", v->p, v->p_adj);
		else
			cellf(t, "%.2g", v->p);
		if (isinf(v->mde))
			cellf(t, "none (n too small)");
		else if (isfinite(v->mde)) {
			report_fmt_sig(&c, v->mde);
			cell(t, &c);
		} else
			cellf(t, "-");
		cellf(t, "%s%s", v->ci.verdict == VERDICT_INCONCLUSIVE ? "" : RDOC_STRONG,
		      report_verdict_text(r, v, buf, sizeof(buf)));
	}
	sbuf_release(&c);
}

static void quality(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;

	sbuf_adds(&c, "Run quality: ");
	run_quality_format(&r->quality, &c);
	sbuf_adds(&c, " (accepted and failed windows are valid measurements; rejected ones are "
		      "void; load: the host's 1-minute load average at the run's start and end).");
	add(d, RDOC_P, c.buf);
	if (r->preflight_cases >= 0 && r->preflight) {
		sbuf_reset(&c);
		sbuf_addf(&c, "Pre-flight (every request to every implementation before the first "
			      "window, checked against its expect): %.*s.",
			  (int)strcspn(r->preflight, "\n"), r->preflight);
		add(d, RDOC_P, c.buf);
	}
	sbuf_release(&c);
}

static void rejections(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i, k;

	add(d, RDOC_H2, "Failed and rejected windows per gate per implementation");
	sbuf_addf(&c, "Of %zu finished windows: ", r->total);
	counts(&c, r->total, r->accepted, r->quality.failed);
	if (r->not_done)
		sbuf_addf(&c, "; %zu planned windows not run", r->not_done);
	sbuf_adds(&c, ". Failed: an outcome gate failed, a valid measurement over the SLO. "
		      "Rejected: a validity gate failed, the measurement is void. A window can fail "
		      "several gates; \"recorded\" counts failures of gates with enforce: false, "
		      "which decide nothing.");
	add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	if (!r->ngate_fails) {
		add(d, RDOC_P, "No window failed or was rejected.");
		sbuf_release(&c);
		return;
	}
	t = add(d, RDOC_TABLE, "rejections");
	t->ncols = r->nimpls + 1;
	push_cell(t, "gate");
	for (k = 0; k < r->nimpls; k++)
		push_cell(t, r->impls[k].name);
	for (i = 0; i < r->ngate_fails; i++) {
		push_cell(t, r->gate_fails[i].name);
		for (k = 0; k < r->nimpls; k++) {
			const struct report_impl *im = &r->impls[k];
			const struct report_reason *q =
				report_reason_find(im->reasons, im->nreasons, r->gate_fails[i].name);

			if (q && q->failed)
				sbuf_addf(&c, "%zu failed", q->failed);
			if (q && q->rejected)
				sbuf_addf(&c, "%s%zu rejected", c.len ? ", " : "", q->rejected);
			sbuf_addf(&c, "%s/%zu", c.len ? " " : "0", im->total);
			if (q && q->recorded)
				sbuf_addf(&c, " (+%zu recorded)", q->recorded);
			cell(t, &c);
		}
	}
	push_cell(t, RDOC_STRONG "failed (any gate)");
	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];

		cellf(t, "%s%zu/%zu (%.0f%%)", RDOC_STRONG, im->failed, im->total,
		      im->total ? 100.0 * (double)im->failed / (double)im->total : 0.0);
	}
	push_cell(t, RDOC_STRONG "rejected (any gate)");
	for (k = 0; k < r->nimpls; k++) {
		const struct report_impl *im = &r->impls[k];
		size_t rej = im->total - im->accepted - im->failed;

		cellf(t, "%s%zu/%zu (%.0f%%)", RDOC_STRONG, rej, im->total,
		      im->total ? 100.0 * (double)rej / (double)im->total : 0.0);
	}
	sbuf_release(&c);
}

/* Per cell (stage x rate x implementation): the pre-registered n and what
 * became of it (docs/DESIGN.md "Replacement windows"); short cells marked. */
static void cells_table(const struct report *r, struct rdoc *d)
{
	struct rdoc_block *t;
	size_t i, nshort = 0;

	add(d, RDOC_H2, "Cells: valid, failed, rejected and replacement windows");
	for (i = 0; i < r->cells.n; i++)
		nshort += cell_short(&r->cells.v[i]);
	addf(d, RDOC_P, "A cell is one stage at one offered rate for one implementation; n is the "
	     "number of windows its stage pre-registered. A rejected (void) window is replaced "
	     "in a later block until n windows are valid or retries.max_per_cell replacements "
	     "were spent; failed windows are valid and never replaced. %zu of %zu cells ended "
	     "short%s.", nshort, r->cells.n, nshort ? " (marked SHORT: every number resting on "
	     "them rests on fewer windows than planned)" : "");
	t = add(d, RDOC_TABLE, "cells");
	t->ncols = 9;
	push_cell(t, "stage");
	push_cell(t, "rate (req/s)");
	push_cell(t, "implementation");
	push_cell(t, "n");
	push_cell(t, "valid");
	push_cell(t, "failed");
	push_cell(t, "rejected");
	push_cell(t, "replacements");
	push_cell(t, "");
	for (i = 0; i < r->cells.n; i++) {
		const struct cell *c = &r->cells.v[i];

		push_cell(t, c->stage);
		cellf(t, "%g", c->rate);
		push_cell(t, c->impl);
		cellf(t, "%zu", c->planned);
		cellf(t, "%zu", c->valid);
		cellf(t, "%zu", c->failed);
		cellf(t, "%zu", c->rejected);
		cellf(t, "%zu", c->replacements);
		if (cell_short(c))
			cellf(t, "%sSHORT %zu/%zu", RDOC_STRONG, c->valid, c->planned);
		else
			push_cell(t, c->pending ? "not run yet" : "");
	}
}

/* The summary's interval: "95% [2430, 2610], inferential" (the Knees
 * table says how many resamples crossed and why a label is what it is). */
static void short_ci(struct sbuf *c, const struct report *r, const struct report_impl *im)
{
	if (!im->has_knee_ci || !isfinite(im->knee_ci.lo)) {
		sbuf_adds(c, "-");
		return;
	}
	if (!im->knee_ci.ncrossed) {
		sbuf_adds(c, "none (no resample crossed)");
		return;
	}
	sbuf_addf(c, "%.0f%% [", r->level * 100);
	report_fmt_rate(c, im->knee_ci.lo);
	sbuf_adds(c, ", ");
	report_fmt_rate(c, im->knee_ci.hi);
	sbuf_addf(c, "], %s", im->knee_ci.inferential ? "inferential" :
		  "non-inferential (see Knees)");
}

/* What a reader needs first: each implementation's verdict (its knee as a
 * point, a bracket or a floor, with its interval and label), its cost and
 * memory at one reference rate, and how much of the run measured. */
static void summary(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT, h1 = SBUF_INIT, h2 = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	add(d, RDOC_H2, "Summary");
	if (r->spec_ok)
		sbuf_addf(&c, "SLO: %s <= %g ms, error rate <= %g. ", r->slo_label, r->slo_ms,
			  r->error_rate_max);
	sbuf_adds(&c, "The knee is the highest offered rate at which an implementation holds the "
		      "SLO: a point between two rungs; a bracket (lo, hi] when failed windows (errors, "
		      "under-delivery, death) made the crossing; \">= X\" when it held at every valid "
		      "rung up to X (its wall was not reached). ");
	if (isfinite(r->ref_rps)) {
		sbuf_adds(&c, "Cost and memory at ");
		report_fmt_rate(&c, r->ref_rps);
		sbuf_adds(&c, " req/s, the highest ladder rate every implementation was measured at "
			      "within its knee.");
	} else {
		sbuf_adds(&c, "No ladder rate has accepted windows of every implementation: cost and "
			      "memory are in the Rungs table only.");
	}
	add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	if (isfinite(r->ref_rps)) {
		sbuf_adds(&h1, "CPU ms/request at ");
		report_fmt_rate(&h1, r->ref_rps);
		sbuf_adds(&h1, " req/s");
		sbuf_adds(&h2, "anon p99 (MiB) at ");
		report_fmt_rate(&h2, r->ref_rps);
		sbuf_adds(&h2, " req/s");
	} else {
		sbuf_adds(&h1, "CPU ms/request");
		sbuf_adds(&h2, "anon p99 (MiB)");
	}
	t = table(d, "summary", 6, "implementation", "knee", "interval", h1.buf, h2.buf, "windows");
	for (i = 0; i < r->nimpls; i++) {
		const struct report_impl *im = &r->impls[i];
		const struct report_rung *g = isfinite(r->ref_rps) ?
			report_ladder_rung(r, (int)i, r->ref_rps) : NULL;

		cellf(t, "%s", im->name);
		sbuf_adds(&c, RDOC_STRONG);
		report_fmt_knee(&c, im);
		cell(t, &c);
		short_ci(&c, r, im);
		cell(t, &c);
		report_fmt_sig(&c, g ? g->cpu_ms_per_req : NAN);
		cell(t, &c);
		report_fmt_mib(&c, g ? g->anon_p99 : NAN);
		cell(t, &c);
		counts(&c, im->total, im->accepted, im->failed);
		cell(t, &c);
	}
	sbuf_release(&h1);
	sbuf_release(&h2);
	sbuf_release(&c);
	quality(r, d);
}

static void chart(struct rdoc *d, size_t i)
{
	add(d, RDOC_CHART, report_chart_title(i))->chart = i;
}

void report_doc_build(const struct report *r, struct rdoc *d)
{
	const char *stamp = report_stamp(r);
	size_t i;

	memset(d, 0, sizeof(*d));
	addf(d, RDOC_TITLE, "%s: run %s", or_dash(r->spec_name), or_dash(r->run_id));
	if (*stamp)
		add(d, RDOC_STAMP, stamp);
	if (!r->spec_ok)
		add(d, RDOC_STAMP, "The stored spec could not be parsed by this harness: the SLO is "
		    "unknown, so knees and the latency promise are omitted; intervals use 95% and "
		    "verdicts a 5% margin (the defaults).");
	/* Summary first, then charts, then tables, then provenance. */
	summary(r, d);
	add(d, RDOC_H2, "Charts");
	for (i = 0; i < report_nchart(); i++)
		chart(d, i);
	knees(r, d);
	promise(r, d);
	rungs(r, d);
	ratios(r, d);
	verdicts(r, d);
	rejections(r, d);
	cells_table(r, d);
	dependencies(r, d);
	provenance(r, d);
	if (*stamp)
		add(d, RDOC_STAMP, stamp);
}
