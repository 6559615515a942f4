/*
 * spec: the module's entry: load/parse (spec_yaml.c builds the node tree,
 * spec_validate.c fills struct spec), the hash that freezes a spec, and
 * spec_free. Beneath: spec_lookup.c (questions asked of a parsed spec) and
 * spec_diag.c (diagnostics).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec_internal.h"
#include "base/util.h"

/* ------------------------------------------------------------- freeing */

static void free_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void free_kv(struct kv *kv, size_t n);

static void free_ctr(struct spec_container *c)
{
	free(c->image);
	free(c->containerfile);
	free(c->context);
	free_argv(c->args);
	free_kv(c->env, c->nenv);
}

static void free_kv(struct kv *kv, size_t n)
{
	size_t i;

	for (i = 0; kv && i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void free_signals(struct spec_signal *sig, size_t n)
{
	size_t i;

	for (i = 0; sig && i < n; i++) {
		free(sig[i].name);
		free(sig[i].pointer);
	}
	free(sig);
}

void spec_free(struct spec *s)
{
	size_t i, j;

	if (!s)
		return;
	for (i = 0; i < s->nimpls; i++) {
		struct spec_impl *im = &s->impls[i];
		free(im->name);
		free(im->repo);
		free_argv(im->build);
		free_argv(im->version);
		free_argv(im->start);
		free_argv(im->reset);
		free_kv(im->env, im->nenv);
		free(im->health_url);
		free_kv(im->paths, im->npaths);
		free(im->artifact);
		free(im->stats_url);
		free_signals(im->signals, im->nsignals);
		for (j = 0; j < im->nderived; j++) {
			free(im->derived[j].name);
			free(im->derived[j].expr);
		}
		free(im->derived);
		free(im->cpus);
		free(im->host);
		free(im->host_binary);
		free(im->dep_forward);
		free(im->dep_used);
		free_ctr(&im->ctr);
	}
	free(s->impls);
	for (i = 0; i < s->ndeps; i++) {
		struct spec_dep *d = &s->deps[i];
		free(d->impl.name);
		free(d->impl.repo);
		free_argv(d->impl.start);
		free_argv(d->impl.reset);
		free_kv(d->impl.env, d->impl.nenv);
		free(d->impl.health_url);
		free(d->impl.cpus);
		free(d->health_tcp);
		free(d->impl.host);
		free(d->impl.host_binary);
		free(d->address);
		free_ctr(&d->impl.ctr);
		free_argv(d->stats_cmd);
		free(d->stats_demand);
		free_signals(d->stats_signals, d->nstats_signals);
		free_argv(d->ladder_cmd);
		free(d->ladder_throughput);
		free_argv(d->health_cmd);
		free_argv(d->version);
		free_argv(d->setup);
	}
	free(s->deps);
	for (i = 0; i < s->workload.nrequests; i++) {
		struct load_request *r = &s->workload.requests[i];
		free(r->name);
		free(r->method);
		free(r->path);
		free_kv(r->headers, r->nheaders);
		free(r->body);
		free(r->body_file);
		free(r->expect.status);
		free(r->expect.body_contains);
		free(r->expect.content_type);
		free_kv(r->expect.json, r->expect.njson);
	}
	for (i = 0; i < s->workload.ngenerators; i++) {
		free(s->workload.generators[i].host);
		free(s->workload.generators[i].cpus);
		free(s->workload.generators[i].binary);
	}
	free(s->workload.generators);
	free_argv(s->workload.ssh_options);
	free(s->workload.target_host);
	free(s->workload.requests);
	for (i = 0; i < s->workload.nvars; i++) {
		struct load_var *v = &s->workload.vars[i];
		free(v->name);
		free(v->uniform);
		free(v->csv);
		free(v->column);
		free(v->data);
		free(v->values);   /* the values point into vbuf */
		free(v->vbuf);
	}
	free(s->workload.vars);
	free(s->workload.tls.cacert);
	free(s->workload.cpus);
	free_argv(s->workload.preflight.ignore);
	for (i = 0; i < s->ngates; i++) {
		struct gate_params *g = &s->gates[i];
		for (j = 0; j < g->nvalues; j++) {
			free(g->values[j].key);
			free(g->values[j].str);
			free_kv(g->values[j].map, g->values[j].nmap);
		}
		free(g->values);
		free(g->name);
	}
	free(s->gates);
	free_argv(s->warmup.gates);
	free_argv(s->warmup.head_gates);
	free_argv(s->window_gates);
	free(s->sandbox.user);
	free(s->name);
	free(s->path);
	free(s->base_dir);
	free(s->text);
	free(s->refusals);
	free(s->warnings);
	free(s);
}

/* ------------------------------------------------------------- parsing */

/* The hash that freezes a spec: SHA-256 over the spec's bytes, then the
 * bytes of each request's body_file in request order, then those of each
 * csv variable's file in declared order and, when there are variables,
 * the pool generator's version (specs/README.md): the pool is a function
 * of these and the seed; then the SHA-256 (hex) of each container's
 * Containerfile, implementations then dependencies, where it was read. */
static void spec_hash(struct spec *s)
{
	struct sha256 c;
	size_t i;

	sha256_init(&c);
	sha256_update(&c, s->text, s->text_len);
	for (i = 0; i < s->workload.nrequests; i++) {
		const struct load_request *r = &s->workload.requests[i];
		if (r->body_file && r->body)
			sha256_update(&c, r->body, r->body_len);
	}
	for (i = 0; i < s->workload.nvars; i++) {
		const struct load_var *v = &s->workload.vars[i];
		if (v->data)
			sha256_update(&c, v->data, v->data_len);
	}
	if (s->workload.nvars)
		sha256_update(&c, LOAD_POOL_VERSION, strlen(LOAD_POOL_VERSION));
	for (i = 0; i < s->nimpls; i++)
		if (s->impls[i].ctr.cf_hash[0])
			sha256_update(&c, s->impls[i].ctr.cf_hash, 64);
	for (i = 0; i < s->ndeps; i++)
		if (s->deps[i].impl.ctr.cf_hash[0])
			sha256_update(&c, s->deps[i].impl.ctr.cf_hash, 64);
	sha256_final_hex(&c, s->hash);
}

static char *dir_of(const char *path)
{
	char *slash, *d, *abs, cwd[PATH_MAX];
	struct sbuf sb = SBUF_INIT;

	d = xstrdup(path);
	slash = strrchr(d, '/');
	if (slash == d)
		d[1] = '\0';
	else if (slash)
		*slash = '\0';
	else {
		free(d);
		d = xstrdup(".");
	}
	abs = realpath(d, NULL);
	if (abs) {
		free(d);
		return abs;
	}
	if (d[0] == '/')
		return d;
	if (!getcwd(cwd, sizeof(cwd)))
		return d;
	sbuf_addf(&sb, "%s/%s", cwd, d);
	free(d);
	return sbuf_detach(&sb, NULL);
}

struct spec *spec_parse_diag(const char *text, size_t len, const char *path,
			     const char *base_dir, struct sbuf *errs)
{
	struct spec_diags d = { 0 }, refuse = { 0 }, warn = { 0 };
	struct ydoc doc;
	struct spec *s = xcalloc(1, sizeof(*s));
	struct sbuf out = SBUF_INIT;
	const char *file = path ? path : "spec";

	s->path = xstrdup(file);
	s->base_dir = base_dir ? xstrdup(base_dir) : dir_of(file);
	s->text = xmalloc(len + 1);
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->text_len = len;

	if (ydoc_parse(&doc, text, len, &d) == 0)
		spec_validate(s, doc.root, &d, &refuse, &warn);
	ydoc_release(&doc);
	if (d.n || d.more) {
		/* refusals judge a plan; with errors there is none yet */
		spec_diags_format(&d, file, &out);
		if (errs)
			sbuf_add(errs, out.buf, out.len);
		else
			fputs(out.buf, stderr);
		sbuf_release(&out);
		spec_diags_release(&d);
		spec_diags_release(&refuse);
		spec_diags_release(&warn);
		spec_free(s);
		return NULL;
	}
	if (refuse.n) {
		spec_diags_format(&refuse, file, &out);
		s->refusals = sbuf_detach(&out, NULL);
	}
	if (warn.n) {
		spec_diags_format(&warn, file, &out);
		s->warnings = sbuf_detach(&out, NULL);
	}
	spec_diags_release(&d);
	spec_diags_release(&refuse);
	spec_diags_release(&warn);
	spec_hash(s);
	return s;
}

struct spec *spec_parse(const char *text, size_t len, const char *path, const char *base_dir)
{
	return spec_parse_diag(text, len, path, base_dir, NULL);
}

struct spec *spec_load_diag(const char *path, struct sbuf *errs)
{
	struct sbuf sb = SBUF_INIT;
	struct spec *s = NULL;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (errs)
			sbuf_addf(errs, "harness: %s: cannot read: %s\n", path, strerror(errno));
		else
			error("%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (errs)
			sbuf_addf(errs, "harness: %s: is a directory, not a spec file\n", path);
		else
			error("%s: is a directory, not a spec file", path);
		goto out;
	}
	r = read_fd(fd, &sb, SPEC_MAX_BYTES);
	if (r < 0) {
		if (errs)
			sbuf_addf(errs, "harness: %s: read error: %s\n", path, strerror(errno));
		else
			error("%s: read error: %s", path, strerror(errno));
		goto out;
	}
	if (r > 0) {
		/* say how big it is without reading all of it */
		size_t size = S_ISREG(st.st_mode) && (size_t)st.st_size > sb.len ?
			(size_t)st.st_size : sb.len;
		struct spec_diags d = { 0 };
		struct sbuf o = SBUF_INIT;
		spec_diag_add(&d, 1, 1, "yaml", "the file is %zu bytes; a spec may be at most 1 MiB",
			      size);
		spec_diags_format(&d, path, &o);
		if (errs)
			sbuf_add(errs, o.buf, o.len);
		else
			fputs(o.buf, stderr);
		sbuf_release(&o);
		spec_diags_release(&d);
		goto out;
	}
	s = spec_parse_diag(sb.buf, sb.len, path, NULL, errs);
out:
	if (fd >= 0)
		close(fd);
	sbuf_release(&sb);
	return s;
}

struct spec *spec_load(const char *path)
{
	return spec_load_diag(path, NULL);
}
