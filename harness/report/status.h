/*
 * status: `harness status`'s text, one run's progress as a document
 * written by rdoc_text() (report_doc.h): the run's status, its
 * pre-flight, the EXPLORATORY stamp, its plan, and a table of the
 * windows per stage and in total. The command (cmd_status.c) counts the
 * windows from the run's view; this writes them.
 *
 * Ownership: every pointer is borrowed for the call; the text is
 * appended to the caller's sbuf.
 */
#ifndef HARNESS_REPORT_STATUS_H
#define HARNESS_REPORT_STATUS_H

#include <stddef.h>

struct run_record;
struct sbuf;

struct status_counts {
	long planned, done, accepted, rejected, running, failed;
	long replacements;           /* windows of replacement rounds (cells.h) */
	long plan;                   /* pre-registered by the run's plan; -1 unknown */
};

/* Stage name and its counts, in the order the stages first appear. */
struct status_stage {
	const char *stage;           /* borrowed from the view's windows */
	struct status_counts c;
};

/* The first line of runs.preflight (its summary), in sb; "" for none. */
const char *status_preflight_line(const char *text, struct sbuf *sb);

/* The text of run_id: status (stored, or "abandoned"), nst stages and
 * the total; extra the most replacements the plan can add, -1 when the
 * plan is unknown (no plan line). */
void status_text(const char *run_id, const struct run_record *rec, const char *status,
		 const struct status_stage *stages, size_t nst, const struct status_counts *total,
		 long extra, struct sbuf *out);

#endif
