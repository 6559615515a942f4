/*
 * runner_deps: the spec's dependencies over a run (docs/DESIGN.md,
 * "Dependencies"). Their ports are chosen and bound into the spec before
 * the arms copy it (bind_deps); they start before any implementation, in
 * declared order, each through sut exactly as an implementation starts
 * (own process group and cgroup, pinned, PDEATHSIG, watchdog), trusted;
 * the first start records their version and runs their setup. Before each
 * window one that exited is restarted on the same port (or the run stops,
 * exit 3); over each measured part each is accounted, and the figures go
 * to the window's evidence (dependency_headroom) and to window_deps.
 * Where each runs is its site's backend (armops.h): one with impl.host
 * runs on that host through an agent, the same port, accounted there;
 * {dep.NAME.host} is that host's address (armops_address).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "account/account.h"
#include "sut/armops.h"
#include "sut/bind.h"
#include "sandbox/cpuset.h"
#include "model/evidence.h"
#include "runner/runner_internal.h"
#include "store/store_window.h"
#include "sut/sut.h"
#include "base/util.h"

#define VERSION_MAX 4096

/* The running instance, wherever it runs (armops.h). */
static int dep_up(const struct dep_run *d)
{
	return d->inst != NULL;
}

static int dep_exited(struct dep_run *d)
{
	return armops_exited(d->inst);
}

static void dep_free(struct dep_run *d)
{
	armops_stop(d->inst);
	d->inst = NULL;
}

struct armops_site *runner_dep_site(struct run_ctx *rc, struct dep_run *d)
{
	struct sbuf label = SBUF_INIT;
	struct armops_site *s = &d->site;

	if (s->label)
		return s;
	if (!s->ops)
		s->ops = rc->seams && rc->seams->backend ? rc->seams->backend
							 : armops_pick(&d->impl);
	s->spec = rc->spec;
	s->impl = &d->impl;
	s->log_dir = rc->logs_dir;
	sbuf_addf(&label, "harness.%s.%s", rc->run_id, d->sut_name);
	d->label = sbuf_detach(&label, NULL);
	s->label = d->label;
	s->port = rc->dep_ports[d - rc->deps];
	s->plain = 1;                /* workload.tls is the implementations' */
	s->stop = &runner_stop;
	return s;
}

int runner_deps_bind(struct run_ctx *rc)
{
	struct spec *s = rc->spec;
	struct armops_site where;
	size_t i;

	rc->ndeps = s->ndeps;
	if (!s->ndeps)
		return 0;
	rc->deps = xcalloc(s->ndeps, sizeof(*rc->deps));
	rc->dep_ports = xcalloc(s->ndeps, sizeof(*rc->dep_ports));
	for (i = 0; i < s->ndeps; i++) {
		struct dep_run *d = &rc->deps[i];
		struct sbuf nm = SBUF_INIT;

		rc->dep_ports[i] = s->deps[i].impl.ctr.port > 0 ? s->deps[i].impl.ctr.port
							       : sut_free_port();
		if (rc->dep_ports[i] <= 0)
			return error("dependency %s: no free loopback port", s->deps[i].impl.name);
		d->spec = &s->deps[i];
		sbuf_addf(&nm, "dep-%s", s->deps[i].impl.name);
		d->sut_name = sbuf_detach(&nm, NULL);
		d->anon_max = NAN;
		/* where its ports are reached from here: NULL, this loopback */
		armops_site_init(&where, s, &s->deps[i].impl);
		if (rc->seams && rc->seams->backend)
			where.ops = rc->seams->backend;
		free(s->deps[i].address);
		if (armops_address(&where, &s->deps[i].address))
			return error("dependency %s: its host's address is unknown",
				     s->deps[i].impl.name);
	}
	bind_deps(s, rc->dep_ports);
	for (i = 0; i < s->ndeps; i++) {
		rc->deps[i].impl = s->deps[i].impl;  /* after bind_deps rewrote it */
		rc->deps[i].impl.name = rc->deps[i].sut_name;
	}
	return 0;
}

/* Run one of the dependency's commands to completion with its start's
 * environment, process group and cgroup rules. 0 exit 0, 1 another exit
 * (quiet only), -1 after an error line. */
