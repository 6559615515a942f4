/*
 * spec_lookup: questions asked of a parsed spec (an implementation or a
 * gate by name, a gate's parameter, the ladder's rungs) and the {port}
 * substitution, beneath the validators that fill the spec and the modules
 * that read it. Declared in spec.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "base/util.h"

/* -------------------------------------------------------------- lookups */

const struct spec_impl *spec_impl_find(const struct spec *s, const char *name)
{
	size_t i;

	for (i = 0; s && name && i < s->nimpls; i++)
		if (!strcmp(s->impls[i].name, name))
			return &s->impls[i];
	return NULL;
}

const struct gate_params *spec_gate_find(const struct spec *s, const char *gate)
{
	size_t i;

	for (i = 0; s && gate && i < s->ngates; i++)
		if (!strcmp(s->gates[i].name, gate))
			return &s->gates[i];
	return NULL;
}

const struct gate_value *spec_gate_value(const struct gate_params *g, const char *key)
{
	size_t i;

	for (i = 0; g && key && i < g->nvalues; i++)
		if (!strcmp(g->values[i].key, key))
			return &g->values[i];
	return NULL;
}

double spec_gate_num(const struct gate_params *g, const char *key, double def)
{
	const struct gate_value *v = spec_gate_value(g, key);

	return v && (v->type == GATE_VAL_NUM || v->type == GATE_VAL_BOOL) ? v->num : def;
}

/* ---------------------------------------------------------------- rungs */

double spec_slo_tightest_ms(const struct spec *s)
{
	double t = s->slo.threshold_ms;
	size_t i;

	for (i = 0; i < s->workload.nrequests; i++)
		if (s->workload.requests[i].slo_ms > 0 && s->workload.requests[i].slo_ms < t)
			t = s->workload.requests[i].slo_ms;
	return t;
}

size_t spec_ladder_rungs(const struct spec *s, double **rates)
{
	const struct spec_ladder *l = &s->ladder;
	double *r = NULL, x;
	size_t n = 0, alloc = 0;

	*rates = NULL;
	if (!(l->start_rps > 0) || !(l->step > 1) || !(l->max_rps >= l->start_rps))
		return 0;
	/* the exact product start * step^k, compared with a tiny relative
	 * epsilon so that max_rps = start * step^k itself is a rung */
	for (;;) {
		x = l->start_rps * pow(l->step, (double)n);
		if (x > l->max_rps * (1 + 1e-9) || n >= 1000)
			break;
		XGROW(r, alloc, n + 1);
		r[n++] = x;
	}
	*rates = r;
	return n;
}

/* ---------------------------------------------------------------- {port} */

uint64_t spec_pool_size(const struct spec *s)
{
	double *rates = NULL, top = 0, win;
	size_t n;

	if (!s->workload.nvars)
		return 0;
	if (s->workload.pool)
		return s->workload.pool;
	n = spec_ladder_rungs(s, &rates);
	if (n)
		top = rates[n - 1];
	free(rates);
	win = s->ladder.window_s;
	if (s->confirm.present && s->confirm.window_s > win)
		win = s->confirm.window_s;
	if (s->refine.present && s->refine.window_s > win)
		win = s->refine.window_s;
	if (s->soak.present && s->soak.window_s > win)
		win = s->soak.window_s;
	if (!(top * win >= 1))
		return 1;
	if (top * win >= (double)SPEC_POOL_AUTO_MAX)
		return SPEC_POOL_AUTO_MAX;
	return (uint64_t)ceil(top * win);
}

char *spec_subst_port(const char *tmpl, int port)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = tmpl, *q;

	if (!tmpl)
		return NULL;
	if (port <= 0)
		return xstrdup(tmpl);
	while ((q = strstr(p, "{port}"))) {
		sbuf_add(&sb, p, (size_t)(q - p));
		sbuf_addf(&sb, "%d", port);
		p = q + 6;
	}
	sbuf_adds(&sb, p);
	return sbuf_detach(&sb, NULL);
}

char **spec_subst_port_argv(char *const *argv, int port)
{
	size_t n = 0, i;
	char **v;

	while (argv && argv[n])
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = spec_subst_port(argv[i], port);
	return v;
}
