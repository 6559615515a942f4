/*
 * bind: the spec, bound to the load engine and the implementation
 * lifecycle. Contracts in bind.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sut/bind.h"
#include "base/util.h"

void bind_load(struct load_config *cfg, const struct spec *spec, const char *url,
	       double rate, double duration_s, uint64_t seed)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->url = url;
	cfg->rate = rate;
	cfg->duration_s = duration_s;
	cfg->seed = seed;
	if (!spec) {
		/* The defaults of workload.* in spec_table.c. */
		cfg->arrival = ARRIVAL_CONSTANT;
		cfg->connections = 64;
		cfg->backlog_max = 10000;
		cfg->timeout_ms = 5000;
		cfg->threads = 1;
		cfg->transport = TRANSPORT_AUTO;
		cfg->http = HTTPV_2;
		return;
	}
	cfg->requests = spec->workload.requests;
	cfg->nrequests = spec->workload.nrequests;
	cfg->arrival = spec->workload.arrival;
	cfg->connections = spec->workload.connections;
	cfg->backlog_max = spec->workload.backlog_max;
	cfg->timeout_ms = spec->workload.timeout_ms;
	cfg->threads = spec->workload.threads;
	cfg->transport = spec->workload.transport;
	cfg->cpus = spec->workload.cpus;
	cfg->http = spec->workload.http;
	cfg->ca_file = spec->workload.tls.cacert;
	cfg->insecure = spec->workload.tls.insecure;
	cfg->vars = spec->workload.vars;
	cfg->nvars = spec->workload.nvars;
	cfg->pool_seed = spec->seed;
	cfg->pool_size = spec->workload.pool;
}

uint64_t bind_window_seed(const struct spec *spec, int64_t window_id, uint64_t stream)
{
	return spec->seed ^ ((uint64_t)window_id * 0x9e3779b97f4a7c15ull) ^ stream;
}

void bind_sut(struct sut_config *cfg, const struct spec *spec, const struct spec_impl *impl,
	      const char *workdir, const char *log_dir, const char *label,
	      const struct bind_sandbox *sandbox)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->impl = impl;
	cfg->workdir = workdir ? workdir : impl->repo;
	cfg->https = spec->workload.tls.present;
	cfg->ca_file = spec->workload.tls.cacert;
	cfg->insecure = spec->workload.tls.insecure;
	cfg->log_dir = log_dir;
	cfg->cgroup_name = label;
	cfg->backend = spec->accounting.backend;
	cfg->sample_ms = spec->accounting.sample_ms;
	cfg->run_as_uid = sandbox ? sandbox->uid : -1;
	cfg->run_as_gid = sandbox ? sandbox->gid : -1;
	cfg->jail = sandbox ? &sandbox->jail : NULL;
	cfg->forward_ports = sandbox ? sandbox->forward_ports : NULL;
	cfg->nforward = sandbox ? sandbox->nforward : 0;
	cfg->port = impl->port;
	cfg->memory_max_bytes = impl->memory_max_bytes;
	cfg->pids_max = impl->pids_max;
	if (sandbox && !cfg->memory_max_bytes)
		cfg->memory_max_bytes = spec->sandbox.memory_max_bytes;
	if (sandbox && !cfg->pids_max)
		cfg->pids_max = spec->sandbox.pids_max;
	if (sandbox) {
		cfg->cpu_max = spec->sandbox.cpu_max;
		cfg->relay_max = (unsigned)spec->sandbox.relay_connections;
		cfg->log_max_bytes = spec->sandbox.log_max_bytes;
		cfg->quota_dir = sandbox->quota_dir;
	}
}

