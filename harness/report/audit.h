/*
 * audit: re-deriving a run's verdicts from its stored raw data.
 */
#ifndef HARNESS_AUDIT_H
#define HARNESS_AUDIT_H

#include <jansson.h>
#include <stdint.h>

#include "model/view.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_window.h"

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
void audit_cpu_wait(const struct view *v, json_t *j, struct sbuf *out);

/* The run as audit reads it (audit_data.c): its view (audit lists the
 * done windows) and every gate result, by window, then as stored. The
 * view keeps a spec that does not parse quiet: only --recheck needs it.
 * d owns both; audit_data_release() frees them (also after a failed
 * load). -1 after error(). */
struct audit_data {
	struct view v;
	struct gate_rows gates;
};
int audit_data_load(struct store *st, const char *run_id, struct audit_data *d);
void audit_data_release(struct audit_data *d);
/* The done window of that id, or NULL. */
const struct view_window *audit_window_of(const struct audit_data *d, int64_t id);

/* The run's tables (audit_tables.c): windows, rejections and failures per
 * implementation; failing enforced gates per gate, phase and
 * implementation (a window rejected by several gates counts under each);
 * the arms' CPU wait; the dependencies whose stats command failed. Into
 * j's keys "implementations", "by_gate", "cpu_wait", "dep_stats_failures",
 * or, j NULL, as text lines into out. */
void audit_tables(const struct audit_data *d, json_t *j, struct sbuf *out);

/* Which windows audit lists: the failed and rejected ones, of impl and
 * failed or rejected by gate when set; window >= 0: that one, whatever
 * its status. */
struct audit_select {
	const char *impl, *gate;
	int64_t window;
};
/* The selected windows (audit_windows.c), each with its gates (one window:
 * all, else those not passing) and resets, one window also with its
 * series, drain and unexpected samples: into top's "windows" array
 * (JSON), or, top NULL, as text into out ("no failed or rejected windows"
 * when none). Returns how many, -1 after error() (a store read). */
int audit_windows(struct store *st, const struct audit_data *d, const struct audit_select *sel,
		  json_t *top, struct sbuf *out);

#endif
