/* audit_recheck: every stored verdict, recomputed from stored raw data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/evidence_load.h"
#include "gate/gate.h"
#include "model/head.h"
#include "base/jout.h"
#include "gate/judge.h"
#include "store/store_window.h"
#include "base/util.h"

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

/* Gates whose rule changed with the gate classes (docs/DESIGN.md,
 * "Window status"): error_rate counts unexpected responses (every 4xx
 * too) over the requests due, where it counted transport errors, 5xx and
 * drops over requests answered. A run recorded before (runs.rules NULL)
 * was judged by the old rule, which is not a drift of the stored data. */
static int rule_changed(const char *gate)
{
	return !strcmp(gate, "error_rate");
}

/* Whether rows hold a verdict of gate in phase. */
static int stored_gate(const struct gate_rows *rows, const char *phase, const char *gate)
{
	size_t k;

	for (k = 0; k < rows->n; k++)
		if (rows->v[k].phase && !strcmp(rows->v[k].phase, phase) &&
		    rows->v[k].gate && !strcmp(rows->v[k].gate, gate))
			return 1;
	return 0;
}

/* The window and head gates the run stored a verdict of for at least one
 * window (names point into rows). Every done window stores one of each
 * (runner_store.c), so a window without one lost it: a mismatch. A gate
 * stored for no window is newer than the run (acct_span before schema
 * 20) or absent from its schema: not judged then, skipped. */
struct run_gates {
	struct gate_rows rows;
	const char **window, **head;
	size_t nwindow, nhead;
};

static void run_gates_add(const char ***names, size_t *n, const char *gate)
{
	size_t i;

	for (i = 0; i < *n && strcmp((*names)[i], gate); i++)
		;
	if (i == *n) {
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = gate;
	}
}

static int run_gates_load(struct store *st, const char *run_id, struct run_gates *rg)
{
	size_t k;

	memset(rg, 0, sizeof(*rg));
	if (store_gates_load(st, run_id, -1, &rg->rows))
		return -1;
	for (k = 0; k < rg->rows.n; k++) {
		const struct gate_row *g = &rg->rows.v[k];
		int win = g->phase && !strcmp(g->phase, "window");

		if (g->gate && (win || (g->phase && !strcmp(g->phase, "head"))))
			run_gates_add(win ? &rg->window : &rg->head, win ? &rg->nwindow : &rg->nhead,
				      g->gate);
	}
	return 0;
}

static void run_gates_release(struct run_gates *rg)
{
	gate_rows_release(&rg->rows);
	free(rg->window);
	free(rg->head);
}

static int run_gates_has(const char *const *names, size_t n, const char *gate)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], gate))
			return 1;
	return 0;
}

/* A verdict the run stored for other windows and not for this one: one
 * mismatch, described with what the stored series give now. */
static void missing_verdict(int64_t wid, const char *phase, const char *gate,
			    const char *recomputed, const struct gate_result *r,
			    json_t *details, struct sbuf *report)
{
	if (details) {
		json_t *o = json_object();

		jout_set(o, "window", json_integer(wid), "phase", json_string(phase),
			 "gate", jout_str(gate), "stored", json_null(),
			 "recomputed", jout_str(recomputed), "rule_changed", json_boolean(0), NULL);
		json_array_append_new(details, o);
	} else if (r) {
		sbuf_addf(report, "window %lld %s %s: stored nothing (the run stored it for"
			  " other windows), recomputed %s (%g): %s\n",
			  (long long)wid, phase, gate, recomputed, r->statistic, r->evidence);
	} else {
		sbuf_addf(report, "window %lld %s %s: stored nothing (the run stored it for"
			  " other windows), recomputed %s\n", (long long)wid, phase, gate, recomputed);
	}
}

/* The window gates the run stored for other windows and not for this one,
 * evaluated on `in`. Returns the mismatches. */
