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
#include "spec.h"
#include "stat.h"
#include "store.h"
#include "util.h"

static const char usage[] =
	"usage: harness audit RUN [--impl I] [--gate G] [--window W] [--recheck]\n"
	"                    [--runs-dir D] [--json]\n"
	"\n"
	"Lists failed windows (a valid measurement above the SLO: an outcome gate\n"
	"failed or the implementation exited) and rejected windows (void: a validity\n"
	"gate failed), each with its gates' statistic, threshold and evidence, and a\n"
	"table per gate per implementation (an asymmetric rejection rate shows at a\n"
	"glance).\n"
	"  --impl I, --gate G   only windows of that implementation / rejected by that gate\n"
	"  --window W           one window: its gates and its per-second p99 series as a\n"
	"                       sparkline with the Mann-Kendall figures\n"
	"  --recheck            recompute every stored gate verdict and window status\n"
	"                       from the stored raw series; exit 1 if any differs\n";

struct opts {
	const char *impl, *gate;
	int64_t window;
	int recheck, json;
};

/* ------------------------------------------------------------ the table */

static void rejection_table(struct store *st, const char *run_id, int json, struct sbuf *out)
{
	sqlite3_stmt *s;
	int first = 1;

	/* Totals per implementation, then rejections per gate. A window
	 * rejected by several gates counts once under each. */
	s = store_prepare(st, "SELECT impl, COUNT(*), SUM(status = 'rejected'), SUM(status = 'failed')"
			      " FROM windows"
			      " WHERE run_id = ? AND state = 'done' GROUP BY impl ORDER BY impl");
	if (!s)
		return;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	if (json)
		sbuf_adds(out, "\"implementations\": [");
	else
		sbuf_adds(out, "rejections per implementation:\n");
	while (sqlite3_step(s) == SQLITE_ROW) {
		long n = (long)store_col_int(s, 1), rej = (long)store_col_int(s, 2);
		long failed = (long)store_col_int(s, 3);
		if (json) {
			sbuf_adds(out, first ? "{\"impl\": " : ", {\"impl\": ");
			sbuf_add_json_str(out, store_col_text(s, 0));
			sbuf_addf(out, ", \"windows\": %ld, \"rejected\": %ld, \"failed\": %ld}",
				  n, rej, failed);
		} else {
			sbuf_addf(out, "  %-20s %4ld of %4ld windows rejected (%.0f%%), %ld failed (%.0f%%)\n",
				  store_col_text(s, 0), rej, n, n ? 100.0 * rej / n : 0, failed,
				  n ? 100.0 * failed / n : 0);
		}
		first = 0;
	}
	sqlite3_finalize(s);
	s = store_prepare(st,
		"SELECT g.gate, g.phase, w.impl, COUNT(*) FROM gate_results g JOIN windows w"
		" ON w.id = g.window_id WHERE w.run_id = ? AND g.status != 'pass' AND g.enforced = 1"
		" GROUP BY g.gate, g.phase, w.impl ORDER BY g.phase DESC, g.gate, w.impl");
	if (!s)
		return;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	sbuf_adds(out, json ? "], \"by_gate\": [" : "failing gates (per implementation):\n");
	first = 1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (json) {
			sbuf_adds(out, first ? "{\"gate\": " : ", {\"gate\": ");
			sbuf_add_json_str(out, store_col_text(s, 0));
			sbuf_addf(out, ", \"phase\": \"%s\", \"impl\": ", store_col_text(s, 1));
			sbuf_add_json_str(out, store_col_text(s, 2));
			sbuf_addf(out, ", \"windows\": %lld}", (long long)store_col_int(s, 3));
		} else {
			sbuf_addf(out, "  %-22s %-7s %-20s %4lld\n", store_col_text(s, 0),
				  store_col_text(s, 1), store_col_text(s, 2),
				  (long long)store_col_int(s, 3));
		}
		first = 0;
	}
	if (!json && first)
		sbuf_adds(out, "  (none)\n");
	if (json)
		sbuf_adds(out, "]");
	sqlite3_finalize(s);
}

/* --------------------------------------------------------- the windows */

