/* audit_recheck: every stored verdict, recomputed from stored raw data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "evidence_load.h"
#include "gate.h"
#include "judge.h"
#include "util.h"

/* Stored and recomputed statistics agree to this relative tolerance (both
 * are doubles computed by the same code from the same stored values; the
 * slack only absorbs printing/rounding in the evidence path). */
#define RECHECK_REL_TOL 1e-9

static int same_num(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 1;
	if (isnan(a) || isnan(b))
		return 0;
	return fabs(a - b) <= RECHECK_REL_TOL * (fabs(a) > 1 ? fabs(a) : 1);
}

/* The window's stored status and reasons against harness/judge.h applied
 * to the window gates recomputed on `in` (in the spec's order, as the
 * runner judged them). 0 agree, 1 mismatch (described), -1 error. */
static int recheck_status(struct store *st, const struct spec *spec, int64_t wid,
			  const struct gate_input *in, int json, struct sbuf *report)
{
	struct judge_gate *jg = xcalloc(spec->nwindow_gates + 1, sizeof(*jg));
	struct judge_input ji = { 0 };
	struct window_verdict v;
	sqlite3_stmt *s;
	const char *status, *reasons;
	size_t g;
	int ret = -1;

	for (g = 0; g < spec->nwindow_gates; g++) {
		const struct spec_gate *cfg = spec_gate_find(spec, spec->window_gates[g]);
		struct gate_result r;

		gate_eval(spec, spec->window_gates[g], in, &r);
		jg[g].name = spec->window_gates[g];
		jg[g].status = r.status;
		jg[g].enforced = cfg ? cfg->enforce : 1;
	}
	s = store_prepare(st, "SELECT status, reasons, warm, sut_exited FROM windows WHERE id = ?");
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, wid);
	if (sqlite3_step(s) != SQLITE_ROW) {
		error("%s: no window %lld", st->path, (long long)wid);
		goto out;
	}
	ji.warmup_gates = spec->warmup.ngates > 0;
	ji.warm_passed = (int)store_col_int(s, 2);
	ji.sut_exited = (int)store_col_int(s, 3);
	ji.ngates = spec->nwindow_gates;
	ji.gates = jg;
	judge_window(&ji, &v);
	status = store_col_text(s, 0);
	reasons = store_col_text(s, 1);
	if (!reasons)
		reasons = "";
	ret = status && !strcmp(status, window_status_name(v.status)) && !strcmp(reasons, v.reasons)
		? 0 : 1;
	if (ret && json) {
		sbuf_addf(report, "%s{\"window\": %lld, \"phase\": \"window\", \"status\": ",
			  report->len ? ", " : "", (long long)wid);
		sbuf_add_json_str(report, status ? status : "");
		sbuf_adds(report, ", \"stored_reasons\": ");
		sbuf_add_json_str(report, reasons);
		sbuf_addf(report, ", \"recomputed\": \"%s\", \"recomputed_reasons\": ",
			  window_status_name(v.status));
		sbuf_add_json_str(report, v.reasons);
		sbuf_adds(report, "}");
	} else if (ret) {
		sbuf_addf(report, "window %lld status: stored %s (%s), recomputed %s (%s)\n",
			  (long long)wid, status ? status : "-", reasons,
			  window_status_name(v.status), v.reasons);
	}
out:
	if (s)
		sqlite3_finalize(s);
	free(jg);
	return ret;
}

static int recheck_phase(struct store *st, const struct spec *spec, int64_t wid,
			 const char *impl_name, enum gate_phase phase, int json,
			 struct sbuf *report, long *checked)
{
	const char *ph = phase == GATE_PHASE_WARMUP ? "warmup" : "window";
	const struct spec_impl *impl = spec_impl_find(spec, impl_name);
	struct spec_impl clone;
	struct evidence e;
	struct evidence_scratch scratch;
	struct gate_input in;
	sqlite3_stmt *s = NULL;
	int mismatches = 0;

	/* A cloned arm (rerun --with-baseline) is named "<impl>@base". */
	if (!impl) {
		const char *at = strchr(impl_name, '@');
		if (at) {
			char *base = xstrndup(impl_name, (size_t)(at - impl_name));
			impl = spec_impl_find(spec, base);
			free(base);
		}
	}
	if (impl) {
		clone = *impl;
		clone.name = (char *)impl_name;
		impl = &clone;
	}
	if (evidence_load(st, wid, phase, &e))
		return -1;
	evidence_gate_input(&e, spec, impl, phase == GATE_PHASE_WARMUP ? spec->warmup.trailing_s : 0,
			    &in, &scratch);
	s = store_prepare(st, "SELECT gate, status, statistic, threshold FROM gate_results"
			      " WHERE window_id = ? AND phase = ?");
	if (!s) {
		mismatches = -1;
		goto out;
	}
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_text(s, 2, ph, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *gate = store_col_text(s, 0), *status = store_col_text(s, 1);
		double stat = store_col_real(s, 2), thr = store_col_real(s, 3);
		struct gate_result r;

		gate_eval(spec, gate, &in, &r);
		(*checked)++;
		if (!strcmp(status, gate_status_name(r.status)) && same_num(stat, r.statistic) &&
		    same_num(thr, r.threshold))
			continue;
		mismatches++;
		if (json) {
			sbuf_addf(report, "%s{\"window\": %lld, \"phase\": \"%s\", \"gate\": ",
				  report->len ? ", " : "", (long long)wid, ph);
			sbuf_add_json_str(report, gate);
			sbuf_addf(report, ", \"stored\": \"%s\", \"recomputed\": \"%s\"}", status,
				  gate_status_name(r.status));
		} else {
			sbuf_addf(report, "window %lld %s %s: stored %s (%s = %g), recomputed %s (%g): %s\n",
				  (long long)wid, ph, gate, status, r.stat_name, stat,
				  gate_status_name(r.status), r.statistic, r.evidence);
		}
	}
	if (phase == GATE_PHASE_WINDOW && mismatches >= 0) {
		int m = recheck_status(st, spec, wid, &in, json, report);

		(*checked)++;
		mismatches = m < 0 ? m : mismatches + m;
	}
out:
	if (s)
		sqlite3_finalize(s);
	evidence_scratch_release(&scratch);
	evidence_release(&e);
	return mismatches;
}

int audit_recheck(struct store *st, const char *run_id, const struct spec *spec,
		  int64_t window_id, int json, struct sbuf *report, long *checked)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT id, impl FROM windows WHERE run_id = ?"
					    " AND state = 'done' AND (? < 0 OR id = ?) ORDER BY id");
	int total = 0, m;

	*checked = 0;
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, window_id);
	sqlite3_bind_int64(s, 3, window_id);
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t wid = store_col_int(s, 0);
		char *impl = xstrdup(store_col_text(s, 1));

		m = recheck_phase(st, spec, wid, impl, GATE_PHASE_WARMUP, json, report, checked);
		if (m >= 0)
			total += m;
		m = m < 0 ? m : recheck_phase(st, spec, wid, impl, GATE_PHASE_WINDOW, json, report, checked);
		free(impl);
		if (m < 0) {
			total = -1;
			break;
		}
		total += m;
	}
	sqlite3_finalize(s);
	return total;
}
