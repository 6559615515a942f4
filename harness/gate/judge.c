/*
 * judge: a window's status from its gate verdicts. Contract and the rule
 * in judge.h; gates/README.md "Gate classes" states it for users.
 */
#include "gate/judge.h"

#include <stdio.h>
#include <string.h>

const char *window_status_name(enum window_status s)
{
	switch (s) {
	case WINDOW_STATUS_NONE:
		return "";
	case WINDOW_ACCEPTED:
		return "accepted";
	case WINDOW_FAILED:
		return "failed";
	case WINDOW_REJECTED:
		return "rejected";
	}
	return "rejected";
}

int window_status_parse(const char *s, enum window_status *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "accepted"))
		*out = WINDOW_ACCEPTED;
	else if (!strcmp(s, "failed"))
		*out = WINDOW_FAILED;
	else if (!strcmp(s, "rejected"))
		*out = WINDOW_REJECTED;
	else
		return -1;
	return 0;
}

enum gate_class judge_reason_class(const char *reason)
{
	const struct gate_def *def;

	if (!reason)
		return GATE_VALIDITY;
	if (!strcmp(reason, "sut_exited") || !strcmp(reason, "no_answer"))
		return GATE_OUTCOME;
	def = gate_find(reason);
	return def ? def->class : GATE_VALIDITY;
}

/* Append ",what[suffix]" (no comma first); silently truncates. */
static void add_reason(struct window_verdict *v, const char *what, const char *suffix)
{
	size_t len = strlen(v->reasons);

	if (len + 1 >= sizeof(v->reasons))
		return;
	snprintf(v->reasons + len, sizeof(v->reasons) - len, "%s%s%s", len ? "," : "", what,
		 suffix ? suffix : "");
}

void judge_window(const struct judge_input *in, struct window_verdict *out)
{
	size_t g;

	memset(out, 0, sizeof(*out));
	/* A warm-up cut short by the implementation's death is its death,
	 * not an under-warmed measurement. */
	if (in->warmup_gates && !in->warm_passed && !in->sut_exited) {
		add_reason(out, "under_warmed", NULL);
		out->validity_fail = 1;
	}
	if (in->host_drift) {
		add_reason(out, "host_drift", NULL);
		out->validity_fail = 1;
	}
	if (in->reset_failed) {
		add_reason(out, "reset_failed", NULL);
		out->validity_fail = 1;
	}
	for (g = 0; g < in->nhead; g++) {
		const struct judge_gate *jg = &in->head[g];
		char what[64];

		if (!jg->enforced || jg->status == GATE_PASS)
			continue;
		snprintf(what, sizeof(what), "head:%s", jg->name);
		if (jg->status == GATE_NOT_EVALUABLE) {
			add_reason(out, what, ":not_evaluable");
			out->not_evaluable = 1;
		} else {
			add_reason(out, what, NULL);
			out->validity_fail = 1;
		}
	}
	if (in->agent_lost) {
		add_reason(out, "agent_lost", NULL);
		out->validity_fail = 1;
	}
	if (in->clock_offset) {
		add_reason(out, "clock_offset", NULL);
		out->validity_fail = 1;
	}
	if (in->sut_exited) {
		add_reason(out, "sut_exited", NULL);
		out->outcome_fail = 1;
	}
	if (in->no_answer) {
		add_reason(out, "no_answer", NULL);
		out->outcome_fail = 1;
	}
	for (g = 0; g < in->ngates; g++) {
		const struct judge_gate *jg = &in->gates[g];

		if (!jg->enforced || jg->status == GATE_PASS)
			continue;
		if (jg->status == GATE_NOT_EVALUABLE) {
			add_reason(out, jg->name, ":not_evaluable");
			out->not_evaluable = 1;
		} else {
			add_reason(out, jg->name, NULL);
			if (judge_reason_class(jg->name) == GATE_OUTCOME)
				out->outcome_fail = 1;
			else
				out->validity_fail = 1;
		}
	}
	if (out->validity_fail)
		out->status = WINDOW_REJECTED;
	else if (out->outcome_fail)
		out->status = WINDOW_FAILED;
	else if (out->not_evaluable)
		out->status = WINDOW_REJECTED;
	else
		out->status = WINDOW_ACCEPTED;
}
