/*
 * spec_ctr: the checks of implementations[].container and
 * dependencies[].container the tables cannot make: a container replaces
 * start (one of the two), needs an image or a Containerfile, runs on this
 * host, and its Containerfile (relative to the repo) is hashed into the
 * spec hash when it can be read at load time (a rerun's commit may hold a
 * Containerfile the spec's own tree does not: it is built, never hashed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"

#define CF_MAX (1024 * 1024)

/* One arm's container block at key path `at` ("implementations[0]"). */
static void check_one(struct vctx *v, struct spec_impl *im, const char *at)
{
	struct spec_container *c = &im->ctr;
	struct sbuf sb = SBUF_INIT;
	char p[128];
	char *abs;

	snprintf(p, sizeof(p), "%s.start", at);
	if (!c->present)
		return;         /* start's absence: the table's F_REQ_NOCTR */
	if (im->start)
		spec_err_at(v, p, "not with container: its command is container.args");
	snprintf(p, sizeof(p), "%s.container", at);
	if (!c->image && !c->containerfile)
		spec_err_at(v, p, "needs image (a local image) or containerfile (to build one)");
	if (im->host)
		spec_err_at(v, p, "not with host (%s): containers run on this host", im->host);
	snprintf(p, sizeof(p), "%s.container.containerfile", at);
	if (c->containerfile && c->containerfile[0] == '/')
		spec_err_at(v, p, "'%s': must be relative to repo", c->containerfile);
	snprintf(p, sizeof(p), "%s.container.context", at);
	if (c->context && c->context[0] == '/')
		spec_err_at(v, p, "'%s': must be relative to repo", c->context);
	if (!c->containerfile || c->containerfile[0] == '/' || !im->repo)
		return;
	abs = spec_resolve(im->repo, c->containerfile);
	if (!read_file(abs, &sb, CF_MAX))
		sha256_hex(sb.buf ? sb.buf : "", sb.len, c->cf_hash);
	free(abs);
	sbuf_release(&sb);
}

void spec_check_containers(struct vctx *v)
{
	struct spec *s = v->s;
	char at[64];
	size_t i;

	for (i = 0; i < s->nimpls; i++) {
		snprintf(at, sizeof(at), "implementations[%zu]", i);
		check_one(v, &s->impls[i], at);
	}
	for (i = 0; i < s->ndeps; i++) {
		snprintf(at, sizeof(at), "dependencies[%zu]", i);
		check_one(v, &s->deps[i].impl, at);
	}
}
