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

#include "runner/runner_internal.h"
#include "base/util.h"

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

/* ------------------------------------------------------------ progress */

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

/* "window 15 of 16": the plan grows (replacements, rungs past the knee)
 * and is a worst case, so the count never reads "15/14": the window in
 * flight is counted in the total. */
static size_t shown_total(const struct run_ctx *rc, size_t n)
{
	return rc->planned > n ? rc->planned : n;
}

void runner_progress(struct run_ctx *rc, const char *what)
{
	double el = runner_now(rc) - rc->started;
	double per = rc->done ? el / (double)rc->done : 0;
	double eta = rc->planned > rc->done ? per * (double)(rc->planned - rc->done) : 0;
	int tty = stderr_is_tty(), finished = strcmp(what, "warm-up") && strcmp(what, "measuring");
	/* a finished window is counted in done; one in flight is done + 1 */
	size_t n = finished ? rc->done : rc->done + 1;
	char p99[32] = "-", etas[32], stamp[32], rate[48] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (!isnan(rc->last_p99_ms) && rc->last_p99_ms > 0)
		snprintf(p99, sizeof(p99), "%.2f ms", rc->last_p99_ms);
	if (rc->done)
		fmt_eta(etas, sizeof(etas), eta);
	else
		snprintf(etas, sizeof(etas), "?");
	if (rc->cur_rate > 0)
		snprintf(rate, sizeof(rate), " (%.0f req/s)", rc->cur_rate);
	if (tty) {
		fprintf(stderr, "\r\033[K%s rung %d%s %s  window %zu of %zu  ETA %s (at most)"
				"  last p99 %s  accepted %zu failed %zu rejected %zu  %s",
			rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rate,
			rc->cur_impl ? rc->cur_impl : "", n, shown_total(rc, n), etas, p99,
			rc->accepted, rc->failed, rc->rejected, what);
		return;
	}
	if (!finished)
		return;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "harness: %s %s rung %d%s %s: window %zu of %zu: %s (p99 %s; accepted %zu,"
			" failed %zu, rejected %zu; ETA %s at most)\n",
		stamp, rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rate,
		rc->cur_impl ? rc->cur_impl : "", n, shown_total(rc, n), what, p99, rc->accepted,
		rc->failed, rc->rejected, etas);
}
