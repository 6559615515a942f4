/*
 * report_json: report.json, every number the other formats show (and the
 * windows), built with jansson. Missing numbers are null; times are unix
 * seconds, latencies milliseconds, rates requests per second, memory bytes.
 */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/headline.h"
#include "report/report_study.h"
#include "spec/spec.h"
#include "base/jout.h"
#include "base/util.h"

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* [lo, hi], or null without an interval */
static json_t *ratio_ci(double lo, double hi)
{
	return isfinite(lo) && isfinite(hi) ? json_pack("[o, o]", json_real(lo), json_real(hi))
					    : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jtri(int v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *pct(const struct report_pct *p)
{
	return json_pack("{s:o, s:[o,o], s:o}", "value", jnum(p->ms), "ci", jnum(p->lo_ms),
			 jnum(p->hi_ms), "coverage", jnum(p->coverage));
}

static json_t *reasons(const struct report_reason *v, size_t n)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_set_new(o, v[i].name,
				    json_pack("{s:I, s:I, s:I}", "failed", (json_int_t)v[i].failed,
					      "rejected", (json_int_t)v[i].rejected,
					      "recorded", (json_int_t)v[i].recorded));
	return o;
}

/* The run quality line (run_quality.h) as numbers, and as the line. */
static json_t *quality_obj(const struct report *r)
{
	const struct run_quality *q = &r->quality;
	struct sbuf line = SBUF_INIT;
	size_t top_n;
	const char *top = run_quality_top(q, &top_n);
	json_t *o;

	run_quality_format(q, &line);
	o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:s}",
		      "windows", (json_int_t)q->windows, "accepted", (json_int_t)q->accepted,
		      "failed", (json_int_t)q->failed, "rejected", (json_int_t)q->rejected,
		      "not_run", (json_int_t)q->not_done,
		      "top_rejecting", top ? json_pack("{s:s, s:I}", "reason", top, "windows",
						       (json_int_t)top_n) : json_null(),
		      "load_start", jnum(q->load_start), "load_end", jnum(q->load_end),
		      "line", line.buf);
	sbuf_release(&line);
	json_object_set_new(o, "replacements", json_integer((json_int_t)q->replacements));
	json_object_set_new(o, "cells_short", json_integer((json_int_t)q->nshort));
	return o;
}

/* Per cell (docs/DESIGN.md "Replacement windows"). */
static json_t *cells_arr(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->cells->n; i++) {
		const struct cell *c = &r->cells->v[i];

		json_array_append_new(a, json_pack("{s:s, s:f, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b}",
			"stage", c->stage, "rate", c->rate, "impl", c->impl,
			"n", (json_int_t)c->planned, "valid", (json_int_t)c->valid,
			"failed", (json_int_t)c->failed, "rejected", (json_int_t)c->rejected,
			"replacements", (json_int_t)c->replacements,
			"not_run", (json_int_t)c->pending, "short", cell_short(c)));
	}
	return a;
}

static json_t *run_obj(const struct report *r)
{
	json_t *o = json_object(), *host = json_object(), *ev = json_object(), *ver = json_object();
	size_t i;

	jout_set(o, "id", jstr(r->run_id), "spec_name", jstr(r->spec_name),
		 "spec_path", jstr(r->spec_path), "spec_hash", jstr(r->spec_hash),
		 "spec_repo", jstr(r->spec_repo), "spec_commit", jstr(r->spec_commit),
		 "spec_branch", jstr(r->spec_branch), "spec_dirty", jtri(r->spec_dirty),
		 "seed", json_integer((json_int_t)r->seed), "stages", jstr(r->stages),
		 "status", jstr(r->status), "failure", jstr(r->failure),
		 "created_at", jnum(r->created_at), "finished_at", jnum(r->finished_at),
		 "exploratory", json_boolean(r->exploratory), "forced", json_boolean(r->forced),
		 NULL);
	if (r->preflight_cases >= 0)
		json_object_set_new(o, "preflight",
				    json_pack("{s:i, s:i, s:s?}", "cases", r->preflight_cases,
					      "passed", r->preflight_passed, "text", r->preflight));
	else
		json_object_set_new(o, "preflight", json_null());
	jout_set(o, "stamp", *report_stamp(r) ? json_string(report_stamp(r)) : json_null(),
		 "harness_version", jstr(r->run_harness_version), "parent_run", jstr(r->parent_run),
		 "sandbox_user", jstr(r->sandbox_user), NULL);
	for (i = 0; i < r->nhost; i++)
		json_object_set_new(host, r->host[i].key, jstr(r->host[i].value));
	json_object_set_new(o, "host", host);
	/* version output of every dependency and implementation with a
	 * version command, keyed "dependency NAME" / "implementation NAME" */
	for (i = 0; i < r->nversions; i++)
		json_object_set_new(ver, r->versions[i].key, jstr(r->versions[i].value));
	json_object_set_new(o, "versions", ver);
	for (i = 0; i < r->nevents; i++)
		json_object_set_new(ev, r->events[i].kind, json_integer((json_int_t)r->events[i].count));
	json_object_set_new(o, "events", ev);
	return o;
}