int runner_dep_command(struct run_ctx *rc, struct dep_run *d, char **argv, const char *what,
		       double timeout_s, int quiet, const char *log_path)
{
	struct sut_build_config bc;
	struct spec_impl im = d->impl;
	struct sbuf label = SBUF_INIT;
	int ret;

	im.build = spec_subst_port_argv(argv, rc->dep_ports[d - rc->deps]);
	bind_build(&bc, rc->spec, &im, NULL, log_path, NULL);
	sbuf_addf(&label, "harness.%s.%s.%s", rc->run_id, d->sut_name, what);
	bc.cgroup_name = label.buf;
	bc.timeout_s = timeout_s;
	bc.quiet = quiet;
	bc.stop = &runner_stop;
	ret = armops_command(runner_dep_site(rc, d), &bc);
	strv_free(im.build);
	sbuf_release(&label);
	return ret;
}

/* A TCP connection to addr (NULL: 127.0.0.1) and port is accepted. */
static int tcp_accepts(const char *addr, int port)
{
	struct addrinfo hints, *ai = NULL;
	char serv[16];
	int fd, ok = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	snprintf(serv, sizeof(serv), "%d", port);
	if (getaddrinfo(addr ? addr : "127.0.0.1", serv, &hints, &ai) || !ai)
		return 0;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		ok = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
		close(fd);
	}
	freeaddrinfo(ai);
	return ok;
}

/* Healthy by its tcp or command check (url and none: sut_wait_healthy). */
static int dep_wait_healthy(struct run_ctx *rc, struct dep_run *d)
{
	const struct spec_dep *sd = d->spec;
	double t0 = runner_now(rc), limit = sd->impl.health_timeout_s;
	struct sbuf log = SBUF_INIT;
	int port = 0, ret = -1;

	/* its health URL, or alive (armops_health: an agent checked it
	 * already) */
	if (!sd->health_tcp && !sd->health_cmd)
		return armops_health(d->inst, limit);
	if (sd->health_tcp) {
		char *hp = spec_subst_port(sd->health_tcp, rc->dep_ports[d - rc->deps]);

		port = atoi(hp + strlen("127.0.0.1:"));
		free(hp);
	}
	sbuf_addf(&log, "%s/%s.health.log", rc->logs_dir, d->sut_name);
	while (!runner_stop) {
		if (dep_exited(d)) {
			char buf[64];

			error("dependency %s %s before it was healthy (see %s)", sd->impl.name,
			      armops_exit_desc(d->inst, buf, sizeof(buf)),
			      armops_stderr_hint(d->inst));
			break;
		}
		if (port ? tcp_accepts(sd->address, port)
			 : runner_dep_command(rc, d, sd->health_cmd, "health", 5, 1, log.buf) == 0) {
			ret = 0;
			break;
		}
		if (runner_now(rc) - t0 > limit) {
			error("dependency %s: not healthy after %g s (%s)", sd->impl.name, limit,
			      port ? "no TCP connection accepted" : "health command never exited 0");
			break;
		}
		runner_sleep(rc, port ? 0.05 : 0.2);
	}
	sbuf_release(&log);
	return ret;
}

void runner_store_version(struct run_ctx *rc, const char *kind, const char *name,
			  const char *log_path, int ok)
{
	struct sbuf out = SBUF_INIT;
	const char *text;
	size_t len;

	if (ok && !read_file(log_path, &out, VERSION_MAX + 256)) {
		text = out.buf ? out.buf : "";
		if (!strncmp(text, "=== harness:", 12) && strchr(text, '\n'))
			text = strchr(text, '\n') + 1;   /* sut_build's marker line */
		len = strlen(text);
		while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
			len--;
		if (len > VERSION_MAX)
			len = VERSION_MAX;
		store_event(&rc->st, rc->run_id, -1, kind, "%s: %.*s", name, (int)len, text);
	} else {
		warning("%s: version command failed; no version recorded (see %s)", name, log_path);
		store_event(&rc->st, rc->run_id, -1, kind, "%s: (version command failed)", name);
	}
	sbuf_release(&out);
}

/* The version output, recorded once per invocation as a dep_version event. */
static void dep_version(struct run_ctx *rc, struct dep_run *d)
{
	struct sbuf log = SBUF_INIT;
	int ok;

	sbuf_addf(&log, "%s/%s.version.log", rc->logs_dir, d->sut_name);
	unlink(log.buf);
	ok = runner_dep_command(rc, d, d->spec->version, "version", 30, 0, log.buf) == 0;
	runner_store_version(rc, "dep_version", d->spec->impl.name, log.buf, ok);
	sbuf_release(&log);
}

static double count_cpus(const char *list)
{
	cpu_set_t set;

	if (!list || cpuset_parse(list, &set, "dependency cpus"))
		return NAN;
	return CPU_COUNT(&set);
}

/*
 * The dependency's own directory in the run, runs/<id>/deps/<name>
 * (absolute: its commands run in its repo), created before its first start
 * and passed to start, health, version and setup as HARNESS_DEP_DIR: where
 * a database puts its cluster, so nothing is written outside the run.
 */
