/*
 * spec_arms: what an implementation may declare about how it is reached
 * (issue 28, item 6): its health as a URL or a TCP connection, a fixed
 * port for one that cannot take {port}, its own paths for some requests
 * (implementations[].paths), and the artifact whose size the footprint
 * reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_pool.h"
#include "spec/spec_internal.h"

static int request_index(const struct spec *s, const char *name)
{
	size_t r;

	for (r = 0; r < s->workload.nrequests; r++)
		if (!strcmp(s->workload.requests[r].name, name))
			return (int)r;
	return -1;
}

static int path_has_var(const struct spec *s, const char *path)
{
	size_t pos = 0, at, nl;
	const char *nm;

	while (load_tmpl_next(path, strlen(path), &pos, &at, &nm, &nl))
		if (load_var_find(s->workload.vars, s->workload.nvars, nm, nl) >= 0)
			return 1;
	return 0;
}

static void check_health(struct vctx *v, const struct spec_impl *im, const char *p)
{
	char q[96];

	char u[112];

	snprintf(q, sizeof(q), "%s.health", p);
	snprintf(u, sizeof(u), "%s.url", q);
	/* a missing health, or a url given but refused, is said already */
	if (!im->health_url && !im->health_tcp && spec_given(v, q) && !spec_given(v, u))
		spec_err_at(v, q, "give url (a route answering 2xx) or tcp: true (a TCP connection accepted)");
	else if (im->health_url && im->health_tcp)
		spec_err_at(v, q, "give one of url and tcp, not both");
	if (im->host && (im->health_tcp || im->port)) {
		snprintf(q, sizeof(q), "%s.%s", p, im->port ? "port" : "health.tcp");
		spec_err_at(v, q, "not carried to an implementation on another host yet"
			    " (docs/AGENT_PROTOCOL.md): give it {port} and a health url");
	}
}

/* Two arms on one fixed port can be up together only when neither stays
 * up past its window (restart: per_window, the default). */
static void check_port(struct vctx *v, size_t i, const char *p)
{
	const struct spec *s = v->s;
	const struct spec_impl *im = &s->impls[i];
	char q[96];
	size_t j;

	if (!im->port)
		return;
	for (j = 0; j < i; j++) {
		const struct spec_impl *o = &s->impls[j];

		if (o->port != im->port)
			continue;
		if (o->restart == RESTART_PER_WINDOW && im->restart == RESTART_PER_WINDOW)
			continue;
		snprintf(q, sizeof(q), "%s.port", p);
		spec_err_at(v, q, "%d is also %s's port: two arms share a fixed port only with"
			    " restart: per_window (one stays up past its window otherwise)",
			    im->port, o->name);
	}
}

static void check_paths(struct vctx *v, const struct spec_impl *im, const char *p)
{
	char q[160];
	size_t k;

	for (k = 0; k < im->npaths; k++) {
		const char *name = im->paths[k].key, *path = im->paths[k].value;

		snprintf(q, sizeof(q), "%s.paths.%.60s", p, name);
		if (request_index(v->s, name) < 0)
			spec_err_at(v, q, "no request of workload.requests is named %s", name);
		else if (path[0] != '/' || strpbrk(path, " \r\n"))
			spec_err_at(v, q, "\"%s\" is not a path (starting with /, no spaces)", path);
		else if (path_has_var(v->s, path))
			spec_err_at(v, q, "\"%s\": template variables are not expanded in"
				    " implementations[].paths; give the request's own path", path);
	}
}

void spec_check_arms(struct vctx *v)
{
	struct spec *s = v->s;
	char p[64];
	size_t i;

	for (i = 0; i < s->nimpls; i++) {
		struct spec_impl *im = &s->impls[i];

		snprintf(p, sizeof(p), "implementations[%zu]", i);
		check_health(v, im, p);
		check_port(v, i, p);
		check_paths(v, im, p);
		if (im->artifact && im->repo) {
			char *abs = spec_resolve(im->repo, im->artifact);

			free(im->artifact);
			im->artifact = abs;
		}
	}
}

const char *spec_impl_path(const struct spec_impl *im, const char *name)
{
	size_t k;

	for (k = 0; k < im->npaths; k++)
		if (!strcmp(im->paths[k].key, name))
			return im->paths[k].value;
	return NULL;
}

struct load_request *spec_impl_requests(const struct spec *s, const struct spec_impl *im)
{
	const struct spec_workload *w = &s->workload;
	struct load_request *out;
	size_t k;

	if (!im->npaths)
		return NULL;
	out = xcalloc(w->nrequests, sizeof(*out));
	memcpy(out, w->requests, w->nrequests * sizeof(*out));
	for (k = 0; k < im->npaths; k++) {
		int r = request_index(s, im->paths[k].key);

		if (r >= 0)
			out[r].path = im->paths[k].value;
	}
	return out;
}
