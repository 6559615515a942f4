/*
 * report_footprint: what each implementation costs before it does any
 * work (table footprint, store_footprint.h; read by runner_footprint.c at
 * each start): exec to first healthy, its processes' RSS and PSS once
 * healthy and before any load, its declared artifact's size. A section of
 * its own in report.md and report.html and report.json's `footprint`,
 * labelled as what it is: measured, but not the cost under load (that is
 * the CPU per request and the memory of the windows).
 */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_doc.h"
#include "report/report_study.h"
#include "store/store_footprint.h"
#include "base/util.h"

/* Median, min and max of x[0..n) (sorted here); NAN when n is 0. */
static void spread(double *x, size_t n, double *med, double *lo, double *hi)
{
	if (!n) {
		*med = *lo = *hi = NAN;
		return;
	}
	qsort(x, n, sizeof(*x), stat_cmp_double);
	*med = stat_median(x, n);
	*lo = x[0];
	*hi = x[n - 1];
}

static void roll_one(struct report_fp *f, const struct footprint_row *v, size_t n,
		     const char *impl)
{
	double *su = xcalloc(n + 1, sizeof(double)), *rs = xcalloc(n + 1, sizeof(double));
	double *ps = xcalloc(n + 1, sizeof(double));
	size_t i, ns = 0, nr = 0, np = 0;

	memset(f, 0, sizeof(*f));
	f->impl = impl;
	f->artifact_bytes = NAN;
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].impl, impl))
			continue;
		f->starts++;
		if (isfinite(v[i].startup_ms))
			su[ns++] = v[i].startup_ms;
		if (v[i].rss_kb >= 0)
			rs[nr++] = 1024.0 * (double)v[i].rss_kb;
		if (v[i].pss_kb >= 0)
			ps[np++] = 1024.0 * (double)v[i].pss_kb;
		if (v[i].artifact_bytes >= 0)
			f->artifact_bytes = (double)v[i].artifact_bytes;
	}
	spread(su, ns, &f->startup_med, &f->startup_min, &f->startup_max);
	spread(rs, nr, &f->rss_med, &f->rss_min, &f->rss_max);
	spread(ps, np, &f->pss_med, &f->pss_min, &f->pss_max);
	free(su);
	free(rs);
	free(ps);
}

int report_footprint_load(struct report *r, struct store *st)
{
	size_t i, j;

	if (store_footprint_load(st, r->run_id, &r->fp_rows, &r->nfp_rows))
		return -1;
	if (!r->nfp_rows)
		return 0;
	r->fp = xcalloc(r->nimpls + 1, sizeof(*r->fp));
	for (i = 0; i < r->nimpls; i++) {
		for (j = 0; j < r->nfp_rows && strcmp(r->fp_rows[j].impl, r->impls[i].name); j++)
			;
		if (j < r->nfp_rows)
			roll_one(&r->fp[r->nfp++], r->fp_rows, r->nfp_rows, r->fp_rows[j].impl);
	}
	return 0;
}

void report_footprint_release(struct report *r)
{
	footprint_rows_free(r->fp_rows, r->nfp_rows);
	free(r->fp);
	r->fp_rows = NULL;
	r->fp = NULL;
	r->nfp_rows = r->nfp = 0;
}

/* "median [min, max]" of x (scaled by 1/div), prec decimals */
static void cell_spread(struct sbuf *c, double med, double lo, double hi, double div, int prec)
{
	report_fmt_num(c, med / div, prec);
	if (!isfinite(med) || lo == hi)
		return;
	sbuf_adds(c, " [");
	report_fmt_num(c, lo / div, prec);
	sbuf_adds(c, ", ");
	report_fmt_num(c, hi / div, prec);
	sbuf_adds(c, "]");
}

void rdoc_footprint(const struct report *r, struct rdoc *d)
{
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i;

	if (!r->nfp)
		return;
	rdoc_add(d, RDOC_H2, "Footprint (measured at start, not the cost under load)");
	rdoc_add(d, RDOC_P, "Read at each start of an implementation on this host, once it "
	    "first answered healthy and before any request of the run: the time from its exec "
	    "to that answer, the RSS and PSS of its processes (/proc smaps_rollup; PSS divides "
	    "shared pages among the processes sharing them), and the size of its declared "
	    "artifact (implementations[].artifact). Median [min, max] over the starts. The cost "
	    "under load is the CPU per request and the memory of the windows above.");
	t = rdoc_table(d, "footprint", 6, "implementation", "starts", "exec to healthy ms",
		       "RSS idle MiB", "PSS idle MiB", "artifact MiB");
	for (i = 0; i < r->nfp; i++) {
		const struct report_fp *f = &r->fp[i];

		rdoc_cellf(t, "%s", f->impl);
		rdoc_cellf(t, "%zu", f->starts);
		cell_spread(&c, f->startup_med, f->startup_min, f->startup_max, 1, 1);
		rdoc_cell(t, &c);
		cell_spread(&c, f->rss_med, f->rss_min, f->rss_max, 1048576.0, 2);
		rdoc_cell(t, &c);
		cell_spread(&c, f->pss_med, f->pss_min, f->pss_max, 1048576.0, 2);
		rdoc_cell(t, &c);
		report_fmt_num(&c, f->artifact_bytes / 1048576.0, 3);
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jspread(double med, double lo, double hi)
{
	return json_pack("{s:o, s:o, s:o}", "median", jnum(med), "min", jnum(lo), "max", jnum(hi));
}

void *report_footprint_json(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nfp; i++) {
		const struct report_fp *f = &r->fp[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o}",
			"impl", f->impl, "measured", "at_start_before_load",
			"starts", (json_int_t)f->starts,
			"startup_ms", jspread(f->startup_med, f->startup_min, f->startup_max),
			"rss_bytes", jspread(f->rss_med, f->rss_min, f->rss_max),
			"pss_bytes", jspread(f->pss_med, f->pss_min, f->pss_max),
			"artifact_bytes", jnum(f->artifact_bytes)));
	}
	return a;
}

/* study.csv's rows (report_study.h): section footprint, median with the
 * starts' range, windows the starts. */
void report_footprint_csv(const struct report *r, struct sbuf *out)
{
	const char *d = "at_start_before_load";
	size_t i;

	for (i = 0; i < r->nfp; i++) {
		const struct report_fp *f = &r->fp[i];
		long long n = (long long)f->starts;

		report_study_csv_row(out, "footprint", f->impl, NULL, NAN, "startup_ms",
				     f->startup_med, f->startup_min, f->startup_max, n, d);
		report_study_csv_row(out, "footprint", f->impl, NULL, NAN, "rss_bytes",
				     f->rss_med, f->rss_min, f->rss_max, n, d);
		report_study_csv_row(out, "footprint", f->impl, NULL, NAN, "pss_bytes",
				     f->pss_med, f->pss_min, f->pss_max, n, d);
		report_study_csv_row(out, "footprint", f->impl, NULL, NAN, "artifact_bytes",
				     f->artifact_bytes, NAN, NAN, n, d);
	}
}
