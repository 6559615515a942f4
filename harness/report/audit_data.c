/*
 * audit_data: the run as `harness audit` reads it (audit.h): its view and
 * every stored gate result.
 */
#include "report/audit.h"
#include "model/view.h"
#include "store/store_window.h"

int audit_data_load(struct store *st, const char *run_id, struct audit_data *d)
{
	d->gates.v = NULL;
	d->gates.n = 0;
	if (view_load_flags(&d->v, st, run_id, VIEW_LEAN | VIEW_QUIET_SPEC))
		return -1;
	return store_gates_load(st, run_id, -1, &d->gates) ? -1 : 0;
}

void audit_data_release(struct audit_data *d)
{
	view_release(&d->v);
	gate_rows_release(&d->gates);
}

const struct view_window *audit_window_of(const struct audit_data *d, int64_t id)
{
	const struct view_window *w = view_window_by_id(&d->v, id);

	return w && w->done ? w : NULL;
}
