/*
 * compare_seq: a sequential rerun's verdict, recomputed from its stored
 * windows by its stored rule (compare_seq.h).
 */
#include "report/compare_seq.h"
#include "report/compare_cells.h"
#include "report/report_doc.h"
#include "base/jout.h"
#include "base/rate.h"
#include "store/store_seq.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[2] = { "latency", "cpu_per_request" };

static void parse_rates(struct cmp_seq *s, const char *t)
{
	size_t alloc = 0;

	while (t && *t) {
		char *end;
		double r = strtod(t, &end);

		if (end == t)
			break;
		XGROW(s->rates, alloc, s->nrates + 1);
		s->rates[s->nrates++] = r;
		t = *end == ',' ? end + 1 : end;
	}
}

static double value(const struct view_window *w, int cpu)
{
	if (!w->accepted)
		return NAN;
	if (!cpu)
		return w->pslo_ms;
	return isfinite(w->cpu_s) && w->completed > 0 ? w->cpu_s * 1e6 / (double)w->completed
						      : NAN;
}

/* The pairs (NEW, @base: one stage, block and rate) at the judged rates,
 * as the runner formed them (runner_until.c). */
/* The @base window paired with NEW's window x: the same stage, block and
 * rate; NULL when x is not NEW's, its rate is not judged, or it has no
 * partner. *k: the judged rate's index. */
static const struct view_window *partner(const struct cmp_run *r, const struct cmp_seq *s,
					 const char *impl, const char *base,
					 const struct view_window *x, size_t *k)
{
	size_t j;

	if (strcmp(x->impl, impl))
		return NULL;
	for (*k = 0; *k < s->nrates && !rate_same(s->rates[*k], x->rate); (*k)++)
		;
	if (*k == s->nrates)
		return NULL;
	for (j = 0; j < r->nw; j++) {
		const struct view_window *y = r->w[j];

		if (!strcmp(y->impl, base) && !strcmp(y->stage, x->stage) &&
		    y->block == x->block && rate_same(y->rate, x->rate))
			return y;
	}
	return NULL;
}

static size_t pairs(const struct cmp_run *r, const struct cmp_seq *s, const char *impl,
		    const char *base, int cpu, struct decide_obs *obs)
{
	size_t i, k, n = 0;

	for (i = 0; i < r->nw; i++) {
		const struct view_window *x = r->w[i], *y = partner(r, s, impl, base, x, &k);

		if (!y)
			continue;
		obs[n].rate = x->rate;
		obs[n].order = x->id > y->id ? x->id : y->id;
		obs[n].new_ = value(x, cpu);
		obs[n].base = value(y, cpu);
		n++;
	}
	return n;
}

/* median_cs's guard values (decide.h struct decide_guard) over the pairs
 * pairs() forms, by the rule the runner used (runner_until_pairs.c). */
static void guard_values(const struct cmp_run *r, const struct cmp_seq *s, const char *impl,
			 const char *base, double *gn, double *gb)
{
	struct decide_guard g;
	size_t i, k;

	decide_guard_init(&g, s->nrates, decide_guard_rule_stored(s->rule->guard), r->slo_pct);
	for (i = 0; i < r->nw; i++) {
		const struct view_window *x = r->w[i], *y = partner(r, s, impl, base, x, &k);

		if (y)
			decide_guard_add(&g, k, x->accepted && x->has_hist ? &x->lat : NULL, x->id,
					 y->accepted && y->has_hist ? &y->lat : NULL, y->id);
	}
	decide_guard_values(&g, gn, gb);
	decide_guard_release(&g);
}

void cmp_seq_judge(const struct compare *c, struct cmp_impl *ci)
{
	const struct cmp_run *r = &c->new_;
	struct decide_obs *obs;
	double *gn, *gb;
	struct sbuf base = SBUF_INIT;
	struct cmp_seq *s;
	enum decide_verdict v[2];
	size_t i, k = 0;
	int cpu;

	ci->seq = NULL;
	if (!ci->paired)
		return;
	for (i = 0; i < r->nseq && strcmp(r->seq[i].impl ? r->seq[i].impl : "", ci->name); i++)
		;
	if (i == r->nseq)
		return;
	s = ci->seq = xcalloc(1, sizeof(*s));
	s->rule = &r->seq[i];
	parse_rates(s, s->rule->rates);
	s->on[0] = !!(r->metrics & CMP_P99);
	s->on[1] = !!(r->metrics & CMP_CPU_PER_REQUEST);
	sbuf_addf(&base, "%s@base", ci->name);
	obs = xcalloc(r->nw + 1, sizeof(*obs));
	gn = xcalloc(s->nrates + 1, sizeof(*gn));
	gb = xcalloc(s->nrates + 1, sizeof(*gb));
	for (cpu = 0; cpu < 2; cpu++) {
		struct decide_rule dr = { s->rule->alpha, s->rule->t_star, s->rule->margin_pct,
					  cpu ? s->rule->margin_cpu_us : s->rule->margin_ms,
					  decide_method_stored(s->rule->method, cpu), NULL, NULL,
					  decide_guard_rule_stored(s->rule->guard),
					  decide_margin_rule_stored(s->rule->margin_rule) };
		size_t n;

		if (!s->on[cpu])
			continue;
		if (dr.method == DECIDE_MEDIAN_CS) {
			guard_values(r, s, ci->name, base.buf, gn, gb);
			dr.guard_new = gn;
			dr.guard_base = gb;
		}
		n = pairs(r, s, ci->name, base.buf, cpu, obs);
		decide_metric(&dr, s->rates, s->nrates, obs, n, &s->m[cpu]);
		v[k++] = s->m[cpu].verdict;
	}
	s->answer = decide_overall(v, k);
	free(obs);
	free(gn);
	free(gb);
	sbuf_release(&base);
}

