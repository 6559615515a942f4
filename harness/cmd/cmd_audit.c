/* cmd_audit: `harness audit RUN`: every rejected window, why, and whether
 * the stored verdicts still follow from the stored data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/cells.h"
#include "model/view.h"
#include "cmd/cmd.h"
#include "base/jout.h"
#include "gate/gate.h"
#include "gate/judge.h"
#include "spec/spec.h"
#include "stat/stat.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "base/util.h"

struct opts {
	const char *impl, *gate;
	int64_t window;
	int recheck, json;
};

/* The run as audit reads it: its view (audit lists the done windows)
 * and every gate result. The view keeps a spec that does not parse
 * quiet: only --recheck needs it. */
struct audit_data {
	struct view v;
	struct gate_rows gates;      /* by window, then as stored */
};

static int audit_data_load(struct store *st, const char *run_id, struct audit_data *d)
{
	d->gates.v = NULL;
	d->gates.n = 0;
	if (view_load_flags(&d->v, st, run_id, VIEW_LEAN | VIEW_QUIET_SPEC))
		return -1;
	return store_gates_load(st, run_id, -1, &d->gates) ? -1 : 0;
}

static void audit_data_release(struct audit_data *d)
{
	view_release(&d->v);
	gate_rows_release(&d->gates);
}

/* The done window of that id, or NULL. */
static const struct view_window *window_of(const struct audit_data *d, int64_t id)
{
	const struct view_window *w = view_window_by_id(&d->v, id);

	return w && w->done ? w : NULL;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ------------------------------------------------------------ the table */

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
		const struct view_window *w = window_of(d, g->window_id);

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

/* --------------------------------------------------------- the windows */

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

static int listed(const struct audit_data *d, const struct view_window *w, const struct opts *o)
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

/* The listed windows: into top's "windows" (JSON) or out (text). */
static int list_windows(struct store *st, const struct audit_data *d, const struct opts *o,
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

/* ------------------------------------------------------------------ cmd */

/* The host fact generator_sched (base/rtsched.h: fifo|other), or NULL for
 * a run recorded before it. */
static const char *generator_sched(const struct audit_data *d)
{
	size_t i;

	for (i = 0; i < d->v.rec.nhost; i++)
		if (!strcmp(d->v.rec.host[i].key, "generator_sched"))
			return d->v.rec.host[i].value;
	return NULL;
}

/* ", N differ by a rule change ..." for a run judged by older rules. */
static const char *rule_note(long n)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "; %ld differ%s because the run was judged by the rules"
		 " before the gate classes (error_rate now counts every unexpected"
		 " response over requests due): rule changes, not drift", n, n == 1 ? "s" : "");
	return buf;
}

/* The run's stored spec, parsed (the view's); NULL after an error naming
 * the database or the spec. *legacy: the run was judged by rules older
 * than JUDGE_RULES. */
static const struct spec *stored_spec(struct store *st, const struct view *v, int *legacy)
{
	const char *text;
	size_t len;

	*legacy = v->rec.rules < JUDGE_RULES;
	if (run_record_spec(&v->rec, st->path, &text, &len))
		return NULL;
	if (!v->spec && v->spec_errors)
		fputs(v->spec_errors, stderr);
	return v->spec;
}

static struct opts o = { NULL, NULL, -1, 0, 0 };

static int opt_window(const struct opt *opt, const char *v)
{
	long w;

	if (parse_long(v, &w) || w < 0)
		return error("audit: --window: '%s' is not a window id", v);
	o.window = w;
	return 0;
}

static const struct opt options[] = {
	OPT_STRING(0, "impl", "I", &o.impl, "only windows of that implementation"),
	OPT_STRING(0, "gate", "G", &o.gate, "only windows rejected or failed by that gate"),
	OPT_CALLBACK("window", "W", opt_window,
		     "one window: its gates and its per-second p99 series as a\n"
		     "sparkline with the Mann-Kendall figures, its drain (what\n"
		     "ended after its last second), and the first unexpected\n"
		     "responses (request, status, why, body)"),
	OPT_BOOL(0, "recheck", &o.recheck,
		 "recompute every stored gate verdict and window status\n"
		 "from the stored raw series; exit 1 if any differs or a\n"
		 "window lacks a verdict the run stored for other windows"),
	OPT_END(),
};

