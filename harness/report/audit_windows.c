/*
 * audit_windows: the windows `harness audit` lists (audit.h): each with
 * its gates' statistic, threshold and evidence and the resets run before
 * it; one window (--window) also with its per-second p99 series and
 * Mann-Kendall figures, its drain and its first unexpected responses.
 * Text lines or JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/cells.h"
#include "model/view.h"
#include "base/jout.h"
#include "stat/stat.h"
#include "store/store_window.h"
#include "base/util.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

/* Gate rows of one window, phase descending (window first), then gate. */
static int gate_cmp(const void *a, const void *b)
{
	const struct gate_row *x = *(const struct gate_row *const *)a;
	const struct gate_row *y = *(const struct gate_row *const *)b;
	int c = strcmp(str(y->phase), str(x->phase));

	return c ? c : strcmp(str(x->gate), str(y->gate));
}

static void gate_line(const struct gate_row *g, json_t *arr, struct sbuf *out)
{
	if (arr) {
		json_array_append_new(arr, jout_set(json_object(), "phase", jout_str(str(g->phase)),
						    "gate", jout_str(str(g->gate)),
						    "status", jout_str(str(g->status)),
						    "enforced", json_boolean(g->enforced),
						    "stat_name", jout_str(str(g->stat_name)),
						    "statistic", jout_num(g->statistic),
						    "threshold", jout_num(g->threshold),
						    "evidence", jout_str(str(g->evidence)), NULL));
	} else {
		sbuf_addf(out, "    %-7s %-20s %-13s%s ", str(g->phase), str(g->gate),
			  str(g->status), g->enforced ? "" : " (recorded only)");
		if (isfinite(g->statistic))
			sbuf_addf(out, "%s = %.6g", g->stat_name ? g->stat_name : "-", g->statistic);
		else
			sbuf_adds(out, "no statistic");
		if (isfinite(g->threshold))
			sbuf_addf(out, ", threshold %.6g", g->threshold);
		sbuf_addf(out, ": %s\n", str(g->evidence));
	}
}

static void gate_lines(const struct audit_data *d, int64_t wid, int all, json_t *arr,
		       struct sbuf *out)
{
	const struct gate_row **v = xcalloc(d->gates.n + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < d->gates.n; i++)
		if (d->gates.v[i].window_id == wid &&
		    (all || strcmp(str(d->gates.v[i].status), "pass")))
			v[n++] = &d->gates.v[i];
	qsort(v, n, sizeof(*v), gate_cmp);
	for (i = 0; i < n; i++)
		gate_line(v[i], arr, out);
	free(v);
}

/* Did an enforced or recorded gate called `gate` not pass in window wid? */
static int gate_failed(const struct audit_data *d, int64_t wid, const char *gate)
{
	size_t i;

	for (i = 0; i < d->gates.n; i++)
		if (d->gates.v[i].window_id == wid && !strcmp(str(d->gates.v[i].gate), gate) &&
		    strcmp(str(d->gates.v[i].status), "pass"))
			return 1;
	return 0;
}

static void sparkline(const double *v, size_t n, struct sbuf *out)
{
	static const char *const bars[] = { "\u2581", "\u2582", "\u2583", "\u2584",
					    "\u2585", "\u2586", "\u2587", "\u2588" };
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
	for (i = 0; i < n; i++) {
		int k;
		if (isnan(v[i])) {
			sbuf_adds(out, " ");
			continue;
		}
		k = hi > lo ? (int)((v[i] - lo) / (hi - lo) * 7.999) : 0;
		sbuf_adds(out, bars[k]);
	}
	sbuf_addf(out, "  (%.3g .. %.3g ms)", lo, hi);
}

/* The window's drain row (docs/DESIGN.md "The drain"): what ended after
 * its last measured second, in its totals but in no second of the series. */
static void window_drain(const struct window_second *d, json_t *js, struct sbuf *out)
{
	if (js) {
		jout_set(js, "drain", jout_set(json_object(), "due", json_integer(d->due),
					       "completed", json_integer(d->completed),
					       "errors", json_integer(d->errors),
					       "dropped", json_integer(d->dropped),
					       "p99_ms", jout_num(d->p99_ms), NULL), NULL);
		return;
	}
	sbuf_addf(out, "  drain    after the last measured second: %lld completed, %lld errors,"
		       " %lld dropped, %lld made due", (long long)d->completed,
		  (long long)d->errors, (long long)d->dropped, (long long)d->due);
	if (d->completed)
		sbuf_addf(out, "; p99 %.3f ms", d->p99_ms);
	sbuf_adds(out, " (in the window's totals)\n");
}

