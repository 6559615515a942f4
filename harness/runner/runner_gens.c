/*
 * runner_gens: a run's load from workload.generators (agents over ssh,
 * harness/agent/fleet.h) instead of this host's engine.
 *
 * The agents are started once, after the dependencies, each checked for
 * its version (a mismatch or an unreachable host stops the run: exit 3).
 * Every warm-up and window then runs through fleet_run. After each,
 * one `agent_clock` event per agent records its offset and uncertainty
 * (before and after); an agent lost mid-load voids the window (reason
 * agent_lost, an `agent_lost` event naming it) and is reconnected before
 * the next load (the run stops, exit 3, when it cannot be); an offset
 * uncertainty, or a change of the offset over the load, above
 * generator_options.max_offset_ms voids it too (clock_offset).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_internal.h"

void runner_agent_opts(const struct run_ctx *rc, const char *binary, struct agent_opts *o)
{
	size_t n = 0;

	while (rc->spec->workload.ssh_options && rc->spec->workload.ssh_options[n])
		n++;
	memset(o, 0, sizeof(*o));
	o->binary = binary;
	o->ssh_options = (const char *const *)rc->spec->workload.ssh_options;
	o->nssh_options = n;
}

static int open_one(struct run_ctx *rc, size_t i)
{
	const struct spec_generator *g = &rc->spec->workload.generators[i];
	struct agent_opts o;

	runner_agent_opts(rc, g->binary, &o);
	if (agent_link_open(&rc->links[i], g->host, &o))
		return -1;
	rc->gens[i].link = &rc->links[i];
	rc->gens[i].threads = g->threads;
	rc->gens[i].cpus = g->cpus;
	rc->link_open[i] = 1;
	return 0;
}

int runner_gens_open(struct run_ctx *rc)
{
	size_t i, n = rc->spec->workload.ngenerators;

	if (!n)
		return 0;
	rc->ngens = n;
	rc->links = xcalloc(n, sizeof(*rc->links));
	rc->gens = xcalloc(n, sizeof(*rc->gens));
	rc->link_open = xcalloc(n, sizeof(*rc->link_open));
	for (i = 0; i < n; i++) {
		fprintf(stderr, "harness: starting load agent %s\n",
			rc->spec->workload.generators[i].host);
		if (open_one(rc, i))
			return -1;
	}
	return 0;
}

void runner_gens_close(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->ngens; i++)
		if (rc->link_open[i])
			agent_link_close(&rc->links[i]);
	free(rc->links);
	free(rc->gens);
	free(rc->link_open);
	rc->links = NULL;
	rc->gens = NULL;
	rc->link_open = NULL;
	rc->ngens = 0;
}

const char *runner_gens_url(const struct run_ctx *rc, const char *sut_url, struct sbuf *buf)
{
	const char *host = rc->spec->workload.target_host, *port;

	if (!rc->ngens || !host || !sut_url)
		return sut_url;
	/* sut_url is http://127.0.0.1:PORT */
	port = strrchr(sut_url, ':');
	sbuf_reset(buf);
	sbuf_addf(buf, "http://%s%s", host, port ? port : "");
	return buf->buf;
}

int runner_gens_load(struct run_ctx *rc, int64_t wid, const char *phase,
		     const struct load_config *cfg, struct load_result *res, int *lost,
		     int *clock)
{
	struct fleet_agent *out;
	double max_ns = rc->spec->workload.max_offset_ms * 1e6;
	size_t i, n = rc->ngens;

	/* Agents lost before: a new connection (and version check). */
	for (i = 0; i < n; i++) {
		if (!rc->links[i].lost && rc->link_open[i])
			continue;
		if (rc->link_open[i])
			agent_link_close(&rc->links[i]);
		rc->link_open[i] = 0;
		if (open_one(rc, i))
			return error("load agent %s could not be reconnected; the run stops",
				     rc->spec->workload.generators[i].host);
		store_event(&rc->st, rc->run_id, wid, "agent_reconnected", "%s",
			    rc->links[i].dest);
	}
	out = xcalloc(n, sizeof(*out));
	if (fleet_run(cfg, rc->gens, n, res, out)) {
		/* It could not start: an agent that broke then is lost (the
		 * window is void, it is reconnected before the next load);
		 * anything else is the environment's. */
		for (i = 0; i < n && !rc->links[i].lost; i++)
			;
		if (i < n) {
			*lost = 1;
			store_event(&rc->st, rc->run_id, wid, "agent_lost", "%s: %s: the load could not start",
				    phase, rc->links[i].dest);
		}
		for (i = 0; i < n; i++)
			fleet_agent_release(&out[i]);
		free(out);
		return *lost ? 0 : -1;
	}
	for (i = 0; i < n; i++) {
		const struct fleet_agent *a = &out[i];
		double moved = a->after_ok ? fabs((double)(a->offset_after_ns - a->offset_ns)) : 0;

		store_event(&rc->st, rc->run_id, wid, "agent_clock",
			    "%s %s: offset %+.3f ms +- %.3f ms before, %s%+.3f ms +- %.3f ms after;"
			    " %llu due, %llu sent, %llu dropped, %.3f s CPU",
			    phase, rc->links[i].dest, a->offset_ns / 1e6, a->uncert_ns / 1e6,
			    a->after_ok ? "" : "(none) ", a->offset_after_ns / 1e6,
			    a->uncert_after_ns / 1e6, (unsigned long long)a->total.counts.due,
			    (unsigned long long)a->total.counts.sent,
			    (unsigned long long)a->total.counts.dropped, a->generator_cpu_s);
		if (a->lost) {
			*lost = 1;
			store_event(&rc->st, rc->run_id, wid, "agent_lost", "%s: %s", phase, a->why);
			fprintf(stderr, "harness: %s: %s; the window is void\n", phase, a->why);
		} else if ((double)a->uncert_ns > max_ns ||
			   (a->after_ok && ((double)a->uncert_after_ns > max_ns || moved > max_ns))) {
			*clock = 1;
			store_event(&rc->st, rc->run_id, wid, "clock_offset",
				    "%s %s: uncertainty %.3f ms (after %.3f), offset moved %.3f ms;"
				    " max_offset_ms %g", phase, rc->links[i].dest,
				    a->uncert_ns / 1e6, a->uncert_after_ns / 1e6, moved / 1e6,
				    rc->spec->workload.max_offset_ms);
		}
		fleet_agent_release(&out[i]);
	}
	free(out);
	return 0;
}
