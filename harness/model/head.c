/* head: the discard_s head of a window judged by the flatness gates (head.h). */
#include "model/head.h"

void head_judge(const struct spec *spec, const struct spec_impl *impl,
		const struct evidence *head, struct gate_result *res, struct judge_gate *jg)
{
	struct gate_input in;
	struct evidence_scratch scratch;
	size_t g;

	evidence_gate_input(head, spec, impl, 0, &in, &scratch);
	for (g = 0; g < spec->warmup.nhead_gates; g++) {
		const char *name = spec->warmup.head_gates[g];

		gate_eval(spec_gate_find(spec, name), name, &in, &res[g]);
		jg[g].name = name;
		jg[g].status = res[g].status;
		jg[g].enforced = spec->warmup.head_enforce;
	}
	evidence_scratch_release(&scratch);
}
