/*
 * report_csv: windows.csv, one row per finished window, accepted, failed or
 * rejected (the status column says which). Its first nine columns are exactly what `harness knee
 * --windows` reads (impl,stage,offered_rps,block,p99_ms,requests,errors,
 * achieved_rps,warm), with `status`, the SLO percentile
 * (<label>_ms_from_hist) and `not_ok` (the knee's count of requests not
 * answered as expected, harness/model/knee.h), so `harness knee --windows` on
 * it gives the report's knees;
 * offered_rps is the planned rate (the rung), measured_offered_rps the
 * rate the schedule actually offered. The provenance (run id, spec hash,
 * the row's implementation commit and dirty flag, the harness version of
 * the run, exploratory and forced flags) is repeated on every row rather
 * than written as comment lines, which CSV readers (`harness knee`
 * included) do not accept; host facts are in report.json. For the same
 * reason the run quality line that opens the other formats is not here:
 * report.json (run_quality), report.md and report.html carry it. Before
 * the provenance, four columns say what went over the wire: unexpected
 * responses, the HTTP version(s) the responses came in, and the HTTP bytes
 * sent and received. CPU per request is in cpu_us_per_request (µs, the
 * unit of every other output) and, for existing readers, cpu_ms_per_req.
 */
#include "report/report.h"

#include <math.h>
#include <string.h>

#include "model/knee_run.h"
#include "base/util.h"

void report_csv_field(struct sbuf *out, const char *s)
{
	const char *p;

	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\n\r")) {
		sbuf_adds(out, s);
		return;
	}
	sbuf_adds(out, "\"");
	for (p = s; *p; p++) {
		if (*p == '"')
			sbuf_adds(out, "\"");
		sbuf_add(out, p, 1);
	}
	sbuf_adds(out, "\"");
}

void report_csv_num(struct sbuf *out, double v)
{
	sbuf_adds(out, ",");
	if (isfinite(v))
		sbuf_addf(out, "%.10g", v);
}

static void inum(struct sbuf *out, int64_t v)
{
	sbuf_addf(out, ",%lld", (long long)v);
}

static void str(struct sbuf *out, const char *s)
{
	sbuf_adds(out, ",");
	report_csv_field(out, s);
}

void report_csv(const struct report *r, struct sbuf *out)
{
	size_t i;

	sbuf_addf(out, "impl,stage,offered_rps,block,p99_ms,requests,errors,achieved_rps,warm,"
		  "window_id,rung,slot,status,reasons,recorded_fails,attempts,"
		  "measured_offered_rps,duration_s,started_at,due,sent,completed,dropped,"
		  "p50_ms,p90_ms,p999_ms,max_ms,%s_ms_from_hist,lateness_p99_ms,gen_cpu_s,"
		  "cpu_s,cpu_ms_per_req,cpu_us_per_request,cpu_wait_s,anon_p99_bytes,sut_exited,"
		  "not_ok,"
		  "unexpected,protocol,bytes_sent,bytes_received,knee_ms,"
		  "run_id,spec_hash,impl_commit,impl_dirty,harness_version,exploratory,forced\n",
		  r->slo_label);
	for (i = 0; i < r->nwindows; i++) {
		const struct view_window *w = &r->windows[i];

		if (!w->done)
			continue;
		report_csv_field(out, w->impl);
		str(out, w->stage);
		report_csv_num(out, w->rate);
		inum(out, w->block);
		report_csv_num(out, w->p99_ms);
		inum(out, w->due);
		inum(out, w->errors);
		report_csv_num(out, w->achieved_rps);
		if (w->warm < 0)
			sbuf_adds(out, ",");
		else
			inum(out, w->warm);
		inum(out, w->id);
		inum(out, w->rung);
		inum(out, w->slot);
		str(out, w->status);
		str(out, w->reasons);
		str(out, w->recorded);
		inum(out, w->attempts);
		report_csv_num(out, w->offered_rps);
		report_csv_num(out, w->duration_s);
		report_csv_num(out, w->started_at);
		inum(out, w->due);
		inum(out, w->sent);
		inum(out, w->completed);
		inum(out, w->dropped);
		report_csv_num(out, w->p50_ms);
		report_csv_num(out, w->p90_ms);
		report_csv_num(out, w->p999_ms);
		report_csv_num(out, w->max_ms);
		report_csv_num(out, w->pslo_ms);
		report_csv_num(out, w->lateness_p99_ms);
		report_csv_num(out, w->gen_cpu_s);
		report_csv_num(out, w->cpu_s);
		report_csv_num(out, w->cpu_ms_per_req);
		report_csv_num(out, w->cpu_ms_per_req * 1000);   /* µs, as every other output */
		report_csv_num(out, w->cpu_wait_s);
		report_csv_num(out, w->anon_p99);
		inum(out, w->sut_exited);
		report_csv_num(out, knee_window_bad(!strcmp(w->status, "failed"), (double)w->due,
					 (double)w->errors, (double)w->ok));
		inum(out, w->unexpected);
		str(out, w->protocol);
		inum(out, w->bytes_sent);
		inum(out, w->bytes_received);
		report_csv_num(out, w->knee_ms);
		str(out, r->run_id);
		str(out, r->spec_hash);
		str(out, w->impl_idx >= 0 ? r->impls[w->impl_idx].commit : NULL);
		if (w->impl_idx >= 0 && r->impls[w->impl_idx].dirty >= 0)
			inum(out, r->impls[w->impl_idx].dirty);
		else
			sbuf_adds(out, ",");
		str(out, r->run_harness_version);
		inum(out, r->exploratory);
		inum(out, r->forced);
		sbuf_adds(out, "\n");
	}
}
