/*
 * fake_arm: a fake world for the runner (test_runner.c): an armops
 * backend (armops.h) whose implementations are models, the load of each
 * warm-up and window answered from those models, and a clock that moves
 * only when the runner loads or waits (runner.h struct runner_seams).
 *
 * A model is a step at its knee: every request at a rate <= knee_rps
 * takes FAKE_FAST_MS, above it FAKE_SLOW_MS. An implementation not
 * modelled (a dependency) starts, stays up and is never loaded.
 *
 * Header-only: the unit-test build compiles one .c per test program.
 */
#ifndef FAKE_ARM_H
#define FAKE_ARM_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sut/armops.h"
#include "base/hist.h"
#include "load/load.h"
#include "runner/runner.h"
#include "sut/sut.h"
#include "base/util.h"

#define FAKE_FAST_MS 5
#define FAKE_SLOW_MS 50
#define FAKE_MAX 8

struct fake_model {
	const char *name;
	double knee_rps;
	int unhealthy;           /* its health wait fails, every start */
	double exit_at_rate;     /* > 0: exits during its first load at this rate */
	unsigned fail_from_load; /* > 0: from its fail_from_load-th load (1-based,
				    warm-ups and windows) on, every request
				    answered 500 (an unexpected status) */
	unsigned starts;         /* started so far (health passed or not) */
	uint32_t fail_resets;    /* its n-th reset command (1-based) exits 1
				    when bit n - 1 is set */
	unsigned resets;         /* its reset commands so far */
};

struct fake_inst;

struct fake_world {
	struct fake_model arms[FAKE_MAX];
	size_t narms;
	double now;              /* the fake clock, unix seconds */
	double slept_s;          /* waited through runner_sleep */
	unsigned loads_of[FAKE_MAX];
	double first_load_s[FAKE_MAX]; /* the duration its first load asked */
	struct fake_inst *inst_of[FAKE_MAX]; /* each model's running instance */
	/* commands (build, reset, ...): the fail_at-th one (1-based) whose
	 * argv[0] is fail_cmd exits 1; ncmd counts those seen */
	const char *fail_cmd;
	unsigned fail_at, ncmd;
	/* a command whose argv[0] is limit_cmd exits 0 having hit its
	 * cgroup's memory limit (one OOM kill in bc->hits) */
	const char *limit_cmd;
	int live;                /* instances started and not yet stopped */
	char dep_dir[256];       /* a dependency's last start: its HARNESS_DEP_DIR */
};

struct fake_inst {
	struct armops_inst base; /* first: armops.c hands out &base */
	struct fake_world *w;
	int idx;                 /* its model, -1: none (a dependency) */
	int exited;
	char url[64];
};

/* The world of the test in flight (the backend's ops have no context
 * pointer of their own: the site's spec and impl are the runner's). */
static struct fake_world *fake_current;

static void fake_world_init(struct fake_world *w)
{
	memset(w, 0, sizeof(*w));
	w->now = 1.8e9;
	fake_current = w;
}

static void fake_world_release(struct fake_world *w)
{
	fake_current = NULL;
	(void)w;
}

static struct fake_model *fake_arm_add(struct fake_world *w, const char *name, double knee)
{
	struct fake_model *m = &w->arms[w->narms++];

	memset(m, 0, sizeof(*m));
	m->name = name;
	m->knee_rps = knee;
	return m;
}

static int fake_index(const char *name)
{
	size_t i;

	for (i = 0; fake_current && i < fake_current->narms; i++)
		if (!strcmp(fake_current->arms[i].name, name))
			return (int)i;
	return -1;
}

static struct fake_inst *fake(struct armops_inst *i)
{
	return (struct fake_inst *)i;
}

/* ------------------------------------------------------------- backend */

/* bc is impl's reset command: the build argv the runner ran is its reset's */
static int fake_is_reset(const struct sut_build_config *bc)
{
	return bc->impl->reset && bc->impl->reset[0] && bc->impl->build && bc->impl->build[0] &&
	       !strcmp(bc->impl->build[0], bc->impl->reset[0]);
}

static int fake_command(const struct armops_site *s, const struct sut_build_config *bc)
{
	struct fake_world *w = fake_current;
	int m = fake_index(bc->impl->name);

	(void)s;
	if (bc->exit_code)
		*bc->exit_code = 0;
	if (bc->hits)
		memset(bc->hits, 0, sizeof(*bc->hits));
	if (w && w->limit_cmd && bc->hits && bc->impl->build &&
	    !strcmp(bc->impl->build[0], w->limit_cmd)) {
		bc->hits->has_oom = 1;
		bc->hits->oom_kill = 1;
	}
	if (w && m >= 0 && fake_is_reset(bc) && w->arms[m].resets++ < 32 &&
	    (w->arms[m].fail_resets >> (w->arms[m].resets - 1) & 1u)) {
		if (bc->exit_code)
			*bc->exit_code = 1;
		return bc->quiet ? 1 : error("%s: reset exited 1 (fake)", bc->impl->name);
	}
	if (!w || !w->fail_cmd || !bc->impl->build || strcmp(bc->impl->build[0], w->fail_cmd) ||
	    ++w->ncmd != w->fail_at)
		return 0;
	if (bc->exit_code)
		*bc->exit_code = 1;
	return bc->quiet ? 1 : error("%s: exited 1 (fake)", w->fail_cmd);
}

