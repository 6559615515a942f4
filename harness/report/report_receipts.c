/*
 * report_receipts: the run's totals over every measured window, accepted,
 * failed or rejected (a rejected window's requests were sent all the
 * same): requests due, sent and answered, the answers by status class,
 * those not what their request expects, the requests that got no answer
 * (connection failed or reset, timed out, unparsable, other) and those
 * dropped by a full backlog; windows CPU-throttled, OOM kills, deaths; and
 * the pre-flight's cases. The summary ends with them as a paragraph, the
 * way a careful author closes a write-up: every request accounted for.
 */
#include "report/report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_doc.h"
#include "base/util.h"

static void add_window(struct report_receipts *c, const struct view_window *w)
{
	size_t k;

	c->windows++;
	c->accepted += w->accepted;
	c->failed += w->failed;
	c->rejected += !w->valid;
	c->due += w->due;
	c->sent += w->sent;
	c->answered += w->completed;
	c->dropped += w->dropped;
	for (k = 0; k < 5; k++)
		c->status[k] += w->answers[k];
	c->unexpected += w->unexpected;
	c->err_connect += w->err_connect;
	c->err_reset += w->err_reset;
	c->err_timeout += w->err_timeout;
	c->err_parse += w->err_parse;
	c->err_other += w->err_other;
	if (w->has_throttle) {
		c->throttle_known = 1;
		c->throttled_windows += w->nr_throttled > 0;
	}
	if (w->has_oom)
		c->oom_kills = (c->oom_kills < 0 ? 0 : c->oom_kills) + w->oom_kill;
	c->sut_exits += w->sut_exited != 0;
}

int report_receipts_load(struct report *r)
{
	struct report_receipts *c = &r->study->receipts;
	size_t i;

	for (i = 0; i < r->nwindows; i++)
		if (r->windows[i].done)
			add_window(c, &r->windows[i]);
	c->preflight_cases = r->preflight_cases;
	c->preflight_passed = r->preflight_passed;
	return 0;
}

/* ------------------------------------------------------------- formats */

static double pct(int64_t a, int64_t b)
{
	return b > 0 ? 100.0 * (double)a / (double)b : NAN;
}

void rdoc_receipts_paragraph(const struct report *r, struct rdoc *d)
{
	const struct report_receipts *c = r->study ? &r->study->receipts : NULL;
	int64_t noanswer;
	struct sbuf p = SBUF_INIT;

	if (!c || !c->windows)
		return;
	noanswer = c->err_connect + c->err_reset + c->err_timeout + c->err_parse + c->err_other;
	sbuf_addf(&p, "Receipts: over %zu measured windows (%zu accepted, %zu failed, %zu rejected), "
		      "%lld requests were due and %lld answered", c->windows, c->accepted, c->failed,
		  c->rejected, (long long)c->due, (long long)c->answered);
	if (c->due > 0)
		sbuf_addf(&p, " (%.2f%%)", pct(c->answered, c->due));
	sbuf_addf(&p, ": %lld 2xx, %lld 3xx, %lld 4xx, %lld 5xx", (long long)c->status[0],
		  (long long)c->status[1], (long long)c->status[2], (long long)c->status[3]);
	if (c->status[4])
		sbuf_addf(&p, ", %lld with another status", (long long)c->status[4]);
	sbuf_addf(&p, "; %lld answers were not what their request expects. %lld got no answer "
		      "(%lld connections failed or reset, %lld timed out, %lld unparsable or other) and "
		      "%lld were dropped by a full backlog, each counted, none silently.",
		  (long long)c->unexpected, (long long)noanswer, (long long)(c->err_connect + c->err_reset),
		  (long long)c->err_timeout, (long long)(c->err_parse + c->err_other),
		  (long long)c->dropped);
	if (c->throttle_known)
		sbuf_addf(&p, " %zu window%s CPU-throttled;", c->throttled_windows,
			  c->throttled_windows == 1 ? " was" : "s were");
	else
		sbuf_adds(&p, " CPU throttling was not counted (no backend gave it);");
	if (c->oom_kills >= 0)
		sbuf_addf(&p, " %lld OOM kill%s;", (long long)c->oom_kills, c->oom_kills == 1 ? "" : "s");
	else
		sbuf_adds(&p, " OOM kills were not counted (no backend gave them);");
	sbuf_addf(&p, " the implementation died in %zu window%s.", c->sut_exits,
		  c->sut_exits == 1 ? "" : "s");
	if (c->preflight_cases >= 0)
		sbuf_addf(&p, " The pre-flight passed %d of %d cases before the first window.",
			  c->preflight_passed, c->preflight_cases);
	else
		sbuf_adds(&p, " No pre-flight was recorded.");
	rdoc_add(d, RDOC_P, p.buf);
	sbuf_release(&p);
}