static int window_series(struct store *st, int64_t wid, json_t *js, struct sbuf *out)
{
	const char *phases[] = { "warmup", "discard", "measured" };
	struct window_seconds secs;
	double *v[3] = { NULL, NULL, NULL };
	size_t n[3] = { 0, 0, 0 }, a[3] = { 0, 0, 0 }, k, j;

	if (store_seconds_load(st, NULL, wid, NULL, 0, &secs))
		return -1;
	for (j = 0; j < secs.n; j++)
		for (k = 0; k < 3; k++)
			if (!strcmp(str(secs.v[j].phase), phases[k])) {
				XGROW(v[k], a[k], n[k] + 1);
				v[k][n[k]++] = secs.v[j].p99_ms;
			}

	for (k = 0; k < 3; k++) {
		struct mk_result mk;
		double *t = xcalloc(n[k] + 1, sizeof(*t)), slope;
		size_t i;

		for (i = 0; i < n[k]; i++)
			t[i] = (double)i;
		slope = stat_theil_sen(t, v[k], n[k]) * 60.0;
		if (stat_mann_kendall(v[k], n[k], &mk))
			mk.p = mk.z = mk.s = NAN;
		if (js) {
			json_t *a = json_array();

			for (i = 0; i < n[k]; i++)
				json_array_append_new(a, jout_num(v[k][i]));
			jout_set(js, phases[k],
				 jout_set(json_object(), "p99_ms", a,
					  "mk_s", json_real(isnan(mk.s) ? 0 : mk.s),
					  "mk_z", json_real(isnan(mk.z) ? 0 : mk.z),
					  "mk_p", json_real(isnan(mk.p) ? 1 : mk.p),
					  "sen_slope_ms_per_min", json_real(isfinite(slope) ? slope : 0),
					  NULL), NULL);
		} else if (n[k]) {
			sbuf_addf(out, "  %-8s p99/s ", phases[k]);
			sparkline(v[k], n[k], out);
			if (isnan(mk.p))
				sbuf_addf(out, "\n           %zu s: too few seconds for Mann-Kendall (needs 3)\n",
					  n[k]);
			else
				sbuf_addf(out, "\n           Mann-Kendall S = %.0f, Z = %.3f, p(up) = %.4f;"
					       " Theil-Sen slope %.3f ms/min; %zu s\n",
					  mk.s, mk.z, mk.p, slope, n[k]);
		}
		free(t);
		free(v[k]);
	}
	for (j = 0; j < secs.n; j++)
		if (!strcmp(str(secs.v[j].phase), "drain"))
			window_drain(&secs.v[j], js, out);
	window_seconds_release(&secs);
	return 0;
}

/* The body's first bytes, printable, for a terminal. */
static void body_text(const struct store_blob *b, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		sbuf_addf(out, "%c", b->p[i] >= 0x20 && b->p[i] < 0x7f ? b->p[i] : '.');
}

/* The window's unexpected-response samples (what came back). */
static int window_samples(struct store *st, int64_t wid, json_t *arr, struct sbuf *out)
{
	struct unexpected_rows u;
	size_t i;

	if (store_unexpected_load(st, wid, &u))
		return -1;
	if (!arr && u.n)
		sbuf_adds(out, "  unexpected responses (first of each phase):\n");
	for (i = 0; i < u.n; i++) {
		const struct unexpected_row *r = &u.v[i];
		struct sbuf body = SBUF_INIT;

		body_text(&r->body, &body);
		if (arr) {
			json_array_append_new(arr, jout_set(json_object(),
							    "phase", jout_str(str(r->phase)),
							    "request", jout_str(str(r->name)),
							    "status", json_integer(r->status),
							    "why", jout_str(str(r->why)),
							    "body", jout_str(body.buf), NULL));
		} else {
			sbuf_addf(out, "    %-8s %s: %s", str(r->phase), str(r->name), str(r->why));
			if (body.len)
				sbuf_addf(out, "; body: %s", body.buf);
			sbuf_adds(out, "\n");
		}
		sbuf_release(&body);
	}
	unexpected_rows_release(&u);
	return 0;
}

/* The resets run before the window: into arr (JSON), or as text lines
 * (all: every one; else only the failed). */
