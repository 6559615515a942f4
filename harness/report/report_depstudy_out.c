/*
 * report_depstudy_out: a dependency's ceiling and costs (report_depstudy.c)
 * in every format: the report's blocks (md, html), report.json's
 * dependencies[].ceiling / .statements / .counters / .stats_failures,
 * study.csv.
 */
#include "report/report_study.h"

#include <math.h>
#include <string.h>

#include "base/util.h"
#include "report/report.h"
#include "report/report_doc.h"

#define TOP_STATEMENTS 5

static void ceilings(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i;

	t = rdoc_table(d, "dependency_ceiling", 6, "dependency", "ceiling (ops/s)",
		       "measured", "peak demand (ops/s)", "at", "peak % of ceiling");
	for (i = 0; i < s->ndepceil; i++) {
		const struct report_depceil *x = &s->depceil[i];
		double pct = isfinite(x->peak_demand) && x->ceiling > 0 ?
			     100 * x->peak_demand / x->ceiling : NAN;

		rdoc_cellf(t, "%s", x->dep);
		report_fmt_sig(&c, x->ceiling);
		rdoc_cell(t, &c);
		if (!x->rungs)
			sbuf_adds(&c, "no ladder");
		else if (x->closed_loop)
			sbuf_addf(&c, "closed loop, %s", x->in_demand ? "its demand counter" :
				  "as its command reported");
		else {
			sbuf_addf(&c, "%zu rungs, kept up to ", x->rungs);
			report_fmt_sig(&c, x->kept_rate);
			sbuf_addf(&c, "/s; %s", x->in_demand ? "its demand counter" :
				  "as its command reported");
		}
		rdoc_cell(t, &c);
		report_fmt_sig(&c, x->peak_demand);
		rdoc_cell(t, &c);
		if (x->peak_stage) {
			sbuf_addf(&c, "%s, %s ", x->peak_impl >= 0 ? r->impls[x->peak_impl].name : "?",
				  x->peak_stage);
			report_fmt_rate(&c, x->peak_rate);
			sbuf_adds(&c, " req/s");
		} else
			sbuf_adds(&c, "-");
		rdoc_cell(t, &c);
		if (isfinite(pct))
			rdoc_cellf(t, "%s%.1f", pct > 90 ? RDOC_STRONG : "", pct);
		else
			rdoc_cellf(t, "-");
	}
	sbuf_release(&c);
}

static void statements(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	struct rdoc_block *t;
	size_t i, shown = 0;

	if (!s->ndepstmt)
		return;
	rdoc_addf(d, RDOC_P, "Where each dependency's time went, per implementation: the "
		  "increase of its statistics' time and calls per statement over that "
		  "implementation's windows (each window measures one; the others are frozen "
		  "or idle), the top %d by time.", TOP_STATEMENTS);
	t = rdoc_table(d, "dependency_statements", 6, "dependency", "implementation", "statement",
		       "time (ms)", "calls", "ms per call");
	for (i = 0; i < s->ndepstmt; i++) {
		const struct report_depstmt *m = &s->depstmt[i];
		struct sbuf c = SBUF_INIT;

		shown = i && s->depstmt[i - 1].impl == m->impl &&
			!strcmp(s->depstmt[i - 1].dep, m->dep) ? shown + 1 : 0;
		if (shown >= TOP_STATEMENTS)
			continue;
		rdoc_cellf(t, "%s", m->dep);
		rdoc_cellf(t, "%s", r->impls[m->impl].name);
		rdoc_cellf(t, "%.100s", m->stmt);
		report_fmt_sig(&c, m->ms);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%.0f", m->calls);
		report_fmt_sig(&c, m->calls > 0 ? m->ms / m->calls : NAN);
		rdoc_cell(t, &c);
		sbuf_release(&c);
	}
}

static void counters(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	struct rdoc_block *t;
	struct sbuf c = SBUF_INIT;
	size_t i;

	if (!s->ndepctr)
		return;
	t = rdoc_table(d, "dependency_counters", 6, "dependency", "counter", "implementation",
		       "stage", "rate", "increase over valid windows");
	for (i = 0; i < s->ndepctr; i++) {
		const struct report_depcounter *x = &s->depctr[i];

		rdoc_cellf(t, "%s", x->dep);
		rdoc_cellf(t, "%.80s", x->key);
		rdoc_cellf(t, "%s", r->impls[x->impl].name);
		rdoc_cellf(t, "%s", x->stage);
		report_fmt_rate(&c, x->rate);
		rdoc_cell(t, &c);
		rdoc_cellf(t, "%.0f (%zu windows)", x->delta, x->windows);
	}
	sbuf_release(&c);
}

