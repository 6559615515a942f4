/*
 * runner_record: what a run records of where it comes from, for
 * runner.c (runner_internal.h): its runs row, one row per implementation
 * (repository, commit, branch, dirty; a rerun's ref and remote), the
 * host's facts, and the checkouts fetched on other hosts.
 */
#include <stdio.h>
#include <string.h>

#include "gate/judge.h"
#include "base/prov.h"
#include "sut/rsut_fetch.h"
#include "runner/runner_internal.h"
#include "store/store_run.h"
#include "base/util.h"
#include "base/testhook.h"

static const char *stages_text(unsigned st, char *buf, size_t n)
{
	static const char *const names[] = { "saturation", "ladder", "confirm", "soak" };
	static const unsigned bits[] = { STAGE_SATURATION, STAGE_LADDER, STAGE_CONFIRM, STAGE_SOAK };
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < 4 && at < n; i++)
		if (st & bits[i])
			at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", names[i]);
	return buf;
}

int runner_record_run(struct run_ctx *rc, const struct run_opts *o, const char *spec_abs,
		      int dirty, const struct prov_repo *spec_repo)
{
	struct run_record r;
	char stages[64];
	size_t k;

	/* Every string borrowed: r is written, never released. */
	run_record_init(&r);
	r.id = rc->run_id;
	r.spec_name = (char *)rc->spec->name;
	r.spec_path = (char *)spec_abs;
	r.spec_text.p = (unsigned char *)rc->spec->text;
	r.spec_text.len = rc->spec->text_len;
	r.spec_hash = (char *)rc->spec->hash;
	r.seed = (int64_t)rc->spec->seed;
	r.stages = (char *)stages_text(rc->stages, stages, sizeof(stages));
	r.created_at = runner_now(rc);
	r.status = "running";
	r.exploratory = dirty || o->exploratory;
	for (k = 0; k < rc->narms; k++)
		if (rc->arms[k].jailed) {
			r.sandbox_user = (char *)rc->spec->sandbox.user;
			break;
		}
	r.harness_version = (char *)harness_version;
	r.parent_run = (char *)o->parent_run;
	r.spec_repo = spec_repo->path;
	r.spec_commit = spec_repo->commit;
	r.spec_branch = spec_repo->branch;
	r.spec_dirty = spec_repo->dirty;
	r.rules = JUDGE_RULES;
	return store_run_insert(&rc->st, &r);
}

int runner_record_impls(struct run_ctx *rc, const struct run_opts *o)
{
	size_t i, k;

	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];
		struct prov_repo pr;
		struct run_impl im;
		const struct run_arm *ra = NULL;
		int bad;

		for (k = 0; o && k < o->narms; k++)
			if (!strcmp(o->arms[k].name, a->name))
				ra = &o->arms[k];
		memset(&pr, 0, sizeof(pr));
		/* a checkout on another host is known by what its agent
		 * reported (ra), never by a path read here */
		if (!a->src)
			prov_repo_read(a->workdir, &pr);
		/* Every string borrowed: im is written, never released. */
		run_impl_init(&im);
		im.run_id = rc->run_id;
		im.name = a->name;
		im.ord = (int)i;
		im.repo = pr.path ? pr.path : a->workdir;
		im.commit_id = ra && ra->commit ? (char *)ra->commit : pr.commit;
		im.branch = pr.branch;
		im.dirty = pr.dirty;
		im.diff_hash = pr.diff_hash[0] ? pr.diff_hash : NULL;
		if (ra) {
			im.ref_asked = (char *)ra->ref_asked;
			im.remote_url = (char *)ra->remote_url;
			im.src_dir = (char *)ra->src_dir;
			im.baseline_of = (char *)ra->clone_of;
		}
		bad = store_impl_insert(&rc->st, &im);
		prov_repo_release(&pr);
		if (bad)
			return -1;
	}
	return 0;
}

int runner_record_facts(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->facts.n; i++) {
		struct host_fact f = { rc->run_id, rc->facts.keys[i], rc->facts.values[i] };

		if (store_host_fact_upsert(&rc->st, &f))
			return -1;
	}
	if (testhooks()->host_facts)
		store_event(&rc->st, rc->run_id, -1, "test_host_facts",
			    "HARNESS_TEST_HOST_FACTS=%s", testhooks()->host_facts);
	return 0;
}

void runner_note_generator_sched(struct run_ctx *rc)
{
	const char *v = hostfacts_get(&rc->facts, "generator_sched");

	if (!v || !strcmp(v, "fifo"))
		return;
	warning("generator threads run SCHED_OTHER, not SCHED_FIFO: real-time scheduling is not"
		" permitted here (host fact generator_sched=%s; root, CAP_SYS_NICE or ulimit -r 1"
		" permit it); on a busy host the generator gate may void windows", v);
	store_event(&rc->st, rc->run_id, -1, "generator_sched",
		    "generator threads SCHED_OTHER (real-time not permitted%s)",
		    testhooks()->no_rt ? ": HARNESS_TEST_NO_RT" : "");
}

void runner_record_remote_checkouts(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++)
		if (rc->arms[i].src)
			store_event(&rc->st, rc->run_id, -1, "remote_checkout",
				    "%s: fetched on %s into %s (held by its agent there, removed"
				    " when this process ends)", rc->arms[i].name,
				    rsut_src_dest(rc->arms[i].src), rsut_src_path(rc->arms[i].src));
}
