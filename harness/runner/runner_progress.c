/*
 * runner_progress: what every part of the runner shares, beneath them:
 * the stop flag that SIGINT/SIGTERM/SIGHUP set, and the progress line.
 * Declared in runner_internal.h.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model/cells.h"
#include "model/view.h"
#include "runner/runner_internal.h"
#include "base/util.h"
#include "store/store_window.h"

/* ------------------------------------------------------------ stop flag */

volatile sig_atomic_t runner_stop;

static void on_signal(int sig)
{
	(void)sig;
	runner_stop = 1;
}

void runner_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a dropped ssh session: stop as for SIGTERM (the run marked
	 * interrupted, resumable), never die mid-transaction */
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

void runner_catch_stop(void)
{
	runner_install_signals();
}

int runner_stop_asked(void)
{
	return runner_stop != 0;
}

/* ------------------------------------------------------------ progress */

_Static_assert((int)STAGE_LADDER == (int)PLAN_STAGE_LADDER &&
	       (int)STAGE_CONFIRM == (int)PLAN_STAGE_CONFIRM &&
	       (int)STAGE_SOAK == (int)PLAN_STAGE_SOAK, "runner.h and plan.h stage bits");

/* A replacement round's window (or its partner): beyond the plan. */
static int is_extra(int block)
{
	return block >= CELLS_REPL_BLOCK_BASE;
}

int runner_progress_init(struct run_ctx *rc)
{
	struct view v;
	double cost = 0;
	size_t i, n = 0;

	rc->plan_extra = plan_run_windows(rc->spec, rc->nrungs, rc->narms, rc->stages, rc->plan_pre);
	rc->eta_shown = -1;
	if (runner_view(rc, &v))
		return -1;
	rc->done = 0;
	for (i = 0; i < v.nwindows; i++) {
		const struct view_window *w = &v.windows[i];
		int k = plan_stage_index(w->stage);

		if (!w->done)
			continue;
		rc->done++;
		rc->accepted += w->wstatus == WINDOW_ACCEPTED;
		rc->failed += w->wstatus == WINDOW_FAILED;
		rc->rejected += w->wstatus == WINDOW_REJECTED;
		if (is_extra(w->block))
			rc->done_extra++;
		else if (k >= 0)
			rc->done_pre[k]++;
		if (isfinite(w->warmup_s) && isfinite(w->started_at) && isfinite(w->ended_at) &&
		    w->ended_at > w->started_at) {
			cost += w->warmup_s + (w->ended_at - w->started_at);
			n++;
		}
	}
	rc->stored_cost_s = n ? cost / (double)n : 0;
	view_release(&v);
	return 0;
}

/* Pre-registered windows still to run: those of the current stage and
 * the stages after it (a stage that ended early, as a ladder past its
 * knees, plans no more). */
static size_t pre_left(const struct run_ctx *rc)
{
	int k, cur = plan_stage_index(rc->cur_stage);
	size_t left = 0;

	for (k = cur < 0 ? 0 : cur; k < PLAN_NSTAGES; k++)
		if (rc->plan_pre[k] > rc->done_pre[k])
			left += rc->plan_pre[k] - rc->done_pre[k];
	return left;
}

static size_t pre_done(const struct run_ctx *rc)
{
	size_t k, n = 0;

	for (k = 0; k < PLAN_NSTAGES; k++)
		n += rc->done_pre[k];
	return n;
}

/* The wall one window costs: measured here (end to end, restarts and
 * resets included), else as stored by an earlier process, else the
 * spec's least (warm-up min_s + the ladder's window). */
static double window_cost(const struct run_ctx *rc)
{
	if (rc->ncost)
		return rc->cost_sum_s / (double)rc->ncost;
	if (rc->stored_cost_s > 0)
		return rc->stored_cost_s;
	return rc->spec->warmup.min_s + rc->spec->ladder.window_s;
}

/* The pre-registered windows left times a window's cost, less the part of
 * the window in flight already spent; never above the last ETA shown, so
 * it only falls as windows are done. Replacements are not counted (the
 * line says how many there can be). */
