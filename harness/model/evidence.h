/*
 * evidence: everything a gate sees about one phase of one window, in the
 * flat form it is stored in (tables seconds, window_requests, windows,
 * rtstats). The runner fills it while measuring; `audit --recheck` loads
 * it back from the database; both turn it into a struct gate_input with
 * evidence_gate_input(), so a stored verdict can be recomputed exactly.
 *
 * Ownership: struct evidence owns its arrays and strings;
 * evidence_release() frees them. A gate_input built from it borrows from
 * it (and from the scratch it is given) and must not outlive either.
 */
#ifndef HARNESS_EVIDENCE_H
#define HARNESS_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "gate/gate.h"
#include "spec/spec.h"

/* One row of the rtstats table: a signal's value at one poll. */
struct ev_stat {
	double t;          /* seconds since the phase started */
	char *signal;      /* "" for a failed poll */
	char *key;         /* counter name for object signals, else NULL */
	double value;      /* NAN when missing or not a number */
	char *error;       /* NULL, or http_500 / timeout / malformed / missing / not_a_number */
};

struct evidence {
	enum gate_phase phase;

	/* per-second series (warm-up: every second; gates see the trailing
	 * part, see evidence_gate_input) */
	size_t nsec, asec;
	double *p99_ms, *p999_ms;

	/* totals of the phase (a window's: its measured seconds and its
	 * drain, docs/DESIGN.md "The drain") */
	double duration_s, offered_rps, achieved_rps;
	uint64_t due, sent, completed, errors, dropped;
	/* completed in the phase's whole seconds (a window's: not in its
	 * drain): the stored seconds rows' sum */
	uint64_t secs_completed;
	uint64_t status[ST_CLASSES];
	uint64_t status_other;
	uint64_t unexpected;      /* completed, not what the request expects */
	double lateness_p99_ms;   /* the generator's schedule lag p99 (gate.h) */
	uint64_t host_void;       /* due requests the host held back (gate.h) */
	double service_p50_ms;    /* the window's median service time (gate.h); NAN: none */
	double generator_cpu_s;

	size_t nreq;
	char **req_names;
	uint64_t *req_sent;

	char *acct_backend;
	/* the span the arm's CPU accounting covered (account.h duration_s):
	 * the measured seconds and the drain when the accounting began on
	 * time; NAN: not known (no accounting, older runs) */
	double acct_span_s;
	/* the host-held part of the arm's CPU wait (account.h held_s,
	 * held_max_s) and the CPU the host gave others over the accounted
	 * span (foreign_cpu_s); NAN: not known (older runs, no accounting) */
	double host_held_s, host_held_max_s, foreign_cpu_s;
	double host_held_ref_s;  /* the arm's usual host_held_s (runner_held.c) */
	double host_wait_s;      /* the sampled whole wait (account.h held_wait_s) */
	int has_throttle, has_oom, has_majfault;
	uint64_t nr_throttled, throttled_usec, oom_events, oom_kills, major_faults;
	int sut_exited;

	size_t nstats, astats;
	struct ev_stat *stats;

	/* dependencies over the phase (table window_deps); names owned */
	size_t ndeps;
	struct gate_dep *deps;

	/* the arms and dependencies idle over the phase (table window_idle);
	 * names owned */
	size_t nidle;
	struct gate_idle *idle;
};

/* Scratch memory behind a gate_input (series, counters). */
struct evidence_scratch {
	size_t nseries;
	struct gate_series *series;
	size_t ncounters;
	struct gate_counters *counters;
	double **bufs;     /* t/v arrays */
	size_t nbufs;
	const char ***keyarrs;
	size_t nkeyarrs;
	size_t nderived;
	struct gate_derived *derived;
};

void evidence_init(struct evidence *e, enum gate_phase phase);
void evidence_release(struct evidence *e);
void evidence_add_second(struct evidence *e, double p99_ms, double p999_ms);
/* Drop every runtime-stats row (the warm-up re-reads them each second). */
void evidence_release_stats(struct evidence *e);
/* Copies signal/key/error. */
void evidence_add_stat(struct evidence *e, double t, const char *signal,
		       const char *key, double value, const char *error);
/* Append a dependency's figures (the name is copied). */
void evidence_add_dep(struct evidence *e, const struct gate_dep *d);
/* Append an idle arm's or dependency's figures (its strings are copied). */
void evidence_add_idle(struct evidence *e, const struct gate_idle *g);
void evidence_set_requests(struct evidence *e, size_t n, const char *const *names,
			   const uint64_t *sent);

/*
 * Build the gate input. Warm-up gates see the last `trailing_s` seconds of
 * the series (and runtime stats polled in that span); window gates see
 * everything. Signals are those the implementation declares.
 */
void evidence_gate_input(const struct evidence *e, const struct spec *spec,
			 const struct spec_impl *impl, double trailing_s,
			 struct gate_input *in, struct evidence_scratch *scratch);
void evidence_scratch_release(struct evidence_scratch *s);
/* evidence_derived.c, for evidence_gate_input: the implementation's
 * derived signals over the polls at or after t0 (in->derived; a per-poll
 * one also appended to s->series, which has room for them). */
void evidence_derived(const struct evidence *e, const struct spec_impl *impl, double t0,
		      struct gate_input *in, struct evidence_scratch *s);
/* The rows of rtstats polled at or after t0, as sigexpr reads them
 * (borrowing e's strings); returns the count, *out malloc'd. */
struct sigexpr_row;
size_t evidence_sigexpr_rows(const struct evidence *e, double t0, struct sigexpr_row **out);

/* A window's no_answer (judge.h): requests were due and none was answered
 * in its measured seconds (answers only in the drain, after the window,
 * are not answering within it; nor are errors). */
int evidence_no_answer(const struct evidence *e);

#endif