void bind_build(struct sut_build_config *cfg, const struct spec *spec,
		const struct spec_impl *impl, const char *workdir, const char *log_path,
		const struct bind_sandbox *sandbox)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->impl = impl;
	cfg->workdir = workdir ? workdir : impl->repo;
	cfg->log_path = log_path;
	cfg->backend = spec->accounting.backend;
	cfg->uid = sandbox ? sandbox->uid : -1;
	cfg->gid = sandbox ? sandbox->gid : -1;
	cfg->jail = sandbox ? &sandbox->jail : NULL;
	if (sandbox) {
		cfg->timeout_s = spec->sandbox.build_timeout_s;
		cfg->memory_max_bytes = spec->sandbox.memory_max_bytes;
		cfg->pids_max = spec->sandbox.pids_max;
		cfg->cpu_max = spec->sandbox.cpu_max;
		cfg->log_max_bytes = spec->sandbox.log_max_bytes;
		cfg->quota_dir = sandbox->quota_dir;
	}
}

/* ------------------------------------------------------ dependencies */

char *bind_subst_deps(const char *tmpl, size_t len, const struct spec *spec, const int *ports,
		      size_t *outlen)
{
	struct sbuf out = SBUF_INIT;
	size_t pos = 0, last = 0, at, rl, nl;
	const char *name;
	int port, k;

	while (spec_dep_ref_next(tmpl, len, &pos, &at, &rl, &name, &nl, &port)) {
		k = nl ? spec_dep_index(spec, name, nl) : -1;
		if (k < 0)
			continue;
		sbuf_add(&out, tmpl + last, at - last);
		if (port)
			sbuf_addf(&out, "%d", ports[k]);
		else
			sbuf_adds(&out, spec->deps[k].address ? spec->deps[k].address : "127.0.0.1");
		last = at + rl;
	}
	sbuf_add(&out, tmpl + last, len - last);
	return sbuf_detach(&out, outlen);
}

static void subst_str(char **p, const struct spec *spec, const int *ports)
{
	char *n;

	if (!*p)
		return;
	n = bind_subst_deps(*p, strlen(*p), spec, ports, NULL);
	free(*p);
	*p = n;
}

static void subst_argv(char **argv, const struct spec *spec, const int *ports)
{
	for (; argv && *argv; argv++)
		subst_str(argv, spec, ports);
}

static void subst_impl(struct spec_impl *im, const struct spec *spec, const int *ports)
{
	size_t i;

	subst_argv(im->start, spec, ports);
	subst_argv(im->reset, spec, ports);
	for (i = 0; i < im->nenv; i++)
		subst_str(&im->env[i].value, spec, ports);
	subst_str(&im->health_url, spec, ports);
	subst_str(&im->stats_url, spec, ports);
	subst_argv(im->ctr.args, spec, ports);
	for (i = 0; i < im->ctr.nenv; i++)
		subst_str(&im->ctr.env[i].value, spec, ports);
}

/* ------------------------------------------------ what an impl is told */

static void mark_refs(const char *s, size_t len, const struct spec *spec, unsigned char *used)
{
	size_t pos = 0, at, rl, nl;
	const char *name;
	int port, k;

	while (s && spec_dep_ref_next(s, len, &pos, &at, &rl, &name, &nl, &port)) {
		k = nl ? spec_dep_index(spec, name, nl) : -1;
		if (k >= 0)
			used[k] = 1;
	}
}

static void mark_str(const char *s, const struct spec *spec, unsigned char *used)
{
	if (s)
		mark_refs(s, strlen(s), spec, used);
}

static void mark_argv(char **argv, const struct spec *spec, unsigned char *used)
{
	for (; argv && *argv; argv++)
		mark_str(*argv, spec, used);
}

/* The dependencies the workload's requests name: every implementation
 * receives them, so each may need to reach them. */
static void mark_requests(const struct spec *spec, unsigned char *used)
{
	size_t i, j;

	for (i = 0; i < spec->workload.nrequests; i++) {
		const struct load_request *r = &spec->workload.requests[i];

		mark_str(r->path, spec, used);
		for (j = 0; j < r->nheaders; j++)
			mark_str(r->headers[j].value, spec, used);
		if (r->body)
			mark_refs(r->body, r->body_len, spec, used);
	}
}

