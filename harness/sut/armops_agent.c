/*
 * armops_agent: an implementation on impl.host (armops.h), through an
 * agent in its --sut role started over ssh with the spec's options
 * (rsut.h): started, health-checked, accounted and polled there; its
 * commands (build, version, reset, setup) run there by rsut_run. A
 * sandboxed one is jailed there with the limits bind_sut gives a local
 * jail (the one spec-to-config mapping), as its own uid, its checkout's
 * parent (the agent's directory) shown empty; this host's group,
 * runs directory and dependency relays mean nothing there.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_link.h"
#include "sut/armops.h"
#include "sut/bind.h"
#include "sut/rsut.h"
#include "sut/rsut_fetch.h"
#include "sut/sut_wire.h"
#include "base/util.h"

struct agent_inst {
	struct armops_inst base;     /* first: armops.c hands out &base */
	struct rsut *r;
	char *via;                   /* " through an agent on HOST" */
};

static struct agent_inst *agent(struct armops_inst *i)
{
	return (struct agent_inst *)i;
}

/* The binary and ssh options that reach s's host (borrowed from s). */
static void opts_of(const struct armops_site *s, struct agent_opts *o)
{
	size_t n = 0;

	while (s->spec->workload.ssh_options && s->spec->workload.ssh_options[n])
		n++;
	memset(o, 0, sizeof(*o));
	o->binary = s->impl->host_binary;
	o->ssh_options = (const char *const *)s->spec->workload.ssh_options;
	o->nssh_options = n;
}

/* The sandbox there of a jailed start or command run as uid (its tree
 * read-only when ro), cores cpu_max; hide: the caller's buffer. */
static void sandbox_there(const struct armops_site *s, int uid, int ro, double cpu_max,
			  struct sut_wire_sandbox *out, char *hide, size_t hide_len)
{
	const char *path = s->src ? rsut_src_path(s->src) : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;

	memset(out, 0, sizeof(*out));
	out->on = 1;
	out->user = (char *)s->spec->sandbox.user;
	out->uid = uid;
	out->ro = ro;
	out->cpu_max = cpu_max;
	hide[0] = 0;
	if (slash && (size_t)(slash - path) < hide_len) {
		snprintf(hide, hide_len, "%.*s", (int)(slash - path), path);
		out->hide = hide;
	}
}

/* How rsut reaches s's host (o: the caller's, alive as long as cfg). */
static void config_of(const struct armops_site *s, struct rsut_config *cfg, struct agent_opts *o)
{
	opts_of(s, o);
	memset(cfg, 0, sizeof(*cfg));
	cfg->dest = s->impl->host;
	cfg->opts = o;
	cfg->stop = s->stop;
}

/* im as sent there: a shallow copy in *out without HARNESS_DEP_DIR, a
 * directory on this host (runner_deps.c) that means nothing there; *env
 * its env, malloc'd: free it after the call. */
static const struct spec_impl *impl_there(const struct spec_impl *im, struct spec_impl *out,
					  struct kv **env)
{
	size_t i, n = 0;

	*out = *im;
	*env = xcalloc(im->nenv + 1, sizeof(**env));
	for (i = 0; i < im->nenv; i++)
		if (strcmp(im->env[i].key, "HARNESS_DEP_DIR"))
			(*env)[n++] = im->env[i];
	out->env = *env;
	out->nenv = n;
	return out;
}

static int agent_command(const struct armops_site *s, const struct sut_build_config *bc)
{
	struct sut_build_config there = *bc;
	struct spec_impl im;
	struct kv *env;
	struct rsut_config cfg;
	struct agent_opts o;
	struct sut_wire_sandbox rs;
	struct sbuf label = SBUF_INIT;
	char hide[4096];
	int ret;

	config_of(s, &cfg, &o);
	o.binary = bc->impl->host_binary;
	cfg.stop = bc->stop;
	if (bc->cgroup_name)
		sbuf_adds(&label, bc->cgroup_name);
	else
		sbuf_addf(&label, "%s.command", s->label);
	/* a jailed command (bind_build gave it its uid): jailed there, with
	 * the limits bind_build set (sut_wire_request_build) */
	if (bc->uid >= 0) {
		sandbox_there(s, bc->uid, bc->jail && bc->jail->frozen, bc->cpu_max, &rs, hide,
			      sizeof(hide));
		cfg.sandbox = &rs;
	}
	there.impl = impl_there(bc->impl, &im, &env);
	ret = rsut_run(&cfg, &there, label.buf);
	free(env);
	sbuf_release(&label);
	return ret;
}