static int dep_dir(struct run_ctx *rc, struct dep_run *d)
{
	const struct spec_impl *si = &d->spec->impl;
	struct sbuf p = SBUF_INIT;
	char abs[PATH_MAX];
	size_t i;

	if (d->dir)
		return 0;
	sbuf_addf(&p, "%s/deps/%s", rc->dir, si->name);
	if (mkdir_p(p.buf, 0755) || !realpath(p.buf, abs)) {
		error("dependency %s: cannot create %s: %s", si->name, p.buf, strerror(errno));
		sbuf_release(&p);
		return -1;
	}
	sbuf_release(&p);
	d->dir = xstrdup(abs);
	d->env = xcalloc(si->nenv + 1, sizeof(*d->env));
	for (i = 0; i < si->nenv; i++)
		d->env[i] = si->env[i];   /* borrowed from the spec */
	d->env[si->nenv].key = "HARNESS_DEP_DIR";
	d->env[si->nenv].value = d->dir;
	d->impl.env = d->env;
	d->impl.nenv = si->nenv + 1;
	return 0;
}

/* Start (or restart) one dependency and wait until healthy; its setup runs
 * after the first start and after a fresh one (lifecycle block). */
static int dep_start(struct run_ctx *rc, struct dep_run *d, int64_t wid, int fresh)
{
	struct sbuf log = SBUF_INIT;
	struct armops_hits hits;
	const char *name = d->spec->impl.name;
	int unhealthy, ret = -1;

	if (dep_dir(rc, d))
		return -1;
	if (runner_ctr_dep_build(rc, d, runner_dep_site(rc, d)))
		goto out;
	d->inst = armops_start(runner_dep_site(rc, d), NULL, &unhealthy, &hits);
	if (!dep_up(d)) {
		error("dependency %s: could not be started", name);
		goto out;
	}
	if (dep_wait_healthy(rc, d))
		goto out;
	d->starts++;
	free(d->cpus);
	d->cpus = armops_cpus(d->inst) ? xstrdup(armops_cpus(d->inst)) : NULL;
	d->ncpus = count_cpus(d->cpus);
	store_event(&rc->st, rc->run_id, wid, d->starts > 1 ? "dep_restart" : "dep_start",
		    "%s started on %s:%d%s (start %u); cpus %s (%s)", name,
		    d->spec->address ? d->spec->address : "127.0.0.1",
		    rc->dep_ports[d - rc->deps], armops_via(d->inst), d->starts,
		    d->cpus ? d->cpus : "?",
		    armops_cpus_method(d->inst) ? armops_cpus_method(d->inst) : "none");
	if (d->starts == 1 && d->spec->version)
		dep_version(rc, d);
	if (d->starts == 1)
		runner_ctr_provenance(rc, 1, name, &d->impl, NULL);
	if ((d->starts == 1 || fresh) && d->spec->setup) {
		sbuf_addf(&log, "%s/%s.setup.log", rc->logs_dir, d->sut_name);
		fprintf(stderr, "harness: setting up dependency %s\n", name);
		if (runner_dep_command(rc, d, d->spec->setup, "setup", 0, 0, log.buf)) {
			error("dependency %s: setup failed (see %s)", name, log.buf);
			goto out;
		}
	}
	ret = 0;
out:
	if (ret)
		dep_free(d);
	sbuf_release(&log);
	return ret;
}

int runner_deps_start(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->ndeps; i++) {
		if (dep_up(&rc->deps[i]))
			continue;
		fprintf(stderr, "harness: starting dependency %s\n", rc->deps[i].spec->impl.name);
		if (dep_start(rc, &rc->deps[i], -1, 0))
			return -1;
	}
	return 0;
}

/* Is d's instance due to be replaced before wp (lifecycle block, another
 * block)? The instance started with the run serves the first block. */
static int dep_new_block(struct dep_run *d, const struct window_plan *wp)
{
	int due;

	if (d->spec->lifecycle != DEP_LIFE_BLOCK)
		return 0;
	due = d->life.done && (d->life.block != wp->block || strcmp(d->life.stage, wp->stage));
	d->life.done = 1;
	d->life.block = wp->block;
	snprintf(d->life.stage, sizeof(d->life.stage), "%s", wp->stage);
	return due;
}

