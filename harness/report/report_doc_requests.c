/*
 * report_doc_requests: the Requests section: the protocol the windows'
 * responses came in, and per request name per rung its p50/p99 and its
 * own promise (workload.requests[].slo_ms), from report_rollup.c's
 * per-request roll-ups.
 */
#include "report/report_doc.h"

#include <string.h>

#include "report/report.h"
#include "base/util.h"

/* "HTTP/2 in 12 of 12 measured windows; HTTP/1.1 in ..." into c. */
static void protocols(const struct report *r, struct sbuf *c)
{
	const char *seen[8];
	size_t count[8], n = 0, done = 0, i, k;

	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];
		const char *p = w->protocol ? w->protocol : "-";

		if (!w->done)
			continue;
		done++;
		for (k = 0; k < n; k++)
			if (!strcmp(seen[k], p))
				break;
		if (k == n && n < 8) {
			seen[n] = p;
			count[n++] = 0;
		}
		if (k < n)
			count[k]++;
	}
	for (k = 0; k < n; k++)
		sbuf_addf(c, "%s%s in %zu of %zu measured windows", k ? "; " : "",
			  strcmp(seen[k], "-") ? seen[k] : "no response", count[k], done);
}

void rdoc_requests(const struct report *r, struct rdoc *d)
{
	struct sbuf c = SBUF_INIT;
	struct rdoc_block *t;
	size_t i, k, any = 0;

	for (i = 0; i < r->nrungs; i++)
		any += r->rungs[i].nreqs;
	rdoc_add(d, RDOC_H2, "Requests");
	protocols(r, &c);
	rdoc_addf(d, RDOC_P, "Protocol: %s.", c.len ? c.buf : "no window measured");
	sbuf_reset(&c);
	if (!any) {
		sbuf_release(&c);
		return;
	}
	rdoc_addf(d, RDOC_P, "Per request name, accepted windows only; percentiles (ms) from the "
		  "merged histograms of that request's responses, with %.0f%% intervals. A "
		  "request's own promise (slo_ms) is its %s: a window where any request misses its "
		  "own does not hold the promise, whatever the mix's %s (the knee and the latency "
		  "promise count it so); over = accepted windows where this request missed it.",
		  r->level * 100, r->slo_label, r->slo_label);
	sbuf_addf(&c, "promise (%s)", r->slo_label);
	t = rdoc_table(d, "requests", 10, "implementation", "stage", "rate (req/s)", "request",
		       "completed", "unexpected", "p50", "p99 [CI]", c.buf, "over/windows");
	sbuf_reset(&c);
	for (i = 0; i < r->nrungs; i++) {
		const struct report_rung *g = &r->rungs[i];

		for (k = 0; k < g->nreqs; k++) {
			const struct report_rreq *q = &g->reqs[k];

			rdoc_cellf(t, "%s", r->impls[g->impl].name);
			rdoc_cellf(t, "%s", g->stage);
			report_fmt_rate(&c, g->rate);
			rdoc_cell(t, &c);
			rdoc_cellf(t, "%s", q->name);
			rdoc_cellf(t, "%llu", (unsigned long long)q->completed);
			rdoc_cellf(t, "%llu", (unsigned long long)q->unexpected);
			report_fmt_sig(&c, q->p50.ms);
			rdoc_cell(t, &c);
			rdoc_pct(&c, r, &q->p99);
			rdoc_cell(t, &c);
			if (q->slo_ms > 0) {
				sbuf_adds(&c, "<= ");
				report_fmt_sig(&c, q->slo_ms);
				sbuf_adds(&c, " ms, got ");
				report_fmt_sig(&c, q->pslo.ms);
			} else {
				sbuf_adds(&c, "-");
			}
			rdoc_cell(t, &c);
			if (q->slo_ms > 0)
				sbuf_addf(&c, "%s%zu/%zu", q->over ? RDOC_STRONG : "", q->over,
					  q->windows);
			else
				sbuf_addf(&c, "-/%zu", q->windows);
			rdoc_cell(t, &c);
		}
	}
	sbuf_release(&c);
}
