/*
 * view: one run as every reader sees it, built once from its database
 * (the anchor is git's ref-filter: one model behind for-each-ref, branch
 * and tag). report, compare, history, `harness knee RUN`, audit and
 * status read a run's windows through this; none of them keeps a window
 * struct of its own (audit --recheck recomputes verdicts from the stored
 * series: audit_recheck.c reads those itself; audit reads the gate rows).
 *
 * What it holds:
 *   - the run's record (store_run.h: the runs row, its impls, host facts)
 *     and its stored spec, parsed (NULL when this binary cannot parse it:
 *     then the SLO below is specs/README.md's default and slo_ms NAN);
 *   - every window of the run, ordered by id, in every state, with its
 *     latency histogram, its per-request results (measured phase), its
 *     per-second series, its anonymous-memory samples and the gates that
 *     failed with enforce: false;
 *   - the cells (cells.h): stage x rate x implementation, one rung key
 *     (rate.h rate_same);
 *   - each implementation's knee by knee.h's one rule;
 *   - the version events, the dependencies' rows and the stopping rules
 *     of rerun --until-decided.
 *
 * One value per window, one rule each (docs/DESIGN.md "Definitions that
 * must be exact"):
 *   errors   every request due without the answer its request expects:
 *            unexpected + connect + reset + timeout + parse + other +
 *            dropped;
 *   ok       completed - unexpected;
 *   pslo_ms  the SLO percentile of its latency histogram when that holds
 *            a request; without one, the stored p99_ms when the SLO is
 *            p99, else NAN;
 *   knee_ms  max(pslo_ms, slo_ms x req_ratio) (knee_run.h: per-request
 *            promises), the value the knee and the promise judge.
 *
 * Ownership and lifetime: struct view owns everything it points to;
 * view_release() frees it all. Readers keep pointers into a view (a
 * window, an implementation, a knee, a string) only while the view lives,
 * and never write to it after view_load() returns. Not thread-safe to
 * load; read-only use from several threads is safe.
 */
#ifndef HARNESS_VIEW_H
#define HARNESS_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "model/cells.h"
#include "base/hist.h"
#include "gate/judge.h"       /* enum window_status */
#include "model/knee.h"
#include "store/store_run.h"
#include "store/store_window.h"

struct store;
struct spec;
struct seq_rule;

/* One request name of one window, measured phase (window_requests). */
struct view_wreq {
	char *name;
	double slo_ms;               /* the spec's slo_ms for it, 0 none */
	int64_t completed, unexpected;
	int has_hist;
	struct hist h;               /* initialised only when has_hist */
	double pslo_ms;              /* the SLO percentile of h; NAN when empty */
};

/* One window, every state. Strings are never NULL unless said. */
struct view_window {
	int64_t id;
	char *stage, *impl;
	char *status;                /* accepted|failed|rejected; "" when not done */
	char *reasons;               /* comma list, "" when none */
	char *recorded;              /* gates failed with enforce: false, or NULL */
	int impl_idx;                /* index into view.impls */
	int rung, block, slot;
	enum window_status wstatus;  /* WINDOW_STATUS_NONE when not done */
	int done, accepted, failed;  /* failed: a valid window over the SLO */
	int running;                 /* started, not done (state running) */
	int valid;                   /* accepted or failed */
	int warm, attempts, sut_exited;
	double rate;                 /* offered (planned) req/s: its rung */
	double offered_rps, achieved_rps, duration_s, started_at;
	double warmup_s, ended_at;   /* its warm-up's length; when it ended */
	int has_replaces;            /* a replacement window, of window `replaces` */
	int64_t replaces;
	int64_t due, sent, completed, dropped, errors;
	int64_t ok;                  /* completed - unexpected */
	int64_t unexpected;          /* completed, not what the request expects */
	int64_t answers[5];          /* answers 2xx, 3xx, 4xx, 5xx, other */
	int64_t err_connect, err_reset, err_timeout, err_parse, err_other;
	int has_throttle, has_oom;   /* nr_throttled, oom_kill known */
	int64_t nr_throttled, oom_kill;
	int has_mem_peak;            /* the cgroup's high-water mark is known */
	int64_t mem_peak;            /* bytes */
	const char *mem_peak_scope;  /* "window" | "lifetime" (static), NULL */
	char *protocol;              /* HTTP version(s) of the responses, or NULL */
	int64_t bytes_sent, bytes_received;   /* HTTP bytes of the measured part */
	double p50_ms, p90_ms, p99_ms, p999_ms, max_ms;  /* as stored */
	double pslo_ms;              /* above */
	double lateness_p99_ms, gen_cpu_s;
	double cpu_s, anon_p50, anon_p99;   /* NAN when not accounted */
	double cpu_ms_per_req;       /* cpu_s * 1000 / completed; NAN without */
	double cpu_wait_s;           /* the arm's threads' run-queue wait over the
					window (store_window.h); NAN not known */
	int has_hist;
	struct hist lat;             /* latency_hist (initialised only when has_hist) */
	double *anon;                /* acct_samples.anon_bytes (accepted windows) */
	size_t nanon;
	double *sec_p99;             /* measured per-second p99, NAN when none */
	double *sec_done;            /* measured per-second completed requests */
	size_t nsec;                 /* entries of sec_p99 and sec_done */
	size_t nhead;                /* warm-up and discard seconds before them */
	struct view_wreq *reqs;      /* as stored (done windows), in stored order */
	size_t nreqs;
	double req_ratio;            /* largest request pslo / its slo_ms, 0 none */
	double knee_ms;              /* above */
};