/* Each dependency (report_deps.c): its version, its peak window against
 * the cores it may use, and its headroom per rung. */
static json_t *deps_arr(const struct report *r)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; i < r->ndeps; i++) {
		const struct report_dep_sum *s = &r->deps[i];
		json_t *rungs = json_array();

		for (k = 0; k < s->nrungs; k++) {
			const struct report_dep_rung *g = &s->rungs[k];

			json_array_append_new(rungs, json_pack(
				"{s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "stage", g->stage,
				"rate_rps", jnum(g->rate), "windows", (json_int_t)g->windows,
				"cores_mean", jnum(g->cores_mean), "ncpus", jnum(g->ncpus),
				"peak_cpu_pct", jnum(g->peak_pct), "anon_max_bytes", jnum(g->anon_max),
				"throttled", g->throttled < 0 ? json_null() : json_integer(g->throttled),
				"oom_kills", g->oom_kills < 0 ? json_null() : json_integer(g->oom_kills),
				"exited", (json_int_t)g->exited));
		}
		json_array_append_new(a, json_pack(
			"{s:s, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:I, s:o, s:o, s:I, s:o}",
			"name", s->name, "version", jstr(s->version), "ncpus", jnum(s->ncpus),
			"peak", "cpu_pct", jnum(s->peak_pct), "cores", jnum(s->peak_cores),
			"stage", jstr(s->peak_stage), "rate_rps", jnum(s->peak_rate),
			"window_id", s->peak_window >= 0 ? json_integer(s->peak_window) : json_null(),
			"anon_max_bytes", jnum(s->anon_max), "windows", (json_int_t)s->windows,
			"throttled", s->throttled < 0 ? json_null() : json_integer(s->throttled),
			"oom_kills", s->oom_kills < 0 ? json_null() : json_integer(s->oom_kills),
			"exited", (json_int_t)s->exited, "rungs", rungs));
	}
	return a;
}

static json_t *impl_obj(const struct report *r, const struct report_impl *im)
{
	json_t *o = json_object(), *k;

	jout_set(o, "name", jstr(im->name), "ord", json_integer(im->ord), "repo", jstr(im->repo),
		 "commit", jstr(im->commit), "branch", jstr(im->branch), "dirty", jtri(im->dirty),
		 "diff_hash", jstr(im->diff_hash), "ref_asked", jstr(im->ref_asked),
		 "remote_url", jstr(im->remote_url), "baseline_of", jstr(im->baseline_of),
		 "windows", json_pack("{s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)im->total,
				      "accepted", (json_int_t)im->accepted,
				      "failed", (json_int_t)im->failed,
				      "rejected", (json_int_t)(im->total - im->accepted - im->failed),
				      "not_done", (json_int_t)im->not_done),
		 "rejections", reasons(im->reasons, im->nreasons), NULL);
	if (im->has_knee) {
		k = json_object();
		jout_set(k, "crossed", json_boolean(im->knee.crossed),
			 "at_first_rung", json_boolean(im->knee.at_first_rung),
			 "knee_rps", im->knee.crossed ? jnum(im->knee.knee_rps) : json_null(),
			 "highest_rung_rps", jnum(im->knee.highest_rung_rps),
			 "rungs", json_integer((json_int_t)im->knee.rungs),
			 "kind", json_string(knee_kind_name(im->kres->kind)),
			 "lo_rps", jnum(im->kres->lo_rps), "hi_rps", jnum(im->kres->hi_rps),
			 "hold_rps", jnum(im->kres->hold_rps),
			 "reason", json_string(im->kres->reason),
			 "valid_windows", json_integer((json_int_t)im->kres->nvalid),
			 "failed_windows", json_integer((json_int_t)im->kres->nfailed), NULL);
		if (im->has_knee_ci) {
			jout_set(k, "interval_rps",
				 json_pack("[o,o]", jnum(im->knee_ci.lo), jnum(im->knee_ci.hi)),
				 "level", jnum(r->level),
				 "inferential", json_boolean(im->knee_ci.inferential),
				 "nboot", json_integer((json_int_t)im->knee_ci.nboot),
				 "ncrossed", json_integer((json_int_t)im->knee_ci.ncrossed), NULL);
		}
		json_object_set_new(o, "knee", k);
	} else {
		json_object_set_new(o, "knee", json_null());
	}
	jout_set(o, "run_knee", json_pack("{s:o, s:o}", "knee_rps", jnum(im->run_knee_rps),
					  "crossed", jtri(im->run_knee_crossed)),
		 "cpu_ms_per_req_cv", jnum(im->cpu_cv),
		 "cpu_ms_per_req_cv_rungs", json_integer((json_int_t)im->cpu_cv_rungs), NULL);
	return o;
}