static int recheck_missing(const struct spec *spec, int64_t wid, const struct gate_input *in,
			   const struct gate_rows *gates, const struct run_gates *rg,
			   json_t *details, struct sbuf *report, struct recheck_count *count)
{
	size_t i;
	int mismatches = 0;

	for (i = 0; i < rg->nwindow; i++) {
		struct gate_result r;

		if (stored_gate(gates, "window", rg->window[i]))
			continue;
		gate_eval(spec_gate_find(spec, rg->window[i]), rg->window[i], in, &r);
		count->checked++;
		mismatches++;
		missing_verdict(wid, "window", rg->window[i], gate_status_name(r.status), &r,
				details, report);
	}
	return mismatches;
}

/* The window's stored status and reasons against harness/gate/judge.h applied
 * to the window gates recomputed on `in` (in the spec's order, as the
 * runner judged them). 0 agree, 1 mismatch (described), -1 error. */
static int recheck_status(struct store *st, const struct spec *spec, const struct window_row *w,
			  const struct gate_input *in, int no_answer, const struct judge_gate *head,
			  size_t nhead, const struct run_gates *rg, json_t *details, int legacy,
			  struct sbuf *report)
{
	struct window_reset_rows resets;
	int reset_failed = 0;
	size_t k;
	struct judge_gate *jg = xcalloc(spec->nwindow_gates + 1, sizeof(*jg));
	struct judge_input ji = { 0 };
	struct window_verdict v;
	const char *status, *reasons;
	int64_t wid = w->id;
	size_t g, n = 0;
	int ret;

	for (g = 0; g < spec->nwindow_gates; g++) {
		const struct gate_params *cfg = spec_gate_find(spec, spec->window_gates[g]);
		struct gate_result r;

		/* A gate the run stored for no window was not judged then
		 * (added to the defaults since: acct_span, schema 20): it does
		 * not decide the recomputed status either. One stored for
		 * other windows does, lost here or not (recheck_missing). */
		if (!run_gates_has(rg->window, rg->nwindow, spec->window_gates[g]))
			continue;

		gate_eval(spec_gate_find(spec, spec->window_gates[g]), spec->window_gates[g], in, &r);
		jg[n].name = spec->window_gates[g];
		jg[n].status = r.status;
		jg[n].enforced = cfg ? cfg->enforce : 1;
		n++;
	}
	ji.warmup_gates = spec->warmup.ngates > 0;
	ji.warm_passed = w->warm > 0;
	ji.sut_exited = w->sut_exited;
	/* A lost load agent and a clock beyond max_offset_ms are stored
	 * facts too: the channel's state is not in the series (its events
	 * name the agent). */
	ji.agent_lost = w->reasons && (!strncmp(w->reasons, "agent_lost", 10) ||
				       strstr(w->reasons, ",agent_lost"));
	ji.clock_offset = w->reasons && (!strncmp(w->reasons, "clock_offset", 12) ||
					 strstr(w->reasons, ",clock_offset"));
	/* A reset that failed before the window: its stored exit code. */
	if (store_window_resets_load(st, NULL, wid, &resets)) {
		free(jg);
		return -1;
	}
	for (k = 0; k < resets.n; k++)
		reset_failed |= resets.v[k].exit_code != 0;
	window_reset_rows_release(&resets);
	ji.reset_failed = reset_failed;
	ji.no_answer = no_answer;
	ji.ngates = n;
	ji.gates = jg;
	ji.nhead = nhead;
	ji.head = head;
	judge_window(&ji, &v);
	status = w->status == WINDOW_STATUS_NONE ? NULL : window_status_name(w->status);
	reasons = w->reasons ? w->reasons : "";
	ret = w->status == v.status && !strcmp(reasons, v.reasons) ? 0 : 1;
	if (ret && details) {
		json_t *o = json_object();

		jout_set(o, "window", json_integer(wid), "phase", json_string("window"),
			 "status", jout_str(status ? status : ""),
			 "stored_reasons", jout_str(reasons),
			 "recomputed", jout_str(window_status_name(v.status)),
			 "recomputed_reasons", jout_str(v.reasons),
			 "rule_changed", json_boolean(legacy), NULL);
		json_array_append_new(details, o);
	} else if (ret) {
		sbuf_addf(report, "window %lld status: stored %s (%s), recomputed %s (%s)%s\n",
			  (long long)wid, status ? status : "-", reasons,
			  window_status_name(v.status), v.reasons,
			  legacy ? " [rule changed since the run]" : "");
	}
	free(jg);
	return ret;
}

