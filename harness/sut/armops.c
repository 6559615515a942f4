/*
 * armops: the backend an implementation runs on, and the calls through
 * its table (armops.h). Nothing here knows a backend's insides.
 */
#include <string.h>

#include "sut/armops.h"

const struct armops *armops_pick(const struct spec_impl *impl)
{
	return impl->ctr.present ? &armops_ctr : impl->host ? &armops_agent : &armops_local;
}

void armops_site_init(struct armops_site *s, const struct spec *spec,
		      const struct spec_impl *impl)
{
	memset(s, 0, sizeof(*s));
	s->ops = armops_pick(impl);
	s->spec = spec;
	s->impl = impl;
}

int armops_command(const struct armops_site *s, const struct sut_build_config *bc)
{
	return s->ops->command(s, bc);
}

int armops_address(const struct armops_site *s, char **addr)
{
	return s->ops->address(s, addr);
}

int armops_tree_give(const struct armops_site *s, int uid, int gid)
{
	return s->ops->tree_give(s, uid, gid);
}

int armops_prepare(const struct armops_site *s, int uid, int give, int *gid)
{
	return s->ops->prepare(s, uid, give, gid);
}

void armops_place(const struct armops_site *s, struct sbuf *out)
{
	s->ops->place(s, out);
}

struct armops_inst *armops_start(const struct armops_site *s, const struct bind_sandbox *sb,
				 int *unhealthy, struct armops_hits *hits)
{
	struct armops_inst *i;

	*unhealthy = 0;
	memset(hits, 0, sizeof(*hits));
	i = s->ops->start(s, sb, unhealthy, hits);
	if (i) {
		i->ops = s->ops;
		i->site = s;
	}
	return i;
}

int armops_health(struct armops_inst *i, double timeout_s)
{
	return i->ops->health(i, timeout_s);
}

void armops_stop(struct armops_inst *i)
{
	if (i)
		i->ops->stop(i);
}

int armops_exited(struct armops_inst *i)
{
	return i->ops->exited(i);
}

int armops_lost(struct armops_inst *i, const char **why)
{
	return i->ops->lost(i, why);
}

const char *armops_exit_desc(struct armops_inst *i, char *buf, size_t n)
{
	return i->ops->exit_desc(i, buf, n);
}

const char *armops_stderr_hint(struct armops_inst *i)
{
	return i->ops->stderr_hint(i);
}

const char *armops_url(struct armops_inst *i)
{
	return i->ops->url(i);
}

int armops_port(struct armops_inst *i)
{
	return i->ops->port(i);
}

int armops_netns(struct armops_inst *i)
{
	return i->ops->netns(i);
}

const char *armops_cpus(struct armops_inst *i)
{
	return i->ops->cpus(i);
}

const char *armops_cpus_method(struct armops_inst *i)
{
	return i->ops->cpus_method(i);
}

const char *armops_argv_text(struct armops_inst *i)
{
	return i->ops->argv_text(i);
}

void armops_describe(struct armops_inst *i, const char *name, unsigned starts,
		     struct sbuf *ev)
{
	i->ops->describe(i, name, starts, ev);
}

const char *armops_via(struct armops_inst *i)
{
	return i->ops->via(i);
}

void armops_facts(struct armops_inst *i,
		  void (*put)(void *ctx, const char *scope, const char *key, const char *value),
		  void *ctx)
{
	i->ops->facts(i, put, ctx);
}

struct rtstats *armops_stats(struct armops_inst *i)
{
	return i->ops->stats(i);
}

void armops_footprint(struct armops_inst *i, struct armops_footprint *out)
{
	i->ops->footprint(i, out);
}

void armops_limits(struct armops_inst *i, struct armops_hits *h)
{
	i->ops->limits(i, h);
}

int armops_acct_begin(struct armops_inst *i)
{
	return i->ops->acct_begin(i);
}

int armops_acct_end(struct armops_inst *i, struct account_window *out)
{
	return i->ops->acct_end(i, out);
}

int armops_freeze(struct armops_inst *i, int on, const char **freezer)
{
	return i->ops->freeze(i, on, freezer);
}

int armops_cpu_begin(struct armops_inst *i)
{
	return i->ops->cpu_begin(i);
}

int armops_cpu_end(struct armops_inst *i, double *cpu_s)
{
	return i->ops->cpu_end(i, cpu_s);
}
