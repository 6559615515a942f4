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
	o = jout_set(json_object(), "base", jout_num(m->base), "new", jout_num(m->new_),
		     "diff", jout_num(m->new_ - m->base), "diff_pct", jout_num(m->rel_pct),
		     "ci_mean", jout_num(m->ci.mean), "ci_lo", jout_num(m->ci.lo),
		     "ci_hi", jout_num(m->ci.hi), "n_base", JZ(m->nbase), "n_new", JZ(m->nnew),
		     "method", jout_str(stat_method_name(m->method)), "level", jout_num(m->level),
		     "p_rise", jout_num(m->p_up), "p_fall", jout_num(m->p_down),
		     "p_rise_adjusted", jout_num(m->padj_up),
		     "p_fall_adjusted", jout_num(m->padj_down), "cells_tested", JZ(m->family),
		     "mde", jout_num(m->mde), NULL);
	if (isinf(m->mde))
		jout_set(o, "mde_note", json_string("none: n too small"), NULL);
	return jout_set(o, "mde_pct", jout_num(m->mde_pct), "margin", jout_num(m->margin),
			"margin_pct", jout_num(cmp_metric_margin_pct(m)),
			"verdict", jout_str(cmp_verdict_name(m->verdict)), NULL);
}

static json_t *json_knee(const struct knee_result *k)
{
	int bracket = k && k->kind == KNEE_BRACKET;

	if (!k || k->kind == KNEE_NONE)
		return json_null();
	return jout_set(json_object(), "kind", jout_str(knee_kind_name(k->kind)),
			"crossed", json_boolean(k->crossed), "knee_rps", jout_num(k->knee_rps),
			"lo_rps", jout_num(bracket ? k->lo_rps : NAN),
			"hi_rps", jout_num(bracket ? k->hi_rps : NAN),
			"highest_rung_rps", jout_num(k->highest_rung_rps),
			"reason", jout_str(k->reason), "ci_lo", jout_num(k->has_ci ? k->ci_lo : NAN),
			"ci_hi", jout_num(k->has_ci ? k->ci_hi : NAN),
			"inferential", json_boolean(k->has_ci && k->inferential), NULL);
}

/* "<role>_status", "_failure", "_failure_kind", "_failure_impl" */
static void json_run(json_t *o, const char *role, const struct cmp_run *r)
{
	const char *const key[4] = { "status", "failure", "failure_kind", "failure_impl" };
	const char *const val[4] = { r->status, r->failure, r->failure_kind, r->failure_impl };
	char k[40];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(k, sizeof(k), "%s_%s", role, key[i]);
		json_object_set_new(o, k, jout_str(val[i]));
	}
}

static json_t *json_rate(const struct compare *c, const struct cmp_rate *r)
{
	json_t *a = json_array();
	size_t k;

	for (k = 0; k < r->nreq; k++)
		json_array_append_new(a, jout_set(json_object(), "name", jout_str(c->new_.reqs[k]),
						  "judged", json_boolean(c->new_.req_slo_ms[k] > 0),
						  "latency", json_metric(&r->req[k], r->has_cells),
						  NULL));
	return jout_set(json_object(), "rate", jout_num(r->rate), "base_valid", JZ(r->vbase),
			"base_failed", JZ(r->fbase), "new_valid", JZ(r->vnew),
			"new_failed", JZ(r->fnew), "valid_pairs", JZ(r->vpairs),
			"outcome_regression", json_boolean(r->outcome_regression),
			"latency", json_metric(&r->p99, r->has_cells && (c->metrics & CMP_P99)),
			"cpu_per_request",
			json_metric(&r->cpu, r->has_cells && (c->metrics & CMP_CPU_PER_REQUEST)),
			"requests", a, NULL);
}

