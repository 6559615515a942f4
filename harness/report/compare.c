/*
 * compare: load a run as compare needs it (the verdict is compare_verdict.c,
 * the rules are in compare.h).
 */
#include "report/compare.h"
#include "base/hist.h"
#include "model/knee_run.h"
#include "spec/spec.h"
#include "store/store_run.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ loading */

/*
 * The compare rule and the SLO from the view's parsed spec (defaults,
 * specs/README.md, when this binary cannot parse it: no knee then). -1
 * after error() when the run holds no spec at all (a damaged run: exit 2).
 */
static int rule_from_spec(struct cmp_run *r)
{
	const struct spec *s = r->view.spec;
	const char *text;
	size_t len;

	r->slo_pct = 99;
	r->slo_ms = NAN;
	r->min_reps = 3;
	r->margin_pct = 5;
	r->margin_ms = 0.75;
	r->margin_cpu_us = 2;
	r->alpha = 0.05;
	r->min_pairs = 3;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	r->interval = CMP_INTERVAL_HL;
	r->correction = CMP_CORRECT_HOLM;
	r->sequential = 0;
	r->cs_t_star = 10;
	if (run_record_spec(&r->view.rec, r->dir, &text, &len))
		return -1;
	if (!s) {
		warning("run %s: its stored spec does not parse; using the default compare rule "
			"and no knee", r->id);
		return 0;
	}
	r->spec_ok = 1;
	r->slo_pct = s->slo.percentile;
	r->slo_ms = s->slo.threshold_ms;
	r->min_reps = (size_t)(s->confirm.present ? s->confirm.reps : s->ladder.reps);
	r->margin_pct = s->compare.margin_pct;
	r->margin_ms = s->compare.margin_ms;
	r->margin_cpu_us = s->compare.margin_cpu_us;
	r->alpha = s->compare.alpha;
	r->min_pairs = (size_t)s->compare.min_pairs;
	r->metrics = s->compare.metrics;
	r->interval = s->compare.interval;
	r->correction = s->compare.correction;
	r->sequential = s->confirm.present && s->confirm.until.present;
	r->cs_t_star = s->confirm.present ? s->confirm.reps : 10;
	r->reqs = r->view.req_names;
	r->req_slo_ms = r->view.req_slo_ms;
	r->nreqs = r->view.nreq_names;
	return 0;
}

double cmp_margin_of(double margin_pct, double floor, double base_value)
{
	double rel = isfinite(base_value) ? fabs(base_value) * margin_pct / 100.0 : 0;

	return rel > floor ? rel : floor;
}

double cmp_metric_margin_pct(const struct cmp_metric *m)
{
	return m->base > 0 && isfinite(m->margin) ? 100 * m->margin / m->base : NAN;
}

static void take_record(struct cmp_run *r)
{
	const struct run_record *rec = &r->view.rec;
	size_t i;

	r->spec_name = rec->spec_name ? rec->spec_name : "";
	r->spec_hash = rec->spec_hash ? rec->spec_hash : "";
	r->seed = (uint64_t)rec->seed;
	r->status = rec->status ? rec->status : "";
	r->exploratory = rec->exploratory;
	r->failure = rec->failure;
	r->failure_kind = rec->failure_kind;
	r->failure_impl = rec->failure_impl;
	r->nimpls = rec->nimpls;
	r->impls = xcalloc(rec->nimpls + 1, sizeof(*r->impls));
	r->commits = xcalloc(rec->nimpls + 1, sizeof(*r->commits));
	r->refs = xcalloc(rec->nimpls + 1, sizeof(*r->refs));
	for (i = 0; i < rec->nimpls; i++) {
		r->impls[i] = rec->impls[i].name;
		r->commits[i] = rec->impls[i].commit_id;
		r->refs[i] = rec->impls[i].ref_asked;
	}
	r->w = xcalloc(r->view.nwindows + 1, sizeof(*r->w));
	for (i = 0; i < r->view.nwindows; i++)
		if (r->view.windows[i].done)
			r->w[r->nw++] = &r->view.windows[i];
	r->seq = r->view.seq;
	r->nseq = r->view.nseq;
}

const struct knee_result *cmp_run_knee(const struct cmp_run *r, size_t i)
{
	static const struct knee_result none;

	return r->view.spec && i < r->view.nimpls ? &r->view.impls[i].knee : &none;
}

const struct view_wreq *cmp_win_req(const struct cmp_run *r, const struct view_window *w, int k)
{
	const struct view_wreq *q;

	if (k < 0 || (size_t)k >= r->nreqs || !w->valid)
		return NULL;
	q = view_window_req(w, r->reqs[k]);
	return q && q->has_hist ? q : NULL;
}

double cmp_win_req_pslo(const struct cmp_run *r, const struct view_window *w, int k)
{
	const struct view_wreq *q = cmp_win_req(r, w, k);

	return q ? q->pslo_ms : NAN;
}

/* The version events of the run, the first of each component. */
static void read_versions(struct cmp_run *r)
{
	size_t i, k;

	r->versions = xcalloc(r->view.nversions + 1, sizeof(*r->versions));
	for (i = 0; i < r->view.nversions; i++) {
		const struct view_version *x = &r->view.versions[i];

		for (k = 0; k < r->nversions && strcmp(r->versions[k]->key, x->key); k++)
			;
		if (k == r->nversions)
			r->versions[r->nversions++] = x;
	}
}

static const char *version_of(const struct cmp_run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nversions; i++)
		if (!strcmp(r->versions[i]->key, key))
			return r->versions[i]->value;
	return NULL;
}

char *cmp_version_diffs(const struct cmp_run *base, const struct cmp_run *new_)
{
	struct sbuf o = SBUF_INIT;
	size_t i;

	for (i = 0; i < new_->nversions; i++) {
		const char *b = version_of(base, new_->versions[i]->key);

		if (b && !strcmp(b, new_->versions[i]->value))
			continue;
		sbuf_addf(&o, "%s%s: \"%.80s\" -> \"%.80s\"", o.len ? "; " : "", new_->versions[i]->key,
			  b ? b : "(not recorded)", new_->versions[i]->value);
	}
	for (i = 0; i < base->nversions; i++)
		if (!version_of(new_, base->versions[i]->key))
			sbuf_addf(&o, "%s%s: \"%.80s\" -> \"(not recorded)\"", o.len ? "; " : "",
				  base->versions[i]->key, base->versions[i]->value);
	if (!o.len) {
		sbuf_release(&o);
		return NULL;
	}
	return sbuf_detach(&o, NULL);
}

int cmp_run_read(struct cmp_run *r, struct store *st, const char *dir, const char *id)
{
	memset(r, 0, sizeof(*r));
	r->dir = xstrdup(dir);
	r->id = xstrdup(id);
	if (view_load(&r->view, st, r->id))
		goto fail;
	take_record(r);
	if (rule_from_spec(r))
		goto fail;
	read_versions(r);
	return 0;
fail:
	cmp_run_release(r);
	return -1;
}

int cmp_run_load(struct cmp_run *r, const char *runs_dir, const char *run)
{
	struct store st = { 0 };
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (store_open_run(&st, store_runs_dir(runs_dir), run, &dir, &id))
		goto out;
	ret = cmp_run_read(r, &st, dir.buf, id.buf);
out:
	store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&id);
	return ret;
}

void cmp_run_release(struct cmp_run *r)
{
	free(r->impls);
	free(r->commits);
	free(r->refs);
	free(r->w);
	free(r->versions);
	free(r->id);
	free(r->dir);
	view_release(&r->view);
	memset(r, 0, sizeof(*r));
}
