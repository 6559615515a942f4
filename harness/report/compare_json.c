/*
 * compare_json: the compare result as one line of JSON, built with
 * jansson (escaping; null for a missing number). The caller owns out.
 */
#include "report/compare.h"
#include "report/compare_out.h"
#include "report/compare_pooled.h"
#include "report/compare_seq.h"
#include "report/headline.h"
#include "base/jout.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define JZ(x) json_integer((json_int_t)(x))

static json_t *json_metric(const struct cmp_metric *m, int judged)
{
	json_t *o;

	if (!judged)   /* not in the spec's compare.metric */
		return json_null();
	o = json_object();
	json_object_set_new(o, "base", jout_num(m->base));
	json_object_set_new(o, "new", jout_num(m->new_));
	json_object_set_new(o, "diff", jout_num(m->new_ - m->base));
	json_object_set_new(o, "diff_pct", jout_num(m->rel_pct));
	json_object_set_new(o, "ci_mean", jout_num(m->ci.mean));
	json_object_set_new(o, "ci_lo", jout_num(m->ci.lo));
	json_object_set_new(o, "ci_hi", jout_num(m->ci.hi));
	json_object_set_new(o, "n_base", JZ(m->nbase));
	json_object_set_new(o, "n_new", JZ(m->nnew));
	json_object_set_new(o, "method", jout_str(stat_method_name(m->method)));
	json_object_set_new(o, "level", jout_num(m->level));
	json_object_set_new(o, "p_rise", jout_num(m->p_up));
	json_object_set_new(o, "p_fall", jout_num(m->p_down));
	json_object_set_new(o, "p_rise_adjusted", jout_num(m->padj_up));
	json_object_set_new(o, "p_fall_adjusted", jout_num(m->padj_down));
	json_object_set_new(o, "cells_tested", JZ(m->family));
	json_object_set_new(o, "mde", jout_num(m->mde));
	if (isinf(m->mde))
		json_object_set_new(o, "mde_note", json_string("none: n too small"));
	json_object_set_new(o, "mde_pct", jout_num(m->mde_pct));
	json_object_set_new(o, "margin", jout_num(m->margin));
	json_object_set_new(o, "margin_pct", jout_num(cmp_metric_margin_pct(m)));
	json_object_set_new(o, "verdict", jout_str(cmp_verdict_name(m->verdict)));
	return o;
}

static json_t *json_knee(const struct knee_result *k)
{
	json_t *o;

	if (!k || k->kind == KNEE_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "kind", jout_str(knee_kind_name(k->kind)));
	json_object_set_new(o, "crossed", json_boolean(k->crossed));
	json_object_set_new(o, "knee_rps", jout_num(k->knee_rps));
	json_object_set_new(o, "lo_rps", jout_num(k->kind == KNEE_BRACKET ? k->lo_rps : NAN));
	json_object_set_new(o, "hi_rps", jout_num(k->kind == KNEE_BRACKET ? k->hi_rps : NAN));
	json_object_set_new(o, "highest_rung_rps", jout_num(k->highest_rung_rps));
	json_object_set_new(o, "reason", jout_str(k->reason));
	json_object_set_new(o, "ci_lo", jout_num(k->has_ci ? k->ci_lo : NAN));
	json_object_set_new(o, "ci_hi", jout_num(k->has_ci ? k->ci_hi : NAN));
	json_object_set_new(o, "inferential", json_boolean(k->has_ci && k->inferential));
	return o;
}

static void json_run(json_t *o, const char *role, const struct cmp_run *r)
{
	char key[40];

	snprintf(key, sizeof(key), "%s_status", role);
	json_object_set_new(o, key, jout_str(r->status));
	snprintf(key, sizeof(key), "%s_failure", role);
	json_object_set_new(o, key, jout_str(r->failure));
	snprintf(key, sizeof(key), "%s_failure_kind", role);
	json_object_set_new(o, key, jout_str(r->failure_kind));
	snprintf(key, sizeof(key), "%s_failure_impl", role);
	json_object_set_new(o, key, jout_str(r->failure_impl));
}

static json_t *json_rate(const struct compare *c, const struct cmp_rate *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "rate", jout_num(r->rate));
	json_object_set_new(o, "base_valid", JZ(r->vbase));
	json_object_set_new(o, "base_failed", JZ(r->fbase));
	json_object_set_new(o, "new_valid", JZ(r->vnew));
	json_object_set_new(o, "new_failed", JZ(r->fnew));
	json_object_set_new(o, "valid_pairs", JZ(r->vpairs));
	json_object_set_new(o, "outcome_regression", json_boolean(r->outcome_regression));
	json_object_set_new(o, "latency",
			    json_metric(&r->p99, r->has_cells && (c->metrics & CMP_P99) != 0));
	json_object_set_new(o, "cpu_per_request",
			    json_metric(&r->cpu, r->has_cells &&
						  (c->metrics & CMP_CPU_PER_REQUEST) != 0));
	{
		json_t *a = json_array();
		size_t k;

		for (k = 0; k < r->nreq; k++) {
			json_t *x = json_object();

			json_object_set_new(x, "name", jout_str(c->new_.reqs[k]));
			json_object_set_new(x, "judged", json_boolean(c->new_.req_slo_ms[k] > 0));
			json_object_set_new(x, "latency", json_metric(&r->req[k], r->has_cells));
			json_array_append_new(a, x);
		}
		json_object_set_new(o, "requests", a);
	}
	return o;
}

