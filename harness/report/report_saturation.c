/*
 * report_saturation: the closed-loop stage in the report (stages.saturation;
 * table saturation, store_saturation.h). A section of its own in report.md
 * and report.html, and report.json's `saturation`, never beside the knees:
 * a closed loop's N connections each wait for their answer, so its
 * throughput is the most those clients get through and its latency a
 * service time (what wrk and ab print), while the open loop's windows keep
 * their schedule whatever the server does (docs/DESIGN.md "Closed-loop
 * saturation").
 */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "report/report_doc.h"
#include "report/report_study.h"
#include "store/store_saturation.h"
#include "base/util.h"

/* A generator above this share of its cores may be what the closed loop
 * measured: its throughput is then a floor of the server's. */
#define SAT_GEN_BOUND_PCT 90.0

static void roll_one(struct report_sat *s, const struct saturation_row *v, size_t n,
		     const char *impl)
{
	double *rps = xcalloc(n + 1, sizeof(*rps)), cpu = 0;
	int cpu_known = 1;
	struct hist h, one;
	size_t i, k = 0;

	memset(s, 0, sizeof(*s));
	s->impl = impl;
	s->gen_cpu_max = NAN;
	hist_init(&h);
	hist_init(&one);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].impl, impl))
			continue;
		s->connections = v[i].connections;
		rps[k++] = v[i].throughput_rps;
		s->requests += v[i].requests;
		s->errors += v[i].errors;
		s->exited += v[i].exited != 0;
		if (isfinite(v[i].cpu_s))
			cpu += v[i].cpu_s;
		else
			cpu_known = 0;
		if (isfinite(v[i].gen_cpu_pct) &&
		    (!isfinite(s->gen_cpu_max) || v[i].gen_cpu_pct > s->gen_cpu_max))
			s->gen_cpu_max = v[i].gen_cpu_pct;
		if (v[i].hist.p && !hist_deserialize(&one, v[i].hist.p, v[i].hist.len))
			hist_merge(&h, &one);
	}
	s->reps = k;
	qsort(rps, k, sizeof(*rps), stat_cmp_double);
	s->rps_med = k ? stat_median(rps, k) : NAN;
	s->rps_min = k ? rps[0] : NAN;
	s->rps_max = k ? rps[k - 1] : NAN;
	s->p50_ms = h.total ? hist_percentile_ms(&h, 50) : NAN;
	s->p90_ms = h.total ? hist_percentile_ms(&h, 90) : NAN;
	s->p99_ms = h.total ? hist_percentile_ms(&h, 99) : NAN;
	s->p999_ms = h.total ? hist_percentile_ms(&h, 99.9) : NAN;
	s->max_ms = h.total ? (double)h.max / 1e6 : NAN;
	s->cpu_ms_per_req = cpu_known && s->requests ? 1e3 * cpu / (double)s->requests : NAN;
	hist_release(&one);
	hist_release(&h);
	free(rps);
}

int report_saturation_load(struct report *r, struct store *st)
{
	size_t i, j;

	if (store_saturation_load(st, r->run_id, &r->sat_rows, &r->nsat_rows))
		return -1;
	if (!r->nsat_rows)
		return 0;
	r->sat = xcalloc(r->nimpls + 1, sizeof(*r->sat));
	for (i = 0; i < r->nimpls; i++) {
		for (j = 0; j < r->nsat_rows && strcmp(r->sat_rows[j].impl, r->impls[i].name); j++)
			;
		if (j < r->nsat_rows)
			roll_one(&r->sat[r->nsat++], r->sat_rows, r->nsat_rows, r->sat_rows[j].impl);
	}
	return 0;
}

void report_saturation_release(struct report *r)
{
	saturation_rows_free(r->sat_rows, r->nsat_rows);
	free(r->sat);
	r->sat_rows = NULL;
	r->sat = NULL;
	r->nsat_rows = r->nsat = 0;
}

static int gen_bound(const struct report_sat *s)
{
	return isfinite(s->gen_cpu_max) && s->gen_cpu_max > SAT_GEN_BOUND_PCT;
}

