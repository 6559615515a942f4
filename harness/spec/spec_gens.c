/*
 * spec_gens: the checks of workload.generators the tables cannot make:
 * each host an ssh destination (not an option), each binary a path the
 * remote shell takes as one word (agent_link.h), no host twice.
 */
#include <stdio.h>
#include <string.h>

#include "agent/agent_link.h"
#include "spec/spec_internal.h"

void spec_check_generators(struct vctx *v)
{
	const struct spec_workload *w = &v->s->workload;
	char p[96];
	size_t i, j;

	for (i = 0; i < w->ngenerators; i++) {
		const struct spec_generator *g = &w->generators[i];
		const char *why = "";

		snprintf(p, sizeof(p), "workload.generators[%zu].host", i);
		if (g->host && agent_dest_check(g->host, &why))
			spec_err_at(v, p, "'%s': %s", g->host, why);
		for (j = 0; g->host && j < i; j++)
			if (w->generators[j].host && !strcmp(w->generators[j].host, g->host))
				spec_err_at(v, p, "'%s' is generators[%zu] already", g->host, j);
		snprintf(p, sizeof(p), "workload.generators[%zu].binary", i);
		if (g->binary && agent_binary_check(g->binary, &why))
			spec_err_at(v, p, "'%s': %s", g->binary, why);
	}
}
