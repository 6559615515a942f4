/*
 * history_json: `harness history --format json`: the runs, and per
 * implementation its points and steps, built with jansson (jout.h).
 */
#include "report/history.h"
#include "base/jout.h"
#include "base/util.h"

static json_t *hval_json(const struct hval *v)
{
	json_t *o = json_object();

	jout_set(o, "value", jout_num(v->v), "lo", v->has_ci ? jout_num(v->lo) : json_null(),
		 "hi", v->has_ci ? jout_num(v->hi) : json_null(),
		 "windows", json_integer((json_int_t)v->n), NULL);
	return o;
}

static const char *kind_name(enum knee_kind k)
{
	return k == KNEE_POINT ? "point" : k == KNEE_BRACKET ? "bracket" : k == KNEE_FLOOR ? "floor"
											     : "none";
}

static json_t *impl_json(const struct history *h, size_t k)
{
	const struct hist_impl *im = &h->impls[k];
	json_t *o = json_object(), *rates = json_array(), *pts = json_array(), *steps = json_array();
	size_t r, j;

	json_object_set_new(o, "name", jout_str(im->name));
	for (j = 0; j < im->nrates; j++)
		json_array_append_new(rates, json_real(im->rates[j]));
	json_object_set_new(o, "rates_rps", rates);
	for (r = 0; r < h->nruns; r++) {
		const struct hist_point *p = &im->points[r];
		json_t *po, *c, *m, *l, *kn;

		if (!p->present)
			continue;
		po = json_object();
		json_object_set_new(po, "run", jout_str(h->runs[r].id));
		json_object_set_new(po, "commit", jout_str(h->runs[r].commits[k]));
		kn = hval_json(&p->knee);
		json_object_set_new(kn, "kind", json_string(kind_name(p->knee_kind)));
		json_object_set_new(po, "knee_rps", kn);
		kn = hval_json(&p->knee_lat);
		json_object_set_new(kn, "rate_rps", jout_num(p->held_rps));
		json_object_set_new(po, "knee_latency_ms", kn);
		c = json_array();
		m = json_array();
		l = json_array();
		for (j = 0; j < im->nrates; j++) {
			json_array_append_new(c, hval_json(&p->cost[j]));
			json_array_append_new(m, hval_json(&p->mem[j]));
			json_array_append_new(l, hval_json(&p->lat[j]));
		}
		jout_set(po, "cpu_us_per_request", c, "memory_mib", m, "latency_ms", l, NULL);
		json_array_append_new(pts, po);
	}
	json_object_set_new(o, "points", pts);
	for (j = 0; j < im->nsteps; j++) {
		const struct hist_step *s = &im->steps[j];
		json_t *so = json_object();

		jout_set(so, "run", jout_str(h->runs[s->run].id),
			 "metric", json_string(history_metric_name(s->metric)),
			 "rate_rps", s->metric == HM_KNEE ? json_null() : json_real(im->rates[s->rate]),
			 "from", jout_num(s->from), "to", jout_num(s->to),
			 "direction", json_string(s->regression ? "regression" : "improvement"),
			 "confirmed", json_boolean(s->confirmed), NULL);
		json_array_append_new(steps, so);
	}
	json_object_set_new(o, "steps", steps);
	return o;
}

char *history_json(const struct history *h)
{
	json_t *o = json_object(), *runs = json_array(), *impls = json_array();
	size_t r, k;

	jout_set(o, "spec", jout_str(h->spec), "runs_dir", jout_str(h->runs_dir),
		 "percentile", json_real(h->percentile), NULL);
	for (r = 0; r < h->nruns; r++) {
		json_t *ro = json_object();

		jout_set(ro, "id", jout_str(h->runs[r].id),
			 "created_at", jout_num(h->runs[r].created_at),
			 "status", jout_str(h->runs[r].status), NULL);
		json_array_append_new(runs, ro);
	}
	json_object_set_new(o, "runs", runs);
	for (k = 0; k < h->nimpls; k++)
		json_array_append_new(impls, impl_json(h, k));
	json_object_set_new(o, "impls", impls);
	return jout_dumps(o);
}
