/*
 * armops_ctr: an implementation or a dependency that runs as a container
 * (armops.h; impl->ctr.present, specs/README.md "Containers"), through
 * the engine's CLI on this host (ctr.h). What differs from a native arm
 * is here:
 *
 *   command  after the arm's build argv, on its build step only, the
 *            engine's build of its Containerfile (no network, the arm's
 *            memory and CPU limits, never jailed: the engine needs root
 *            and its build containers are the sandbox);
 *   start    the container created, initialised and attached by
 *            sut_ctr.c, handed to sut.c as a struct sut_starter: the
 *            container's own namespace for an implementation (reached
 *            as a jail's is, its dependencies relayed in), the host's
 *            network for a dependency (every arm reaches it at
 *            127.0.0.1 as a native one), the untrusted flags under a
 *            sandbox;
 *   stop     the engine's stop, then rm: no container, cgroup or
 *            namespace left;
 *   describe / via  the container's name and image in its events;
 *   acct_end the local one's, plus the OOM the engine recorded (podman's
 *            conmon) when the engine removed the cgroup of a container the
 *            OOM killer ended before a sample read its counters.
 *
 * Everything else (health in its namespace, exit, logs, accounting of its
 * cgroup, freezer, idle CPU, stats, limits hit) is the local backend's
 * (armops_local.h) on the process sut.c keeps: a container arm is
 * measured exactly as a native one.
 */
#include <stdlib.h>
#include <string.h>

#include "sut/armops.h"
#include "sut/armops_local.h"
#include "sut/ctr.h"
#include "sut/sut.h"
#include "sut/sut_ctr.h"
#include "base/util.h"

/* One start: the starter sut.c calls back, and the container it made. */
struct ctr_run {
	struct sut_starter st;
	struct sut_ctr *c;           /* NULL until started */
	int host_network;            /* a dependency */
	int oom_counted;             /* the engine's OOM record was used */
	char *via;                   /* " as container NAME" */
};

/* The engine's build of the arm's Containerfile, as one more command of
 * its build (sut_build: its log, cgroup, watchdog and stop flag). */
static int build_image(const struct sut_build_config *bc)
{
	const struct spec_impl *im = bc->impl;
	struct sut_build_config b = *bc;
	struct ctr_limits lim;
	struct ctr_engine e;
	char **argv;
	int ret;

	if (ctr_engine_open(im->ctr.engine, &e))
		return -1;
	memset(&lim, 0, sizeof(lim));
	lim.memory_bytes = bc->memory_max_bytes ? bc->memory_max_bytes : im->memory_max_bytes;
	lim.cpu_max = bc->cpu_max;
	lim.cpus = im->cpus;
	ctr_ulimits(&lim.nofile, &lim.nproc);
	argv = ctr_argv_build(&e, im, bc->workdir ? bc->workdir : im->repo, &lim);
	ctr_engine_release(&e);
	b.argv = argv;
	b.what = "container build";
	b.jail = NULL;
	b.uid = b.gid = -1;
	b.argv_text = NULL;          /* a jailed arm's record is its build argv's */
	ret = sut_build(&b);
	strv_free(argv);
	return ret;
}

static int ctr_command(const struct armops_site *s, const struct sut_build_config *bc)
{
	int ret = sut_build(bc);

	(void)s;
	if (!ret && bc->build_step && ctr_builds_image(bc->impl))
		ret = build_image(bc);
	return ret;
}

static int run_start(void *ctx, const struct sut_config *cfg, const char *wd, int port,
		     int out_fd, int err_fd, struct sut_proc *p)
{
	struct ctr_run *x = ctx;

	x->c = sut_ctr_start(cfg, wd, port, x->host_network, out_fd, err_fd, p);
	return x->c ? 0 : -1;
}

static void run_stop(void *ctx, double grace_s)
{
	sut_ctr_stop(((struct ctr_run *)ctx)->c, grace_s);
}

static void run_remove(void *ctx)
{
	sut_ctr_remove(((struct ctr_run *)ctx)->c);
}

static void run_free(struct ctr_run *x)
{
	sut_ctr_free(x->c);
	free(x->via);
	free(x);
}

static struct armops_inst *ctr_start(const struct armops_site *s, const struct bind_sandbox *sb,
				     int *unhealthy, struct armops_hits *hits)
{
	struct ctr_run *x = xcalloc(1, sizeof(*x));
	struct sut_config cfg;
	struct armops_inst *i;
	struct sbuf via = SBUF_INIT;

	(void)unhealthy;             /* its health is armops_health's */
	(void)hits;
	x->st.start = run_start;
	x->st.stop = run_stop;
	x->st.remove = run_remove;
	x->st.ctx = x;
	x->host_network = s->plain;
	armops_local_bind(s, sb, &cfg);
	if (!s->port && s->impl->ctr.port > 0)
		cfg.port = s->impl->ctr.port;
	cfg.starter = &x->st;
	i = armops_local_start_with(&cfg, x);
	if (!i) {
		run_free(x);
		return NULL;
	}
	sbuf_addf(&via, " as container %s", sut_ctr_name(x->c));
	x->via = sbuf_detach(&via, NULL);
	return i;
}

static void ctr_stop(struct armops_inst *i)
{
	struct ctr_run *x;

	if (!i)
		return;
	x = armops_local_ext(i);
	armops_local_stop(i);
	run_free(x);
}

static void ctr_describe(struct armops_inst *i, const char *name, unsigned starts,
			 struct sbuf *ev)
{
	struct ctr_run *x = armops_local_ext(i);
	struct sut *s = armops_local_sut(i);

	sbuf_addf(ev, "%s started on %s (start %u)%s (image %s); cpus %s (%s)", name, sut_url(s),
		  starts, x->via, sut_ctr_image(x->c), sut_cpus(s) ? sut_cpus(s) : "?",
		  sut_cpus_method(s) ? sut_cpus_method(s) : "none");
}

/* An OOM kill ends a container, and the engine removes its cgroup at
 * once: the window's counters are its last sample's (account_open_pid),
 * which may predate the kill. conmon's record of it counts then, once per
 * start, as one OOM event and kill of the window it ended. */
static int ctr_acct_end(struct armops_inst *i, struct account_window *out)
{
	struct ctr_run *x = armops_local_ext(i);
	int ret = armops_local_acct_end(i, out);

	if (ret || x->oom_counted || !sut_ctr_oom(x->c))
		return ret;
	x->oom_counted = 1;
	if (!out->has_oom || !out->oom_kill) {
		out->has_oom = 1;
		out->oom = out->oom ? out->oom : 1;
		out->oom_kill = 1;
	}
	return ret;
}

static const char *ctr_via(struct armops_inst *i)
{
	return ((struct ctr_run *)armops_local_ext(i))->via;
}

const struct armops armops_ctr = {
	.name = "container",
	.cpu_beside_window = 1,
	.command = ctr_command,
	ARMOPS_LOCAL_OPS,
	.start = ctr_start,
	.stop = ctr_stop,
	.describe = ctr_describe,
	.via = ctr_via,
	.acct_end = ctr_acct_end,
};
