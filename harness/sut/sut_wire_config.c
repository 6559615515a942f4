/*
 * sut_wire_config: the one spec-to-config mapping across the --sut wire
 * (sut_wire.h). The coordinator sends what bind_sut or bind_build made of
 * the spec (rsut.c); the agent rebuilds the very configuration from it
 * (sut_agent.c), adding only what its host alone has. A field is mapped
 * here or nowhere, so the two ends cannot drift apart.
 */
#include <stdlib.h>
#include <string.h>

#include "sut/sut_wire.h"
#include "base/util.h"

/* tmpl with every "{host}" replaced by addr (malloc'd; NULL stays NULL). */
static char *subst_host(const char *tmpl, const char *addr)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = tmpl, *q;

	if (!tmpl)
		return NULL;
	while ((q = strstr(p, "{host}"))) {
		sbuf_add(&sb, p, (size_t)(q - p));
		sbuf_adds(&sb, addr);
		p = q + 6;
	}
	sbuf_adds(&sb, p);
	return sbuf_detach(&sb, NULL);
}

/* The impl's strings the wire carries, copied, argv its start (a command's
 * argv for BUILD), "{host}" replaced by addr; repo is workdir. */
static void request_impl(struct sut_wire_start *w, const struct spec_impl *im, char *const *argv,
			 const char *workdir, const char *addr)
{
	size_t i, n = 0;

	w->impl.name = xstrdup(im->name);
	w->impl.repo = xstrdup(workdir ? workdir : im->repo);
	while (argv && argv[n])
		n++;
	w->impl.start = xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		w->impl.start[i] = subst_host(argv[i], addr);
	w->impl.env = xcalloc(im->nenv + 1, sizeof(*w->impl.env));
	w->impl.nenv = im->nenv;
	for (i = 0; i < im->nenv; i++) {
		w->impl.env[i].key = xstrdup(im->env[i].key);
		w->impl.env[i].value = subst_host(im->env[i].value, addr);
	}
	w->impl.health_url = subst_host(im->health_url, addr);
	w->impl.health_timeout_s = im->health_timeout_s;
	w->impl.cpus = im->cpus ? xstrdup(im->cpus) : NULL;
	w->impl.stats_url = subst_host(im->stats_url, addr);
	w->impl.stats_poll_hz = im->stats_poll_hz > 0 ? im->stats_poll_hz : 1;
	w->impl.stats_format = im->stats_format;
	w->impl.signals = xcalloc(im->nsignals + 1, sizeof(*w->impl.signals));
	w->impl.nsignals = im->nsignals;
	for (i = 0; i < im->nsignals; i++) {
		w->impl.signals[i].name = xstrdup(im->signals[i].name);
		w->impl.signals[i].pointer = xstrdup(im->signals[i].pointer);
	}
}

/* The sandbox there, with the jail's caps bind gave it (its cores, each
 * log file's cap, the dependency connections relayed at once). */
static void request_sandbox(struct sut_wire_start *w, const struct sut_wire_sandbox *sb,
			    double cpu_max, uint64_t log_max_bytes, unsigned relay_max)
{
	if (!sb || !sb->on)
		return;
	w->sandbox = *sb;
	w->sandbox.user = sb->user ? xstrdup(sb->user) : NULL;
	w->sandbox.hide = sb->hide ? xstrdup(sb->hide) : NULL;
	w->sandbox.cpu_max = cpu_max;
	w->sandbox.log_max_bytes = log_max_bytes;
	w->sandbox.relay_max = relay_max;
}

void sut_wire_request_start(struct sut_wire_start *w, const struct sut_config *c,
			    const char *addr, const struct sut_wire_sandbox *sb)
{
	memset(w, 0, sizeof(*w));
	if (sb && sb->on)
		addr = "127.0.0.1";     /* its jail's own loopback there */
	request_impl(w, c->impl, c->impl->start, c->workdir, addr);
	/* the limits: bind_sut's (the impl's, the sandbox's where it sets none) */
	w->impl.memory_max_bytes = c->memory_max_bytes ? c->memory_max_bytes
						       : c->impl->memory_max_bytes;
	w->impl.pids_max = c->pids_max ? c->pids_max : c->impl->pids_max;
	request_sandbox(w, sb, c->cpu_max, c->log_max_bytes, c->relay_max);
	w->label = xstrdup(c->cgroup_name);
	w->port = c->port;
	w->backend = c->backend;
	w->sample_ms = c->sample_ms;
	w->https = c->https;
	w->insecure = c->insecure;
	w->ca_file = c->ca_file ? xstrdup(c->ca_file) : NULL;
}

void sut_wire_request_build(struct sut_wire_start *w, const struct sut_build_config *bc,
			    const char *label, const char *addr,
			    const struct sut_wire_sandbox *sb)
{
	memset(w, 0, sizeof(*w));
	if (sb && sb->on)
		addr = "127.0.0.1";
	request_impl(w, bc->impl, bc->impl->build, bc->workdir, addr);
	/* a jailed command's limits: bind_build's (the sandbox's) where set */
	w->impl.memory_max_bytes = sb && sb->on && bc->memory_max_bytes ? bc->memory_max_bytes
									 : bc->impl->memory_max_bytes;
	w->impl.pids_max = sb && sb->on && bc->pids_max ? bc->pids_max : bc->impl->pids_max;
	request_sandbox(w, sb, bc->cpu_max, bc->log_max_bytes, 0);
	w->label = xstrdup(label);
	w->backend = bc->backend;
}

void sut_wire_start_config(const struct sut_wire_start *w, const struct jail *jail, int gid,
			   struct sut_config *c)
{
	int on = w->sandbox.on;

	memset(c, 0, sizeof(*c));
	c->impl = &w->impl;
	c->workdir = w->impl.repo;
	c->cgroup_name = w->label;
	c->backend = w->backend;
	c->sample_ms = w->sample_ms;
	c->memory_max_bytes = w->impl.memory_max_bytes;
	c->pids_max = w->impl.pids_max;
	c->run_as_uid = on ? w->sandbox.uid : -1;
	c->run_as_gid = on ? gid : -1;
	c->jail = on ? jail : NULL;
	c->cpu_max = on ? w->sandbox.cpu_max : 0;
	c->log_max_bytes = on ? w->sandbox.log_max_bytes : 0;
	c->relay_max = on ? w->sandbox.relay_max : 0;
	c->stop_grace_s = w->stop_grace_s;
	c->port = w->port;
	c->https = w->https;
	c->insecure = w->insecure;
	c->ca_file = w->ca_file;
}

void sut_wire_build_config(const struct sut_wire_start *w, struct spec_impl *im,
			   const struct jail *jail, int gid, struct sut_build_config *bc)
{
	int on = w->sandbox.on;

	*im = w->impl;
	im->build = w->impl.start;
	memset(bc, 0, sizeof(*bc));
	bc->impl = im;
	bc->workdir = w->impl.repo;
	bc->uid = on ? w->sandbox.uid : -1;
	bc->gid = on ? gid : -1;
	bc->jail = on ? jail : NULL;
	bc->cpu_max = on ? w->sandbox.cpu_max : 0;
	bc->log_max_bytes = on ? w->sandbox.log_max_bytes : 0;
	bc->memory_max_bytes = w->impl.memory_max_bytes;
	bc->pids_max = w->impl.pids_max;
	bc->backend = w->backend;
	bc->cgroup_name = w->label;
}
