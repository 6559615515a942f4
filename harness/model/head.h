/*
 * head: each window's discard_s head, at the window's full rate, judged by
 * the flatness gates of warmup.head_gates (docs/DESIGN.md, "Window
 * status"). The warm-up gates judge the warm-up rate; the jump to the
 * window's rate can unsettle an implementation again, and the head is
 * where that shows. Recorded as gate_results phase "head"; a failure
 * rejects the window (validity, reason head:NAME) only with
 * warmup.head_enforce. The runner calls head_judge() live and
 * `audit --recheck` on the stored discard seconds, so both agree.
 */
#ifndef HARNESS_HEAD_H
#define HARNESS_HEAD_H

#include "model/evidence.h"
#include "gate/gate.h"
#include "gate/judge.h"
#include "spec/spec.h"

/* Evaluate spec->warmup.head_gates on the head's evidence (every second
 * of it): res[i] and jg[i] for i < nhead_gates (jg borrows the names;
 * enforced = head_enforce). Both arrays sized by the caller. */
void head_judge(const struct spec *spec, const struct spec_impl *impl,
		const struct evidence *head, struct gate_result *res, struct judge_gate *jg);

#endif