static double eta_s(struct run_ctx *rc, int finished)
{
	double per = window_cost(rc), eta, spent = rc->mark > 0 ? runner_now(rc) - rc->mark : 0;
	size_t left = pre_left(rc);

	eta = per * (double)left;
	if (!finished && left)
		eta -= spent < per ? spent : per;
	if (eta < 0)
		eta = 0;
	if (rc->eta_shown >= 0 && eta > rc->eta_shown)
		eta = rc->eta_shown;
	rc->eta_shown = eta;
	return eta;
}

/* "45 s", "12m 30s", "2h 05m": an ETA precise enough to plan by at
 * every scale (whole minutes read 0 for the last window). */
static void fmt_eta(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);

	if (t < 90)
		snprintf(buf, n, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, n, "%ldm %02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%ldh %02ldm", t / 3600, (t % 3600) / 60);
}

/* "window 15 of 16 planned (+4 replacements at most)", and once
 * replacements ran "window 19 of 19 (16 planned + 3 replacements; +1 more
 * at most)" (it read "19 of 16 planned + 3 ...": k above its n): the
 * planned count is the pre-registered windows done and left, so it
 * shrinks when a ladder stops past its knees; k counts every window. */
static void fmt_count(const struct run_ctx *rc, size_t k, char *buf, size_t n)
{
	size_t planned = pre_done(rc) + pre_left(rc);
	size_t extra = rc->plan_extra > rc->done_extra ? rc->plan_extra - rc->done_extra : 0;

	if (planned + rc->done_extra < k)
		planned = k - rc->done_extra;
	if (rc->done_extra)
		snprintf(buf, n, "window %zu of %zu (%zu planned + %zu replacement%s; +%zu more at "
			 "most)", k, planned + rc->done_extra, planned, rc->done_extra,
			 rc->done_extra == 1 ? "" : "s", extra);
	else if (extra)
		snprintf(buf, n, "window %zu of %zu planned (+%zu replacement%s at most)", k, planned,
			 extra, extra == 1 ? "" : "s");
	else
		snprintf(buf, n, "window %zu of %zu planned", k, planned);
}

void runner_progress(struct run_ctx *rc, const char *what)
{
	int tty = stderr_is_tty(), finished = strcmp(what, "warm-up") && strcmp(what, "measuring");
	/* a finished window is counted in done; one in flight is done + 1 */
	size_t n = finished ? rc->done : rc->done + 1;
	char p99[32] = "-", etas[32], stamp[32], rate[48] = "", count[96];
	time_t now = time(NULL);
	struct tm tm;

	if (rc->mark <= 0)
		rc->mark = runner_now(rc);
	if (!isnan(rc->last_p99_ms) && rc->last_p99_ms > 0)
		snprintf(p99, sizeof(p99), "%.2f ms", rc->last_p99_ms);
	fmt_eta(etas, sizeof(etas), eta_s(rc, finished));
	fmt_count(rc, n, count, sizeof(count));
	if (rc->cur_rate > 0)
		snprintf(rate, sizeof(rate), " (%.0f req/s)", rc->cur_rate);
	if (tty) {
		fprintf(stderr, "\r\033[K%s rung %d%s %s  %s  ETA %s"
				"  last p99 %s  accepted %zu failed %zu rejected %zu  %s",
			rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rate,
			rc->cur_impl ? rc->cur_impl : "", count, etas, p99,
			rc->accepted, rc->failed, rc->rejected, what);
		return;
	}
	if (!finished)
		return;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "harness: %s %s rung %d%s %s: %s: %s (p99 %s; accepted %zu,"
			" failed %zu, rejected %zu; ETA %s)\n",
		stamp, rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rate,
		rc->cur_impl ? rc->cur_impl : "", count, what, p99, rc->accepted,
		rc->failed, rc->rejected, etas);
}

void runner_progress_window_done(struct run_ctx *rc, const struct window_plan *wp,
				 enum window_status st, const char *what)
{
	int k = plan_stage_index(wp->stage);
	double now = runner_now(rc);

	rc->done++;
	rc->accepted += st == WINDOW_ACCEPTED;
	rc->failed += st == WINDOW_FAILED;
	rc->rejected += st == WINDOW_REJECTED;
	if (is_extra(wp->block))
		rc->done_extra++;
	else if (k >= 0)
		rc->done_pre[k]++;
	if (rc->mark > 0) {
		rc->cost_sum_s += now - rc->mark;
		rc->ncost++;
	}
	rc->mark = now;
	runner_progress(rc, what);
}
