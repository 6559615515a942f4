/*
 * audit_tables: the head of `harness audit`: rejections and failures per
 * implementation, failing gates per implementation, the arms' CPU wait
 * (audit_wait.c), and the dependencies whose stats command failed; as
 * text lines or JSON keys (audit.h).
 */
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/view.h"
#include "base/jout.h"
#include "base/util.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

/* One row of a table: a key (impl; or gate, phase, impl) and its counts. */
struct tally {
	const char *gate, *phase, *impl;
	long n, rejected, failed;
};

static struct tally *tally_find(struct tally **v, size_t *n, size_t *alloc, const char *gate,
				const char *phase, const char *impl)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*v)[i].gate, gate) && !strcmp((*v)[i].phase, phase) &&
		    !strcmp((*v)[i].impl, impl))
			return &(*v)[i];
	XGROW(*v, *alloc, *n + 1);
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].gate = gate;
	(*v)[*n].phase = phase;
	(*v)[*n].impl = impl;
	return &(*v)[(*n)++];
}

/* Order: phase descending (window before warmup), gate, impl. */
static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	int c = strcmp(y->phase, x->phase);

	if (!c)
		c = strcmp(x->gate, y->gate);
	return c ? c : strcmp(x->impl, y->impl);
}

/* A table's rows, sorted, into j's key (JSON) or out under its heading
 * (text); v is freed. by_gate: gate, phase, impl and windows; else impl,
 * windows, rejected and failed. */
static void tally_write(struct tally *v, size_t n, int by_gate, json_t *j, struct sbuf *out)
{
	json_t *arr = j ? json_array() : NULL;
	size_t i;

	if (n)
		qsort(v, n, sizeof(*v), tally_cmp);
	if (!j)
		sbuf_adds(out, by_gate ? "failing gates (per implementation):\n"
				       : "rejections per implementation:\n");
	for (i = 0; i < n; i++) {
		const struct tally *t = &v[i];

		if (j && by_gate)
			json_array_append_new(arr, jout_set(json_object(), "gate", jout_str(t->gate),
							    "phase", jout_str(t->phase),
							    "impl", jout_str(t->impl),
							    "windows", json_integer(t->n), NULL));
		else if (j)
			json_array_append_new(arr, jout_set(json_object(), "impl", jout_str(t->impl),
							    "windows", json_integer(t->n),
							    "rejected", json_integer(t->rejected),
							    "failed", json_integer(t->failed), NULL));
		else if (by_gate)
			sbuf_addf(out, "  %-22s %-7s %-20s %4ld\n", t->gate, t->phase, t->impl, t->n);
		else
			sbuf_addf(out, "  %-20s %4ld of %4ld windows rejected (%.0f%%), %ld failed (%.0f%%)\n",
				  t->impl, t->rejected, t->n, t->n ? 100.0 * t->rejected / t->n : 0,
				  t->failed, t->n ? 100.0 * t->failed / t->n : 0);
	}
	if (!j && by_gate && !n)
		sbuf_adds(out, "  (none)\n");
	if (j)
		json_object_set_new(j, by_gate ? "by_gate" : "implementations", arr);
	free(v);
}

/* Totals per implementation, then failures per enforced gate. A window
 * rejected by several gates counts once under each. */
static void rejection_table(const struct audit_data *d, json_t *j, struct sbuf *out)
{
	struct tally *v = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < d->v.nwindows; i++) {
		const struct view_window *w = &d->v.windows[i];
		struct tally *t;

		if (!w->done)
			continue;
		t = tally_find(&v, &n, &alloc, "", "", w->impl);
		t->n++;
		t->rejected += w->wstatus == WINDOW_REJECTED;
		t->failed += w->failed;
	}
	tally_write(v, n, 0, j, out);
	v = NULL;
	n = alloc = 0;
	for (i = 0; i < d->gates.n; i++) {
		const struct gate_row *g = &d->gates.v[i];
		const struct view_window *w = audit_window_of(d, g->window_id);

		if (!w || !g->enforced || !strcmp(str(g->status), "pass"))
			continue;
		tally_find(&v, &n, &alloc, str(g->gate), str(g->phase), w->impl)->n++;
	}
	tally_write(v, n, 1, j, out);
}

/* Each dependency's failed stats readings (events dep_stats_failed,
 * detail "NAME: ..."): how many, and in which windows (its demand,
 * statement cost and signals are missing there). */
static void dep_stats_failures(const struct audit_data *d, json_t *j, struct sbuf *out)
{
	const struct event_rows *ev = &d->v.events;
	json_t *arr = j ? json_array() : NULL;
	size_t k, i;

	for (k = 0; k < ev->n; k++) {
		const struct event_row *e = &ev->v[k];
		const char *c = e->detail ? strstr(e->detail, ": ") : NULL;
		size_t len = c ? (size_t)(c - e->detail) : 0, n = 0, first = 1;
		struct sbuf wins = SBUF_INIT;

		if (!c || !e->kind || strcmp(e->kind, "dep_stats_failed"))
			continue;
		for (i = 0; i < ev->n; i++) {   /* the first of its dependency's: list them all */
			const struct event_row *x = &ev->v[i];

			if (!x->kind || strcmp(x->kind, "dep_stats_failed") || !x->detail ||
			    strncmp(x->detail, e->detail, len + 2))
				continue;
			if (i < k)
				break;
			n++;
			if (x->has_window)
				sbuf_addf(&wins, "%s%lld", first ? "" : " ", (long long)x->window_id);
			first = 0;
		}
		if (i < ev->n && i < k) {
			sbuf_release(&wins);
			continue;
		}
		if (j)
			json_array_append_new(arr, json_pack("{s:s%, s:I, s:s}", "dependency", e->detail,
							     len, "readings", (json_int_t)n,
							     "windows", wins.buf ? wins.buf : ""));
		else
			sbuf_addf(out, "dependency %.*s: its stats command failed in %zu reading%s"
				  " (windows %s): no demand, statement cost or signal from it there\n",
				  (int)len, e->detail, n, n == 1 ? "" : "s", wins.buf ? wins.buf : "-");
		sbuf_release(&wins);
	}
	if (j)
		json_object_set_new(j, "dep_stats_failures", arr);
}

void audit_tables(const struct audit_data *d, json_t *j, struct sbuf *out)
{
	rejection_table(d, j, out);
	audit_cpu_wait(&d->v, j, out);
	dep_stats_failures(d, j, out);
}