static int cmd_audit(struct cmd_ctx *c)
{
	struct sbuf out = SBUF_INIT, rep = SBUF_INIT;
	struct store *st = &c->st;
	const char *run_id = c->run_id.buf;
	const struct spec *spec;
	struct audit_data d;
	int ret = EXIT_USAGE, mism = 0;
	struct recheck_count count = { 0 };
	json_t *top = NULL;

	memset(&d, 0, sizeof(d));
	o.json = c->json;
	if (o.gate && !gate_find(o.gate)) {
		error("audit: --gate: no gate named '%s'", o.gate);
		goto out;
	}
	if (audit_data_load(st, run_id, &d))
		goto out;
	if (o.window >= 0 && !window_of(&d, o.window)) {
		error("audit: --window %lld: run %s has no finished window %lld",
		      (long long)o.window, run_id, (long long)o.window);
		goto out;
	}
	if (o.json) {
		top = jout_set(json_object(), "run", jout_str(run_id),
			       "generator_sched", jout_str(generator_sched(&d)), NULL);
		rejection_table(&d, top, &out);
		audit_cpu_wait(&d.v, top, &out);
		dep_stats_failures(&d, top, &out);
	} else {
		sbuf_addf(&out, "run %s\n", run_id);
		if (generator_sched(&d))
			sbuf_addf(&out, "generator threads: %s\n", !strcmp(generator_sched(&d), "fifo") ?
				  "SCHED_FIFO (real-time)" : "SCHED_OTHER (real-time not permitted)");
		rejection_table(&d, NULL, &out);
		audit_cpu_wait(&d.v, NULL, &out);
		dep_stats_failures(&d, NULL, &out);
		sbuf_adds(&out, "\n");
	}
	if (list_windows(st, &d, &o, top, &out) < 0)
		goto out;
	ret = EXIT_OK;
	if (o.recheck) {
		json_t *details = o.json ? json_array() : NULL;

		spec = stored_spec(st, &d.v, &count.legacy);
		if (!spec) {
			json_decref(details);
			ret = EXIT_USAGE;
			goto out;
		}
		mism = audit_recheck(st, run_id, spec, o.window, details, &rep, &count);
		if (mism < 0) {
			json_decref(details);
			ret = EXIT_USAGE;
			goto out;
		}
		if (o.json) {
			jout_set(top, "recheck",
				 jout_set(json_object(), "checked", json_integer(count.checked),
					  "mismatches", json_integer(mism),
					  "rule_changes", json_integer(count.rule_changes),
					  "details", details, NULL), NULL);
		} else {
			sbuf_addf(&out, "\nrecheck: %ld stored gate verdicts and window statuses"
					" recomputed from the stored series, %d mismatch%s%s\n%s",
				  count.checked, mism, mism == 1 ? "" : "es",
				  count.rule_changes ? rule_note(count.rule_changes) : "", rep.buf);
		}
		if (mism)
			ret = EXIT_NEGATIVE;
	}
	if (top) {
		char *text = jout_dumps(top);

		top = NULL;
		fputs(text, stdout);
		free(text);
	} else {
		fputs(out.buf, stdout);
	}
out:
	json_decref(top);
	audit_data_release(&d);
	sbuf_release(&out);
	sbuf_release(&rep);
	return ret;
}

const struct cmd_desc cmd_audit_desc = {
	.name = "audit",
	.summary = "rejected windows: gate, statistic, threshold, evidence",
	.synopsis = "RUN [options]",
	.about =
	"Lists failed windows (a valid measurement above the SLO: an outcome gate\n"
	"failed or the implementation exited) and rejected windows (void: a validity\n"
	"gate failed), each with its gates' statistic, threshold and evidence, and a\n"
	"table per gate per implementation (an asymmetric rejection rate shows at a\n"
	"glance). RUN is a run id, a run directory, or `latest`.\n"
	"Exit: 0, 1 when --recheck found a difference, 2 unknown run, gate or window.\n",
	.opts = options,
	.flags = CMD_RUN | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_audit,
};
