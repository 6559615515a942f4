/*
 * runner_footprint: each start of an implementation on this host, read
 * once it first answered healthy and before any request of the run
 * reached it (footprint.h; table footprint, store_footprint.h): exec to
 * healthy, its process group's RSS and PSS, its artifact's size. An
 * implementation on another host is not read (its agent does not report
 * these yet).
 */
#include <string.h>

#include "account/footprint.h"
#include "runner/runner_internal.h"
#include "store/store_footprint.h"
#include "sut/armops.h"
#include "base/util.h"

/* The artifact in this arm's tree: a rerun's checkout holds it under its
 * own work tree, at the same place as under the spec's repo. */
static int64_t artifact_bytes(struct run_ctx *rc, const struct arm *a, int64_t wid)
{
	const char *art = a->impl.artifact, *repo = a->impl.repo;
	size_t n = repo ? strlen(repo) : 0;
	struct sbuf p = SBUF_INIT;
	char why[300];
	int64_t bytes;

	if (!art)
		return -1;
	if (n && a->workdir && strcmp(a->workdir, repo) && !strncmp(art, repo, n) && art[n] == '/')
		sbuf_addf(&p, "%s%s", a->workdir, art + n);
	else
		sbuf_adds(&p, art);
	bytes = footprint_artifact_bytes(p.buf, why, sizeof(why));
	if (bytes < 0)
		store_event(&rc->st, rc->run_id, wid, "footprint", "%s: artifact %s", a->name, why);
	sbuf_release(&p);
	return bytes;
}

void runner_footprint_note(struct run_ctx *rc, struct arm *a, int64_t wid)
{
	struct armops_footprint fp;
	struct footprint_row r;

	if (!a->inst || a->impl.host)
		return;
	armops_footprint(a->inst, &fp);
	memset(&r, 0, sizeof(r));
	r.run_id = rc->run_id;
	r.impl = a->name;
	r.at = now_wall();
	r.startup_ms = fp.startup_ms;
	r.rss_kb = fp.rss_kb;
	r.pss_kb = fp.pss_kb;
	r.artifact_bytes = artifact_bytes(rc, a, wid);
	store_footprint_add(&rc->st, &r);
}
