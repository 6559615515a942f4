/*
 * spec_hosts: the checks of implementations[].host the tables cannot
 * make: an ssh destination (not an option), a binary the remote shell
 * takes as one word (agent_link.h), and the refusal of what a dependency
 * on another host cannot do yet (its health command would run here). An
 * implementation's build, version and reset run there, jailed there with
 * sandbox: always or as a rerun's fetched commit (sut_agent.h).
 */
#include <stdio.h>

#include "agent/agent_link.h"
#include "spec/spec_internal.h"

/* A dependency on another host: what runs here cannot (health.command). */
static void check_dep_hosts(struct vctx *v)
{
	const struct spec *s = v->s;
	char p[96];
	size_t i;

	for (i = 0; i < s->ndeps; i++) {
		const struct spec_dep *d = &s->deps[i];
		const char *why = "";

		if (!d->impl.host)
			continue;
		snprintf(p, sizeof(p), "dependencies[%zu].host", i);
		if (agent_dest_check(d->impl.host, &why))
			spec_err_at(v, p, "'%s': %s", d->impl.host, why);
		snprintf(p, sizeof(p), "dependencies[%zu].host_binary", i);
		if (d->impl.host_binary && agent_binary_check(d->impl.host_binary, &why))
			spec_err_at(v, p, "'%s': %s", d->impl.host_binary, why);
		snprintf(p, sizeof(p), "dependencies[%zu].health.command", i);
		if (d->health_cmd)
			spec_err_at(v, p, "not supported with host (%s) yet: it would run on this host",
				    d->impl.host);
	}
}

void spec_check_hosts(struct vctx *v)
{
	const struct spec *s = v->s;
	char p[96];
	size_t i;

	for (i = 0; i < s->nimpls; i++) {
		const struct spec_impl *im = &s->impls[i];
		const char *why = "";

		if (!im->host)
			continue;
		snprintf(p, sizeof(p), "implementations[%zu].host", i);
		if (agent_dest_check(im->host, &why))
			spec_err_at(v, p, "'%s': %s", im->host, why);
		snprintf(p, sizeof(p), "implementations[%zu].host_binary", i);
		if (im->host_binary && agent_binary_check(im->host_binary, &why))
			spec_err_at(v, p, "'%s': %s", im->host_binary, why);
	}
	check_dep_hosts(v);
}
