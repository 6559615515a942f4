/*
 * report_memory: memory both ways per implementation per rung. Steady
 * state is the rung's anon p99 (report_rollup.c: the p99 of the anon
 * samples pooled over its accepted windows), what the process holds
 * while it serves; the high-water mark is the cgroup's own peak
 * (memory.peak on cgroup v2, memory.max_usage_in_bytes on v1: anon, page
 * cache and kernel memory charged to it), the highest of the rung's
 * accepted windows: what a container's limit must cover. Its scope is
 * stated: "lifetime" (since the implementation started: an arm started
 * once carries its warm-up and every earlier window) or "window" (reset
 * before each window). Each figure also as a ratio to the first
 * implementation's at the same stage and rate.
 */
#include "report/report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rate.h"
#include "report/report.h"
#include "report/report_doc.h"
#include "base/util.h"

/* The highest cgroup peak of the accepted windows of rung g. */
static double rung_peak(const struct report *r, const struct report_rung *g, const char **scope)
{
	double peak = NAN;
	size_t i;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (!w->accepted || !w->has_mem_peak || w->impl_idx != g->impl ||
		    strcmp(w->stage, g->stage) || !rate_same(w->rate, g->rate))
			continue;
		if (!((double)w->mem_peak <= peak))
			peak = (double)w->mem_peak;
		*scope = w->mem_peak_scope;
	}
	return peak;
}

static const struct report_memrung *find(const struct report_study *s, int impl,
					 const char *stage, double rate)
{
	size_t i;

	for (i = 0; i < s->nmemrungs; i++)
		if (s->memrungs[i].impl == impl && !strcmp(s->memrungs[i].stage, stage) &&
		    rate_same(s->memrungs[i].rate, rate))
			return &s->memrungs[i];
	return NULL;
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

int report_memory_load(struct report *r)
{
	struct report_study *s = r->study;
	size_t i;

	s->memrungs = xcalloc(r->nrungs + 1, sizeof(*s->memrungs));
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];
		struct report_memrung *m = &s->memrungs[s->nmemrungs++];

		m->impl = g->impl;
		m->stage = g->stage;
		m->rate = g->rate;
		m->windows = g->accepted;
		m->failed = g->failed;
		m->steady = g->accepted ? g->anon_p99 : NAN;
		m->peak = rung_peak(r, g, &m->peak_scope);
		s->has_peak |= isfinite(m->peak);
	}
	for (i = 0; i < s->nmemrungs; i++) {
		struct report_memrung *m = &s->memrungs[i];
		const struct report_memrung *b = find(s, 0, m->stage, m->rate);

		m->steady_ratio = b ? ratio(m->steady, b->steady) : NAN;
		m->peak_ratio = b ? ratio(m->peak, b->peak) : NAN;
	}
	return 0;
}

/* ------------------------------------------------------------- formats */

static void ratio_cell(struct rdoc_block *t, struct sbuf *c, double v, int first)
{
	if (first)
		sbuf_adds(c, "1 (base)");
	else if (isfinite(v))
		sbuf_addf(c, "%.2fx", v);
	else
		sbuf_adds(c, "-");
	rdoc_cell(t, c);
}

void rdoc_memory(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	if (!s || !s->nmemrungs)
		return;
	rdoc_add(d, RDOC_H2, "Memory: steady and peak");
	sbuf_addf(&c, "Steady: anonymous memory p99 over the rung's accepted windows (what the "
		      "process holds while serving). Peak: the highest high-water mark the kernel kept "
		      "for its cgroup in those windows (anonymous, page cache and kernel memory: what a "
		      "container limit must cover), over the implementation's lifetime or the window as "
		      "the scope says. Ratios are to %s at the same rate. Failed windows (valid, over "
		      "the SLO) are left out of both figures, as of every latency figure, and counted "
		      "in the last column; the signals' table counts them in.",
		  r->nimpls ? r->impls[0].name : "the first implementation");
	if (!s->has_peak)
		sbuf_adds(&c, " No window has a peak: the accounting backend keeps none (procfs).");
	rdoc_add(d, RDOC_P, c.buf);
	sbuf_reset(&c);
	t = rdoc_table(d, "memory", 9, "implementation", "stage", "rate", "steady (MiB)",
		       "steady ratio", "peak (MiB)", "peak ratio", "peak scope", "windows");
	for (i = 0; i < s->nmemrungs; i++) {
		const struct report_memrung *m = &s->memrungs[i];

		rdoc_cellf(t, "%s", r->impls[m->impl].name);
		rdoc_cellf(t, "%s", m->stage);
		report_fmt_rate(&c, m->rate);
		rdoc_cell(t, &c);
		report_fmt_mib(&c, m->steady);
		rdoc_cell(t, &c);
		ratio_cell(t, &c, m->steady_ratio, m->impl == 0);
		report_fmt_mib(&c, m->peak);
		rdoc_cell(t, &c);
		ratio_cell(t, &c, m->peak_ratio, m->impl == 0);
		rdoc_cellf(t, "%s", m->peak_scope ? m->peak_scope : "-");
		rdoc_cellf(t, "%zu accepted (%zu failed left out)", m->windows, m->failed);
	}
	sbuf_release(&c);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* {"base": NAME, "rungs": [{impl, stage, rate_rps, windows, steady:{bytes,
 * ratio}, peak:{bytes, ratio, scope}}]} */
json_t *report_memory_json(const struct report *r)
{
	const struct report_study *s = r->study;
	json_t *arr = json_array();
	size_t i;

	for (i = 0; s && i < s->nmemrungs; i++) {
		const struct report_memrung *m = &s->memrungs[i];

		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:I, s:I, s:{s:o, s:o}, s:{s:o, s:o, s:o}}",
			"impl", r->impls[m->impl].name, "stage", m->stage, "rate_rps", jnum(m->rate),
			"windows", (json_int_t)m->windows, "failed_left_out", (json_int_t)m->failed,
			"steady", "bytes", jnum(m->steady), "ratio", jnum(m->steady_ratio),
			"peak", "bytes", jnum(m->peak), "ratio", jnum(m->peak_ratio),
			"scope", m->peak_scope ? json_string(m->peak_scope) : json_null()));
	}
	return json_pack("{s:o, s:s, s:s, s:o}",
			 "base", r->nimpls ? json_string(r->impls[0].name) : json_null(),
			 "steady_is", "anon p99 over accepted windows, bytes",
			 "peak_is", "highest cgroup high-water mark over accepted windows, bytes",
			 "rungs", arr);
}

void report_memory_csv(const struct report *r, struct sbuf *out)
{
	const struct report_study *s = r->study;
	size_t i;

	for (i = 0; s && i < s->nmemrungs; i++) {
		const struct report_memrung *m = &s->memrungs[i];
		const char *impl = r->impls[m->impl].name;

		report_study_csv_row(out, "memory", impl, m->stage, m->rate, "steady_bytes", m->steady,
				     NAN, NAN, (long long)m->windows, NULL);
		report_study_csv_row(out, "memory", impl, m->stage, m->rate, "steady_ratio",
				     m->steady_ratio, NAN, NAN, (long long)m->windows, NULL);
		report_study_csv_row(out, "memory", impl, m->stage, m->rate, "peak_bytes", m->peak,
				     NAN, NAN, (long long)m->windows, m->peak_scope);
		report_study_csv_row(out, "memory", impl, m->stage, m->rate, "peak_ratio",
				     m->peak_ratio, NAN, NAN, (long long)m->windows, NULL);
	}
}