static void gate_lines(struct store *st, int64_t wid, int all, int json, struct sbuf *out)
{
	sqlite3_stmt *s = store_prepare(st,
		"SELECT phase, gate, status, enforced, stat_name, statistic, threshold, evidence,"
		" evaluations FROM gate_results WHERE window_id = ? AND (? OR status != 'pass')"
		" ORDER BY phase DESC, gate");
	int first = 1;

	if (!s)
		return;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_int(s, 2, all);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (json) {
			sbuf_adds(out, first ? "{\"phase\": " : ", {\"phase\": ");
			sbuf_add_json_str(out, store_col_text(s, 0));
			sbuf_adds(out, ", \"gate\": ");
			sbuf_add_json_str(out, store_col_text(s, 1));
			sbuf_addf(out, ", \"status\": \"%s\", \"enforced\": %s, \"stat_name\": ",
				  store_col_text(s, 2), store_col_int(s, 3) ? "true" : "false");
			sbuf_add_json_str(out, store_col_text(s, 4) ? store_col_text(s, 4) : "");
			if (isnan(store_col_real(s, 5)))
				sbuf_adds(out, ", \"statistic\": null");
			else
				sbuf_addf(out, ", \"statistic\": %.17g", store_col_real(s, 5));
			if (isnan(store_col_real(s, 6)))
				sbuf_adds(out, ", \"threshold\": null");
			else
				sbuf_addf(out, ", \"threshold\": %.17g", store_col_real(s, 6));
			sbuf_adds(out, ", \"evidence\": ");
			sbuf_add_json_str(out, store_col_text(s, 7) ? store_col_text(s, 7) : "");
			sbuf_adds(out, "}");
		} else {
			sbuf_addf(out, "    %-7s %-20s %-13s%s %s = %.6g, threshold %.6g: %s\n",
				  store_col_text(s, 0), store_col_text(s, 1), store_col_text(s, 2),
				  store_col_int(s, 3) ? "" : " (recorded only)",
				  store_col_text(s, 4) ? store_col_text(s, 4) : "-",
				  store_col_real(s, 5), store_col_real(s, 6),
				  store_col_text(s, 7) ? store_col_text(s, 7) : "");
		}
		first = 0;
	}
	sqlite3_finalize(s);
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

static void window_series(struct store *st, int64_t wid, int json, struct sbuf *out)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT phase, p99_ms FROM seconds WHERE window_id = ?"
					    " ORDER BY phase = 'measured', phase = 'discard', idx");
	const char *phases[] = { "warmup", "discard", "measured" };
	double *v[3] = { NULL, NULL, NULL };
	size_t n[3] = { 0, 0, 0 }, a[3] = { 0, 0, 0 }, k;

	if (!s)
		return;
	sqlite3_bind_int64(s, 1, wid);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *ph = store_col_text(s, 0);
		for (k = 0; k < 3; k++)
			if (!strcmp(ph, phases[k])) {
				XGROW(v[k], a[k], n[k] + 1);
				v[k][n[k]++] = store_col_real(s, 1);
			}
	}
	sqlite3_finalize(s);
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
}

static int list_windows(struct store *st, const char *run_id, const struct opts *o,
			struct sbuf *out)
{
	sqlite3_stmt *s = store_prepare(st,
		"SELECT id, stage, rung, block, slot, impl, rate, status, reasons, p99_ms, completed"
		" FROM windows WHERE run_id = ? AND state = 'done'"
		" AND (?2 IS NULL OR impl = ?2) AND (?3 < 0 OR id = ?3)"
		" AND (?3 >= 0 OR status != 'accepted')"
		" AND (?4 IS NULL OR EXISTS (SELECT 1 FROM gate_results g WHERE g.window_id = windows.id"
		"      AND g.gate = ?4 AND g.status != 'pass')) ORDER BY id");
	int first = 1, n = 0;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	if (o->impl)
		sqlite3_bind_text(s, 2, o->impl, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, o->window);
	if (o->gate)
		sqlite3_bind_text(s, 4, o->gate, -1, SQLITE_STATIC);
	sbuf_adds(out, o->json ? "\"windows\": [" : "");
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t wid = store_col_int(s, 0);
		n++;
		if (o->json) {
			sbuf_addf(out, "%s{\"window\": %lld, \"stage\": \"%s\", \"rung\": %lld,"
				       " \"block\": %lld, \"slot\": %lld, \"impl\": ",
				  first ? "" : ", ", (long long)wid, store_col_text(s, 1),
				  (long long)store_col_int(s, 2), (long long)store_col_int(s, 3),
				  (long long)store_col_int(s, 4));
			sbuf_add_json_str(out, store_col_text(s, 5));
			sbuf_addf(out, ", \"rate\": %.6g, \"status\": \"%s\", \"reasons\": ",
				  store_col_real(s, 6), store_col_text(s, 7));
			sbuf_add_json_str(out, store_col_text(s, 8) ? store_col_text(s, 8) : "");
			sbuf_adds(out, ", \"gates\": [");
			gate_lines(st, wid, o->window >= 0, 1, out);
			sbuf_adds(out, "]");
			if (o->window >= 0) {
				sbuf_adds(out, ", \"series\": {");
				window_series(st, wid, 1, out);
				sbuf_adds(out, "}");
			}
			sbuf_adds(out, "}");
		} else {
			sbuf_addf(out, "window %lld  %s rung %lld block %lld slot %lld  %s at %.0f req/s:"
				       " %s%s%s%s\n",
				  (long long)wid, store_col_text(s, 1), (long long)store_col_int(s, 2),
				  (long long)store_col_int(s, 3), (long long)store_col_int(s, 4),
				  store_col_text(s, 5), store_col_real(s, 6), store_col_text(s, 7),
				  store_col_text(s, 8) ? " (" : "",
				  store_col_text(s, 8) ? store_col_text(s, 8) : "",
				  store_col_text(s, 8) ? ")" : "");
			gate_lines(st, wid, o->window >= 0, 0, out);
			if (o->window >= 0)
				window_series(st, wid, 0, out);
		}
		first = 0;
	}
	sqlite3_finalize(s);
	if (o->json)
		sbuf_adds(out, "]");
	else if (!n)
		sbuf_adds(out, o->window >= 0 ? "no such window in this run\n" : "no failed or rejected windows\n");
	return n;
}