static int agent_address(const struct armops_site *s, char **addr)
{
	struct agent_opts o;

	opts_of(s, &o);
	*addr = agent_dest_address(s->impl->host, &o);
	return *addr ? 0 : -1;
}

static int agent_tree_give(const struct armops_site *s, int uid, int gid)
{
	(void)gid;                   /* there: the sandbox user's group */
	if (!s->src)
		return 0;            /* a trusted repo there: its agent makes it reachable */
	return rsut_src_give(s->src, s->spec->sandbox.user, uid);
}

static int agent_prepare(const struct armops_site *s, int uid, int give, int *gid)
{
	*gid = -1;                   /* the sandbox user's there */
	(void)give;                  /* a fetched checkout there is given; a repo there made
					reachable by its agent at each start (sandbox_prepare) */
	return agent_tree_give(s, uid, -1);
}

static void agent_place(const struct armops_site *s, struct sbuf *out)
{
	sbuf_addf(out, " on %s", s->impl->host);
}

static struct armops_inst *agent_start(const struct armops_site *s, const struct bind_sandbox *sb,
				       int *unhealthy, struct armops_hits *hits)
{
	struct agent_inst *a;
	struct rsut_config cfg;
	struct agent_opts o;
	struct sut_config sc;
	struct spec_impl im;
	struct kv *env;
	struct sut_wire_sandbox rs;
	struct sut_wire_hits wh;
	struct sbuf via = SBUF_INIT;
	struct rsut *r;
	char hide[4096];

	config_of(s, &cfg, &o);
	cfg.log_dir = s->log_dir;
	/* the one mapping: what a start here is given (bind_sut), sent there */
	bind_sut(&sc, s->spec, impl_there(s->impl, &im, &env), s->workdir, NULL, s->label, sb);
	sc.port = s->port;
	if (s->plain) {
		sc.https = sc.insecure = 0;
		sc.ca_file = NULL;
	}
	cfg.sut = &sc;
	if (sb) {
		sandbox_there(s, sb->uid, sb->jail.frozen, sc.cpu_max, &rs, hide, sizeof(hide));
		cfg.sandbox = &rs;
	}
	cfg.failed_hits = &wh;
	memset(&wh, 0, sizeof(wh));
	r = rsut_start(&cfg, unhealthy);
	free(env);
	hits->kernel = wh.kernel;
	memcpy(hits->disk_full, wh.disk_full, sizeof(hits->disk_full));
	if (!r)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	a->r = r;
	sbuf_addf(&via, " through an agent on %s", s->impl->host);
	a->via = sbuf_detach(&via, NULL);
	return &a->base;
}

static int agent_health(struct armops_inst *i, double timeout_s)
{
	(void)i;
	(void)timeout_s;
	return 0;                    /* its agent waited for it (rsut_start) */
}

static void agent_stop(struct armops_inst *i)
{
	rsut_free(agent(i)->r);
	free(agent(i)->via);
	free(agent(i));
}

static int agent_exited(struct armops_inst *i)
{
	return rsut_exited(agent(i)->r);
}

static int agent_lost(struct armops_inst *i, const char **why)
{
	if (!rsut_lost(agent(i)->r))
		return 0;
	*why = rsut_exit_desc(agent(i)->r);
	return 1;
}

static const char *agent_exit_desc(struct armops_inst *i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", rsut_exit_desc(agent(i)->r));
	return buf;
}

static const char *agent_stderr_hint(struct armops_inst *i)
{
	(void)i;
	return "its stderr above";
}

static const char *agent_url(struct armops_inst *i)
{
	return rsut_url(agent(i)->r);
}

static int agent_port(struct armops_inst *i)
{
	return rsut_port(agent(i)->r);
}

static int agent_netns(struct armops_inst *i)
{
	(void)i;
	return -1;
}

static const char *agent_cpus(struct armops_inst *i)
{
	return rsut_cpus(agent(i)->r);
}