static json_t *json_impl(const struct compare *c, const struct cmp_impl *im)
{
	json_t *o = json_object(), *rates = json_array();
	size_t j;
	double d;

	json_object_set_new(o, "name", jout_str(im->name));
	json_object_set_new(o, "verdict", jout_str(cmp_verdict_name(im->verdict)));
	json_object_set_new(o, "why", jout_str(im->why));
	json_object_set_new(o, "judged", json_boolean(im->judged));
	json_object_set_new(o, "paired", json_boolean(im->paired));
	json_object_set_new(o, "max_valid_pairs", JZ(im->max_vpairs));
	json_object_set_new(o, "method", jout_str(im->seq ? "sequential"
						   : stat_method_name(im->paired ? c->method_paired
										 : c->method_unpaired)));
	if (im->seq)
		json_object_set_new(o, "sequential", cmp_seq_json(im->seq));
	json_object_set_new(o, "correction", jout_str(cmp_out_correction(c->correction)));
	json_object_set_new(o, "cells_tested", JZ(im->ncells));
	json_object_set_new(o, "hypotheses_tested", JZ(im->family));
	json_object_set_new(o, "decided_by", jout_str(im->decided_by));
	json_object_set_new(o, "pooled", cmp_pooled_json(c, im));
	json_object_set_new(o, "base_commit", jout_str(im->base_commit));
	json_object_set_new(o, "new_commit", jout_str(im->new_commit));
	json_object_set_new(o, "new_ref", jout_str(im->new_ref));
	for (j = 0; j < im->nrates; j++)
		json_array_append_new(rates, json_rate(c, &im->rates[j]));
	json_object_set_new(o, "rates", rates);
	json_object_set_new(o, "knee_base", json_knee(im->kbase));
	json_object_set_new(o, "knee_new", json_knee(im->knew));
	json_object_set_new(o, "knee_shift_rps", jout_num(cmp_out_knee_shift(im, &d) ? d : NAN));
	return o;
}

/* One line of JSON, built with jansson (escaping; null for a missing
 * number). */
void compare_json(const struct compare *c, struct sbuf *out)
{
	json_t *o = json_object(), *rule = json_object(), *metrics = json_array();
	json_t *units = json_object(), *impls = json_array();
	struct sbuf t = SBUF_INIT;
	size_t i;
	char *text;

	compare_headline(c, &t);
	json_object_set_new(o, "headline", json_string(t.buf));
	sbuf_release(&t);
	json_object_set_new(o, "base", jout_str(c->base.id));
	json_object_set_new(o, "new", jout_str(c->new_.id));
	json_run(o, "base", &c->base);
	json_run(o, "new", &c->new_);
	json_object_set_new(o, "same_run", json_boolean(c->same_run));
	json_object_set_new(o, "spec_name", jout_str(c->new_.spec_name));
	json_object_set_new(o, "version_diffs", jout_str(c->version_diffs));
	json_object_set_new(o, "same_spec", json_boolean(c->same_spec));
	json_object_set_new(o, "exploratory",
			    json_boolean(c->base.exploratory || c->new_.exploratory));
	json_object_set_new(rule, "margin_pct", jout_num(c->margin_pct));
	json_object_set_new(rule, "margin_ms", jout_num(c->margin_ms));
	json_object_set_new(rule, "margin_cpu_us", jout_num(c->margin_cpu_us));
	json_object_set_new(rule, "alpha", jout_num(c->alpha));
	json_object_set_new(rule, "min_pairs", JZ(c->min_pairs));
	json_object_set_new(rule, "percentile", jout_num(c->new_.slo_pct));
	json_object_set_new(rule, "interval_level", jout_num(1 - 2 * c->alpha));
	json_object_set_new(rule, "method_paired", jout_str(stat_method_name(c->method_paired)));
	json_object_set_new(rule, "method_unpaired",
			    jout_str(stat_method_name(c->method_unpaired)));
	json_object_set_new(rule, "correction", jout_str(cmp_out_correction(c->correction)));
	json_object_set_new(rule, "mde_power", jout_num(CMP_MDE_POWER));
	if (c->metrics & CMP_P99)
		json_array_append_new(metrics, json_string("p99"));
	if (c->metrics & CMP_CPU_PER_REQUEST)
		json_array_append_new(metrics, json_string("cpu_per_request"));
	json_object_set_new(rule, "metrics", metrics);
	json_object_set_new(o, "rule", rule);
	json_object_set_new(units, "latency", json_string("ms"));
	json_object_set_new(units, "cpu_per_request", json_string("us"));
	json_object_set_new(units, "rate", json_string("req/s"));
	json_object_set_new(o, "units", units);
	for (i = 0; i < c->nimpls; i++)
		json_array_append_new(impls, json_impl(c, &c->impls[i]));
	json_object_set_new(o, "impls", impls);
	json_object_set_new(o, "judged", json_integer(c->judged));
	json_object_set_new(o, "regressions", json_integer(c->regressions));
	json_object_set_new(o, "inconclusive", json_integer(c->inconclusive));
	json_object_set_new(o, "result", json_string(c->exit_code == 1 ? "regression"
						    : c->exit_code == 3 ? "inconclusive"
									: "no regression"));
	json_object_set_new(o, "exit", json_integer(c->exit_code));
	text = jout_dumps_line(o);
	sbuf_adds(out, text);
	free(text);
}