/* ------------------------------------------------------------------ cmd */

static struct spec *stored_spec(struct store *st, const char *run_id)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT spec_path, spec_text FROM runs WHERE id = ?");
	struct spec *spec = NULL;
	char *path, *dir;

	if (!s)
		return NULL;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW) {
		path = xstrdup(store_col_text(s, 0));
		dir = xstrdup(path);
		spec = spec_parse(sqlite3_column_blob(s, 1), (size_t)sqlite3_column_bytes(s, 1),
				  path, dirname(dir));
		free(path);
		free(dir);
	}
	sqlite3_finalize(s);
	return spec;
}

int cmd_audit(int argc, char **argv)
{
	const char *runs_dir = NULL, *run = NULL;
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT, out = SBUF_INIT, rep = SBUF_INIT;
	struct store st = { 0 };
	struct spec *spec = NULL;
	struct opts o = { NULL, NULL, -1, 0, 0 };
	int i, ret = EXIT_USAGE, mism = 0;
	long checked = 0;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		long w;
		if (!strcmp(a, "--json"))
			o.json = 1;
		else if (!strcmp(a, "--recheck"))
			o.recheck = 1;
		else if (!strcmp(a, "--runs-dir") && i + 1 < argc)
			runs_dir = argv[++i];
		else if (!strcmp(a, "--impl") && i + 1 < argc)
			o.impl = argv[++i];
		else if (!strcmp(a, "--gate") && i + 1 < argc)
			o.gate = argv[++i];
		else if (!strcmp(a, "--window") && i + 1 < argc) {
			if (parse_long(argv[++i], &w) || w < 0) {
				error("audit: --window: '%s' is not a window id", argv[i]);
				return EXIT_USAGE;
			}
			o.window = w;
		} else if (a[0] == '-') {
			error("audit: unknown option '%s'; see 'harness audit --help'", a);
			return EXIT_USAGE;
		} else if (!run)
			run = a;
		else {
			error("audit: unexpected argument '%s'", a);
			return EXIT_USAGE;
		}
	}
	if (!run) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	if (o.gate && !gate_find(o.gate)) {
		error("audit: --gate: no gate named '%s'", o.gate);
		goto out;
	}
	if (o.json) {
		sbuf_adds(&out, "{\"run\": ");
		sbuf_add_json_str(&out, id.buf);
		sbuf_adds(&out, ", ");
		rejection_table(&st, id.buf, 1, &out);
		sbuf_adds(&out, ", ");
	} else {
		sbuf_addf(&out, "run %s\n", id.buf);
		rejection_table(&st, id.buf, 0, &out);
		sbuf_adds(&out, "\n");
	}
	if (list_windows(&st, id.buf, &o, &out) < 0)
		goto out;
	ret = EXIT_OK;
	if (o.recheck) {
		spec = stored_spec(&st, id.buf);
		if (!spec) {
			ret = EXIT_USAGE;
			goto out;
		}
		mism = audit_recheck(&st, id.buf, spec, o.window, o.json, &rep, &checked);
		if (mism < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (o.json)
			sbuf_addf(&out, ", \"recheck\": {\"checked\": %ld, \"mismatches\": %d,"
					" \"details\": [%s]}", checked, mism, rep.buf);
		else
			sbuf_addf(&out, "\nrecheck: %ld stored gate verdicts and window statuses"
					" recomputed from the stored series, %d mismatch%s\n%s",
				  checked, mism, mism == 1 ? "" : "es", rep.buf);
		if (mism)
			ret = EXIT_NEGATIVE;
	}
	if (o.json)
		sbuf_adds(&out, "}\n");
	fputs(out.buf, stdout);
out:
	if (spec)
		spec_free(spec);
	if (st.db)
		store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&id);
	sbuf_release(&out);
	sbuf_release(&rep);
	return ret;
}