void rdoc_saturation(const struct report *r, struct rdoc *d)
{
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i;

	if (!r->nsat)
		return;
	rdoc_add(d, RDOC_H2, "Closed-loop saturation (not a knee)");
	rdoc_add(d, RDOC_P, "stages.saturation: N connections, each sending its next request "
	    "only once its answer came, as wrk and ab do. Throughput is the most those N clients "
	    "got through; latency is the service time, from each send to its answer. Neither is "
	    "comparable with the open-loop figures above, where requests keep their schedule "
	    "whatever the server does: a closed loop slows down with the server and hides its "
	    "queue. Median and range over the reps; percentiles from the reps' merged histogram.");
	t = rdoc_table(d, "saturation", 10, "implementation", "connections", "reps",
		       "throughput req/s (median [min, max])", "p50 ms", "p99 ms", "p99.9 ms",
		       "errors", "CPU ms/request", "generator CPU % (max)");
	for (i = 0; i < r->nsat; i++) {
		const struct report_sat *s = &r->sat[i];

		rdoc_cellf(t, "%s", s->impl);
		rdoc_cellf(t, "%d", s->connections);
		rdoc_cellf(t, "%zu%s", s->reps, s->exited ? " (exited)" : "");
		report_fmt_num(&c, s->rps_med, 0);
		sbuf_adds(&c, " [");
		report_fmt_num(&c, s->rps_min, 0);
		sbuf_adds(&c, ", ");
		report_fmt_num(&c, s->rps_max, 0);
		sbuf_adds(&c, "]");
		rdoc_cell(t, &c);
		report_fmt_num(&c, s->p50_ms, 2);
		rdoc_cell(t, &c);
		report_fmt_num(&c, s->p99_ms, 2);
		rdoc_cell(t, &c);
		report_fmt_num(&c, s->p999_ms, 2);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%lld of %lld", (long long)s->errors, (long long)(s->requests + s->errors));
		report_fmt_num(&c, s->cpu_ms_per_req, 4);
		rdoc_cell(t, &c);
		if (gen_bound(s))
			sbuf_addf(&c, "%s%.0f: generator-bound, a floor", RDOC_STRONG, s->gen_cpu_max);
		else
			report_fmt_num(&c, s->gen_cpu_max, 0);
		rdoc_cell(t, &c);
	}
	sbuf_release(&c);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *reps_arr(const struct report *r, const char *impl)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nsat_rows; i++) {
		const struct saturation_row *v = &r->sat_rows[i];

		if (strcmp(v->impl, impl))
			continue;
		json_array_append_new(a, json_pack("{s:i, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:b}",
			"rep", v->rep, "elapsed_s", jnum(v->elapsed_s), "requests",
			(json_int_t)v->requests, "errors", (json_int_t)v->errors,
			"throughput_rps", jnum(v->throughput_rps), "p99_ms", jnum(v->p99_ms),
			"cpu_s", jnum(v->cpu_s), "generator_cpu_pct", jnum(v->gen_cpu_pct),
			"exited", v->exited != 0));
	}
	return a;
}

void *report_saturation_json(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nsat; i++) {
		const struct report_sat *s = &r->sat[i];

		json_array_append_new(a, json_pack(
			"{s:s, s:s, s:i, s:I, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o, s:o, s:o},"
			" s:I, s:I, s:o, s:o, s:b, s:o}",
			"impl", s->impl, "mode", "closed_loop", "connections", s->connections,
			"reps", (json_int_t)s->reps,
			"throughput_rps", "median", jnum(s->rps_med), "min", jnum(s->rps_min),
			"max", jnum(s->rps_max),
			"service_ms", "p50", jnum(s->p50_ms), "p90", jnum(s->p90_ms),
			"p99", jnum(s->p99_ms), "p999", jnum(s->p999_ms), "max", jnum(s->max_ms),
			"requests", (json_int_t)s->requests, "errors", (json_int_t)s->errors,
			"cpu_ms_per_request", jnum(s->cpu_ms_per_req),
			"generator_cpu_pct_max", jnum(s->gen_cpu_max),
			"generator_bound", gen_bound(s), "runs", reps_arr(r, s->impl)));
	}
	return a;
}

/* study.csv's rows (report_study.h): section saturation, stage
 * saturation, no rate; lo and hi the reps' range where there is one;
 * windows the reps; detail closed_loop (generator_bound when so). */
void report_saturation_csv(const struct report *r, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < r->nsat; i++) {
		const struct report_sat *s = &r->sat[i];
		const char *d = gen_bound(s) ? "closed_loop generator_bound" : "closed_loop";
		long long n = (long long)s->reps;

		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "throughput_rps", s->rps_med, s->rps_min, s->rps_max, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "service_p50_ms", s->p50_ms, NAN, NAN, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "service_p99_ms", s->p99_ms, NAN, NAN, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "service_p999_ms", s->p999_ms, NAN, NAN, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "cpu_ms_per_request", s->cpu_ms_per_req, NAN, NAN, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "errors", (double)s->errors, NAN, NAN, n, d);
		report_study_csv_row(out, "saturation", s->impl, "saturation", NAN,
				     "connections", (double)s->connections, NAN, NAN, n, d);
	}
}