static void mark_impl(const struct spec_impl *im, const struct spec *spec, unsigned char *used)
{
	size_t k;

	mark_argv(im->start, spec, used);
	mark_argv(im->reset, spec, used);
	for (k = 0; k < im->nenv; k++)
		mark_str(im->env[k].value, spec, used);
	mark_str(im->health_url, spec, used);
	mark_str(im->stats_url, spec, used);
	mark_argv(im->ctr.args, spec, used);
	for (k = 0; k < im->ctr.nenv; k++)
		mark_str(im->ctr.env[k].value, spec, used);
}

/* refs[k * ndeps + j]: dependency k refers to dependency j (its start,
 * env, health, setup and reset), before the ports are substituted. */
static unsigned char *dep_refs(const struct spec *spec)
{
	size_t n = spec->ndeps, k;
	unsigned char *refs = xcalloc(n * n + 1, 1);

	for (k = 0; k < n; k++) {
		const struct spec_dep *d = &spec->deps[k];

		mark_impl(&d->impl, spec, refs + k * n);
		mark_str(d->health_tcp, spec, refs + k * n);
		mark_argv(d->health_cmd, spec, refs + k * n);
		mark_argv(d->setup, spec, refs + k * n);
	}
	return refs;
}

/* used |= every dependency a used one refers to, transitively. */
static void close_used(const struct spec *spec, const unsigned char *refs, unsigned char *used)
{
	size_t n = spec->ndeps, k, j;
	int more = 1;

	while (more) {
		more = 0;
		for (k = 0; k < n; k++)
			for (j = 0; used[k] && j < n; j++)
				if (refs[k * n + j] && !used[j])
					used[j] = more = 1;
	}
}

/* im->dep_forward: the ports of the dependencies its start, reset, env,
 * health and stats strings (and the requests) refer to; im->dep_used:
 * those and every dependency they refer to in turn. */
static void forward_set(struct spec_impl *im, const struct spec *spec, const int *ports,
			const unsigned char *by_requests, const unsigned char *refs)
{
	unsigned char *used = xcalloc(spec->ndeps + 1, 1);
	size_t k;

	memcpy(used, by_requests, spec->ndeps);
	mark_impl(im, spec, used);
	free(im->dep_forward);
	im->dep_forward = xcalloc(spec->ndeps + 1, sizeof(*im->dep_forward));
	im->ndep_forward = 0;
	im->ndep_used = 0;
	for (k = 0; k < spec->ndeps; k++)
		im->ndep_used += used[k] != 0;
	/* a dependency on another host (dependencies[].host) is not on this
	 * host's loopback: relaying 127.0.0.1:port would reach whatever else
	 * listens there, so it is not relayed (a sandbox cannot reach it) */
	for (k = 0; k < spec->ndeps; k++)
		if (used[k] && !spec->deps[k].impl.host)
			im->dep_forward[im->ndep_forward++] = ports[k];
	close_used(spec, refs, used);
	free(im->dep_used);
	im->dep_used = used;
}

void bind_deps(struct spec *spec, const int *ports)
{
	unsigned char *by_requests = xcalloc(spec->ndeps + 1, 1);
	unsigned char *refs = dep_refs(spec);
	size_t i, j;

	mark_requests(spec, by_requests);
	for (i = 0; i < spec->nimpls; i++) {
		forward_set(&spec->impls[i], spec, ports, by_requests, refs);
		subst_impl(&spec->impls[i], spec, ports);
	}
	free(by_requests);
	free(refs);
	for (i = 0; i < spec->ndeps; i++) {
		struct spec_dep *d = &spec->deps[i];

		subst_impl(&d->impl, spec, ports);
		subst_str(&d->health_tcp, spec, ports);
		subst_argv(d->health_cmd, spec, ports);
		subst_argv(d->version, spec, ports);
		subst_argv(d->setup, spec, ports);
	}
	for (i = 0; i < spec->workload.nrequests; i++) {
		struct load_request *r = &spec->workload.requests[i];

		subst_str(&r->path, spec, ports);
		for (j = 0; j < r->nheaders; j++)
			subst_str(&r->headers[j].value, spec, ports);
		if (r->body) {
			size_t n;
			char *b = bind_subst_deps(r->body, r->body_len, spec, ports, &n);

			free(r->body);
			r->body = b;
			r->body_len = n;
		}
	}
}
