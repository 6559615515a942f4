/* cmd_audit: `harness audit RUN`: every rejected window, why, and whether
 * the stored verdicts still follow from the stored data. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cmd.h"
#include "gate.h"
#include "judge.h"
#include "spec.h"
#include "stat.h"
#include "store.h"
#include "store_run.h"
#include "store_window.h"
#include "util.h"

struct opts {
	const char *impl, *gate;
	int64_t window;
	int recheck, json;
};

/* The run as audit reads it: its done windows and every gate result. */
struct audit_data {
	struct window_rows wins;     /* done windows, by id */
	struct gate_rows gates;      /* by window, then as stored */
};

static int audit_data_load(struct store *st, const char *run_id, struct audit_data *d)
{
	struct window_query q = { .done_only = 1 };

	d->gates.v = NULL;
	d->gates.n = 0;
	return store_windows_load(st, run_id, &q, &d->wins) ||
	       store_gates_load(st, run_id, -1, &d->gates) ? -1 : 0;
}

static void audit_data_release(struct audit_data *d)
{
	window_rows_release(&d->wins);
	gate_rows_release(&d->gates);
}

static const struct window_row *window_of(const struct audit_data *d, int64_t id)
{
	size_t lo = 0, hi = d->wins.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->wins.v[mid].id == id)
			return &d->wins.v[mid];
		if (d->wins.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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

static void impl_table(const struct audit_data *d, int json, struct sbuf *out)
{
	struct tally *v = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < d->wins.n; i++) {
		const struct window_row *w = &d->wins.v[i];
		struct tally *t = tally_find(&v, &n, &alloc, "", "", str(w->impl));

		t->n++;
		t->rejected += w->status == WINDOW_REJECTED;
		t->failed += w->status == WINDOW_FAILED;
	}
	if (n)
		qsort(v, n, sizeof(*v), tally_cmp);
	sbuf_adds(out, json ? "\"implementations\": [" : "rejections per implementation:\n");
	for (i = 0; i < n; i++) {
		if (json) {
			sbuf_adds(out, i ? ", {\"impl\": " : "{\"impl\": ");
			sbuf_add_json_str(out, v[i].impl);
			sbuf_addf(out, ", \"windows\": %ld, \"rejected\": %ld, \"failed\": %ld}",
				  v[i].n, v[i].rejected, v[i].failed);
		} else {
			sbuf_addf(out, "  %-20s %4ld of %4ld windows rejected (%.0f%%), %ld failed (%.0f%%)\n",
				  v[i].impl, v[i].rejected, v[i].n,
				  v[i].n ? 100.0 * v[i].rejected / v[i].n : 0, v[i].failed,
				  v[i].n ? 100.0 * v[i].failed / v[i].n : 0);
		}
	}
	free(v);
}

/* Totals per implementation, then failures per enforced gate. A window
 * rejected by several gates counts once under each. */
static void rejection_table(const struct audit_data *d, int json, struct sbuf *out)
{
	struct tally *v = NULL;
	size_t n = 0, alloc = 0, i;

	impl_table(d, json, out);
	for (i = 0; i < d->gates.n; i++) {
		const struct gate_row *g = &d->gates.v[i];
		const struct window_row *w = window_of(d, g->window_id);

		if (!w || !g->enforced || !strcmp(str(g->status), "pass"))
			continue;
		tally_find(&v, &n, &alloc, str(g->gate), str(g->phase), str(w->impl))->n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), tally_cmp);
	sbuf_adds(out, json ? "], \"by_gate\": [" : "failing gates (per implementation):\n");
	for (i = 0; i < n; i++) {
		if (json) {
			sbuf_adds(out, i ? ", {\"gate\": " : "{\"gate\": ");
			sbuf_add_json_str(out, v[i].gate);
			sbuf_addf(out, ", \"phase\": \"%s\", \"impl\": ", v[i].phase);
			sbuf_add_json_str(out, v[i].impl);
			sbuf_addf(out, ", \"windows\": %ld}", v[i].n);
		} else {
			sbuf_addf(out, "  %-22s %-7s %-20s %4ld\n", v[i].gate, v[i].phase, v[i].impl,
				  v[i].n);
		}
	}
	if (!json && !n)
		sbuf_adds(out, "  (none)\n");
	if (json)
		sbuf_adds(out, "]");
	free(v);
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

