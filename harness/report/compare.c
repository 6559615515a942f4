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
 * The compare rule and the SLO from the stored spec (defaults,
 * specs/README.md, when this binary cannot parse it: no knee then). *out
 * is the spec for the knees (NULL when it does not parse). -1 after
 * error() when the run holds no spec at all (a damaged run: exit 2).
 */
static int rule_from_spec(struct cmp_run *r, const struct run_record *rec, struct spec **out)
{
	struct spec *s;
	const char *text;
	size_t len;

	*out = NULL;

	r->slo_pct = 99;
	r->slo_ms = NAN;
	r->min_reps = 3;
	r->margin_pct = 5;
	r->margin_ms = 1;
	r->margin_cpu_us = 2;
	r->alpha = 0.05;
	r->min_pairs = 3;
	r->metrics = CMP_P99 | CMP_CPU_PER_REQUEST;
	r->interval = CMP_INTERVAL_HL;
	r->correction = CMP_CORRECT_HOLM;
	r->sequential = 0;
	r->cs_t_star = 10;
	if (run_record_spec(rec, r->dir, &text, &len))
		return -1;
	s = spec_parse(text, len, rec->spec_path && *rec->spec_path ? rec->spec_path : "spec.yaml",
		       r->dir);
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
	r->nreqs = s->workload.nrequests;
	r->reqs = xcalloc(r->nreqs + 1, sizeof(*r->reqs));
	r->req_slo_ms = xcalloc(r->nreqs + 1, sizeof(*r->req_slo_ms));
	for (size_t i = 0; i < r->nreqs; i++) {
		r->reqs[i] = xstrdup(s->workload.requests[i].name);
		r->req_slo_ms[i] = s->workload.requests[i].slo_ms;
	}
	*out = s;
	return 0;
}

