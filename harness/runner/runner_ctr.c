/*
 * runner_ctr: what the runner does for arms that run as containers
 * (ctr.h, sut_ctr.h) beyond what sut does for every arm: record where
 * each image came from, and build a dependency's image before its first
 * start (an implementation's is built by runner_build_all like any
 * build).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sut/armops.h"
#include "sut/bind.h"
#include "sut/ctr.h"
#include "runner/runner_internal.h"
#include "store/store.h"
#include "base/util.h"

void runner_ctr_provenance(struct run_ctx *rc, int dep, const char *name,
			   const struct spec_impl *im, const char *workdir)
{
	const char *kind = dep ? "dep_version" : "impl_version";
	struct ctr_engine e;
	char *version = NULL, *full = NULL;

	if (!im->ctr.present)
		return;
	if (ctr_engine_open(im->ctr.engine, &e)) {
		store_event(&rc->st, rc->run_id, -1, kind, "%s: container (engine not found)", name);
		return;
	}
	if (ctr_provenance(&e, im, workdir ? workdir : im->repo, &version, &full)) {
		store_event(&rc->st, rc->run_id, -1, kind, "%s: container (image not found)", name);
	} else {
		store_event(&rc->st, rc->run_id, -1, kind, "%s: %s", name, version);
		store_event(&rc->st, rc->run_id, -1, dep ? "dep_image" : "impl_image", "%s: %s", name,
			    full);
	}
	free(version);
	free(full);
	ctr_engine_release(&e);
}

int runner_ctr_dep_build(struct run_ctx *rc, struct dep_run *d, const struct armops_site *site)
{
	struct sut_build_config bc;
	struct sbuf log = SBUF_INIT;
	int ret = 0;

	if (d->starts || !ctr_builds_image(&d->impl))
		return 0;
	sbuf_addf(&log, "%s/build-%s.log", rc->logs_dir, d->sut_name);
	bind_build(&bc, rc->spec, &d->impl, NULL, log.buf, NULL);
	bc.stop = &runner_stop;
	bc.build_step = 1;
	fprintf(stderr, "harness: building dependency %s's image\n", d->spec->impl.name);
	if (armops_command(site, &bc)) {
		error("dependency %s: its image did not build (see %s)", d->spec->impl.name, log.buf);
		ret = -1;
	}
	sbuf_release(&log);
	return ret;
}
