/*
 * judge: a measured window's status from its gate verdicts
 * (gates/README.md, "Gate classes"). Pure: no I/O, no globals; the runner
 * calls it live and `audit --recheck` calls it on recomputed verdicts, so a
 * stored status can be reproduced.
 *
 *   rejected  the measurement is void through no fault of the
 *             implementation: an enforced validity gate failed, the
 *             warm-up gates never all passed (under_warmed), the host
 *             drifted, a reset before it failed (reset_failed), or an
 *             enforced gate could not be evaluated.
 *   failed    a valid measurement above the SLO: the implementation died
 *             (sut_exited), answered none of the requests due in the
 *             measured part (no_answer), or an enforced outcome gate
 *             failed.
 *   accepted  every enforced gate passed.
 *
 * Validity wins: a window with both a validity failure and an outcome
 * failure is rejected. One exception on not_evaluable: when the
 * implementation died or an enforced outcome gate failed, a gate that
 * could not be evaluated does not void the window. A dead or failing
 * implementation starves other gates of their data (no seconds with a
 * latency, no polls), and that must not turn its failure into noise.
 */
#ifndef HARNESS_JUDGE_H
#define HARNESS_JUDGE_H

#include <stddef.h>

#include "gate/gate.h"

/* The generation of the gate and judge rules a run is recorded under
 * (runs.rules): 2 = gate classes, failed windows, error_rate over requests
 * due with every unexpected response. Runs recorded before have NULL
 * there; `audit --recheck` tells their rule changes from drift. */
#define JUDGE_RULES 2

/* NONE: a window not measured yet (planned or running; NULL in the
 * database). The judge never returns it. */
enum window_status {
	WINDOW_STATUS_NONE = -1,
	WINDOW_ACCEPTED = 0,
	WINDOW_FAILED = 1,
	WINDOW_REJECTED = 2,
};
/* "accepted" | "failed" | "rejected"; "" for NONE */
const char *window_status_name(enum window_status s);
/* Parse a stored status; -1 for anything else (NULL too). */
int window_status_parse(const char *s, enum window_status *out);

/* One window gate's verdict as the judge needs it. */
struct judge_gate {
	const char *name;         /* a registry name (unknown names count as validity) */
	enum gate_status status;
	int enforced;             /* 0: recorded only, never judged */
};

struct judge_input {
	int warmup_gates;         /* the spec declares warm-up gates */
	int warm_passed;          /* every enforced warm-up gate passed */
	int sut_exited;           /* the implementation exited (or never came back) */
	int host_drift;           /* the host changed under the window */
	int agent_lost;           /* a load agent (workload.generators) was lost mid-window */
	int clock_offset;         /* an agent's clock offset uncertain or moving beyond
				     generator_options.max_offset_ms */
	int reset_failed;         /* a reset run before it did not exit 0 */
	/* Requests were due in the measured part and not one response came
	 * back in its measured seconds (evidence_no_answer: answers only in
	 * the drain after it do not count): whatever gates the spec lists, a
	 * window in which nothing was delivered is never accepted. */
	int no_answer;
	size_t ngates;
	const struct judge_gate *gates; /* window gates, in the spec's order */
	/* The head gates (warmup.head_gates on the discard_s head at the
	 * window's rate), enforced only with warmup.head_enforce: a failure
	 * is validity (not settled at the rate), reason "head:NAME". */
	size_t nhead;
	const struct judge_gate *head;
};

struct window_verdict {
	enum window_status status;
	/* Comma list, in this order: under_warmed, host_drift, reset_failed, head:NAME for each enforced head gate
	 * that did not pass (head:NAME:not_evaluable), agent_lost, clock_offset,
	 * sut_exited, no_answer, then every enforced window gate that
	 * did not pass, in the spec's order, as `name` (fail) or
	 * `name:not_evaluable`. Empty when accepted. Truncated (never
	 * overflowed) past its size. */
	char reasons[1024];
	int validity_fail;        /* a validity reason was found */
	int outcome_fail;         /* sut_exited, no_answer or an enforced outcome gate failed */
	int not_evaluable;        /* an enforced gate was not evaluable */
};

/* Judge one window. Never fails: in is read only. */
void judge_window(const struct judge_input *in, struct window_verdict *out);

/* The class a reason token stands for: sut_exited, no_answer and outcome gates ->
 * GATE_OUTCOME; under_warmed, host_drift, reset_failed, agent_lost,
 * clock_offset, validity gates, unknown names
 * and anything `:not_evaluable` -> GATE_VALIDITY. */
enum gate_class judge_reason_class(const char *reason);

#endif
