/*
 * audit: re-deriving a run's verdicts from its stored raw data.
 */
#ifndef HARNESS_AUDIT_H
#define HARNESS_AUDIT_H

#include <jansson.h>
#include <stdint.h>

#include "spec/spec.h"
#include "store/store.h"

struct sbuf;

/* What a recheck counted. legacy (in): the run was recorded under the
 * rules before the gate classes (runs.rules NULL, judge.h JUDGE_RULES):
 * differences a rule change explains (error_rate's statistic and verdict,
 * and the window statuses) are counted in rule_changes, described, and are
 * not mismatches. */
struct recheck_count {
	int legacy;
	long checked;
	long rule_changes;
};

/* Recompute every stored gate result of the run (warm-up and window
 * phases, every done window, or only window_id when >= 0) from the stored
 * series, and each window's status and reasons from the recomputed window
 * gates (harness/gate/judge.h); describe each mismatch: one line each in
 * `report`, or, when details is not NULL, one object each appended to that
 * JSON array instead. count->checked counts gate verdicts plus one status
 * per window. A window or head gate the run stored for some windows and
 * not for one of them is a mismatch there (the verdict was lost: fail
 * closed); one the run stored for no window (newer than the run) is not
 * rechecked and does not decide a recomputed status. Returns the number
 * of mismatches, -1 on error. */
int audit_recheck(struct store *st, const char *run_id, const struct spec *spec,
		  int64_t window_id, json_t *details, struct sbuf *report,
		  struct recheck_count *count);

/* The arms' CPU wait per window (windows.cpu_wait_s, evidence; docs/
 * DESIGN.md "An arm's CPU weight"), per implementation over its done
 * windows where it was read: how many, median and max, accepted windows
 * and the rest apart (audit_wait.c). Into j's "cpu_wait" (an array), or
 * as lines into out; nothing when no window has it (older runs). */
struct view;
void audit_cpu_wait(const struct view *v, json_t *j, struct sbuf *out);

#endif
