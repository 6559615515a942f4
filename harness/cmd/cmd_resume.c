/* cmd_resume: `harness resume RUN`. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "runner/runner.h"
#include "store/store.h"
#include "base/util.h"

static int force;

static const struct opt options[] = {
	OPT_BOOL(0, "force", &force,
		 "continue although the spec or a commit changed; the run\n"
		 "is stamped forced"),
	OPT_END(),
};

static int cmd_resume(struct cmd_ctx *c)
{
	/* The runner opens the database itself, with its own locking. */
	store_close(&c->st);
	return runner_resume(c->run_dir.buf, force);
}

const struct cmd_desc cmd_resume_desc = {
	.name = "resume",
	.summary = "continue an interrupted run at its first unfinished window",
	.synopsis = "RUN [options]",
	.about =
	"Continues an interrupted run (SIGINT, SIGTERM, SIGHUP) or an abandoned one\n"
	"(its process died: kill -9, a reboot) at its first unfinished window. A\n"
	"window that was in flight when the harness stopped is discarded and run\n"
	"again (an event records it). Refuses (exit 2) when the spec file on disk no\n"
	"longer hashes to the stored hash or an implementation's commit changed (a\n"
	"rerun's: read from its checkout's .git), unless --force; and while another\n"
	"process holds the run (its RUN/.lock).\n"
	"RUN is a run id, a run directory, or `latest`.\n"
	"Ends like `harness run`: the run quality line on standard error, the\n"
	"report, and run's exit codes.\n",
	.opts = options,
	.flags = CMD_RUN,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_resume,
};