/* The sequence's interval as a reader takes it: "[lo, hi]"; a side the
 * sequence has not bounded yet (a median's sign counts bound nothing
 * before 8 rounds: stat_quant.c) is said in words, never "-100%" or
 * "+inf%". */
static void interval_text(const struct decide_metric *m, struct sbuf *o)
{
	if (isfinite(m->lo) && isfinite(m->hi))
		sbuf_addf(o, "[%+.1f%%, %+.1f%%]", decide_pct(m->lo), decide_pct(m->hi));
	else if (isfinite(m->lo))
		sbuf_addf(o, "[%+.1f%%, not bounded yet]", decide_pct(m->lo));
	else if (isfinite(m->hi))
		sbuf_addf(o, "[not bounded yet, %+.1f%%]", decide_pct(m->hi));
	else
		sbuf_adds(o, "not bounded yet");
}

/* The margin is symmetric in log ratio: -16.7% and +20% are one margin;
 * say both edges, as the verdict reads them (decide.c). */
static void margin_text(const struct decide_metric *m, struct sbuf *o)
{
	sbuf_addf(o, "%+.1f%%/%+.1f%%", decide_pct(-m->margin), decide_pct(m->margin));
}

static void metric_text(const struct cmp_seq *s, int cpu, struct sbuf *o)
{
	const struct decide_metric *m = &s->m[cpu];

	sbuf_addf(o, "%s ", metric_names[cpu]);
	if (isfinite(m->lo) || isfinite(m->hi)) {
		sbuf_addf(o, "%+.1f%% ", decide_pct(m->est));
		interval_text(m, o);
	} else {
		sbuf_adds(o, "(no interval)");
	}
	if (isfinite(m->margin)) {
		sbuf_adds(o, " margin ");
		margin_text(m, o);
	}
	sbuf_addf(o, ": %s", decide_verdict_name(m->verdict));
	decide_note(m, o);
}

void cmp_seq_verdict(struct cmp_impl *ci, struct sbuf *why)
{
	const struct cmp_seq *s = ci->seq;
	const char *stop = s->rule->stop ? s->rule->stop : "not stopped";
	int cpu, k = 0;

	switch (s->answer) {
	case DECIDE_REGRESSION: ci->verdict = CMP_REGRESSION; break;
	case DECIDE_IMPROVEMENT: ci->verdict = CMP_IMPROVEMENT; break;
	case DECIDE_NO_CHANGE: ci->verdict = CMP_NO_CHANGE; break;
	case DECIDE_UNDECIDED: ci->verdict = CMP_INCONCLUSIVE; break;
	}
	sbuf_addf(why, "%ssequential (%s after %d rounds at %zu rates): ", why->len ? "; " : "",
		  stop, s->rule->rounds, s->nrates);
	for (cpu = 0; cpu < 2; cpu++) {
		if (!s->on[cpu])
			continue;
		if (k++)
			sbuf_adds(why, "; ");
		metric_text(s, cpu, why);
		if (s->m[cpu].verdict == DECIDE_UNDECIDED && isfinite(s->m[cpu].mde))
			sbuf_addf(why, " (MDE %+.1f%%)", decide_pct(s->m[cpu].mde));
	}
}

void cmp_seq_free(struct cmp_seq *s)
{
	if (!s)
		return;
	free(s->rates);
	free(s);
}

/* The Method line's words on the guard's stored rule */
static const char *guard_words(enum decide_guard_rule g)
{
	if (g == DECIDE_GUARD_DROP_WORST_RISE)
		return " (each arm's worst window at a rate set aside; it holds a rise of NEW's "
		       "beyond the margin, not a fall)";
	if (g == DECIDE_GUARD_DROP_WORST)
		return " (each arm's worst window at a rate set aside)";
	return "";
}

