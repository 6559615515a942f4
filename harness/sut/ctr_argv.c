/*
 * ctr_argv: the engine's argument vectors (ctr.h). Pure functions of the
 * spec, the engine and the limits, so the unit test reads every flag.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sut/ctr.h"
#include "base/util.h"

struct strv {
	char **v;
	size_t n, alloc;
};

static void push(struct strv *a, const char *s)
{
	XGROW(a->v, a->alloc, a->n + 2);
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void pushf(struct strv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pushf(struct strv *a, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	XGROW(a->v, a->alloc, a->n + 2);
	a->v[a->n++] = sbuf_detach(&sb, NULL);
	a->v[a->n] = NULL;
}

/* The engine and its global options. */
static void push_engine(struct strv *a, const struct ctr_engine *e)
{
	push(a, e->path);
	if (e->runtime)
		pushf(a, "--runtime=%s", e->runtime);
}

static uint64_t cap_limit(rlim_t hard, uint64_t max)
{
	return hard == RLIM_INFINITY || (uint64_t)hard > max ? max : (uint64_t)hard;
}

void ctr_ulimits(uint64_t *nofile, uint64_t *nproc)
{
	struct rlimit r;

	*nofile = getrlimit(RLIMIT_NOFILE, &r) ? 1024 : cap_limit(r.rlim_max, CTR_NOFILE_MAX);
	*nproc = getrlimit(RLIMIT_NPROC, &r) ? 4096 : cap_limit(r.rlim_max, CTR_NPROC_MAX);
}

int ctr_builds_image(const struct spec_impl *im)
{
	return im->ctr.present && im->ctr.containerfile;
}

char *ctr_image_ref(const struct spec_impl *im, const char *workdir)
{
	struct sbuf sb = SBUF_INIT;
	char h[65];
	const char *p;

	if (im->ctr.image)
		return xstrdup(im->ctr.image);
	sha256_hex(workdir, strlen(workdir), h);
	sbuf_adds(&sb, "localhost/harness-");
	/* a repository name is [a-z0-9._-]: "go@base" (a rerun's control
	 * arm) becomes "go-base" */
	for (p = im->name; *p; p++) {
		char c = *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p;

		sbuf_addf(&sb, "%c", (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
				     c == '_' || c == '-' ? c : '-');
	}
	sbuf_addf(&sb, ":%.12s", h);
	return sbuf_detach(&sb, NULL);
}

static void push_ulimits(struct strv *a, const struct ctr_limits *l)
{
	if (l->nofile)
		pushf(a, "--ulimit=nofile=%llu:%llu", (unsigned long long)l->nofile,
		      (unsigned long long)l->nofile);
	if (l->nproc)
		pushf(a, "--ulimit=nproc=%llu:%llu", (unsigned long long)l->nproc,
		      (unsigned long long)l->nproc);
}

/* Memory and CPU; pids only where the verb takes it (create). */
static void push_limits(struct strv *a, const struct ctr_limits *l, int pids)
{
	if (l->memory_bytes) {
		pushf(a, "--memory=%llub", (unsigned long long)l->memory_bytes);
		/* no swap beyond it: the limit is the limit, as a native arm's */
		pushf(a, "--memory-swap=%llub", (unsigned long long)l->memory_bytes);
	}
	if (pids && l->pids)
		pushf(a, "--pids-limit=%llu", (unsigned long long)l->pids);
	if (l->cpu_max > 0) {
		push(a, "--cpu-period=100000");
		pushf(a, "--cpu-quota=%lld", (long long)(l->cpu_max * 100000 + 0.5));
	}
	if (l->cpus)
		pushf(a, "--cpuset-cpus=%s", l->cpus);
	push_ulimits(a, l);
}

char **ctr_argv_build(const struct ctr_engine *e, const struct spec_impl *im,
		      const char *workdir, const struct ctr_limits *lim)
{
	struct strv a = { NULL, 0, 0 };
	char *ref = ctr_image_ref(im, workdir), *cf, *ctx;

	cf = xmalloc(strlen(workdir) + strlen(im->ctr.containerfile) + 2);
	snprintf(cf, strlen(workdir) + strlen(im->ctr.containerfile) + 2, "%s/%s", workdir,
		 im->ctr.containerfile);
	ctx = xmalloc(strlen(workdir) + strlen(im->ctr.context) + 2);
	snprintf(ctx, strlen(workdir) + strlen(im->ctr.context) + 2, "%s/%s", workdir,
		 im->ctr.context);
	push_engine(&a, e);
	push(&a, "build");
	push(&a, "--network=none");
	if (e->kind == CTR_PODMAN)
		push(&a, "--pull=never");
	pushf(&a, "--file=%s", cf);
	pushf(&a, "--tag=%s", ref);
	push_limits(&a, lim, 0);
	if (im->ctr.cf_hash[0])
		pushf(&a, "--label=harness.containerfile=sha256:%s", im->ctr.cf_hash);
	push(&a, ctx);
	free(cf);
	free(ctx);
	free(ref);
	return a.v;
}

static void push_env(struct strv *a, const struct kv *kv, size_t n, int port)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *v = spec_subst_port(kv[i].value, port);

		pushf(a, "--env=%s=%s", kv[i].key, v);
		free(v);
	}
}

/* No capability, no write to its root, no privilege gained by exec, and
 * its uid 0 is an unprivileged uid of the host (its own user namespace:
 * podman's --uidmap; docker has no such flag, its daemon remaps every
 * container when started with --userns-remap, which sut_ctr.c requires);
 * no host path is ever mounted into any container. */
static void push_untrusted(struct strv *a, int kind)
{
	push(a, "--cap-drop=all");
	push(a, "--read-only");
	push(a, "--security-opt=no-new-privileges");
	if (kind == CTR_PODMAN) {
		push(a, "--uidmap=0:200000:65536");
		push(a, "--gidmap=0:200000:65536");
	}
}

char **ctr_argv_create(const struct ctr_engine *e, const struct ctr_create *c)
{
	const struct spec_impl *im = c->impl;
	struct strv a = { NULL, 0, 0 };
	char **args;
	size_t i;

	push_engine(&a, e);
	push(&a, "create");
	pushf(&a, "--name=%s", c->name);
	pushf(&a, "--label=harness.owner=%s", c->owner);
	pushf(&a, "--network=%s", c->host_network ? "host" : "none");
	push(&a, "--pull=never");       /* no registry: a missing image is an error */
	/* the harness owns the lifecycle: no restart, no health runs */
	push(&a, "--restart=no");
	push(&a, "--no-healthcheck");
	push_limits(&a, &c->lim, 1);
	if (c->untrusted)
		push_untrusted(&a, e->kind);
	push_env(&a, im->env, im->nenv, c->port);
	push_env(&a, im->ctr.env, im->ctr.nenv, c->port);
	push(&a, c->image);
	args = spec_subst_port_argv(im->ctr.args, c->port);
	for (i = 0; args[i]; i++)
		push(&a, args[i]);
	strv_free(args);
	return a.v;
}

char **ctr_argv_verb(const struct ctr_engine *e, const char *verb, const char *opt,
		     const char *name)
{
	struct strv a = { NULL, 0, 0 };

	push_engine(&a, e);
	push(&a, verb);
	if (opt)
		push(&a, opt);
	push(&a, name);
	return a.v;
}
