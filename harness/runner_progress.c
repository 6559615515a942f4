/*
 * runner_progress: what every part of the runner shares, beneath them:
 * the stop flag that SIGINT/SIGTERM set, and the progress line.
 * Declared in runner_internal.h.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "runner_internal.h"
#include "util.h"

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
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* ------------------------------------------------------------ progress */

void runner_progress(struct run_ctx *rc, const char *what)
{
	double el = now_wall() - rc->started;
	double per = rc->done ? el / (double)rc->done : 0;
	double eta = rc->planned > rc->done ? per * (double)(rc->planned - rc->done) : 0;
	char p99[32] = "-";

	if (!isnan(rc->last_p99_ms) && rc->last_p99_ms > 0)
		snprintf(p99, sizeof(p99), "%.2f ms", rc->last_p99_ms);
	if (stderr_is_tty())
		fprintf(stderr, "\r\033[K%s rung %d  window %zu/%zu (max)  ETA %.0f min  last p99 %s"
				"  accepted %zu failed %zu rejected %zu  %s",
			rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rc->done + 1,
			rc->planned, eta / 60, p99, rc->accepted, rc->failed, rc->rejected, what);
	else if (strcmp(what, "warm-up") && strcmp(what, "measuring"))
		fprintf(stderr, "harness: %s rung %d window %zu/%zu: %s (p99 %s; accepted %zu, failed %zu, rejected %zu)\n",
			rc->cur_stage ? rc->cur_stage : "", rc->cur_rung, rc->done, rc->planned,
			what, p99, rc->accepted, rc->failed, rc->rejected);
}
