/*
 * runner_saturation: the closed-loop stage (stages.saturation; issue 28,
 * item 6), before the ladder: for each rep, every implementation in turn
 * (rep r rotates the order by r, so none is always first), up and healthy
 * as for a window, the others frozen (runner_freeze.c), warmup_s of the
 * closed loop thrown away, then the measured closed loop (load.h
 * `closed`): its throughput, its service-time latency, the
 * implementation's CPU and the generator's, one row of table saturation
 * (store_saturation.h). No gate judges it and no knee reads it: what
 * a closed loop measures (the most a fixed number of clients waiting for
 * each answer get through) is not what the open loop's windows measure,
 * and the report keeps them apart (docs/DESIGN.md "Closed-loop
 * saturation"). A resumed run runs only the reps without a row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "account/account.h"
#include "sut/bind.h"
#include "base/hist.h"
#include "load/load.h"
#include "runner/runner_internal.h"
#include "store/store_saturation.h"
#include "base/util.h"

/* Row (impl, rep) is stored already. */
static int have_row(const struct saturation_row *v, size_t n, const char *impl, int rep)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].rep == rep && !strcmp(v[i].impl, impl))
			return 1;
	return 0;
}

static void config_for(struct run_ctx *rc, struct arm *a, struct load_config *cfg,
		       const struct load_request *reqs, double duration_s, uint64_t max,
		       uint64_t stream)
{
	const struct spec *s = rc->spec;
	const struct spec_saturation *sat = &s->saturation;

	bind_load(cfg, s, runner_arm_url(a), 0, duration_s, bind_window_seed(s, -1, stream));
	cfg->closed = 1;
	cfg->max_requests = max;
	cfg->connections = sat->connections;
	/* a connection takes a request only when free: the backlog stays empty */
	cfg->backlog_max = sat->connections;
	cfg->stop = &runner_stop;
	cfg->netns_fd = runner_arm_netns(a);
	if (reqs)
		cfg->requests = reqs;
	if (!rc->have_pool && s->workload.nvars &&
	    !load_pool_build(&rc->pool, s->workload.requests, s->workload.nrequests,
			     s->workload.vars, s->workload.nvars, s->seed, spec_pool_size(s)))
		rc->have_pool = 1;
	if (rc->have_pool)
		cfg->pool = &rc->pool;
}

static void fill_row(struct saturation_row *r, const struct load_result *res, int threads)
{
	const struct load_counts *c = &res->total.counts;
	const struct hist *h = &res->total.latency;
	struct sbuf blob = SBUF_INIT;

	r->elapsed_s = res->elapsed_s;
	r->requests = (int64_t)c->completed;
	r->errors = (int64_t)(load_counts_errors(c) + c->unexpected + c->dropped);
	r->throughput_rps = res->elapsed_s > 0 ? (double)c->completed / res->elapsed_s : NAN;
	r->p50_ms = h->total ? hist_percentile_ms(h, 50) : NAN;
	r->p90_ms = h->total ? hist_percentile_ms(h, 90) : NAN;
	r->p99_ms = h->total ? hist_percentile_ms(h, 99) : NAN;
	r->p999_ms = h->total ? hist_percentile_ms(h, 99.9) : NAN;
	r->max_ms = h->total ? (double)h->max / 1e6 : NAN;
	r->gen_cpu_pct = res->elapsed_s > 0 && threads > 0 ?
			 100.0 * res->generator_cpu_s / (res->elapsed_s * threads) : NAN;
	hist_serialize(h, &blob);
	r->hist.p = (unsigned char *)sbuf_detach(&blob, &r->hist.len);
}

/* The measured closed loop of arm a (up, the others frozen) into r.
 * 0, or -1 after an error() (the load could not be set up). */
static int measure(struct run_ctx *rc, struct arm *a, int rep, struct saturation_row *r)
{
	const struct spec_saturation *sat = &rc->spec->saturation;
	struct load_request *reqs = spec_impl_requests(rc->spec, &a->impl);
	struct account_window acct;
	struct load_config cfg;
	struct load_result res;
	int acct_open, ret = -1;

	if (sat->warmup_s > 0) {
		config_for(rc, a, &cfg, reqs, sat->warmup_s, 0, 0x5a7u + (uint64_t)rep);
		if (load_run(&cfg, &res))
			goto out;
		load_result_release(&res);
	}
	config_for(rc, a, &cfg, reqs, sat->duration_s, sat->requests, 0x5a70u + (uint64_t)rep);
	acct_open = !runner_arm_acct_begin(a);
	ret = load_run(&cfg, &res);
	r->cpu_s = NAN;
	if (acct_open && !runner_arm_acct_end(a, &acct)) {
		r->cpu_s = acct.cpu_s;
		account_window_release(&acct);
	}
	if (ret)
		goto out;
	fill_row(r, &res, cfg.threads < cfg.connections ? cfg.threads : cfg.connections);
	load_result_release(&res);
out:
	free(reqs);
	return ret;
}

/* One implementation's rep: 0 stored, 1 interrupted, -1 fatal. */
static int one(struct run_ctx *rc, struct arm *a, int rep, int slot)
{
	struct window_plan wp = { -1, "saturation", -1, rep, slot, a, 0 };
	struct saturation_row r;
	struct runner_idle *idle;
	int cycled = 0, ret;
	size_t i;

	if (runner_deps_ensure(rc, &wp, &cycled))
		return runner_stop ? 1 : -1;
	for (i = 0; cycled && i < rc->narms; i++)
		runner_arm_stop(&rc->arms[i]);
	if (runner_arm_start(rc, a, &wp))
		return runner_stop ? 1 : -1;
	a->last_block = rep;
	rc->cur_impl = a->name;
	runner_progress(rc, "saturation");
	memset(&r, 0, sizeof(r));
	r.run_id = rc->run_id;
	r.impl = a->name;
	r.rep = rep;
	r.connections = rc->spec->saturation.connections;
	idle = runner_idle_begin(rc, &wp);
	ret = measure(rc, a, rep, &r);
	runner_idle_end(idle);
	r.exited = runner_arm_exited(a);
	if (!ret && !runner_stop)
		ret = store_saturation_put(&rc->st, &r);
	else if (!ret)
		ret = 1;
	free(r.hist.p);
	if (r.exited || a->impl.restart == RESTART_PER_WINDOW)
		runner_arm_stop(a);
	return ret;
}

int runner_saturation(struct run_ctx *rc)
{
	const struct spec_saturation *sat = &rc->spec->saturation;
	struct saturation_row *done = NULL;
	size_t ndone = 0, k;
	int rep, ret = 0;

	rc->cur_stage = "saturation";
	rc->cur_rung = -1;
	if (store_saturation_load(&rc->st, rc->run_id, &done, &ndone))
		return -1;
	for (rep = 0; rep < sat->reps && !ret; rep++) {
		for (k = 0; k < rc->narms && !ret; k++) {
			size_t i = (k + (size_t)rep) % rc->narms;

			if (!have_row(done, ndone, rc->arms[i].name, rep))
				ret = one(rc, &rc->arms[i], rep, (int)k);
		}
	}
	saturation_rows_free(done, ndone);
	rc->cur_impl = NULL;
	/* the ladder's first block is a new block for restart: per_block */
	for (k = 0; k < rc->narms; k++)
		rc->arms[k].last_block = -1;
	return ret;
}
