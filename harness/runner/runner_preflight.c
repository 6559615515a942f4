/*
 * runner_preflight: the pre-flight of a run (harness/runner/preflight.h;
 * docs/DESIGN.md, "Pre-flight"), after the builds and the dependencies
 * and before the first window of `run`, `rerun` and a `resume` whose run
 * has no passing pre-flight recorded. Every arm is started (and health-
 * checked) as for a window, the cases are sent, the result is stored in
 * the runs row and the arms are stopped again, so each window still
 * starts as its restart policy says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/preflight.h"
#include "runner/runner_internal.h"
#include "store/store_run.h"
#include "sut/sut.h"
#include "base/util.h"

/* The failing-case lines, each printed as one "harness: pre-flight: " line. */
static void print_failures(const char *lines)
{
	const char *p = lines, *e;

	while (p && *p) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		fprintf(stderr, "harness: pre-flight: %.*s\n", (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
}

/* The index of candidate arm i's @base control, or -1 (none in this
 * rerun, or arm i is not a commit under test). */
static int base_of(const struct run_ctx *rc, size_t i)
{
	size_t k, n = strlen(rc->arms[i].name);

	for (k = 0; rc->arms[i].candidate && k < rc->narms; k++)
		if (rc->arms[k].frozen && !strncmp(rc->arms[k].name, rc->arms[i].name, n) &&
		    !strcmp(rc->arms[k].name + n, "@base"))
			return (int)k;
	return -1;
}

/* Every target's base (workload.preflight.base); a commit under test
 * with none is said once, on stderr and in the events: its answers are
 * checked against its expect only. */
static void set_bases(struct run_ctx *rc, struct preflight_target *t)
{
	size_t i;

	for (i = 0; i < rc->narms; i++) {
		t[i].base = base_of(rc, i);
		if (t[i].base >= 0 || !rc->arms[i].candidate ||
		    rc->spec->workload.preflight.base != EQUIV_STRICT)
			continue;
		fprintf(stderr, "harness: pre-flight: %s: no %s@base arm in this rerun (no "
			"--with-baseline): its answers are checked against their expect only, "
			"not against the base's\n", rc->arms[i].name, rc->arms[i].name);
		store_event(&rc->st, rc->run_id, -1, "preflight_no_base",
			    "%s: no @base arm: answers checked against their expect only",
			    rc->arms[i].name);
	}
}

/* The failing lines as events (audit and the report read them), the
 * run's failure detail: the first line blaming the arm at fault. */
static void record_failures(struct run_ctx *rc, const struct preflight_result *res)
{
	const char *p = res->failures.buf, *e;

	for (; *p; p = e + 1) {
		e = strchr(p, '\n');
		store_event(&rc->st, rc->run_id, -1, "preflight_failure", "%.*s", (int)(e - p), p);
	}
}

int runner_preflight(struct run_ctx *rc)
{
	const struct spec_preflight *pf = &rc->spec->workload.preflight;
	struct preflight_target *t = xcalloc(rc->narms ? rc->narms : 1, sizeof(*t));
	struct window_plan wp = { .id = -1, .stage = "preflight", .rung = -1, .block = -1 };
	struct preflight_result res;
	struct sbuf text = SBUF_INIT, sum = SBUF_INIT;
	size_t i;
	int ret = -1, blamed_candidate = 0;

	preflight_result_init(&res);
	if (!pf->sends) {
		static const char none[] = "not run (workload.preflight.sends: 0)";

		fprintf(stderr, "harness: pre-flight: %s\n", none);
		if (store_run_set_preflight(&rc->st, rc->run_id, 0, 0, none))
			goto out;
		store_event(&rc->st, rc->run_id, -1, "preflight", "%s", none);
		rc->preflight_done = 1;
		ret = 0;
		goto out;
	}
	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];

		wp.arm = a;
		if (runner_arm_start(rc, a, &wp))
			goto out;   /* one error line; fail_kind says whose fault */
		t[i].name = a->name;
		t[i].url = runner_arm_url(a);
		t[i].impl = &a->impl;
		t[i].candidate = a->candidate;
		t[i].netns_fd = runner_arm_netns(a);
	}
	/* every arm up first: one that exits or does not listen is named
	 * before anything is sent (runner_arm_start) */
	fprintf(stderr, "harness: pre-flight: %zu request%s x %d send%s to %zu implementation%s\n",
		rc->spec->workload.nrequests, rc->spec->workload.nrequests == 1 ? "" : "s",
		pf->sends, pf->sends == 1 ? "" : "s", rc->narms, rc->narms == 1 ? "" : "s");
	set_bases(rc, t);
	if (preflight_run(rc->spec, t, rc->narms, &runner_stop, &res))
		goto out;
	if (res.interrupted) {
		ret = 1;
		goto out;
	}
	preflight_summary(rc->spec, rc->narms, &res, &sum);
	sbuf_addf(&text, "%s\n%s", sum.buf, res.failures.len ? res.failures.buf : "");
	if (store_run_set_preflight(&rc->st, rc->run_id, (int)res.cases, (int)res.passed, text.buf))
		goto out;
	store_event(&rc->st, rc->run_id, -1, "preflight", "%s", sum.buf);
	rc->preflight_done = 1;
	if (res.passed == res.cases) {
		fprintf(stderr, "harness: pre-flight: %s\n", sum.buf);
		ret = 0;
		goto out;
	}
	print_failures(res.failures.buf);
	record_failures(rc, &res);
	for (i = 0; i < rc->narms; i++) {
		if (!res.blamed[i])
			continue;
		if (!rc->fail_impl)
			rc->fail_impl = rc->arms[i].name;
		if (rc->arms[i].candidate && !blamed_candidate) {
			blamed_candidate = 1;
			rc->fail_impl = rc->arms[i].name;
		}
	}
	if (!pf->enforce) {
		warning("pre-flight: %s; recorded only (workload.preflight.enforce: false)", sum.buf);
		rc->fail_impl = NULL;
		ret = 0;
		goto out;
	}
	error("pre-flight: %s: the run is refused (fix the spec or the implementation; "
	      "workload.preflight.enforce: false records it only)", sum.buf);
	rc->fail_kind = "preflight";
	rc->preflight_candidate = blamed_candidate;
	for (i = 0; i < rc->narms; i++)
		if (rc->fail_impl == rc->arms[i].name && res.first[i] && !rc->preflight_why)
			rc->preflight_why = xstrdup(res.first[i]);
	ret = -1;
out:
	/* a sandbox limit hit at start or under the pre-flight's requests
	 * is the arm's failure as in a window (its counts go with it) */
	for (i = 0; i < rc->narms && !runner_stop; i++)
		if (runner_arm_up(&rc->arms[i]) && runner_arm_limit_hit(rc, &rc->arms[i], -1))
			ret = -1;
	runner_stop_all(rc);
	preflight_result_release(&res);
	sbuf_release(&text);
	sbuf_release(&sum);
	free(t);
	return ret;
}