void rdoc_depstudy(const struct report *r, struct rdoc *d)
{
	const struct report_study *s = r->study;
	size_t i;

	if (!s || !(s->ndepceil + s->ndepstmt + s->ndepctr + s->ndepfail))
		return;
	rdoc_add(d, RDOC_H2, "Dependencies: ceiling and costs");
	for (i = 0; i < s->ndepfail; i++)
		rdoc_addf(d, RDOC_P, "Dependency %s: its stats command failed in %zu reading%s, in %zu "
			  "window%s (events dep_stats_failed; the output of the last kept in "
			  "logs/dep-%s.stats.out.failed): those windows have no demand, statement cost "
			  "or signal from it.", s->depfail[i].dep, s->depfail[i].failures,
			  s->depfail[i].failures == 1 ? "" : "s", s->depfail[i].windows,
			  s->depfail[i].windows == 1 ? "" : "s", s->depfail[i].dep);
	if (s->ndepceil) {
		rdoc_add(d, RDOC_P, "Each dependency's ceiling, measured before the first window by "
			 "its own load (dependencies[].ladder: the most it achieved), beside the "
			 "highest demand a window put on it (its stats.demand counter's rate); "
			 "dependency_headroom rejects a window above max_demand_pct of the ceiling.");
		ceilings(r, d);
	}
	statements(r, d);
	counters(r, d);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *ceiling_obj(const struct report *r, const struct report_depceil *x)
{
	return json_pack("{s:o, s:s, s:I, s:b, s:o, s:o, s:o, s:o, s:o}",
		"ops_per_s", jnum(x->ceiling), "unit", x->in_demand ? "stats.demand" : "command",
		"rungs", (json_int_t)x->rungs, "closed_loop", x->closed_loop,
		"kept_up_rate", jnum(x->kept_rate), "peak_demand", jnum(x->peak_demand),
		"peak_impl", x->peak_impl >= 0 ? json_string(r->impls[x->peak_impl].name) : json_null(),
		"peak_stage", x->peak_stage ? json_string(x->peak_stage) : json_null(),
		"peak_rate_rps", jnum(x->peak_rate));
}

/* The dependency object named name in deps (added when absent). */
static json_t *dep_obj(json_t *deps, const char *name)
{
	size_t i;
	json_t *o;

	json_array_foreach(deps, i, o) {
		const char *n = json_string_value(json_object_get(o, "name"));

		if (n && !strcmp(n, name))
			return o;
	}
	o = json_pack("{s:s}", "name", name);
	json_array_append_new(deps, o);
	return o;
}

void report_depstudy_json(const struct report *r, json_t *deps)
{
	const struct report_study *s = r->study;
	size_t i;
	json_t *o;

	if (!s || !deps)
		return;
	/* every dependency carries the three keys, so a reader need not
	 * test for them: null and empty when not measured */
	json_array_foreach(deps, i, o) {
		json_object_set_new(o, "ceiling", json_null());
		json_object_set_new(o, "statements", json_array());
		json_object_set_new(o, "counters", json_array());
		json_object_set_new(o, "stats_failures", json_pack("{s:i, s:i}", "readings", 0,
								   "windows", 0));
	}
	for (i = 0; i < s->ndepfail; i++)
		json_object_set_new(dep_obj(deps, s->depfail[i].dep), "stats_failures",
				    json_pack("{s:I, s:I}", "readings", (json_int_t)s->depfail[i].failures,
					      "windows", (json_int_t)s->depfail[i].windows));
	for (i = 0; i < s->ndepceil; i++)
		json_object_set_new(dep_obj(deps, s->depceil[i].dep), "ceiling",
				    ceiling_obj(r, &s->depceil[i]));
	for (i = 0; i < s->ndepstmt; i++) {
		const struct report_depstmt *m = &s->depstmt[i];
		json_t *o = dep_obj(deps, m->dep), *a = json_object_get(o, "statements");

		if (!a) {
			a = json_array();
			json_object_set_new(o, "statements", a);
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:I}", "impl",
			r->impls[m->impl].name, "statement", m->stmt, "time_ms", jnum(m->ms),
			"calls", jnum(m->calls), "windows", (json_int_t)m->windows));
	}
	for (i = 0; i < s->ndepctr; i++) {
		const struct report_depcounter *x = &s->depctr[i];
		json_t *o = dep_obj(deps, x->dep), *a = json_object_get(o, "counters");

		if (!a) {
			a = json_array();
			json_object_set_new(o, "counters", a);
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:o, s:I}", "key", x->key,
			"impl", r->impls[x->impl].name, "stage", x->stage, "rate_rps", jnum(x->rate),
			"increase", jnum(x->delta), "windows", (json_int_t)x->windows));
	}
}

void report_depstudy_csv(const struct report *r, struct sbuf *out)
{
	const struct report_study *s = r->study;
	size_t i;

	for (i = 0; s && i < s->ndepceil; i++) {
		const struct report_depceil *x = &s->depceil[i];

		report_study_csv_row(out, "dep_ceiling", NULL, NULL, NAN, x->dep, x->ceiling, NAN,
				     NAN, (long long)x->rungs, x->in_demand ? "stats.demand" : "command");
		report_study_csv_row(out, "dep_peak_demand", x->peak_impl >= 0 ?
				     r->impls[x->peak_impl].name : NULL, x->peak_stage, x->peak_rate,
				     x->dep, x->peak_demand, NAN, NAN, (long long)x->windows, NULL);
	}
	for (i = 0; s && i < s->ndepstmt; i++) {
		const struct report_depstmt *m = &s->depstmt[i];

		report_study_csv_row(out, "dep_statement", r->impls[m->impl].name, NULL, NAN, m->dep,
				     m->ms, NAN, NAN, (long long)m->windows, m->stmt);
	}
	for (i = 0; s && i < s->ndepfail; i++)
		report_study_csv_row(out, "dep_stats_failed", NULL, NULL, NAN, s->depfail[i].dep,
				     (double)s->depfail[i].failures, NAN, NAN,
				     (long long)s->depfail[i].windows, NULL);
	for (i = 0; s && i < s->ndepctr; i++) {
		const struct report_depcounter *x = &s->depctr[i];

		report_study_csv_row(out, "dep_counter", r->impls[x->impl].name, x->stage, x->rate,
				     x->dep, x->delta, NAN, NAN, (long long)x->windows, x->key);
	}
}