static void gate_line(const struct gate_row *g, int json, int first, struct sbuf *out)
{
	if (json) {
		sbuf_adds(out, first ? "{\"phase\": " : ", {\"phase\": ");
		sbuf_add_json_str(out, str(g->phase));
		sbuf_adds(out, ", \"gate\": ");
		sbuf_add_json_str(out, str(g->gate));
		sbuf_addf(out, ", \"status\": \"%s\", \"enforced\": %s, \"stat_name\": ",
			  str(g->status), g->enforced ? "true" : "false");
		sbuf_add_json_str(out, str(g->stat_name));
		if (isnan(g->statistic))
			sbuf_adds(out, ", \"statistic\": null");
		else
			sbuf_addf(out, ", \"statistic\": %.17g", g->statistic);
		if (isnan(g->threshold))
			sbuf_adds(out, ", \"threshold\": null");
		else
			sbuf_addf(out, ", \"threshold\": %.17g", g->threshold);
		sbuf_adds(out, ", \"evidence\": ");
		sbuf_add_json_str(out, str(g->evidence));
		sbuf_adds(out, "}");
	} else {
		sbuf_addf(out, "    %-7s %-20s %-13s%s %s = %.6g, threshold %.6g: %s\n",
			  str(g->phase), str(g->gate), str(g->status),
			  g->enforced ? "" : " (recorded only)",
			  g->stat_name ? g->stat_name : "-", g->statistic, g->threshold,
			  str(g->evidence));
	}
}

static void gate_lines(const struct audit_data *d, int64_t wid, int all, int json,
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
		gate_line(v[i], json, i == 0, out);
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

static int window_series(struct store *st, int64_t wid, int json, struct sbuf *out)
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
	window_seconds_release(&secs);
	for (k = 0; k < 3; k++) {
		struct mk_result mk;
		double *t = xcalloc(n[k] + 1, sizeof(*t)), slope;
		size_t i;

		for (i = 0; i < n[k]; i++)
			t[i] = (double)i;
		slope = stat_theil_sen(t, v[k], n[k]) * 60.0;
		if (stat_mann_kendall(v[k], n[k], &mk))
			mk.p = mk.z = mk.s = NAN;
		if (json) {
			sbuf_addf(out, "%s\"%s\": {\"p99_ms\": [", k ? ", " : "", phases[k]);
			for (i = 0; i < n[k]; i++) {
				if (isnan(v[k][i]))
					sbuf_addf(out, "%snull", i ? ", " : "");
				else
					sbuf_addf(out, "%s%.6g", i ? ", " : "", v[k][i]);
			}
			sbuf_addf(out, "], \"mk_s\": %.17g, \"mk_z\": %.17g, \"mk_p\": %.17g,"
				       " \"sen_slope_ms_per_min\": %.17g}",
				  isnan(mk.s) ? 0 : mk.s, isnan(mk.z) ? 0 : mk.z,
				  isnan(mk.p) ? 1 : mk.p, isnan(slope) ? 0 : slope);
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
static int window_samples(struct store *st, int64_t wid, int json, struct sbuf *out)
{
	struct unexpected_rows u;
	size_t i;

	if (store_unexpected_load(st, wid, &u))
		return -1;
	if (json)
		sbuf_adds(out, "[");
	else if (u.n)
		sbuf_adds(out, "  unexpected responses (first of each phase):\n");
	for (i = 0; i < u.n; i++) {
		const struct unexpected_row *r = &u.v[i];
		struct sbuf body = SBUF_INIT;

		body_text(&r->body, &body);
		if (json) {
			sbuf_addf(out, "%s{\"phase\": ", i ? ", " : "");
			sbuf_add_json_str(out, str(r->phase));
			sbuf_adds(out, ", \"request\": ");
			sbuf_add_json_str(out, str(r->name));
			sbuf_addf(out, ", \"status\": %d, \"why\": ", r->status);
			sbuf_add_json_str(out, str(r->why));
			sbuf_adds(out, ", \"body\": ");
			sbuf_add_json_str(out, body.buf ? body.buf : "");
			sbuf_adds(out, "}");
		} else {
			sbuf_addf(out, "    %-8s %s: %s", str(r->phase), str(r->name), str(r->why));
			if (body.len)
				sbuf_addf(out, "; body: %s", body.buf);
			sbuf_adds(out, "\n");
		}
		sbuf_release(&body);
	}
	if (json)
		sbuf_adds(out, "]");
	unexpected_rows_release(&u);
	return 0;
}

static int listed(const struct audit_data *d, const struct window_row *w, const struct opts *o)
{
	if (o->impl && strcmp(str(w->impl), o->impl))
		return 0;
	if (o->window >= 0)
		return w->id == o->window;
	if (w->status == WINDOW_ACCEPTED)
		return 0;
	return !o->gate || gate_failed(d, w->id, o->gate);
}

static int list_windows(struct store *st, const struct audit_data *d, const struct opts *o,
			struct sbuf *out)
{
	size_t i;
	int n = 0;

	sbuf_adds(out, o->json ? "\"windows\": [" : "");
	for (i = 0; i < d->wins.n; i++) {
		const struct window_row *w = &d->wins.v[i];

		if (!listed(d, w, o))
			continue;
		if (o->json) {
			sbuf_addf(out, "%s{\"window\": %lld, \"stage\": \"%s\", \"rung\": %d,"
				       " \"block\": %d, \"slot\": %d, \"impl\": ",
				  n ? ", " : "", (long long)w->id, str(w->stage), w->rung, w->block,
				  w->slot);
			sbuf_add_json_str(out, str(w->impl));
			sbuf_addf(out, ", \"rate\": %.6g, \"status\": \"%s\", \"reasons\": ",
				  w->rate, window_status_name(w->status));
			sbuf_add_json_str(out, str(w->reasons));
			sbuf_adds(out, ", \"gates\": [");
			gate_lines(d, w->id, o->window >= 0, 1, out);
			sbuf_adds(out, "]");
			if (o->window >= 0) {
				sbuf_adds(out, ", \"series\": {");
				if (window_series(st, w->id, 1, out))
					return -1;
				sbuf_adds(out, "}, \"unexpected\": ");
				if (window_samples(st, w->id, 1, out))
					return -1;
			}
			sbuf_adds(out, "}");
		} else {
			sbuf_addf(out, "window %lld  %s rung %d block %d slot %d  %s at %.0f req/s:"
				       " %s%s%s%s\n",
				  (long long)w->id, str(w->stage), w->rung, w->block, w->slot,
				  str(w->impl), w->rate, window_status_name(w->status),
				  w->reasons ? " (" : "", str(w->reasons), w->reasons ? ")" : "");
			gate_lines(d, w->id, o->window >= 0, 0, out);
			if (o->window >= 0 && (window_series(st, w->id, 0, out) ||
						window_samples(st, w->id, 0, out)))
				return -1;
		}
		n++;
	}
	if (o->json)
		sbuf_adds(out, "]");
	else if (!n)
		sbuf_adds(out, o->window >= 0 ? "no such window in this run\n" : "no failed or rejected windows\n");
	return n;
}

/* ------------------------------------------------------------------ cmd */

/* ", N differ by a rule change ..." for a run judged by older rules. */
static const char *rule_note(long n)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "; %ld differ%s because the run was judged by the rules"
		 " before the gate classes (error_rate now counts every unexpected"
		 " response over requests due): rule changes, not drift", n, n == 1 ? "s" : "");
	return buf;
}

/* The run's stored spec, parsed; NULL after an error naming the database
 * or the spec. *legacy: the run was judged by rules older than JUDGE_RULES. */
static struct spec *stored_spec(struct store *st, const char *run_id, int *legacy)
{
	struct run_record rec;
	struct spec *spec = NULL;
	const char *text;
	size_t len;
	char *dir;

	if (run_record_load(st, run_id, &rec))
		return NULL;
	*legacy = rec.rules < JUDGE_RULES;
	if (!run_record_spec(&rec, st->path, &text, &len)) {
		dir = xstrdup(str(rec.spec_path));
		spec = spec_parse(text, len, str(rec.spec_path), dirname(dir));
		free(dir);
	}
	run_record_release(&rec);
	return spec;
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
		     "sparkline with the Mann-Kendall figures, and the first\n"
		     "unexpected responses (request, status, why, body)"),
	OPT_BOOL(0, "recheck", &o.recheck,
		 "recompute every stored gate verdict and window status\n"
		 "from the stored raw series; exit 1 if any differs"),
	OPT_END(),
};

