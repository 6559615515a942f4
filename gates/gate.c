/*
 * gate: the helpers gate files share, beneath them (parameter lookup,
 * result formatting, input lookups, the Mann-Kendall/Theil-Sen trend
 * verdict). The registry, lookup by name and evaluation are registry.c's.
 */
#include "gate/gate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/stat.h"
#include "base/util.h"

const char *gate_status_name(enum gate_status s)
{
	switch (s) {
	case GATE_PASS:
		return "pass";
	case GATE_FAIL:
		return "fail";
	case GATE_NOT_EVALUABLE:
		return "not_evaluable";
	}
	return "not_evaluable";
}

const char *gate_class_name(enum gate_class c)
{
	return c == GATE_OUTCOME ? "outcome" : "validity";
}

const struct gate_param *gate_param_find(const struct gate_def *def, const char *key)
{
	const struct gate_param *p;

	for (p = def->params; p && p->name; p++)
		if (!strcmp(p->name, key))
			return p;
	return NULL;
}

const struct gate_value *gate_param_value(const struct gate_params *cfg, const char *key)
{
	size_t i;

	if (!cfg)
		return NULL;
	for (i = 0; i < cfg->nvalues; i++)
		if (cfg->values[i].key && !strcmp(cfg->values[i].key, key))
			return &cfg->values[i];
	return NULL;
}

double gate_param_num(const struct gate_params *cfg, const struct gate_def *def,
		      const char *key)
{
	const struct gate_value *v = gate_param_value(cfg, key);
	const struct gate_param *p;

	if (v && (v->type == GATE_VAL_NUM || v->type == GATE_VAL_BOOL))
		return v->num;
	p = gate_param_find(def, key);
	return p ? p->def : NAN;
}

const char *gate_param_str(const struct gate_params *cfg, const char *key)
{
	const struct gate_value *v = gate_param_value(cfg, key);

	return v && v->type == GATE_VAL_STR ? v->str : NULL;
}

void gate_resultf(struct gate_result *r, enum gate_status st, const char *stat_name,
		  double statistic, double threshold, const char *fmt, ...)
{
	va_list ap;

	r->status = st;
	r->statistic = statistic;
	r->threshold = threshold;
	snprintf(r->stat_name, sizeof(r->stat_name), "%s", stat_name ? stat_name : "");
	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
}

const struct gate_series *gate_input_series(const struct gate_input *in, const char *signal)
{
	size_t i;

	if (!in || !signal)
		return NULL;
	for (i = 0; i < in->nseries; i++)
		if (in->series[i].signal && !strcmp(in->series[i].signal, signal))
			return &in->series[i];
	return NULL;
}

const struct gate_counters *gate_input_counters(const struct gate_input *in, const char *signal)
{
	size_t i;

	if (!in || !signal)
		return NULL;
	for (i = 0; i < in->ncounters; i++)
		if (in->counters[i].signal && !strcmp(in->counters[i].signal, signal))
			return &in->counters[i];
	return NULL;
}

const struct gate_derived *gate_input_derived(const struct gate_input *in, const char *signal)
{
	size_t i;

	if (!in || !signal)
		return NULL;
	for (i = 0; i < in->nderived; i++)
		if (in->derived[i].signal && !strcmp(in->derived[i].signal, signal))
			return &in->derived[i];
	return NULL;
}

const struct gate_param gate_trend_params[] = {
	{ "alpha", GP_NUM, 0.05, 1e-9, 0.5, 0,
	  "significance level of the one-sided Mann-Kendall test for an upward trend" },
	{ "min_slope_ms_per_min", GP_NUM, 1.0, 0, 1e9, 0,
	  "a significant trend fails only if its Theil-Sen slope exceeds this (ms per minute)" },
	{ "min_points", GP_NUM, 10, 3, 1e9, 0,
	  "seconds with a value needed to judge (fewer: not_evaluable)" },
	{ .name = NULL },
};

void gate_eval_trend(const struct gate_params *cfg, const struct gate_def *def,
		     const double *y, size_t n, double dt_s, const char *what,
		     struct gate_result *out)
{
	double alpha = gate_param_num(cfg, def, "alpha");
	double min_slope = gate_param_num(cfg, def, "min_slope_ms_per_min");
	double min_points = gate_param_num(cfg, def, "min_points");
	struct mk_result mk;
	double *t = NULL, slope;
	size_t i, finite = 0;

	for (i = 0; i < n && y; i++)
		if (isfinite(y[i]))
			finite++;
	if (!y || (double)finite < min_points || finite < 3) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "mk_p", NAN, alpha,
			     "%s: %zu of %zu seconds with a value, need %.0f",
			     what, finite, n, min_points);
		return;
	}
	stat_mann_kendall(y, n, &mk);
	t = xmalloc(n * sizeof(*t));
	for (i = 0; i < n; i++)
		t[i] = (double)i * dt_s;
	slope = stat_theil_sen(t, y, n) * 60.0; /* per second -> per minute */
	free(t);
	gate_resultf(out, mk.p < alpha && slope > min_slope ? GATE_FAIL : GATE_PASS,
		     "mk_p", mk.p, alpha,
		     "%s: n=%zu S=%.0f Var(S)=%.1f Z=%.3f p=%.4g (alpha %g), "
		     "Theil-Sen %+.3f ms/min (bound %g)",
		     what, mk.n, mk.s, mk.var_s, mk.z, mk.p, alpha, slope, min_slope);
}
