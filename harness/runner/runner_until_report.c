/* runner_until_report: what a sequential rule stores and says: its metrics,
 * its progress line, its end (runner_until.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat/decide.h"
#include "base/rate.h"
#include "runner/runner_internal.h"
#include "runner/runner_until.h"
#include "store/store_seq.h"
#include "store/store_window.h"
#include "base/util.h"

const char *const until_metric_names[2] = { "latency", "cpu_per_request" };

/* ------------------------------------------------------------ reporting */

static double need_seconds(const struct until *u, const struct pair *p, int cpu)
{
	const struct decide_metric *m = &p->m[cpu];
	/* the pace of the sequential rounds, else of the whole rerun so far */
	double per = u->round_s > 0 ? u->round_s
		     : m->rounds ? (runner_now(u->rc) - p->rule->started_at) / (double)m->rounds : NAN;

	if (m->verdict != DECIDE_UNDECIDED || m->rounds_needed == DECIDE_NEVER || !(per > 0))
		return NAN;
	return (double)(m->rounds_needed - m->rounds) * per;
}

void until_store_metrics(struct run_ctx *rc, const struct until *u, const struct pair *p)
{
	int cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &p->m[cpu];
		struct seq_metric row;

		if (!p->on[cpu])
			continue;
		row.run_id = rc->run_id;
		row.impl = p->rule->impl;
		row.metric = (char *)until_metric_names[cpu];
		row.verdict = (char *)decide_verdict_name(m->verdict);
		row.rounds = (int)m->rounds;
		row.est_pct = decide_pct(m->est);
		row.lo_pct = decide_pct(m->lo);
		row.hi_pct = decide_pct(m->hi);
		row.margin_pct = decide_pct(m->margin);
		row.mde_pct = decide_pct(m->mde);
		row.need_s = need_seconds(u, p, cpu);
		store_seq_metric_put(&rc->st, &row);
	}
}

/* "latency +1.2% [-3.0%, +5.5%] margin +-40.0%: no change" per metric. */
static void describe(const struct pair *p, struct sbuf *out)
{
	int cpu, k = 0;

	for (cpu = 0; cpu < 2; cpu++) {
		const struct decide_metric *m = &p->m[cpu];

		if (!p->on[cpu])
			continue;
		sbuf_addf(out, "%s%s ", k++ ? "; " : "", until_metric_names[cpu]);
		if (isfinite(m->lo))
			sbuf_addf(out, "%+.1f%% [%+.1f%%, %+.1f%%]", decide_pct(m->est),
				  decide_pct(m->lo), decide_pct(m->hi));
		else
			sbuf_adds(out, "(no interval yet)");
		/* both edges, as the verdict reads them (compare_seq.c) */
		if (isfinite(m->margin))
			sbuf_addf(out, " margin %+.1f%%/%+.1f%%", decide_pct(-m->margin),
				  decide_pct(m->margin));
		sbuf_addf(out, ": %s", decide_verdict_name(m->verdict));
		decide_note(m, out);
	}
}

void until_progress(struct run_ctx *rc, const struct pair *p, int blocks)
{
	struct sbuf s = SBUF_INIT;

	describe(p, &s);
	fprintf(stderr, "harness: sequential %s: block %d, %zu rounds over %zu rates: %s\n",
		p->rule->impl, blocks, p->m[p->on[0] ? 0 : 1].rounds, p->nrates, s.buf);
	(void)rc;
	sbuf_release(&s);
}

/* The rule stops: its outcome and why, stored and said. */
void until_finish(struct run_ctx *rc, const struct until *u, struct pair *p, const char *stop,
		  int blocks)
{
	struct seq_rule *r = p->rule;
	struct sbuf s = SBUF_INIT;
	int cpu;

	free(r->outcome);
	free(r->stop);
	r->outcome = xstrdup(p->answer == DECIDE_UNDECIDED ? "inconclusive"
							    : decide_verdict_name(p->answer));
	r->stop = xstrdup(stop);
	r->blocks = blocks;
	r->rounds = (int)p->m[p->on[0] ? 0 : 1].rounds;
	r->elapsed_s = runner_now(rc) - r->started_at;
	store_seq_rule_put(&rc->st, r);
	until_store_metrics(rc, u, p);
	describe(p, &s);
	fprintf(stderr, "harness: sequential %s: %s (%s) after %d sequential blocks, %d rounds, "
			"%.0f s: %s\n", r->impl, r->outcome, stop, blocks, r->rounds, r->elapsed_s,
		s.buf);
	for (cpu = 0; cpu < 2 && p->answer == DECIDE_UNDECIDED; cpu++) {
		const struct decide_metric *m = &p->m[cpu];
		double need = need_seconds(u, p, cpu);

		if (!p->on[cpu] || m->verdict != DECIDE_UNDECIDED)
			continue;
		fprintf(stderr, "harness: sequential %s: %s undecided: MDE %+.1f%% (the smallest "
				"shift called with 80%% power at %zu rounds); ", r->impl,
			until_metric_names[cpu], decide_pct(m->mde), m->rounds);
		if (m->guard_held)
			fprintf(stderr, "the guard holds back 'no change' (above)\n");
		else if (isfinite(need))
			fprintf(stderr, "a decision would need about %zu rounds more, ~%.0f min\n",
				m->rounds_needed - m->rounds, need / 60);
		else
			fprintf(stderr, "no decision in sight at this estimate\n");
	}
	store_event(&rc->st, rc->run_id, -1, "sequential_rerun", "%s: %s (%s) after %d blocks, "
		    "%d rounds: %s", r->impl, r->outcome, stop, blocks, r->rounds, s.buf);
	sbuf_release(&s);
}