static const char *agent_cpus_method(struct armops_inst *i)
{
	return rsut_cpus_method(agent(i)->r);
}

static const char *agent_argv_text(struct armops_inst *i)
{
	(void)i;
	return NULL;
}

static void agent_describe(struct armops_inst *i, const char *name, unsigned starts,
			   struct sbuf *ev)
{
	struct rsut *r = agent(i)->r;

	sbuf_addf(ev, "%s started on %s (%s, host %s) at %s (start %u); cpus %s (%s); accounting %s"
		  " there; the end of its logs comes back when it stops", name, i->site->impl->host,
		  rsut_address(r), rsut_host(r) ? rsut_host(r) : "?", rsut_url(r), starts,
		  rsut_cpus(r) ? rsut_cpus(r) : "?",
		  rsut_cpus_method(r) ? rsut_cpus_method(r) : "none",
		  rsut_backend(r) ? rsut_backend(r) : "?");
}

static const char *agent_via(struct armops_inst *i)
{
	return agent(i)->via;
}

static void agent_facts(struct armops_inst *i,
			void (*put)(void *ctx, const char *scope, const char *key, const char *value),
			void *ctx)
{
	struct rsut *r = agent(i)->r;
	const struct hostfacts *h = rsut_facts(r);
	size_t k;

	for (k = 0; k < h->n; k++)
		put(ctx, "remote", h->keys[k], h->values[k]);
	put(ctx, "remote", "dest", rsut_dest(r));
	put(ctx, "remote", "address", rsut_address(r));
}

static struct rtstats *agent_stats(struct armops_inst *i)
{
	return rsut_stats(agent(i)->r);
}

/* not in the agent protocol yet (docs/AGENT_PROTOCOL.md): unknown */
static void agent_footprint(struct armops_inst *i, struct armops_footprint *out)
{
	(void)i;
	out->startup_ms = NAN;
	out->rss_kb = out->pss_kb = -1;
}

static void agent_limits(struct armops_inst *i, struct armops_hits *h)
{
	struct sut_wire_hits wh;

	rsut_limit_hits(agent(i)->r, &wh);   /* as of its last window's end there */
	h->kernel = wh.kernel;
	memcpy(h->disk_full, wh.disk_full, sizeof(h->disk_full));
}

static int agent_acct_begin(struct armops_inst *i)
{
	return rsut_window_begin(agent(i)->r);
}

static int agent_acct_end(struct armops_inst *i, struct account_window *out)
{
	return rsut_window_end(agent(i)->r, out);
}

static int agent_freeze(struct armops_inst *i, int on, const char **freezer)
{
	(void)i;
	(void)on;
	*freezer = NULL;
	return -ENOTSUP;             /* left running, its CPU measured there */
}

static int agent_cpu_begin(struct armops_inst *i)
{
	return rsut_window_begin(agent(i)->r);
}

static int agent_cpu_end(struct armops_inst *i, double *cpu_s)
{
	struct account_window w;

	if (rsut_window_end(agent(i)->r, &w))
		return -1;
	*cpu_s = w.cpu_s;
	account_window_release(&w);
	return 0;
}

const struct armops armops_agent = {
	.name = "agent",
	.cpu_beside_window = 0,
	.command = agent_command,
	.address = agent_address,
	.tree_give = agent_tree_give,
	.prepare = agent_prepare,
	.place = agent_place,
	.start = agent_start,
	.health = agent_health,
	.stop = agent_stop,
	.exited = agent_exited,
	.lost = agent_lost,
	.exit_desc = agent_exit_desc,
	.stderr_hint = agent_stderr_hint,
	.url = agent_url,
	.port = agent_port,
	.netns = agent_netns,
	.cpus = agent_cpus,
	.cpus_method = agent_cpus_method,
	.argv_text = agent_argv_text,
	.describe = agent_describe,
	.via = agent_via,
	.facts = agent_facts,
	.stats = agent_stats,
	.limits = agent_limits,
	.footprint = agent_footprint,
	.acct_begin = agent_acct_begin,
	.acct_end = agent_acct_end,
	.freeze = agent_freeze,
	.cpu_begin = agent_cpu_begin,
	.cpu_end = agent_cpu_end,
};