int runner_deps_ensure(struct run_ctx *rc, const struct window_plan *wp, int *cycled)
{
	int64_t wid = wp->id;
	size_t i;
	char buf[64];
	int fresh;

	for (i = 0; i < rc->ndeps; i++) {
		struct dep_run *d = &rc->deps[i];

		fresh = dep_new_block(d, wp);
		if (fresh && dep_up(d)) {
			*cycled = 1;
			store_event(&rc->st, rc->run_id, wid, "dep_cycle",
				    "%s: a new block (%s, block %d): stopped, started afresh",
				    d->spec->impl.name, wp->stage, wp->block);
			dep_free(d);
		}
		if (dep_up(d) && !dep_exited(d))
			continue;
		if (dep_up(d)) {
			store_event(&rc->st, rc->run_id, wid, "dep_exited", "%s %s; restarting it",
				    d->spec->impl.name, armops_exit_desc(d->inst, buf, sizeof(buf)));
			dep_free(d);
		}
		if (dep_start(rc, d, wid, fresh)) {
			if (!runner_stop)
				error("dependency %s could not be restarted; the run stops",
				      d->spec->impl.name);
			return -1;
		}
	}
	return 0;
}

void runner_deps_window_begin(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->ndeps; i++) {
		struct dep_run *d = &rc->deps[i];

		d->acct_open = d->inst && armops_acct_begin(d->inst) == 0;
	}
}

void runner_deps_window_end(struct run_ctx *rc, struct evidence *e)
{
	size_t i;

	for (i = 0; i < rc->ndeps; i++) {
		struct dep_run *d = &rc->deps[i];
		struct account_window aw;
		struct gate_dep g;

		memset(&g, 0, sizeof(g));
		g.name = d->spec->impl.name;
		g.ncpus = d->ncpus;
		g.cpu_s = NAN;
		d->anon_max = NAN;
		if (d->acct_open && armops_acct_end(d->inst, &aw) == 0) {
			g.duration_s = aw.duration_s;
			g.cpu_s = aw.cpu_s;
			g.has_throttle = aw.has_throttle;
			g.nr_throttled = aw.nr_throttled;
			d->throttled_usec = aw.throttled_usec;
			d->has_oom = aw.has_oom;
			d->oom_kill = aw.oom_kill;
			d->anon_max = aw.anon_max;
			account_window_release(&aw);
		}
		d->acct_open = 0;
		g.exited = !dep_up(d) || dep_exited(d);
		g.demand_rps = g.ceiling_rps = NAN;    /* runner_depstats_end's */
		d->stats_t[0] = d->stats_t[1] = d->stats_t[2] = d->stats_t[3] = NAN;
		evidence_add_dep(e, &g);
	}
}

int runner_deps_store(struct run_ctx *rc, int64_t wid, const struct evidence *e)
{
	size_t i;

	for (i = 0; i < e->ndeps && i < rc->ndeps; i++) {
		const struct gate_dep *g = &e->deps[i];
		const struct dep_run *d = &rc->deps[i];
		struct window_dep_row r;

		memset(&r, 0, sizeof(r));
		r.window_id = wid;
		r.name = (char *)g->name;
		r.cpus = d->cpus;
		r.ncpus = g->ncpus;
		r.duration_s = g->duration_s > 0 ? g->duration_s : NAN;
		r.cpu_s = g->cpu_s;
		r.has_throttle = g->has_throttle;
		r.nr_throttled = (int64_t)g->nr_throttled;
		r.throttled_usec = (int64_t)d->throttled_usec;
		r.has_oom = d->has_oom;
		r.oom_kill = (int64_t)d->oom_kill;
		r.anon_max = d->anon_max;
		r.exited = g->exited;
		r.demand_rps = g->demand_rps;
		r.ceiling_rps = g->ceiling_rps;
		r.stats_first_start = d->stats_t[0];
		r.stats_first_end = d->stats_t[1];
		r.stats_last_start = d->stats_t[2];
		r.stats_last_end = d->stats_t[3];
		if (store_window_dep_insert(&rc->st, &r))
			return -1;
	}
	return 0;
}

void runner_deps_stop(struct run_ctx *rc)
{
	size_t i = rc->ndeps;

	/* in reverse order: a later dependency may use an earlier one */
	while (i-- > 0)
		dep_free(&rc->deps[i]);
}

void runner_deps_release(struct run_ctx *rc)
{
	size_t i;

	runner_deps_stop(rc);
	for (i = 0; i < rc->ndeps; i++) {
		free(rc->deps[i].sut_name);
		free(rc->deps[i].label);
		free(rc->deps[i].cpus);
		free(rc->deps[i].dir);
		free(rc->deps[i].env);   /* its strings are the spec's and dir */
	}
	free(rc->deps);
	free(rc->dep_ports);
	rc->deps = NULL;
	rc->dep_ports = NULL;
	rc->ndeps = 0;
}
