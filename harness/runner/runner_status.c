/*
 * runner_status: how a run ends: its status row, whose fault a failure
 * is (an arm's own: exit 1 for the commit under test), and a full runs
 * filesystem told apart (store_disk_full).
 */
#include <math.h>
#include <string.h>

#include "runner/runner_internal.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

int runner_set_status(struct run_ctx *rc, const char *status, const char *failure,
		      const char *kind)
{
	struct sbuf full = SBUF_INIT;
	const char *impl;
	int ret;

	if (strcmp(status, "running")) {
		/* a full runs filesystem: the host's failure, whatever else it
		 * made go wrong (a lost write); resumable once there is room */
		if (strcmp(status, "interrupted") && store_disk_full(&rc->st))
			rc->disk_full = 1;
		/* the end: the reserve's room is for these words */
		store_reserve_release(&rc->st);
		if (rc->disk_full) {
			sbuf_addf(&full, "the runs filesystem is full (%s): free space, then "
				  "harness resume %s", rc->dir, rc->run_id);
			error("%s: %s", rc->run_id, full.buf);
			status = "failed";
			failure = full.buf;
			kind = "environment";
		}
	}
	impl = kind && (!strcmp(kind, "build") || !strcmp(kind, "start") ||
			!strcmp(kind, "limit") || !strcmp(kind, "preflight")) ? rc->fail_impl : NULL;
	rc->over = !strcmp(status, "finished") || impl;
	ret = store_run_set_status(&rc->st, rc->run_id, status, failure, kind, impl,
				   strcmp(status, "running") ? runner_now(rc) : NAN);
	sbuf_release(&full);
	return ret;
}

int runner_candidate_failed(const struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		if (rc->fail_impl && !strcmp(rc->arms[i].name, rc->fail_impl))
			return rc->arms[i].candidate;
	return 0;
}

int runner_is_rerun(const struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		if (rc->arms[i].candidate)
			return 1;
	return 0;
}

int runner_finished_exit(const struct run_ctx *rc, int code)
{
	/* rerun --until-decided answers: 0 no change or improvement, 1
	 * regression, 3 inconclusive (the budget ended), also when a
	 * pre-registered stage measured nothing usable (every window void:
	 * the sequential blocks measured on, and compare reads the rule) */
	if ((code == EXIT_OK || code == EXIT_NEGATIVE) && rc->until_exit >= 0)
		return rc->until_exit;
	/* a rerun whose stage measured nothing usable (every window of an
	 * arm void: the host's noise, no fault of the commit) has no answer
	 * about the commit: 3, as compare reads the same run (DESIGN.md,
	 * Exit codes); a stage's own negative answer stays 1 */
	if (code == EXIT_NEGATIVE && rc->unmeasured && !rc->answer_negative && runner_is_rerun(rc))
		return EXIT_ENV;
	return code;
}

int runner_arm_fault(struct run_ctx *rc)
{
	struct sbuf why = SBUF_INIT;
	const char *kind = rc->fail_kind;

	if (!kind || !rc->fail_impl || (strcmp(kind, "start") && strcmp(kind, "limit")))
		return -1;
	if (!strcmp(kind, "start"))
		sbuf_addf(&why, "%s never came up healthy", rc->fail_impl);
	else
		sbuf_addf(&why, "%s hit its sandbox limits (see the sandbox_limit event)",
			  rc->fail_impl);
	runner_set_status(rc, "failed", why.buf, kind);
	sbuf_release(&why);
	return runner_candidate_failed(rc) ? EXIT_NEGATIVE : EXIT_ENV;
}
