/*
 * fleet: one load driven by several agents (agent_link.h), merged
 * as if one generator had driven it.
 *
 * The schedule is split exactly (load.h, `part`/`parts`): agent i of n
 * takes part i; connections and the backlog bound are divided between
 * them. Before the load each agent's clock offset is measured
 * (agent_link_sync) and a start time agreed: the coordinator's wall
 * clock now + a lead, sent to each agent in its own clock (+ its offset).
 * Each agent streams one SECOND frame per whole second; second s is
 * merged (histograms bucket by bucket: lossless) once every agent still
 * running has sent it, and handed to cfg->on_second. The totals are the
 * agents' DONE totals merged; what no on_second saw (each agent's drain,
 * sent with its DONE, and any second merged past the whole seconds or
 * after an early stop) goes to cfg->on_drain once, at the end, as the
 * engine's does (load.h). After the load the offsets are measured
 * again (a clock that moved during the load shows as a difference).
 *
 * An agent whose channel breaks (ssh dropped, agent killed) or that
 * reports an error is `lost`: the others are told to stop, no further
 * second is handed on, and fleet_run still returns 0 with the agent
 * marked, so the caller voids what it measured (its `why` names it).
 */
#ifndef HARNESS_FLEET_H
#define HARNESS_FLEET_H

#include <stdio.h>

#include <jansson.h>

#include "agent/agent_link.h"
#include "load/load.h"

struct fleet_gen {
	struct agent_link *link;    /* open */
	int threads;                /* 0: cfg->threads */
	const char *cpus;           /* pin its threads on its host, or NULL */
};

/* What one agent measured, and its clock. */
struct fleet_agent {
	int64_t offset_ns, uncert_ns;             /* before the load */
	int64_t offset_after_ns, uncert_after_ns; /* after it (lost: 0) */
	int after_ok;
	struct load_stats total;     /* its whole run (initialised by fleet_run) */
	double elapsed_s, generator_cpu_s;
	int threads;                 /* threads it ran */
	int lost;
	char why[256];
};

/* Rounds of the clock exchange before a load (the best is kept). */
#define FLEET_SYNC_ROUNDS 8

/*
 * Run cfg's load on the n generators. out[n] is filled (release each
 * with fleet_agent_release). 0 when the load ran (some agents may be
 * lost: see out[i].lost), -1 after an error() when it could not start.
 */
int fleet_run(const struct load_config *cfg, const struct fleet_gen *gens, size_t n,
		  struct load_result *res, struct fleet_agent *out);
void fleet_agent_release(struct fleet_agent *a);

#endif

/* ------------------------------------------------------------- output */

/* One line per agent (text) for `harness load --agent`. */
void fleet_add_text(struct sbuf *f, const struct fleet_gen *gens,
			  const struct fleet_agent *a, size_t n);
/* [{dest, host, offset_ms, uncertainty_ms, ...}, ...] for --json (a new
 * reference). */
json_t *fleet_json(const struct fleet_gen *gens, const struct fleet_agent *a,
		       size_t n);
