/*
 * audit_wait: the arms' CPU wait per window, summed up per implementation
 * for `harness audit` (audit.h audit_cpu_wait). Evidence beside the
 * rejection counts: an arm that waited for a CPU far longer in one
 * kind of window than in another shows it here; no verdict reads it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/view.h"
#include "base/jout.h"
#include "stat/stat.h"
#include "base/util.h"

/* The waits of impl's done windows (accepted: 1 those, 0 the rest). */
static size_t waits_of(const struct view *v, const char *impl, int accepted, double *x)
{
	size_t i, n = 0;

	for (i = 0; i < v->nwindows; i++) {
		const struct view_window *w = &v->windows[i];

		if (w->done && !strcmp(w->impl, impl) && !!w->accepted == accepted &&
		    isfinite(w->cpu_wait_s))
			x[n++] = w->cpu_wait_s;
	}
	return n;
}

static double max_of(const double *x, size_t n)
{
	double m = NAN;
	size_t i;

	for (i = 0; i < n; i++)
		if (!(m >= x[i]))
			m = x[i];
	return m;
}

static void one(const char *impl, const char *what, const double *x, size_t n, json_t *arr,
		struct sbuf *out)
{
	double med = n ? stat_median(x, n) : NAN, max = max_of(x, n);

	if (arr) {
		json_t *o = json_object();

		jout_set(o, "impl", jout_str(impl), "windows", jout_str(what),
			 "n", json_integer((json_int_t)n), "median_s", jout_num(med),
			 "max_s", jout_num(max), NULL);
		json_array_append_new(arr, o);
	} else if (n) {
		sbuf_addf(out, "  %-20s %-8s %4zu windows: median %.0f ms, max %.0f ms\n", impl, what,
			  n, med * 1000, max * 1000);
	}
}

void audit_cpu_wait(const struct view *v, json_t *j, struct sbuf *out)
{
	double *x = xcalloc(v->nwindows + 1, sizeof(*x)), *y = xcalloc(v->nwindows + 1, sizeof(*y));
	json_t *arr = j ? json_array() : NULL;
	size_t i, na, nr, any = 0;

	for (i = 0; i < v->nwindows; i++)
		any += v->windows[i].done && isfinite(v->windows[i].cpu_wait_s);
	if (any && !j)
		sbuf_adds(out, "CPU wait per window (the arm's threads runnable, not running; "
			       "evidence, no gate):\n");
	for (i = 0; any && i < v->nimpls; i++) {
		const char *impl = v->impls[i].name;

		na = waits_of(v, impl, 1, x);
		nr = waits_of(v, impl, 0, y);
		one(impl, "accepted", x, na, arr, out);
		one(impl, "others", y, nr, arr, out);
	}
	if (j)
		json_object_set_new(j, "cpu_wait", arr);
	free(x);
	free(y);
}