/* An implementation: the run's (record order), then any only its
 * windows name. */
struct view_impl {
	const char *name;
	int ord;
	const struct run_impl *rec;  /* its impls row; NULL for a window-only name */
	size_t nknee;                /* knee input windows (valid ladder/refine/confirm) */
	struct knee_result knee;     /* knee.h over them (KNEE_NONE when nknee is 0
					or the spec does not parse: then a fit
					without a threshold, for the drawn curve) */
};

/* A version event (dep_version, impl_version) as "dependency NAME" or
 * "implementation NAME" -> its output, in the order recorded; a
 * container's image in full (dep_image, impl_image) as "dependency NAME
 * (image)" or "implementation NAME (image)". */
struct view_version {
	char *key, *value;
};

struct view {
	struct run_record rec;
	struct spec *spec;           /* NULL: does not parse (or none stored) */
	char *spec_errors;           /* VIEW_QUIET_SPEC: why it does not parse, or NULL */
	/* the SLO (spec's, else the defaults) */
	double slo_pct, slo_ms, error_rate_max;
	char slo_label[16];          /* "p99", "p99.9", ... */
	char **req_names;            /* the workload's request names and slo_ms */
	double *req_slo_ms;
	size_t nreq_names;
	int any_req_slo;
	struct view_impl *impls;
	size_t nimpls;
	struct view_window *windows; /* every window, ordered by id */
	size_t nwindows;
	struct cells cells;
	struct event_rows events;    /* ordered by id */
	struct view_version *versions;
	size_t nversions;
	struct window_dep_rows deps; /* per dependency and window */
	struct seq_rule *seq;        /* rerun --until-decided's rules (store_seq.h) */
	size_t nseq;
	int spec_borrowed;           /* spec is the caller's (view_load_spec) */
};

/* Load run_id from st (store_open_run's). 0, or -1 after an error()
 * naming the database (the view is then released). A spec that does not
 * parse is not an error (spec NULL; spec_parse has said why). */
int view_load(struct view *v, struct store *st, const char *run_id);

/* view_load's flags for a reader of many runs (history): VIEW_LEAN keeps
 * every per-window number (pslo_ms, knee_ms, requests' pslo_ms, the
 * knees) but frees the histograms once they are read (has_hist 0) and
 * loads no per-second series or memory samples (nsec, nhead, nanon 0). */
#define VIEW_LEAN 1
/* VIEW_QUIET_SPEC: a stored spec that does not parse leaves spec_parse's
 * messages in spec_errors instead of printing them (a reader that needs
 * the spec prints them: audit --recheck). */
#define VIEW_QUIET_SPEC 2
int view_load_flags(struct view *v, struct store *st, const char *run_id, unsigned flags);
/* VIEW_DECIDE: what the runner's decisions read while the run goes on
 * (runner_stages.c): every window with its knee value (knee_ms), the
 * cells and implementations; no knee fitted, no per-second series, memory
 * samples, events, dependency rows, recorded gates or stopping rules; the
 * per-request rows only when some request has its own slo_ms (they move
 * knee_ms then); the histograms freed once read. */
#define VIEW_DECIDE 4
/* view_load_flags with the caller's spec (borrowed: it must outlive the
 * view) in place of parsing the stored one: the runner, whose spec is
 * the stored text, parsed against the spec's own directory. */
int view_load_spec(struct view *v, struct store *st, const char *run_id,
		   const struct spec *spec, unsigned flags);
void view_release(struct view *v);

/* 1 for a stage whose windows feed the knee: ladder, refine, confirm. */
int view_knee_stage(const char *stage);
/* The knee input (knee.h) of implementation k (an index into v->impls):
 * its valid windows of the knee's stages in id order, ladder ones only at
 * rungs <= max_ladder_rung when that is >= 0, each with its knee_ms, due
 * and knee_window_bad(). out holds v->nwindows entries; returns how many. */
size_t view_knee_windows(const struct view *v, size_t k, int max_ladder_rung,
			 struct knee_window *out);
/* The knee of implementation `impl` (none of its windows: an empty fit)
 * over view_knee_windows(), with the spec's SLO, seed and confirm.reps
 * (knee_params_from_spec) and nboot resamples (0: no interval). The view
 * must have a spec. out: knee_result_release() it. */
void view_knee_fit(const struct view *v, const char *impl, int max_ladder_rung, size_t nboot,
		   struct knee_result *out);
/* The window of that id, or NULL (binary search: windows are by id). */
const struct view_window *view_window_by_id(const struct view *v, int64_t id);
/* The implementation of that name, or NULL. */
const struct view_impl *view_impl(const struct view *v, const char *name);
/* w's first measured row of request `name`, or NULL. */
const struct view_wreq *view_window_req(const struct view_window *w, const char *name);

#endif