static int fake_address(const struct armops_site *s, char **addr)
{
	(void)s;
	*addr = NULL;
	return 0;
}

static int fake_tree_give(const struct armops_site *s, int uid, int gid)
{
	(void)s;
	(void)uid;
	(void)gid;
	return 0;
}

static int fake_prepare(const struct armops_site *s, int uid, int give, int *gid)
{
	(void)s;
	(void)uid;
	(void)give;
	*gid = -1;
	return 0;
}

static void fake_place(const struct armops_site *s, struct sbuf *out)
{
	(void)s;
	sbuf_adds(out, " (fake)");
}

static struct armops_inst *fake_start(const struct armops_site *s, const struct bind_sandbox *sb,
				      int *unhealthy, struct armops_hits *hits)
{
	struct fake_inst *f = xcalloc(1, sizeof(*f));

	(void)sb;
	(void)unhealthy;
	(void)hits;
	f->w = fake_current;
	f->idx = fake_index(s->impl->name);
	snprintf(f->url, sizeof(f->url), "http://fake.invalid/%d", f->idx);
	if (f->idx >= 0) {
		f->w->arms[f->idx].starts++;
		f->w->inst_of[f->idx] = f;
	}
	for (size_t k = 0; f->idx < 0 && k < s->impl->nenv; k++)
		if (!strcmp(s->impl->env[k].key, "HARNESS_DEP_DIR"))
			snprintf(f->w->dep_dir, sizeof(f->w->dep_dir), "%s", s->impl->env[k].value);
	f->w->live++;
	return &f->base;
}

static int fake_health(struct armops_inst *i, double timeout_s)
{
	struct fake_inst *f = fake(i);

	(void)timeout_s;
	if (f->idx >= 0 && f->w->arms[f->idx].unhealthy)
		return error("impl %s: never healthy (fake)", f->w->arms[f->idx].name);
	return 0;
}

static void fake_stop(struct armops_inst *i)
{
	struct fake_inst *f = fake(i);

	if (f->idx >= 0 && f->w->inst_of[f->idx] == f)
		f->w->inst_of[f->idx] = NULL;
	f->w->live--;
	free(f);
}

static int fake_exited(struct armops_inst *i)
{
	return fake(i)->exited;
}

static int fake_lost(struct armops_inst *i, const char **why)
{
	(void)i;
	(void)why;
	return 0;
}

static const char *fake_exit_desc(struct armops_inst *i, char *buf, size_t n)
{
	(void)i;
	snprintf(buf, n, "exited with status 1");
	return buf;
}

static const char *fake_stderr_hint(struct armops_inst *i)
{
	(void)i;
	return "(fake)";
}

static const char *fake_url(struct armops_inst *i)
{
	return fake(i)->url;
}

static int fake_port(struct armops_inst *i)
{
	return 10000 + fake(i)->idx;
}

static int fake_netns(struct armops_inst *i)
{
	(void)i;
	return -1;
}

static const char *fake_cpus(struct armops_inst *i)
{
	(void)i;
	return NULL;
}

static const char *fake_argv_text(struct armops_inst *i)
{
	(void)i;
	return NULL;
}

static void fake_describe(struct armops_inst *i, const char *name, unsigned starts,
			  struct sbuf *ev)
{
	sbuf_addf(ev, "%s started on %s (start %u); fake", name, fake(i)->url, starts);
}

static const char *fake_via(struct armops_inst *i)
{
	(void)i;
	return " (fake)";
}

static void fake_facts(struct armops_inst *i,
		       void (*put)(void *ctx, const char *scope, const char *key, const char *value),
		       void *ctx)
{
	(void)i;
	(void)put;
	(void)ctx;
}

static struct rtstats *fake_stats(struct armops_inst *i)
{
	(void)i;
	return NULL;
}

static void fake_footprint(struct armops_inst *i, struct armops_footprint *out)
{
	(void)i;
	out->startup_ms = NAN;
	out->rss_kb = out->pss_kb = -1;
}

static void fake_limits(struct armops_inst *i, struct armops_hits *h)
{
	(void)i;
	(void)h;
}

static int fake_acct_begin(struct armops_inst *i)
{
	(void)i;
	return -1;
}

static int fake_acct_end(struct armops_inst *i, struct account_window *out)
{
	(void)i;
	(void)out;
	return -1;
}

/* Frozen at once, and quiet: an idle arm's CPU is 0. */
static int fake_freeze(struct armops_inst *i, int on, const char **freezer)
{
	(void)i;
	(void)on;
	*freezer = "fake";
	return 0;
}