static int window_resets(struct store *st, int64_t wid, int all, json_t *arr, struct sbuf *out)
{
	struct window_reset_rows r;
	size_t i;

	if (store_window_resets_load(st, NULL, wid, &r))
		return -1;
	for (i = 0; i < r.n; i++) {
		const struct window_reset_row *x = &r.v[i];

		if (arr) {
			json_array_append_new(arr, jout_set(json_object(), "kind", jout_str(str(x->kind)),
							    "name", jout_str(str(x->name)),
							    "duration_s", json_real(x->duration_s),
							    "exit_code", json_integer(x->exit_code),
							    "detail", jout_str(x->detail), NULL));
		} else if (all || x->exit_code) {
			sbuf_addf(out, "    reset    %s %s: exit %d in %.2f s%s%s\n", str(x->kind),
				  str(x->name), x->exit_code, x->duration_s, x->detail ? "; " : "",
				  x->detail ? x->detail : "");
		}
	}
	window_reset_rows_release(&r);
	return 0;
}

static int listed(const struct audit_data *d, const struct view_window *w, const struct audit_select *o)
{
	if (!w->done || (o->impl && strcmp(w->impl, o->impl)))
		return 0;
	if (o->window >= 0)
		return w->id == o->window;
	if (w->accepted)
		return 0;
	return !o->gate || gate_failed(d, w->id, o->gate);
}

static json_t *window_json(const struct view_window *w)
{
	/* cpu_s, cpu_wait_s: evidence beside the verdict, the arm's CPU and
	 * its wait for one */
	return jout_set(json_object(), "window", json_integer(w->id), "stage", jout_str(w->stage),
			"rung", json_integer(w->rung), "block", json_integer(w->block),
			"slot", json_integer(w->slot), "impl", jout_str(w->impl),
			"rate", jout_num(w->rate), "status", jout_str(w->status),
			"reasons", jout_str(w->reasons), "cpu_s", jout_num(w->cpu_s),
			"cpu_wait_s", jout_num(w->cpu_wait_s), NULL);
}

/* "  CPU 45 ms used, 69 ms waiting for one (...)" when the wait is known:
 * evidence only, no gate reads it (docs/DESIGN.md "An arm's CPU
 * weight"). */
static void wait_text(const struct view_window *w, struct sbuf *out)
{
	if (!isfinite(w->cpu_wait_s))
		return;
	sbuf_adds(out, "  CPU ");
	if (isfinite(w->cpu_s))
		sbuf_addf(out, "%.0f ms used, ", w->cpu_s * 1000);
	sbuf_addf(out, "%.0f ms waiting for one (its threads' run-queue delay)\n",
		  w->cpu_wait_s * 1000);
}

int audit_windows(struct store *st, const struct audit_data *d, const struct audit_select *o,
			json_t *top, struct sbuf *out)
{
	json_t *arr = top ? json_array() : NULL;
	size_t i;
	int n = 0;

	if (top)
		json_object_set_new(top, "windows", arr);
	for (i = 0; i < d->v.nwindows; i++) {
		const struct view_window *w = &d->v.windows[i];

		if (!listed(d, w, o))
			continue;
		if (top) {
			json_t *wo = window_json(w), *gates = json_array();

			json_array_append_new(arr, wo);
			gate_lines(d, w->id, o->window >= 0, gates, out);
			json_object_set_new(wo, "gates", gates);
			{
				json_t *resets = json_array();

				json_object_set_new(wo, "resets", resets);
				if (window_resets(st, w->id, 1, resets, out))
					return -1;
			}
			if (o->window >= 0) {
				json_t *series = json_object(), *unexp = json_array();

				json_object_set_new(wo, "series", series);
				json_object_set_new(wo, "unexpected", unexp);
				if (window_series(st, w->id, series, out) ||
				    window_samples(st, w->id, unexp, out))
					return -1;
			}
		} else {
			sbuf_addf(out, "window %lld  %s rung %d ", (long long)w->id, w->stage,
				  w->rung);
			cells_block_text(w->block, out);
			sbuf_addf(out, " slot %d  %s at %.0f req/s: %s%s%s%s\n", w->slot,
				  w->impl, w->rate, w->status, *w->reasons ? " (" : "", w->reasons,
				  *w->reasons ? ")" : "");
			wait_text(w, out);
			gate_lines(d, w->id, o->window >= 0, NULL, out);
			if (window_resets(st, w->id, o->window >= 0, NULL, out))
				return -1;
			if (o->window >= 0 && (window_series(st, w->id, NULL, out) ||
						window_samples(st, w->id, NULL, out)))
				return -1;
		}
		n++;
	}
	if (!top && !n)
		sbuf_adds(out, o->window >= 0 ? "no such window in this run\n" : "no failed or rejected windows\n");
	return n;
}
