/*
 * compare_plan_seq: what a rerun --until-decided of a plan needs at the
 * least (compare_plan.h struct cmp_plan_seq; docs/STATISTICS.md "Plans
 * that can decide"). The rounds are exact (decide.h decide_first_round:
 * no sequence can decide before them); the time is a floor: a round is
 * one block of NEW and @base at every judged rate, each window at least
 * warm-up min_s + the ladder's window_s, and nothing else (no restart,
 * no rejected window, no pre-registered block of other arms) counted.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/compare_plan.h"
#include "stat/decide.h"
#include "base/jout.h"
#include "base/rate.h"
#include "base/util.h"

static const char *const stages[] = { "ladder", "refine", "confirm" };

static int pre_registered(const char *stage)
{
	size_t i;

	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
		if (!strcmp(stage, stages[i]))
			return 1;
	return 0;
}

/* The rates a rerun of impl would judge if it behaved as in base: where
 * it has a valid window of a pre-registered stage and no failed one
 * (runner_until_pairs.c until_judged_rates' rule, for one arm). */
static size_t judged_rates(const struct cmp_run *base, const char *impl)
{
	double *r = xcalloc(base->nw + 1, sizeof(*r));
	int *bad = xcalloc(base->nw + 1, sizeof(*bad));
	size_t i, j, n = 0, good = 0;

	for (i = 0; i < base->nw; i++) {
		const struct view_window *w = base->w[i];

		if (strcmp(w->impl, impl) || !w->valid || !pre_registered(w->stage))
			continue;
		for (j = 0; j < n && !rate_same(r[j], w->rate); j++)
			;
		if (j == n)
			r[n++] = w->rate;
		bad[j] |= w->failed;
	}
	for (j = 0; j < n; j++)
		good += !bad[j];
	free(r);
	free(bad);
	return good;
}

void cmp_plan_seq_init(struct cmp_plan *p, const struct spec *s, const struct cmp_run *base)
{
	struct cmp_plan_seq *q = &p->seq;
	size_t k = (size_t)!!(s->compare.metrics & CMP_P99) +
		   (size_t)!!(s->compare.metrics & CMP_CPU_PER_REQUEST), i;

	memset(q, 0, sizeof(*q));
	q->method = s->compare.sequential.method;
	q->margin_rule = s->compare.sequential.margin_rule;
	/* Bonferroni over the metrics, as the runner stores it
	 * (runner_until.c runner_until_register) */
	q->level = s->compare.alpha / (double)(k ? k : 1);
	q->rates = p->rates;
	for (i = 0; base && i < base->nimpls; i++) {
		size_t n;

		if (strchr(base->impls[i], '@'))
			continue;  /* a control arm: its implementation speaks */
		n = judged_rates(base, base->impls[i]);
		if (n && (!q->rates_from_base || n < q->rates)) {
			q->rates = n;
			q->rates_from_base = 1;
		}
	}
	/* median_cs counts every judged rate's pair (decide.h) */
	if (s->compare.metrics & CMP_P99)
		q->rounds_lat = decide_first_round((enum decide_method)q->method, q->level, q->rates);
	if (s->compare.metrics & CMP_CPU_PER_REQUEST)
		q->rounds_cpu = decide_first_round(DECIDE_MEAN_CS, q->level, q->rates);
	q->rounds = q->rounds_lat > q->rounds_cpu ? q->rounds_lat : q->rounds_cpu;
	if (q->margin_rule == DECIDE_MARGIN_BASE_BOUND)
		q->rounds_nc = decide_nc_bound_round(q->level, q->rates);
	q->warmup_s = s->warmup.min_s;
	q->window_s = s->ladder.window_s;
	q->round_s = (double)q->rates * 2 * (q->warmup_s + q->window_s);
	q->min_s = q->rounds == DECIDE_NEVER ? INFINITY : (double)q->rounds * q->round_s;
	q->budget_min = s->compare.sequential.max_minutes;
	q->budget_name = "compare.sequential.max_minutes";
}