static json_t *json_impl(const struct compare *c, const struct cmp_impl *im)
{
	json_t *o, *rates = json_array();
	enum stat_method m = im->paired ? c->method_paired : c->method_unpaired;
	size_t j;
	double d;

	o = jout_set(json_object(), "name", jout_str(im->name),
		     "verdict", jout_str(cmp_verdict_name(im->verdict)), "why", jout_str(im->why),
		     "judged", json_boolean(im->judged), "paired", json_boolean(im->paired),
		     "max_valid_pairs", JZ(im->max_vpairs),
		     "method", jout_str(im->seq ? "sequential" : stat_method_name(m)), NULL);
	if (im->seq)
		jout_set(o, "sequential", cmp_seq_json(im->seq), NULL);
	for (j = 0; j < im->nrates; j++)
		json_array_append_new(rates, json_rate(c, &im->rates[j]));
	return jout_set(o, "correction", jout_str(cmp_out_correction(c->correction)),
			"cells_tested", JZ(im->ncells), "hypotheses_tested", JZ(im->family),
			"decided_by", jout_str(im->decided_by), "pooled", cmp_pooled_json(c, im),
			"base_commit", jout_str(im->base_commit),
			"new_commit", jout_str(im->new_commit), "new_ref", jout_str(im->new_ref),
			"rates", rates, "knee_base", json_knee(im->kbase),
			"knee_new", json_knee(im->knew),
			"knee_shift_rps", jout_num(cmp_out_knee_shift(im, &d) ? d : NAN), NULL);
}

/* The rule: margins, alpha, methods, correction and the metrics judged. */
static json_t *json_rule(const struct compare *c)
{
	json_t *metrics = json_array();

	if (c->metrics & CMP_P99)
		json_array_append_new(metrics, json_string("p99"));
	if (c->metrics & CMP_CPU_PER_REQUEST)
		json_array_append_new(metrics, json_string("cpu_per_request"));
	return jout_set(json_object(), "margin_pct", jout_num(c->margin_pct),
			"margin_ms", jout_num(c->margin_ms),
			"margin_cpu_us", jout_num(c->margin_cpu_us), "alpha", jout_num(c->alpha),
			"min_pairs", JZ(c->min_pairs), "percentile", jout_num(c->new_.slo_pct),
			"interval_level", jout_num(1 - 2 * c->alpha),
			"method_paired", jout_str(stat_method_name(c->method_paired)),
			"method_unpaired", jout_str(stat_method_name(c->method_unpaired)),
			"correction", jout_str(cmp_out_correction(c->correction)),
			"mde_power", jout_num(CMP_MDE_POWER), "metrics", metrics, NULL);
}

void compare_json(const struct compare *c, struct sbuf *out)
{
	json_t *o = json_object(), *impls = json_array();
	struct sbuf t = SBUF_INIT;
	size_t i;
	char *text;

	compare_headline(c, &t);
	jout_set(o, "headline", json_string(t.buf), "base", jout_str(c->base.id),
		 "new", jout_str(c->new_.id), NULL);
	sbuf_release(&t);
	json_run(o, "base", &c->base);
	json_run(o, "new", &c->new_);
	for (i = 0; i < c->nimpls; i++)
		json_array_append_new(impls, json_impl(c, &c->impls[i]));
	jout_set(o, "same_run", json_boolean(c->same_run), "spec_name", jout_str(c->new_.spec_name),
		 "version_diffs", jout_str(c->version_diffs), "same_spec", json_boolean(c->same_spec),
		 "exploratory", json_boolean(c->base.exploratory || c->new_.exploratory),
		 "rule", json_rule(c),
		 "units", jout_set(json_object(), "latency", json_string("ms"),
				   "cpu_per_request", json_string("us"),
				   "rate", json_string("req/s"), NULL),
		 "impls", impls, "judged", json_integer(c->judged),
		 "regressions", json_integer(c->regressions),
		 "inconclusive", json_integer(c->inconclusive),
		 "result", json_string(c->exit_code == 1 ? "regression"
				       : c->exit_code == 3 ? "inconclusive" : "no regression"),
		 "exit", json_integer(c->exit_code), NULL);
	text = jout_dumps_line(o);
	sbuf_adds(out, text);
	free(text);
}