double cmp_margin_of(double margin_pct, double floor, double base_value)
{
	double rel = isfinite(base_value) ? fabs(base_value) * margin_pct / 100.0 : 0;

	return rel > floor ? rel : floor;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void take_record(struct cmp_run *r, const struct run_record *rec)
{
	size_t i;

	r->spec_name = xstrdup(rec->spec_name ? rec->spec_name : "");
	r->spec_hash = xstrdup(rec->spec_hash ? rec->spec_hash : "");
	r->seed = (uint64_t)rec->seed;
	r->status = xstrdup(rec->status ? rec->status : "");
	r->exploratory = rec->exploratory;
	r->failure = dup_or_null(rec->failure);
	r->failure_kind = dup_or_null(rec->failure_kind);
	r->failure_impl = dup_or_null(rec->failure_impl);
	r->nimpls = rec->nimpls;
	r->impls = xcalloc(rec->nimpls + 1, sizeof(*r->impls));
	r->commits = xcalloc(rec->nimpls + 1, sizeof(*r->commits));
	r->refs = xcalloc(rec->nimpls + 1, sizeof(*r->refs));
	for (i = 0; i < rec->nimpls; i++) {
		r->impls[i] = xstrdup(rec->impls[i].name);
		r->commits[i] = dup_or_null(rec->impls[i].commit_id);
		r->refs[i] = dup_or_null(rec->impls[i].ref_asked);
	}
}

static enum cmp_wstatus wstatus(enum window_status s)
{
	return s == WINDOW_ACCEPTED ? CMP_W_ACCEPTED : s == WINDOW_FAILED ? CMP_W_FAILED
									 : CMP_W_REJECTED;
}

/* One done window as compare needs it; -1 after error() on a corrupt
 * histogram. */
static int take_window(struct cmp_run *r, const struct window_row *row, struct cmp_win *w)
{
	memset(w, 0, sizeof(*w));
	w->id = row->id;
	w->impl = xstrdup(row->impl);
	w->stage = xstrdup(row->stage);
	w->reasons = dup_or_null(row->reasons);
	w->status = wstatus(row->status);
	w->rung = row->rung;
	w->block = row->block;
	w->rate = row->rate;
	w->completed = row->completed;
	w->cpu_s = row->cpu_s;
	w->p99_ms = w->pslo_ms = row->p99_ms;
	if (row->latency_hist.p && row->latency_hist.len) {
		struct hist *h = xmalloc(sizeof(*h));
		hist_init(h);
		w->hist = h;
		if (hist_deserialize(h, row->latency_hist.p, row->latency_hist.len))
			return error("%s: window %lld of %s at %g req/s has a corrupt latency "
				     "histogram", r->dir, (long long)row->id, w->impl, w->rate);
		w->has_hist = 1;
		w->p99_ms = hist_percentile_ms(h, 99);
		w->pslo_ms = hist_percentile_ms(h, r->slo_pct);
	}
	return 0;
}

/* The window's per-request histograms (measured phase), for the
 * per-request cells; -1 after error(). */
static int take_requests(struct cmp_run *r, struct store *st, int64_t wid, struct cmp_win *w)
{
	struct window_requests reqs;
	size_t i, k;
	int ret = 0;

	if (!r->nreqs || w->status == CMP_W_REJECTED)
		return 0;
	if (store_requests_load(st, wid, "measured", &reqs))
		return -1;
	w->req_hist = xcalloc(r->nreqs, sizeof(*w->req_hist));
	w->req_pslo = xcalloc(r->nreqs, sizeof(*w->req_pslo));
	for (k = 0; k < r->nreqs; k++)
		w->req_pslo[k] = NAN;
	for (i = 0; i < reqs.n && !ret; i++) {
		const struct window_request *q = &reqs.v[i];
		struct hist *h;

		for (k = 0; k < r->nreqs; k++)
			if (q->name && !strcmp(r->reqs[k], q->name))
				break;
		if (k == r->nreqs || !q->hist.p || w->req_hist[k])
			continue;
		h = xmalloc(sizeof(*h));
		hist_init(h);
		w->req_hist[k] = h;
		if (hist_deserialize(h, q->hist.p, q->hist.len))
			ret = error("%s: window %lld: request %s has a corrupt histogram", r->dir,
				    (long long)wid, q->name);
		else if (h->total)
			w->req_pslo[k] = hist_percentile_ms(h, r->slo_pct);
	}
	window_requests_release(&reqs);
	return ret;
}

static int read_windows(struct cmp_run *r, struct store *st)
{
	struct window_query q = { .done_only = 1, .with_hists = 1 };
	struct window_rows rows;
	size_t i;
	int ret = -1;

	if (store_windows_load(st, r->id, &q, &rows))
		return -1;
	r->w = xcalloc(rows.n + 1, sizeof(*r->w));
	for (i = 0; i < rows.n; i++) {
		r->nw++;
		if (take_window(r, &rows.v[i], &r->w[i]) ||
		    take_requests(r, st, rows.v[i].id, &r->w[i]))
			goto out;
	}
	ret = 0;
out:
	window_rows_release(&rows);
	return ret;
}

/* Every implementation's knee by knee.h's one rule (NULL spec: none). */
static int read_knees(struct cmp_run *r, struct store *st, const struct spec *spec)
{
	size_t i;

	r->knees = xcalloc(r->nimpls + 1, sizeof(*r->knees));
	for (i = 0; i < r->nimpls; i++)
		if (spec && knee_for_impl(st, r->id, r->impls[i], spec, -1, CMP_KNEE_NBOOT,
					  &r->knees[i]))
			return -1;
	return 0;
}

/* The version events of the run, first of each component kept. */
static int read_versions(struct cmp_run *r, struct store *st)
{
	struct event_rows ev;
	size_t i, k;

	if (store_events_load(st, r->id, -1, &ev))
		return -1;
	for (i = 0; i < ev.n; i++) {
		const char *kind = ev.v[i].kind ? ev.v[i].kind : "";
		const char *d = ev.v[i].detail, *colon = d ? strstr(d, ": ") : NULL;
		struct sbuf key = SBUF_INIT;

		if ((strcmp(kind, "dep_version") && strcmp(kind, "impl_version")) || !colon)
			continue;
		sbuf_addf(&key, "%s %.*s", kind[0] == 'd' ? "dependency" : "implementation",
			  (int)(colon - d), d);
		for (k = 0; k < r->nversions && strcmp(r->versions[k].key, key.buf); k++)
			;
		if (k < r->nversions) {
			sbuf_release(&key);
			continue;
		}
		r->versions = xrealloc(r->versions, (r->nversions + 1) * sizeof(*r->versions));
		r->versions[r->nversions].key = sbuf_detach(&key, NULL);
		r->versions[r->nversions].value = xstrdup(colon + 2);
		r->nversions++;
	}
	event_rows_release(&ev);
	return 0;
}

static const char *version_of(const struct cmp_run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nversions; i++)
		if (!strcmp(r->versions[i].key, key))
			return r->versions[i].value;
	return NULL;
}