/* The head gates (head.h) recomputed from the stored discard seconds,
 * into hg for the judge, each against its stored "head" row when there is
 * one (runs before head gates have none). Returns the mismatches, -1. */
static int recheck_head(struct store *st, const struct spec *spec, const struct spec_impl *impl,
			int64_t wid, const struct gate_rows *gates, const struct run_gates *rg,
			struct judge_gate *hg, json_t *details, struct sbuf *report,
			struct recheck_count *count)
{
	size_t nh = spec->warmup.nhead_gates, i, k;
	struct gate_result *hr = xcalloc(nh + 1, sizeof(*hr));
	struct evidence he;
	int mismatches = 0;

	if (evidence_load_head(st, wid, &he)) {
		free(hr);
		return -1;
	}
	head_judge(spec, impl, &he, hr, hg);
	evidence_release(&he);
	for (k = 0; k < gates->n; k++) {
		const char *gate = gates->v[k].gate ? gates->v[k].gate : "";
		const char *status = gates->v[k].status ? gates->v[k].status : "";

		if (!gates->v[k].phase || strcmp(gates->v[k].phase, "head"))
			continue;
		for (i = 0; i < nh && strcmp(spec->warmup.head_gates[i], gate); i++)
			;
		count->checked++;
		if (i < nh && !strcmp(status, gate_status_name(hr[i].status)) &&
		    same_num(gates->v[k].statistic, hr[i].statistic))
			continue;
		mismatches++;
		if (details) {
			json_t *o = json_object();

			jout_set(o, "window", json_integer(wid), "phase", json_string("head"),
				 "gate", jout_str(gate), "stored", jout_str(status),
				 "recomputed", jout_str(i < nh ? gate_status_name(hr[i].status) : ""),
				 "rule_changed", json_boolean(0), NULL);
			json_array_append_new(details, o);
		} else {
			sbuf_addf(report, "window %lld head %s: stored %s, recomputed %s\n",
				  (long long)wid, gate, status,
				  i < nh ? gate_status_name(hr[i].status) : "(not in the spec)");
		}
	}
	for (k = 0; k < rg->nhead; k++) {
		if (stored_gate(gates, "head", rg->head[k]))
			continue;
		for (i = 0; i < nh && strcmp(spec->warmup.head_gates[i], rg->head[k]); i++)
			;
		count->checked++;
		mismatches++;
		missing_verdict(wid, "head", rg->head[k],
				i < nh ? gate_status_name(hr[i].status) : "(not in the spec)", NULL,
				details, report);
	}
	free(hr);
	return mismatches;
}