static const struct {
	const char *name, *what;
	size_t off;
} rows[] = {
#define R(f, name, what) { name, what, offsetof(struct report_receipts, f) }
	R(due, "due", "requests the schedule made due"),
	R(sent, "sent", "requests sent"),
	R(answered, "answered", "responses received (any status)"),
	R(status[0], "status_2xx", "answered 2xx"),
	R(status[1], "status_3xx", "answered 3xx"),
	R(status[2], "status_4xx", "answered 4xx"),
	R(status[3], "status_5xx", "answered 5xx"),
	R(status[4], "status_other", "answered with another status"),
	R(unexpected, "unexpected", "answered, not what the request expects"),
	R(err_connect, "connect_errors", "connection failed, no response"),
	R(err_reset, "resets", "connection reset, no response"),
	R(err_timeout, "timeouts", "no response within workload.timeout_ms"),
	R(err_parse, "parse_errors", "a response that is not HTTP"),
	R(err_other, "other_errors", "other transport errors"),
	R(dropped, "dropped", "dropped by a full backlog (never sent)"),
#undef R
};

static int64_t field(const struct report_receipts *c, size_t i)
{
	return *(const int64_t *)((const char *)c + rows[i].off);
}

void rdoc_receipts(const struct report *r, struct rdoc *d)
{
	const struct report_receipts *c = r->study ? &r->study->receipts : NULL;
	struct rdoc_block *t;
	size_t i;

	if (!c || !c->windows)
		return;
	rdoc_add(d, RDOC_H2, "Receipts");
	rdoc_add(d, RDOC_P, "Every measured window (accepted, failed and rejected: a rejected "
		 "window's requests were sent all the same), summed over the run.");
	t = rdoc_table(d, "receipts", 3, "what", "count", "of which");
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		rdoc_cellf(t, "%s", rows[i].name);
		rdoc_cellf(t, "%s%lld", i >= 6 && field(c, i) ? RDOC_STRONG : "",
			   (long long)field(c, i));
		rdoc_cellf(t, "%s", rows[i].what);
	}
	rdoc_cellf(t, "windows_throttled");
	if (c->throttle_known)
		rdoc_cellf(t, "%zu", c->throttled_windows);
	else
		rdoc_cellf(t, "-");
	rdoc_cellf(t, "of %zu measured windows", c->windows);
	rdoc_cellf(t, "oom_kills");
	if (c->oom_kills >= 0)
		rdoc_cellf(t, "%lld", (long long)c->oom_kills);
	else
		rdoc_cellf(t, "-");
	rdoc_cellf(t, "in the implementations' cgroups");
	rdoc_cellf(t, "preflight_passed");
	if (c->preflight_cases >= 0)
		rdoc_cellf(t, "%d", c->preflight_passed);
	else
		rdoc_cellf(t, "-");
	rdoc_cellf(t, "of %d pre-flight cases", c->preflight_cases < 0 ? 0 : c->preflight_cases);
}

json_t *report_receipts_json(const struct report *r)
{
	const struct report_receipts *c = r->study ? &r->study->receipts : NULL;
	json_t *o = json_object();
	size_t i;

	if (!c)
		return o;
	json_object_set_new(o, "windows", json_pack("{s:I, s:I, s:I, s:I}",
		"measured", (json_int_t)c->windows, "accepted", (json_int_t)c->accepted,
		"failed", (json_int_t)c->failed, "rejected", (json_int_t)c->rejected));
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		json_object_set_new(o, rows[i].name, json_integer((json_int_t)field(c, i)));
	json_object_set_new(o, "windows_throttled", c->throttle_known ?
			    json_integer((json_int_t)c->throttled_windows) : json_null());
	json_object_set_new(o, "oom_kills", c->oom_kills >= 0 ?
			    json_integer((json_int_t)c->oom_kills) : json_null());
	json_object_set_new(o, "sut_exits", json_integer((json_int_t)c->sut_exits));
	json_object_set_new(o, "preflight", c->preflight_cases >= 0 ?
			    json_pack("{s:i, s:i}", "cases", c->preflight_cases,
				      "passed", c->preflight_passed) : json_null());
	return o;
}

void report_receipts_csv(const struct report *r, struct sbuf *out)
{
	const struct report_receipts *c = r->study ? &r->study->receipts : NULL;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		report_study_csv_row(out, "receipts", NULL, NULL, NAN, rows[i].name,
				     (double)field(c, i), NAN, NAN, (long long)c->windows, rows[i].what);
	report_study_csv_row(out, "receipts", NULL, NULL, NAN, "windows_throttled",
			     c->throttle_known ? (double)c->throttled_windows : NAN, NAN, NAN,
			     (long long)c->windows, NULL);
	report_study_csv_row(out, "receipts", NULL, NULL, NAN, "oom_kills",
			     c->oom_kills >= 0 ? (double)c->oom_kills : NAN, NAN, NAN,
			     (long long)c->windows, NULL);
	report_study_csv_row(out, "receipts", NULL, NULL, NAN, "preflight_passed",
			     c->preflight_cases >= 0 ? (double)c->preflight_passed : NAN, NAN,
			     c->preflight_cases >= 0 ? (double)c->preflight_cases : NAN, -1,
			     "hi: the cases");
}
