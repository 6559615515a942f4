/*
 * hot_set_touched: every request variant of the workload was sent at least
 * once during warm-up, so no code path is cold when the window starts.
 */
#include <math.h>

#include "gate/gate.h"
#include "base/util.h"

static const struct gate_param params[] = {
	{ .name = NULL },
};

static void eval(const struct gate_params *cfg, const struct gate_input *in,
		 struct gate_result *out)
{
	struct sbuf sb = SBUF_INIT;
	uint64_t fewest = UINT64_MAX;
	size_t i, cold = 0;

	if (!in->nreq || !in->req_names || !in->req_sent) {
		gate_resultf(out, GATE_NOT_EVALUABLE, "untouched", NAN, 0,
			     "no per-request counts from the generator");
		return;
	}
	for (i = 0; i < in->nreq; i++) {
		if (in->req_sent[i] < fewest)
			fewest = in->req_sent[i];
		if (!in->req_sent[i]) {
			sbuf_addf(&sb, "%s%s", cold ? ", " : "", in->req_names[i]);
			cold++;
		}
	}
	if (cold)
		gate_resultf(out, GATE_FAIL, "untouched", (double)cold, 0,
			     "%zu of %zu request names never sent: %s", cold, in->nreq, sb.buf);
	else
		gate_resultf(out, GATE_PASS, "untouched", 0, 0,
			     "all %zu request names sent (fewest: %llu)", in->nreq,
			     (unsigned long long)fewest);
	sbuf_release(&sb);
}

const struct gate_def gate_hot_set_touched = {
	.name = "hot_set_touched",
	.help = "warm-up: every request name of the workload was sent at least once",
	.phases = GATE_PHASE_WARMUP,
	.class = GATE_VALIDITY,
	.params = params,
	.eval = eval,
};