char *cmp_version_diffs(const struct cmp_run *base, const struct cmp_run *new_)
{
	struct sbuf o = SBUF_INIT;
	size_t i;

	for (i = 0; i < new_->nversions; i++) {
		const char *b = version_of(base, new_->versions[i].key);

		if (b && !strcmp(b, new_->versions[i].value))
			continue;
		sbuf_addf(&o, "%s%s: \"%.80s\" -> \"%.80s\"", o.len ? "; " : "", new_->versions[i].key,
			  b ? b : "(not recorded)", new_->versions[i].value);
	}
	for (i = 0; i < base->nversions; i++)
		if (!version_of(new_, base->versions[i].key))
			sbuf_addf(&o, "%s%s: \"%.80s\" -> \"(not recorded)\"", o.len ? "; " : "",
				  base->versions[i].key, base->versions[i].value);
	if (!o.len) {
		sbuf_release(&o);
		return NULL;
	}
	return sbuf_detach(&o, NULL);
}

int cmp_run_read(struct cmp_run *r, struct store *st, const char *dir, const char *id)
{
	struct run_record rec;
	struct spec *spec = NULL;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	run_record_init(&rec);
	r->dir = xstrdup(dir);
	r->id = xstrdup(id);
	if (run_record_load(st, r->id, &rec))
		goto out;
	take_record(r, &rec);
	if (rule_from_spec(r, &rec, &spec) || read_windows(r, st) || read_knees(r, st, spec) ||
	    read_versions(r, st) || store_seq_rules_load(st, r->id, &r->seq, &r->nseq))
		goto out;
	ret = 0;
out:
	if (spec)
		spec_free(spec);
	run_record_release(&rec);
	if (ret)
		cmp_run_release(r);
	return ret;
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
	size_t i;

	for (i = 0; i < r->nimpls; i++) {
		free(r->impls[i]);
		free(r->commits[i]);
		free(r->refs[i]);
		if (r->knees)
			knee_result_release(&r->knees[i]);
	}
	free(r->knees);
	seq_rules_free(r->seq, r->nseq);
	for (i = 0; i < r->nversions; i++) {
		free(r->versions[i].key);
		free(r->versions[i].value);
	}
	free(r->versions);
	for (i = 0; i < r->nw; i++) {
		free(r->w[i].impl);
		free(r->w[i].stage);
		free(r->w[i].reasons);
		if (r->w[i].hist) {
			hist_release(r->w[i].hist);
			free(r->w[i].hist);
		}
		for (size_t k = 0; r->w[i].req_hist && k < r->nreqs; k++) {
			if (r->w[i].req_hist[k])
				hist_release(r->w[i].req_hist[k]);
			free(r->w[i].req_hist[k]);
		}
		free(r->w[i].req_hist);
		free(r->w[i].req_pslo);
	}
	for (i = 0; i < r->nreqs; i++)
		free(r->reqs[i]);
	free(r->reqs);
	free(r->req_slo_ms);
	free(r->impls);
	free(r->commits);
	free(r->refs);
	free(r->w);
	free(r->id);
	free(r->dir);
	free(r->spec_name);
	free(r->spec_hash);
	free(r->status);
	free(r->failure);
	free(r->failure_kind);
	free(r->failure_impl);
	memset(r, 0, sizeof(*r));
}

