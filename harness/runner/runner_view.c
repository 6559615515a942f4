/*
 * runner_view: the run view the runner's decisions read (runner_internal.h
 * runner_view): model/view.h in mode VIEW_DECIDE, rebuilt from the
 * database, with the run's own spec. Its own file so that every runner
 * file that decides (stages, blocks, progress, seq) can call it without a
 * cycle between them (tests/e2e/deps.sh).
 */
#include "model/view.h"
#include "runner/runner_internal.h"

int runner_view(struct run_ctx *rc, struct view *v)
{
	return view_load_spec(v, &rc->st, rc->run_id, rc->spec, VIEW_DECIDE);
}