static json_t *rung_obj(const struct report *r, const struct report_rung *g)
{
	json_t *o = json_object();
	const struct cell *x;

	jout_set(o, "impl", jstr(r->impls[g->impl].name), "stage", jstr(g->stage),
		 "rate_rps", jnum(g->rate), "rung", json_integer(g->rung), NULL);
	x = cells_find(r->cells, g->stage, r->impls[g->impl].name, g->rate);
	/* fewer valid windows than the stage planned, after replacements */
	jout_set(o, "short", json_boolean(x && cell_short(x)),
		 "windows", json_pack("{s:I, s:I, s:I, s:I}", "total", (json_int_t)g->total,
				      "accepted", (json_int_t)g->accepted,
				      "rejected", (json_int_t)(g->total - g->accepted),
				      "not_done", (json_int_t)g->not_done),
		 "rejections", reasons(g->reasons, g->nreasons),
		 "requests", json_integer((json_int_t)g->requests),
		 "completed", json_integer((json_int_t)g->completed), "p50_ms", pct(&g->p50),
		 "p99_ms", pct(&g->p99), "p999_ms", pct(&g->p999),
		 "slo_percentile_ms", pct(&g->pslo),
		 "mean_window_slo_percentile_ms", jnum(g->mean_pslo_ms),
		 "isotonic_fit_ms", jnum(g->fit_ms), "cpu_ms_per_req", jnum(g->cpu_ms_per_req),
		 NULL);
	/* the unit and key of load --json and history --format json */
	jout_set(o, "cpu_us_per_request", jnum(REPORT_CPU_US(g->cpu_ms_per_req)),
		 "anon_p99_bytes", jnum(g->anon_p99), "worst_window_ms", jnum(g->worst_pslo_ms),
		 "windows_under_slo", json_integer((json_int_t)g->under_slo), NULL);
	{
		json_t *a = json_array();
		size_t k;

		for (k = 0; k < g->nreqs; k++) {
			const struct report_rreq *q = &g->reqs[k];
			json_t *x = json_object();

			jout_set(x, "name", jstr(q->name),
				 "completed", json_integer((json_int_t)q->completed),
				 "unexpected", json_integer((json_int_t)q->unexpected),
				 "p50_ms", pct(&q->p50), "p99_ms", pct(&q->p99),
				 "slo_percentile_ms", pct(&q->pslo),
				 "slo_ms", q->slo_ms > 0 ? jnum(q->slo_ms) : json_null(),
				 "windows", json_integer((json_int_t)q->windows),
				 "windows_over_slo", json_integer((json_int_t)q->over), NULL);
			json_array_append_new(a, x);
		}
		json_object_set_new(o, "by_request", a);
	}
	return o;
}

