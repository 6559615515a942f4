/*
 * fleet_print: what each agent of a distributed load did, for
 * `harness load --agent` (text and JSON; times in ms).
 */
#include <math.h>
#include <stdio.h>

#include "base/jout.h"
#include "agent/fleet.h"

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

void fleet_add_text(struct sbuf *f, const struct fleet_gen *gens,
			  const struct fleet_agent *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct load_counts *c = &a[i].total.counts;

		sbuf_addf(f, "agent       %s (%s): clock offset %+.3f ms +- %.3f ms", gens[i].link->dest,
			gens[i].link->host ? gens[i].link->host : "?", ms(a[i].offset_ns),
			ms(a[i].uncert_ns));
		if (a[i].after_ok)
			sbuf_addf(f, " (after: %+.3f +- %.3f)", ms(a[i].offset_after_ns),
				ms(a[i].uncert_after_ns));
		sbuf_addf(f, "; %llu due, %llu sent, %llu dropped, sched lag p99 %.3f ms, %.3f s CPU, %d thread%s%s%s\n",
			(unsigned long long)c->due, (unsigned long long)c->sent,
			(unsigned long long)c->dropped,
			a[i].total.sched_lag.total ? hist_percentile_ms(&a[i].total.sched_lag, 99) : 0.0,
			a[i].generator_cpu_s, a[i].threads, a[i].threads == 1 ? "" : "s",
			a[i].lost ? "; LOST: " : "", a[i].lost ? a[i].why : "");
	}
}

static json_t *ms_or_null(int have, int64_t ns)
{
	return have ? jout_num(ms(ns)) : json_null();
}

json_t *fleet_json(const struct fleet_gen *gens, const struct fleet_agent *a,
		       size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		const struct load_counts *c = &a[i].total.counts;
		json_t *o = json_object();

		json_object_set_new(o, "dest", jout_str(gens[i].link->dest));
		json_object_set_new(o, "host", jout_str(gens[i].link->host ? gens[i].link->host : ""));
		json_object_set_new(o, "offset_ms", jout_num(ms(a[i].offset_ns)));
		json_object_set_new(o, "uncertainty_ms", jout_num(ms(a[i].uncert_ns)));
		json_object_set_new(o, "offset_after_ms", ms_or_null(a[i].after_ok, a[i].offset_after_ns));
		json_object_set_new(o, "uncertainty_after_ms",
				    ms_or_null(a[i].after_ok, a[i].uncert_after_ns));
		json_object_set_new(o, "requests", json_integer((json_int_t)c->due));
		json_object_set_new(o, "sent", json_integer((json_int_t)c->sent));
		json_object_set_new(o, "completed", json_integer((json_int_t)c->completed));
		json_object_set_new(o, "dropped", json_integer((json_int_t)c->dropped));
		json_object_set_new(o, "schedule_lag_p99_ms",
				    a[i].total.sched_lag.total ?
				    jout_num(hist_percentile_ms(&a[i].total.sched_lag, 99)) : json_null());
		json_object_set_new(o, "latency_p99_ms",
				    a[i].total.latency.total ?
				    jout_num(hist_percentile_ms(&a[i].total.latency, 99)) : json_null());
		json_object_set_new(o, "generator_cpu_s", jout_num(a[i].generator_cpu_s));
		json_object_set_new(o, "threads", json_integer(a[i].threads));
		json_object_set_new(o, "lost", json_boolean(a[i].lost));
		json_object_set_new(o, "why", a[i].lost ? jout_str(a[i].why) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}