/* "latency by median_cs: no decision before 9 rounds" and the like. */
static void rounds_text(const struct cmp_plan_seq *q, struct sbuf *o)
{
	if (q->rounds_lat)
		sbuf_addf(o, "latency by %s: no decision before %zu rounds",
			  decide_method_name((enum decide_method)q->method), q->rounds_lat);
	if (q->rounds_cpu)
		sbuf_addf(o, "%scpu_per_request by mean_cs: no decision before %zu rounds",
			  q->rounds_lat ? "; " : "", q->rounds_cpu);
}

/* "2 judged rates x 2 windows x (1 s warm-up + 5 s window) = 24 s" */
static void round_text(const struct cmp_plan_seq *q, struct sbuf *o)
{
	sbuf_addf(o, "%zu judged rate%s (%s) x 2 windows (NEW, @base) x (%g s warm-up + %g s "
		  "window) = %g s", q->rates, q->rates == 1 ? "" : "s",
		  q->rates_from_base ? "where the base run held" : "the ladder's rungs",
		  q->warmup_s, q->window_s, q->round_s);
}

void cmp_plan_seq_print(const struct cmp_plan *p)
{
	const struct cmp_plan_seq *q = &p->seq;
	struct sbuf o = SBUF_INIT;

	if (!q->rounds)
		return;
	rounds_text(q, &o);
	printf("  sequential (rerun --until-decided, each metric's sequence at %.3g): %s\n",
	       q->level, o.buf);
	sbuf_reset(&o);
	round_text(q, &o);
	printf("    a round: %s; %zu rounds take at least %.1f min (budget %g min, %s)\n", o.buf,
	       q->rounds, q->min_s / 60, q->budget_min, q->budget_name);
	/* only base_bound's: a point plan prints what it printed */
	if (q->rounds_nc && q->rounds_nc != DECIDE_NEVER)
		printf("    no change by base_bound: a metric whose margin's floor (margin_ms, "
		       "margin_cpu_us) binds not before %zu rounds (%.1f min), when every judged "
		       "rate's bound on base's median exists\n",
		       q->rounds_nc, (double)q->rounds_nc * q->round_s / 60);
	sbuf_release(&o);
}

int cmp_plan_seq_warning(const struct cmp_plan *p, const char *where, char *buf, size_t len)
{
	const struct cmp_plan_seq *q = &p->seq;
	struct sbuf o = SBUF_INIT;

	if (!p->sequential || !q->rounds || !(q->budget_min * 60 < q->min_s))
		return 0;
	rounds_text(q, &o);
	sbuf_adds(&o, "; a round: ");
	round_text(q, &o);
	snprintf(buf, len, "%s: warning: %s is %g min, below the %.1f min a sequential decision "
		 "needs at least (%zu rounds; %s): a rerun --until-decided ends inconclusive "
		 "(exit 3) unless a regression decides it sooner\n",
		 where, q->budget_name, q->budget_min, q->min_s / 60, q->rounds, o.buf);
	sbuf_release(&o);
	return 1;
}

json_t *cmp_plan_seq_json(const struct cmp_plan *p)
{
	const struct cmp_plan_seq *q = &p->seq;
	json_t *o = json_object();

	jout_set(o, "latency_method", jout_str(decide_method_name((enum decide_method)q->method)),
		 "level", jout_num(q->level),
		 "latency_first_round", json_integer((json_int_t)q->rounds_lat),
		 "cpu_first_round", json_integer((json_int_t)q->rounds_cpu),
		 "rounds_min", json_integer((json_int_t)q->rounds),
		 "judged_rates", json_integer((json_int_t)q->rates),
		 "judged_rates_from_base", json_boolean(q->rates_from_base),
		 "round_s", jout_num(q->round_s), "min_seconds", jout_num(q->min_s),
		 "budget_minutes", jout_num(q->budget_min),
		 "budget_short", json_boolean(q->budget_min * 60 < q->min_s), NULL);
	if (q->margin_rule == DECIDE_MARGIN_BASE_BOUND)
		jout_set(o, "margin_rule", jout_str(decide_margin_rule_name(DECIDE_MARGIN_BASE_BOUND)),
			 "no_change_bound_round", q->rounds_nc == DECIDE_NEVER ? json_null()
				 : json_integer((json_int_t)q->rounds_nc), NULL);
	return o;
}