static json_t *window_obj(const struct report *r, const struct view_window *w)
{
	json_t *o = json_object(), *sec = json_array();
	size_t i;

	jout_set(o, "id", json_integer(w->id), "impl", jstr(w->impl), "stage", jstr(w->stage),
		 "rung", json_integer(w->rung), "block", json_integer(w->block),
		 "slot", json_integer(w->slot), "rate_rps", jnum(w->rate),
		 "done", json_boolean(w->done), "status", jstr(w->status),
		 "reasons", jstr(w->reasons), "recorded_fails", jstr(w->recorded),
		 "warm", jtri(w->warm), "attempts", json_integer(w->attempts),
		 "offered_rps", jnum(w->offered_rps), "achieved_rps", jnum(w->achieved_rps),
		 "duration_s", jnum(w->duration_s), "requests", json_integer(w->due),
		 "completed", json_integer(w->completed), "errors", json_integer(w->errors),
		 "dropped", json_integer(w->dropped), "unexpected", json_integer(w->unexpected),
		 "protocol", jstr(w->protocol), "bytes_sent", json_integer(w->bytes_sent),
		 "bytes_received", json_integer(w->bytes_received), "p50_ms", jnum(w->p50_ms),
		 "p99_ms", jnum(w->p99_ms), "p999_ms", jnum(w->p999_ms),
		 "slo_percentile_ms", jnum(w->pslo_ms), "request_slo_ratio", jnum(w->req_ratio),
		 "knee_ms", jnum(w->knee_ms), "cpu_s", jnum(w->cpu_s),
		 "cpu_ms_per_req", jnum(w->cpu_ms_per_req),
		 "cpu_us_per_request", jnum(REPORT_CPU_US(w->cpu_ms_per_req)),
		 "anon_p99_bytes", jnum(w->anon_p99), NULL);
	for (i = 0; i < w->nsec; i++)
		json_array_append_new(sec, jnum(w->sec_p99[i]));
	json_object_set_new(o, "second_p99_ms", sec);
	sec = json_array();   /* the timeline's achieved rate, per measured second */
	for (i = 0; i < w->nsec; i++)
		json_array_append_new(sec, json_integer((json_int_t)w->sec_done[i]));
	jout_set(o, "second_completed", sec, "started_at", jnum(w->started_at),
		 "head_seconds", json_integer((json_int_t)w->nhead), NULL);
	return o;
}

/* "promise": the latency promise at each confirm rate. */
static json_t *promise_arr(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		if (strcmp(g->stage, "confirm"))
			continue;
		json_array_append_new(a, json_pack(
			"{s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I}",
			"impl", r->impls[g->impl].name, "rate_rps", jnum(g->rate),
			"merged_ms", jnum(g->pslo.ms), "slo_ms", jnum(r->slo_ms),
			"holds", isfinite(g->pslo.ms) && isfinite(r->slo_ms) ? json_boolean(g->pslo.ms <= r->slo_ms) : json_null(),
			"worst_window_ms", jnum(g->worst_pslo_ms),
			"windows_under_slo", (json_int_t)g->under_slo,
			"windows_accepted", (json_int_t)g->accepted,
			"windows_total", (json_int_t)g->total));
	}
	return a;
}

/* "ratios": each implementation over its base, per stage and rate. */
static json_t *ratios_arr(const struct report *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nratios; i++) {
		const struct report_ratio *q = &r->ratios[i];

		json_array_append_new(a, json_pack(
			"{s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "stage", q->stage,
			"rate_rps", jnum(q->rate), "impl", r->impls[q->impl].name,
			"base", r->impls[q->base].name, "slo_percentile", jnum(q->pslo),
			"slo_percentile_ci", ratio_ci(q->pslo_lo, q->pslo_hi),
			"cpu_ms_per_req", jnum(q->cpu),
			"cpu_ms_per_req_ci", ratio_ci(q->cpu_lo, q->cpu_hi), "anon_p99", jnum(q->anon)));
	}
	return a;
}