static int recheck_phase(struct store *st, const struct spec *spec, const struct window_row *w,
			 enum gate_phase phase, const struct run_gates *rg, json_t *details,
			 struct sbuf *report, struct recheck_count *count)
{
	const char *impl_name = w->impl ? w->impl : "";
	int64_t wid = w->id;
	const char *ph = phase == GATE_PHASE_WARMUP ? "warmup" : "window";
	const struct spec_impl *impl = spec_impl_find(spec, impl_name);
	struct spec_impl clone;
	struct evidence e;
	struct evidence_scratch scratch;
	struct gate_input in;
	struct gate_rows gates = { NULL, 0 };
	size_t k;
	int mismatches = 0, rule;

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
	if (store_gates_load(st, NULL, wid, &gates)) {
		mismatches = -1;
		goto out;
	}
	for (k = 0; k < gates.n; k++) {
		const char *gate = gates.v[k].gate ? gates.v[k].gate : "";
		const char *status = gates.v[k].status ? gates.v[k].status : "";
		double stat = gates.v[k].statistic, thr = gates.v[k].threshold;
		struct gate_result r;

		if (!gates.v[k].phase || strcmp(gates.v[k].phase, ph))
			continue;
		gate_eval(spec_gate_find(spec, gate), gate, &in, &r);
		count->checked++;
		if (!strcmp(status, gate_status_name(r.status)) && same_num(stat, r.statistic) &&
		    same_num(thr, r.threshold))
			continue;
		rule = count->legacy && rule_changed(gate);
		if (rule)
			count->rule_changes++;
		else
			mismatches++;
		if (details) {
			json_t *o = json_object();

			jout_set(o, "window", json_integer(wid), "phase", json_string(ph),
				 "gate", jout_str(gate), "stored", jout_str(status),
				 "recomputed", jout_str(gate_status_name(r.status)),
				 "rule_changed", json_boolean(rule), NULL);
			json_array_append_new(details, o);
		} else {
			sbuf_addf(report, "window %lld %s %s: stored %s (%s = %g), recomputed %s (%g): %s%s\n",
				  (long long)wid, ph, gate, status, r.stat_name, stat,
				  gate_status_name(r.status), r.statistic, r.evidence,
				  rule ? " [rule changed since the run]" : "");
		}
	}
	if (phase == GATE_PHASE_WINDOW && mismatches >= 0) {
		size_t nh = spec->warmup.nhead_gates;
		struct judge_gate *hg = xcalloc(nh + 1, sizeof(*hg));
		int m = recheck_head(st, spec, impl, wid, &gates, rg, hg, details, report, count);

		if (m < 0) {
			free(hg);
			mismatches = -1;
			goto out;
		}
		mismatches += m + recheck_missing(spec, wid, &in, &gates, rg, details, report, count);
		m = recheck_status(st, spec, w, &in, evidence_no_answer(&e), hg, nh, rg, details,
				   count->legacy, report);
		free(hg);

		count->checked++;
		/* A run recorded before the gate classes was judged by the old
		 * accept/reject rule (migration 3 reclassified its statuses by
		 * outcome reasons); a status the current judge sees otherwise
		 * follows from error_rate's changed rule. */
		if (m > 0 && count->legacy)
			count->rule_changes += m;
		else
			mismatches = m < 0 ? m : mismatches + m;
	}
out:
	gate_rows_release(&gates);
	evidence_scratch_release(&scratch);
	evidence_release(&e);
	return mismatches;
}

int audit_recheck(struct store *st, const char *run_id, const struct spec *spec,
		  int64_t window_id, json_t *details, struct sbuf *report,
		  struct recheck_count *count)
{
	struct window_query q = { .done_only = 1 };
	struct window_rows wins;
	struct run_gates rg;
	int total = 0, m;
	size_t i;

	count->checked = 0;
	count->rule_changes = 0;
	if (run_gates_load(st, run_id, &rg))
		return -1;
	if (store_windows_load(st, run_id, &q, &wins)) {
		run_gates_release(&rg);
		return -1;
	}
	for (i = 0; i < wins.n; i++) {
		const struct window_row *w = &wins.v[i];

		if (window_id >= 0 && w->id != window_id)
			continue;
		m = recheck_phase(st, spec, w, GATE_PHASE_WARMUP, &rg, details, report, count);
		if (m >= 0)
			total += m;
		m = m < 0 ? m : recheck_phase(st, spec, w, GATE_PHASE_WINDOW, &rg, details, report,
					     count);
		if (m < 0) {
			total = -1;
			break;
		}
		total += m;
	}
	window_rows_release(&wins);
	run_gates_release(&rg);
	return total;
}