static int fake_cpu_begin(struct armops_inst *i)
{
	(void)i;
	return 0;
}

static int fake_cpu_end(struct armops_inst *i, double *cpu_s)
{
	(void)i;
	*cpu_s = 0;
	return 0;
}

static const struct armops fake_armops = {
	.name = "fake",
	.cpu_beside_window = 1,
	.command = fake_command,
	.address = fake_address,
	.tree_give = fake_tree_give,
	.prepare = fake_prepare,
	.place = fake_place,
	.start = fake_start,
	.health = fake_health,
	.stop = fake_stop,
	.exited = fake_exited,
	.lost = fake_lost,
	.exit_desc = fake_exit_desc,
	.stderr_hint = fake_stderr_hint,
	.url = fake_url,
	.port = fake_port,
	.netns = fake_netns,
	.cpus = fake_cpus,
	.cpus_method = fake_cpus,
	.argv_text = fake_argv_text,
	.describe = fake_describe,
	.via = fake_via,
	.facts = fake_facts,
	.stats = fake_stats,
	.limits = fake_limits,
	.footprint = fake_footprint,
	.acct_begin = fake_acct_begin,
	.acct_end = fake_acct_end,
	.freeze = fake_freeze,
	.cpu_begin = fake_cpu_begin,
	.cpu_end = fake_cpu_end,
};

/* ----------------------------------------------------------- the load */

/* One second at rate of model m: every request due, sent and answered
 * 2xx in its model's time (5xx, unexpected, when fail). */
static void fake_second(const struct fake_model *m, double rate, size_t nreq, int fail,
			struct load_stats *s)
{
	uint64_t n = (uint64_t)llround(rate), k;
	uint64_t ns = (uint64_t)((rate <= m->knee_rps ? FAKE_FAST_MS : FAKE_SLOW_MS) * 1e6);

	load_stats_init(s, nreq);
	s->counts.due = s->counts.sent = s->counts.completed = n;
	s->counts.status[fail ? 3 : 0] = n;
	s->counts.unexpected = fail ? n : 0;
	if (nreq)
		s->req_counts[0] = s->counts;
	for (k = 0; k < n; k++) {
		hist_record(&s->latency, ns);
		hist_record(&s->service, ns);
		hist_record(&s->lateness, 0);
		hist_record(&s->sched_lag, 0);
		if (nreq)
			hist_record(&s->req_latency[0], ns);
	}
}

static int fake_load(void *ctx, const struct load_config *cfg, struct load_result *res)
{
	struct fake_world *w = ctx;
	const char *slash = strrchr(cfg->url, '/');
	int idx = slash ? atoi(slash + 1) : -1;
	struct fake_model *m;
	struct load_stats sec, drain;
	unsigned i, n = (unsigned)ceil(cfg->duration_s - 1e-9);

	memset(res, 0, sizeof(*res));
	load_stats_init(&res->total, cfg->nrequests);
	if (idx < 0 || (size_t)idx >= w->narms)
		return error("fake load: no model behind %s", cfg->url);
	m = &w->arms[idx];
	if (!w->loads_of[idx]++)
		w->first_load_s[idx] = cfg->duration_s;
	for (i = 0; i < n; i++) {
		int stop;

		fake_second(m, cfg->rate, cfg->nrequests,
			    m->fail_from_load && w->loads_of[idx] >= m->fail_from_load, &sec);
		w->now += 1;
		load_stats_merge(&res->total, &sec);
		res->seconds++;
		stop = cfg->on_second ? cfg->on_second(cfg->ctx, i, &sec) : 0;
		load_stats_release(&sec);
		if (stop) {
			res->stopped_early = 1;
			break;
		}
	}
	load_stats_init(&drain, cfg->nrequests);
	if (cfg->on_drain)
		cfg->on_drain(cfg->ctx, &drain);
	load_stats_release(&drain);
	res->elapsed_s = res->seconds;
	res->offered_rps = res->seconds ? res->total.counts.due / res->elapsed_s : 0;
	res->achieved_rps = res->seconds ? res->total.counts.completed / res->elapsed_s : 0;
	if (m->exit_at_rate > 0 && fabs(cfg->rate - m->exit_at_rate) < 1e-9) {
		m->exit_at_rate = 0;           /* once */
		if (w->inst_of[idx])
			w->inst_of[idx]->exited = 1;
	}
	return 0;
}

/* ---------------------------------------------------------- the clock */

static double fake_now(void *ctx)
{
	return ((struct fake_world *)ctx)->now;
}

static void fake_sleep(void *ctx, double s)
{
	struct fake_world *w = ctx;

	w->now += s;
	w->slept_s += s;
}

static void fake_seams(struct fake_world *w, struct runner_seams *s)
{
	memset(s, 0, sizeof(*s));
	s->backend = &fake_armops;
	s->load = fake_load;
	s->now = fake_now;
	s->sleep = fake_sleep;
	s->ctx = w;
}

#endif
