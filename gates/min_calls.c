/*
 * min_calls: each named endpoint has been called at least its minimum
 * number of times (so a JIT had its chance to compile it). Counts come from
 * the implementation's runtime-stats counters signal; when the
 * implementation does not provide that signal (no stats endpoint, or the
 * signal is not declared) from the generator's requests sent per workload
 * request name.
 */
#include <math.h>
#include <string.h>

#include "gate/gate.h"
#include "base/util.h"

static const struct gate_param params[] = {
	{ "counters", GP_SIGNAL, 0, 0, 0, 0,
	  "runtime-stats signal holding an object of per-endpoint call counters (else: generator counts)" },
	{ "min", GP_NUM_MAP, 0, 0, 1e15, 1,
	  "map of name -> minimum calls (names are counter keys, or workload request names)" },
	{ .name = NULL },
};

static int lookup(const struct gate_counters *c, const struct gate_input *in,
		  const char *name, double *v)
{
	size_t i;

	if (c) {
		*v = 0; /* a key the endpoint never reported: no calls yet */
		for (i = 0; i < c->n; i++)
			if (!strcmp(c->keys[i], name))
				*v = c->values[i];
		return 0;
	}
	for (i = 0; i < in->nreq && in->req_names && in->req_sent; i++)
		if (!strcmp(in->req_names[i], name)) {
			*v = (double)in->req_sent[i];
			return 0;
		}
	return -1;
}

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	const char *cname = gate_param_str(cfg, "counters");
	const struct gate_value *min = gate_param_value(cfg, "min");
	const struct gate_counters *c = gate_input_counters(in, cname);
	struct sbuf sb = SBUF_INIT;
	double worst_ratio = INFINITY, worst_v = NAN, worst_min = NAN, v, m;
	size_t i, short_ = 0;

	if (!min || min->type != GATE_VAL_MAP || !min->nmap) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "calls", NAN, NAN,
			     "min: no name -> minimum map given");
		return;
	}
	if (c && !c->ok) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "calls", NAN, NAN,
			     "%s: counters never read from the stats endpoint", cname);
		return;
	}
	sbuf_addf(&sb, "%s:", c ? cname : "generator requests sent");
	for (i = 0; i < min->nmap; i++) {
		const char *name = min->map[i].key;

		if (parse_double(min->map[i].value, &m) < 0 || m < 0) {
			gate_resultf(out, GATE_NOT_EVALUABLE, "calls", NAN, NAN,
				     "min.%s: not a number: '%s'", name, min->map[i].value);
			goto out;
		}
		if (lookup(c, in, name, &v) < 0) {
			gate_resultf(out, GATE_NOT_EVALUABLE, "calls", NAN, m,
				     "min.%s: no counter and no workload request of that name", name);
			goto out;
		}
		if (v < m)
			short_++;
		if ((m > 0 ? v / m : INFINITY) < worst_ratio || isnan(worst_v)) {
			worst_ratio = m > 0 ? v / m : INFINITY;
			worst_v = v;
			worst_min = m;
		}
		sbuf_addf(&sb, " %s=%.0f/%.0f", name, v, m);
	}
	gate_resultf(out, short_ ? GATE_FAIL : GATE_PASS, "calls", worst_v, worst_min,
		     "%s (%zu below minimum)", sb.buf, short_);
out:
	sbuf_release(&sb);
}

const struct gate_def gate_min_calls = {
	.name = "min_calls",
	.help = "warm-up: every named endpoint reached its minimum call count (runtime stats, else generator counts)",
	.phases = GATE_PHASE_WARMUP,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