void cmp_seq_doc(const struct cmp_seq *s, struct rdoc *d)
{
	struct sbuf t = SBUF_INIT;
	struct rdoc_block *tb;
	size_t j;
	int cpu;

	sbuf_addf(&t, "Method: sequential rerun (harness rerun --until-decided): per round the mean "
		      "over the judged rates (");
	for (j = 0; j < s->nrates; j++)
		sbuf_addf(&t, "%s%g", j ? ", " : "", s->rates[j]);
	if (s->on[0] && s->m[0].method == DECIDE_MEDIAN_CS)
		sbuf_addf(&t, " req/s) of log(new / base); latency: the median's sign-count "
			      "confidence sequence (median_cs, Howard & Ramdas 2022) with the "
			      "merged-histogram guard on no change%s; CPU: Robbins' normal-mixture "
			      "confidence sequence (mean_cs)",
			  guard_words(s->m[0].guard_rule));
	else
		sbuf_adds(&t, " req/s) of log(new / base); Robbins' normal-mixture confidence "
			      "sequence");
	sbuf_addf(&t, " at %g%% per metric, valid at the stopping time", (1 - s->rule->alpha) * 100);
	if (decide_margin_rule_stored(s->rule->margin_rule) == DECIDE_MARGIN_BASE_BOUND)
		sbuf_addf(&t, "; no change: the sequence at %g%% inside the margin from each "
			      "rate's %g%% upper bound on base's median (base_bound)",
			  (1 - decide_nc_seq_alpha(s->rule->alpha)) * 100,
			  (1 - decide_nc_bound_alpha(s->rule->alpha, s->nrates)) * 100);
	sbuf_addf(&t, "; stopped: %s after %d "
		      "sequential blocks (budget %g min, %d blocks). The per-rate cells below "
		      "are detail: a fixed-n test after optional stopping does not decide.",
		  s->rule->stop ? s->rule->stop : "not yet",
		  s->rule->blocks, s->rule->max_minutes, s->rule->max_blocks);
	rdoc_add(d, RDOC_P, t.buf);
	sbuf_reset(&t);
	tb = rdoc_table(d, "sequential", 7, "metric", "rounds", "shift", "confidence sequence",
			"margin", "MDE", "verdict");
	rdoc_align(tb, "lrrlrrl");
	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &s->m[cpu];

		if (!s->on[cpu])
			continue;
		rdoc_push_cell(tb, metric_names[cpu]);
		rdoc_cellf(tb, "%zu", m->rounds);
		if (isfinite(m->est))
			rdoc_cellf(tb, "%+.1f%%", decide_pct(m->est));
		else
			rdoc_push_cell(tb, "-");
		interval_text(m, &t);
		rdoc_cell(tb, &t);
		if (isfinite(m->margin))
			margin_text(m, &t);
		else
			sbuf_adds(&t, "-");
		rdoc_cell(tb, &t);
		if (isfinite(m->mde))
			rdoc_cellf(tb, "%+.1f%%", decide_pct(m->mde));
		else
			rdoc_push_cell(tb, "-");
		sbuf_adds(&t, decide_verdict_name(m->verdict));
		decide_note(m, &t);
		rdoc_cell(tb, &t);
	}
	sbuf_release(&t);
}

json_t *cmp_seq_json(const struct cmp_seq *s)
{
	json_t *o = json_object(), *ms = json_object(), *rates = json_array();
	size_t j;
	int cpu;

	jout_set(o, "method", jout_str("confidence_sequence"),
		 "verdict", jout_str(s->answer == DECIDE_UNDECIDED ? "inconclusive"
						: decide_verdict_name(s->answer)),
		 "stop", jout_str(s->rule->stop), "outcome_stored", jout_str(s->rule->outcome),
		 "alpha", jout_num(s->rule->alpha), "t_star", jout_num(s->rule->t_star),
		 "max_minutes", jout_num(s->rule->max_minutes),
		 "max_blocks", json_integer(s->rule->max_blocks),
		 "blocks", json_integer(s->rule->blocks), "elapsed_s", jout_num(s->rule->elapsed_s),
		 NULL);
	for (j = 0; j < s->nrates; j++)
		json_array_append_new(rates, jout_num(s->rates[j]));
	json_object_set_new(o, "rates", rates);
	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &s->m[cpu];
		json_t *x;

		if (!s->on[cpu])
			continue;
		x = json_object();
		json_object_set_new(x, "verdict", jout_str(decide_verdict_name(m->verdict)));
		json_object_set_new(x, "method", jout_str(decide_method_name(m->method)));
		if (m->method == DECIDE_MEDIAN_CS) {
			jout_set(x, "guard", json_boolean(m->guard),
				 "guard_held", json_boolean(m->guard_held),
				 "guard_pct", jout_num(decide_pct(m->guard_log)), NULL);
		}
		jout_set(x, "rounds", json_integer((json_int_t)m->rounds),
			 "shift_pct", jout_num(decide_pct(m->est)),
			 "lo_pct", jout_num(decide_pct(m->lo)),
			 "hi_pct", jout_num(decide_pct(m->hi)),
			 "margin_pct", jout_num(decide_pct(m->margin)),
			 "mde_pct", jout_num(decide_pct(m->mde)), NULL);
		if (m->margin_rule == DECIDE_MARGIN_BASE_BOUND)
			jout_set(x, "no_change_margin_rule", jout_str(decide_margin_rule_name(m->margin_rule)),
				 "no_change_lo_pct", jout_num(decide_pct(m->nc_lo)),
				 "no_change_hi_pct", jout_num(decide_pct(m->nc_hi)),
				 "no_change_margin_pct", jout_num(decide_pct(m->nc_margin)), NULL);
		json_object_set_new(ms, metric_names[cpu], x);
	}
	json_object_set_new(o, "metrics", ms);
	return o;
}