static int cmd_audit(struct cmd_ctx *c)
{
	struct sbuf out = SBUF_INIT, rep = SBUF_INIT;
	struct store *st = &c->st;
	const char *run_id = c->run_id.buf;
	struct spec *spec = NULL;
	struct audit_data d = { { NULL, 0 }, { NULL, 0 } };
	int ret = EXIT_USAGE, mism = 0;
	struct recheck_count count = { 0 };

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
		sbuf_adds(&out, "{\"run\": ");
		sbuf_add_json_str(&out, run_id);
		sbuf_adds(&out, ", ");
		rejection_table(&d, 1, &out);
		sbuf_adds(&out, ", ");
	} else {
		sbuf_addf(&out, "run %s\n", run_id);
		rejection_table(&d, 0, &out);
		sbuf_adds(&out, "\n");
	}
	if (list_windows(st, &d, &o, &out) < 0)
		goto out;
	ret = EXIT_OK;
	if (o.recheck) {
		spec = stored_spec(st, run_id, &count.legacy);
		if (!spec) {
			ret = EXIT_USAGE;
			goto out;
		}
		mism = audit_recheck(st, run_id, spec, o.window, o.json, &rep, &count);
		if (mism < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (o.json)
			sbuf_addf(&out, ", \"recheck\": {\"checked\": %ld, \"mismatches\": %d,"
					" \"rule_changes\": %ld, \"details\": [%s]}",
				  count.checked, mism, count.rule_changes, rep.buf);
		else
			sbuf_addf(&out, "\nrecheck: %ld stored gate verdicts and window statuses"
					" recomputed from the stored series, %d mismatch%s%s\n%s",
				  count.checked, mism, mism == 1 ? "" : "es",
				  count.rule_changes ? rule_note(count.rule_changes) : "", rep.buf);
		if (mism)
			ret = EXIT_NEGATIVE;
	}
	if (o.json)
		sbuf_adds(&out, "}\n");
	fputs(out.buf, stdout);
out:
	if (spec)
		spec_free(spec);
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