/* "verdicts": the paired verdicts, with their method, p and MDE. */
static json_t *verdicts_arr(const struct report *r)
{
	json_t *a = json_array();
	char buf[128];
	size_t i;

	for (i = 0; i < r->nverdicts; i++) {
		const struct report_verdict *v = &r->verdicts[i];

		json_array_append_new(a, json_pack(
			"{s:s, s:o, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:[o,o], s:o, s:o, s:s, s:s}",
			"stage", v->stage, "rate_rps", jnum(v->rate), "a", r->impls[v->a].name,
			"b", r->impls[v->b].name, "metric", v->metric,
			"blocks", (json_int_t)v->blocks, "pairs", (json_int_t)v->ci.n,
			"mean_a", jnum(v->mean_a), "mean_b", jnum(v->mean_b),
			"diff_mean", jnum(v->ci.n ? v->ci.mean : NAN),
			"interval", jnum(v->ci.lo), jnum(v->ci.hi), "level", jnum(r->level),
			"margin", jnum(v->margin), "verdict", stat_verdict_name(v->ci.verdict),
			"verdict_text", report_verdict_text(r, v, buf, sizeof(buf))));
		{
			json_t *o = json_array_get(a, json_array_size(a) - 1);

			jout_set(o, "method", json_string(stat_method_name(v->method)),
				 "p", jnum(v->p), "p_adjusted", jnum(v->p_adj),
				 "correction", json_string(r->correction == CMP_CORRECT_HOLM ? "holm" : "none"),
				 "tested", json_integer((json_int_t)v->family), "mde", jnum(v->mde),
				 NULL);
			if (isinf(v->mde))
				json_object_set_new(o, "mde_note", json_string("none: n too small"));
		}
	}
	return a;
}

void report_json(const struct report *r, struct sbuf *out)
{
	json_t *root = json_object(), *a;
	struct sbuf h = SBUF_INIT;
	char *text;
	size_t i;

	report_headline(r, &h);
	json_object_set_new(root, "headline", json_string(h.buf));
	sbuf_release(&h);
	jout_set(root, "format", json_integer(1), "report_harness_version", jstr(r->report_version),
		 "stamp", *report_stamp(r) ? json_string(report_stamp(r)) : json_null(),
		 "run_quality", quality_obj(r), "cells", cells_arr(r), "run", run_obj(r),
		 "spec_parsed", json_boolean(r->spec_ok),
		 "slo", json_pack("{s:o, s:o, s:o, s:s}", "percentile", jnum(r->slo_pct),
				  "threshold_ms", jnum(r->slo_ms),
				  "error_rate_max", jnum(r->error_rate_max), "label", r->slo_label),
		 "analysis", json_pack("{s:I, s:I, s:o, s:o, s:s}", "min_reps", (json_int_t)r->min_reps,
				       "nboot", (json_int_t)r->nboot, "level", jnum(r->level),
				       "margin_pct", jnum(r->margin_pct),
				       "only", "accepted windows; percentiles from merged histograms"),
		 "windows_count", json_pack("{s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)r->total,
					    "accepted", (json_int_t)r->accepted,
					    "failed", (json_int_t)r->quality.failed,
					    "rejected", (json_int_t)r->quality.rejected,
					    "not_done", (json_int_t)r->not_done),
		 NULL);
	a = json_array();
	for (i = 0; i < r->nimpls; i++)
		json_array_append_new(a, impl_obj(r, &r->impls[i]));
	json_object_set_new(root, "impls", a);
	a = json_array();
	for (i = 0; i < r->nrungs; i++)
		json_array_append_new(a, rung_obj(r, &r->rungs[i]));
	json_object_set_new(root, "rungs", a);
	json_object_set_new(root, "dependencies", deps_arr(r));
	report_depstudy_json(r, json_object_get(root, "dependencies"));
	jout_set(root, "signals", report_signals_json(r), "memory", report_memory_json(r),
		 "receipts", report_receipts_json(r), "saturation", report_saturation_json(r),
		 "footprint", report_footprint_json(r), "promise", promise_arr(r),
		 "ratios", ratios_arr(r), "verdicts", verdicts_arr(r),
		 "rejections", reasons(r->gate_fails, r->ngate_fails), NULL);
	a = json_array();
	for (i = 0; i < report_nchart(); i++) {
		json_t *c = json_pack("{s:s, s:s}", "name", report_chart_name(i),
				      "title", report_chart_title(i));

		if (!strcmp(report_chart_name(i), "percentile_spectrum"))  /* its rung */
			json_object_set_new(c, "rate_rps", jnum(report_spectrum_rate(r)));
		json_array_append_new(a, c);
	}
	json_object_set_new(root, "charts", a);
	a = json_array();
	for (i = 0; i < r->nwindows; i++)
		json_array_append_new(a, window_obj(r, &r->windows[i]));
	json_object_set_new(root, "windows", a);

	text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	if (text) {
		sbuf_adds(out, text);
		sbuf_adds(out, "\n");
		free(text);
	}
	json_decref(root);
}
