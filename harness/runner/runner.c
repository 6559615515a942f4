/*
 * runner: setting up a run (directory, database, builds) and resuming
 * one; its provenance rows are written by runner_record.c, the stages live
 * in runner_stages.c, a window in runner_window.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "account/account.h"
#include "gate/judge.h"
#include "runner/plan.h"
#include "base/prov.h"
#include "sandbox/quota.h"
#include "report/report.h"
#include "model/run_quality.h"
#include "sut/rsut_fetch.h"
#include "base/runlock.h"
#include "model/view.h"
#include "runner/runner_internal.h"
#include "sandbox/jail.h"
#include "sandbox/sandbox.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "sut/sut.h"
#include "base/util.h"
#include "base/hosttune.h"

int runner_parse_stages(const char *s, unsigned *out)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int ret = 0;

	*out = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "ladder"))
			*out |= STAGE_LADDER;
		else if (!strcmp(tok, "confirm"))
			*out |= STAGE_CONFIRM;
		else if (!strcmp(tok, "soak"))
			*out |= STAGE_SOAK;
		else if (!strcmp(tok, "saturation"))
			*out |= STAGE_SATURATION;
		else
			ret = -1;
	}
	free(copy);
	return *out ? ret : -1;
}

/* ----------------------------------------------------------------- arms */

static void arm_from_impl(struct arm *a, const struct spec_impl *impl, const char *name,
			  const char *workdir)
{
	a->impl = *impl;
	a->name = xstrdup(name);
	a->impl.name = a->name;
	a->workdir = xstrdup(workdir ? workdir : impl->repo);
	a->last_block = -1;
	a->uid = -1;
	a->jailed = impl->sandbox == SANDBOX_ALWAYS;
	a->ro = a->jailed;
}

static int make_arms(struct run_ctx *rc, const struct run_arm *extra, size_t nextra)
{
	const struct spec *s = rc->spec;
	size_t i, k, n = s->nimpls;

	rc->arms = xcalloc(s->nimpls + nextra, sizeof(*rc->arms));
	for (i = 0; i < s->nimpls; i++)
		arm_from_impl(&rc->arms[i], &s->impls[i], s->impls[i].name, NULL);
	for (k = 0; k < nextra; k++) {
		const struct run_arm *ra = &extra[k];
		const struct spec_impl *base = spec_impl_find(s, ra->clone_of ? ra->clone_of : ra->name);
		struct arm *a;

		if (!base)
			return error("%s: no implementation named '%s' in the spec", s->path,
				     ra->clone_of ? ra->clone_of : ra->name);
		if (ra->clone_of) {
			a = &rc->arms[n++];
		} else {
			for (i = 0; i < s->nimpls; i++)
				if (!strcmp(rc->arms[i].name, ra->name))
					break;
			a = &rc->arms[i];
			free(a->name);
			free(a->workdir);
		}
		arm_from_impl(a, base, ra->name, ra->src_dir);
		a->src = ra->remote_src;
		a->untrusted = ra->untrusted;
		a->quota = ra->untrusted && !ra->remote_src;   /* cmd_rerun's quota_make */
		a->candidate = ra->untrusted && !ra->clone_of;
		a->frozen = ra->untrusted && ra->clone_of;
		if (a->untrusted)
			a->jailed = 1, a->ro = 0;
	}
	rc->narms = n;
	return 0;
}

/*
 * A jailed arm reaches only the dependencies relayed into its namespace:
 * those on this host, for a jail on this host (runner_arm_sandbox). One
 * that refers to a dependency it could not reach would fail every window,
 * and that would be measured as its failure (a rerun's commit called a
 * regression for the harness's limit): refused before anything starts.
 */
static int jails_reach_deps(const struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->narms; i++) {
		const struct arm *a = &rc->arms[i];
		size_t relayed = a->impl.host ? 0 : a->impl.ndep_forward;

		if (a->jailed && a->impl.ndep_used > relayed)
			return error("%s: it runs in a sandbox%s%s and refers to %zu of the run's"
				     " dependencies; relaying %s into its jail is not supported"
				     " yet (its code could not reach %s)", a->name,
				     a->impl.host ? " on " : "", a->impl.host ? a->impl.host : "",
				     a->impl.ndep_used - relayed,
				     a->impl.host ? "a dependency" : "a dependency on another host",
				     a->impl.ndep_used - relayed == 1 ? "it" : "them");
	}
	return 0;
}

/*
 * A jail's limits (sandbox.memory_mb, pids, cpu_max) are its cgroup's;
 * procfs accounting has none, and untrusted code never runs without them.
 * Asked for by the spec, that is its input (2: no host would do; the
 * spec's check refuses it with `sandbox: always`, so here for a rerun's
 * commits); auto finding no cgroup on this host is the host's (3), as
 * auto refuses a cgroup it cannot use. EXIT_* after one line, or 0.
 */
static int jails_limited(const struct run_ctx *rc)
{
	enum acct_backend b = rc->spec->accounting.backend;
	size_t i;

	for (i = 0; i < rc->narms; i++) {
		const struct arm *a = &rc->arms[i];

		if (a->jailed && b == ACCT_PROCFS)
			return error("%s: accounting.backend procfs cannot enforce the sandbox limits"
				     " its code runs under; refused (auto, cgroup2 or cgroup1 can)",
				     a->name), EXIT_USAGE;
		if (a->jailed && b == ACCT_AUTO && !a->impl.host && account_detect() == ACCT_PROCFS)
			return error("%s: accounting.backend auto found no usable cgroup here, and procfs"
				     " cannot enforce the sandbox limits its code runs under",
				     a->name), EXIT_ENV;
	}
	return 0;
}

static void run_ctx_release(struct run_ctx *rc)
{
	size_t i;

	runner_stop_all(rc);
	runner_depstats_release(rc);     /* its count names the dependencies */
	runner_deps_release(rc);
	free(rc->dep_resets);
	for (i = 0; i < rc->narms; i++) {
		free(rc->arms[i].name);
		free(rc->arms[i].workdir);
		free(rc->arms[i].label);
	}
	free(rc->arms);
	free(rc->rungs);
	free(rc->preflight_why);
	load_pool_release(&rc->pool);
	hostfacts_release(&rc->facts);
	if (rc->st.db)
		store_close(&rc->st);
	if (rc->spec)
		spec_free(rc->spec);
	free(rc->run_id);
	free(rc->dir);
	free(rc->logs_dir);
	free(rc->hide_dir);
}

/* ------------------------------------------------------------- run ids */

char *runner_new_run_id(const char *runs_dir, const char *suffix)
{
	char host[64] = "host", stamp[32], *dot;
	struct sbuf id = SBUF_INIT, path = SBUF_INIT;
	time_t t = time(NULL);
	struct tm tm;
	int n;

	if (!suffix) {
		gethostname(host, sizeof(host) - 1);
		if ((dot = strchr(host, '.')))
			*dot = '\0';
		suffix = host;
	}
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	for (n = 1;; n++) {
		sbuf_reset(&id);
		sbuf_addf(&id, "%s-%s", stamp, suffix);
		if (n > 1)
			sbuf_addf(&id, "-%d", n);
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s", runs_dir, id.buf);
		if (access(path.buf, F_OK) < 0)
			break;
	}
	sbuf_release(&path);
	return sbuf_detach(&id, NULL);
}

/* [A-Za-z0-9_], and '.' or '-' after the first character. */
static int run_id_char(unsigned char ch, size_t i)
{
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	    ch == '_')
		return 1;
	return (ch == '.' || ch == '-') && i > 0;
}

int runner_check_run_id(const char *cmd, const char *id)
{
	size_t n = strlen(id), i;
	unsigned char ch;

	if (!n)
		return error("%s: --run-id: empty", cmd);
	if (n > RUNNER_RUN_ID_MAX)
		return error("%s: --run-id: %zu characters, at most %d", cmd, n,
			     RUNNER_RUN_ID_MAX);
	for (i = 0; i < n && run_id_char((unsigned char)id[i], i); i++)
		;
	if (i == n)
		return 0;
	ch = (unsigned char)id[i];
	if (ch > 0x20 && ch < 0x7f)
		return error("%s: --run-id: '%c' at character %zu: a run id is A-Z a-z 0-9 . _ -, "
			     "not starting with . or -", cmd, ch, i + 1);
	return error("%s: --run-id: byte 0x%02x at character %zu: a run id is A-Z a-z 0-9 . _ -, "
		     "not starting with . or -", cmd, ch, i + 1);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static int ensure_sandbox(struct run_ctx *rc)
{
	int *uids = NULL;
	size_t i;
	int ret = -1;

	rc->sandbox_gid = -1;
	for (i = 0; i < rc->narms; i++)
		if (rc->arms[i].jailed)
			break;
	if (i == rc->narms)
		return 0;
	uids = xcalloc(rc->narms, sizeof(*uids));
	if (sandbox_uids(rc->narms, uids))
		goto out;
	free(rc->hide_dir);
	rc->hide_dir = dir_of(rc->dir);
	/* A fetched checkout is its arm's uid's (group: the sandbox user's);
	 * a trusted repo stays its owner's, bound read-only. logs/ stays
	 * root's and the logs reach their files through the harness's relay,
	 * so sandboxed code cannot plant links there or truncate them. */
	for (i = 0; i < rc->narms; i++) {
		struct arm *a = &rc->arms[i];
		struct sbuf place = SBUF_INIT;
		const char *user = rc->spec->sandbox.user ? rc->spec->sandbox.user
							  : SANDBOX_DEFAULT_USER;
		const char *how = a->frozen ? "; frozen after its build"
				  : a->ro ? "; sandbox: always, its repo read-only" : "";
		int gid;

		a->uid = -1;
		if (!a->jailed)
			continue;
		a->uid = uids[i];
		/* where it runs (armops prepare): here, bwrap, the sandbox
		 * user and its tree; there, a checkout its agent holds */
		if (armops_prepare(runner_arm_site(rc, a), a->uid, a->untrusted, &gid))
			goto out;
		armops_place(runner_arm_site(rc, a), &place);
		if (gid >= 0) {
			rc->sandbox_gid = gid;   /* this host's sandbox group */
			store_event(&rc->st, rc->run_id, -1, "sandbox_identity",
				    "%s: uid %d, gid %d (%s)%s", a->name, a->uid, gid, user, how);
		} else {
			store_event(&rc->st, rc->run_id, -1, "sandbox_identity",
				    "%s: uid %d, group %s's%s%s", a->name, a->uid, user, place.buf,
				    how);
		}
		sbuf_release(&place);
	}
	ret = 0;
out:
	free(uids);
	return ret;
}

/* Build, then run the stages; sets the run's final status. */
static int build_and_run(struct run_ctx *rc)
{
	struct sbuf report_dir = SBUF_INIT, why = SBUF_INIT;
	int code;

	rc->started = runner_now(rc);
	rc->last_p99_ms = NAN;
	rc->until_exit = -1;
	if (runner_progress_init(rc))
		return EXIT_ENV;
	sut_reap_leftovers();
	runner_record_remote_checkouts(rc);
	if (ensure_sandbox(rc)) {
		runner_set_status(rc, "failed", "sandbox user could not be prepared", "sandbox");
		return EXIT_ENV;
	}
	if (runner_build_all(rc) && !runner_stop) {
		if ((code = runner_arm_fault(rc)) >= 0)
			return code;
		code = runner_candidate_failed(rc) ? EXIT_NEGATIVE : EXIT_ENV;
		sbuf_addf(&why, "%s failed to build", rc->fail_impl ? rc->fail_impl : "?");
		runner_set_status(rc, "failed", why.buf, "build");
		sbuf_release(&why);
		return code;
	}
	if (runner_arm_versions(rc) && !runner_stop && (code = runner_arm_fault(rc)) >= 0)
		return code;
	if (!runner_stop && runner_deps_start(rc)) {
		runner_deps_stop(rc);
		if (!runner_stop) {
			runner_set_status(rc, "failed", "a dependency could not be started", "dependency");
			return EXIT_ENV;
		}
	}
	if (!runner_stop && runner_dep_ladders(rc)) {
		runner_deps_stop(rc);
		if (!runner_stop) {
			runner_set_status(rc, "failed", "a dependency's ceiling could not be measured",
					  "dependency");
			return EXIT_ENV;
		}
	}
	if (!runner_stop && !rc->preflight_done && runner_preflight(rc) < 0 && !runner_stop) {
		runner_deps_stop(rc);
		if (rc->fail_kind && !strcmp(rc->fail_kind, "preflight")) {
			/* A rerun's commit under test answering wrong is its
			 * answer (1); the user's own implementations, a spec's
			 * mistyped path or a control arm: no answer (3). */
			sbuf_addf(&why, "pre-flight refused the run (%s%s%s)",
				  rc->fail_impl ? rc->fail_impl : "?", rc->preflight_why ? ": " : "",
				  rc->preflight_why ? rc->preflight_why : "");
			runner_set_status(rc, "failed", why.buf, "preflight");
			sbuf_release(&why);
			return rc->preflight_candidate ? EXIT_NEGATIVE : EXIT_ENV;
		}
		if ((code = runner_arm_fault(rc)) >= 0)
			return code;
		sbuf_addf(&why, "%s never came up healthy", rc->fail_impl ? rc->fail_impl : "?");
		runner_set_status(rc, "failed", why.buf, "environment");
		sbuf_release(&why);
		return EXIT_ENV;
	}
	if (!runner_stop && runner_gens_open(rc)) {
		runner_gens_close(rc);
		runner_deps_stop(rc);
		if (!runner_stop) {
			runner_set_status(rc, "failed", "a load agent could not be started", "environment");
			return EXIT_ENV;
		}
	}
	code = runner_stop ? EXIT_NEGATIVE : runner_stages(rc);
	/* rerun --until-decided: after every pre-registered block */
	if (code != EXIT_ENV && !runner_stop) {
		int u = runner_until(rc);

		code = u < 0 ? EXIT_ENV : u == 1 ? EXIT_NEGATIVE : code;
	}
	runner_stop_all(rc);
	runner_gens_close(rc);
	runner_deps_stop(rc);
	if (stderr_is_tty())
		fputc('\n', stderr);
	run_quality_finish(&rc->st, rc->run_id); /* what was measured, and the load */
	if (runner_stop) {
		runner_set_status(rc, "interrupted", "interrupted by a signal", "interrupted");
		error("%s: interrupted; continue with: harness resume %s", rc->run_id, rc->run_id);
		return EXIT_NEGATIVE;
	}
	if ((rc->fatal || code == EXIT_ENV) && (code = runner_arm_fault(rc)) >= 0)
		return code;
	if ((rc->fatal || code == EXIT_ENV) && rc->fail_kind && !strcmp(rc->fail_kind, "dependency")) {
		runner_set_status(rc, "failed", "a dependency exited and could not be restarted",
			       "dependency");
		return EXIT_ENV;
	}
	if (rc->fatal || code == EXIT_ENV) {
		runner_set_status(rc, "failed", "environment error (see the message above)",
			       "environment");
		return EXIT_ENV;
	}
	runner_set_status(rc, "finished", code == EXIT_NEGATIVE ? "a stage measured nothing usable" : NULL,
		       code == EXIT_NEGATIVE ? "nothing_measured" : NULL);
	code = runner_finished_exit(rc, code);
	fprintf(stderr, "harness: %s finished: %zu windows, %zu accepted, %zu failed, %zu rejected\n",
		rc->run_id, rc->done, rc->accepted, rc->failed, rc->rejected);
	/* The morning's reading, written before anyone asks for it. */
	sbuf_addf(&report_dir, "%s/report", rc->dir);
	if (!report_write_run(&rc->st, rc->run_id, report_dir.buf, REPORT_ALL))
		fprintf(stderr, "harness: report: %s/report.html\n", report_dir.buf);
	else
		warning("%s: the report could not be written; try harness report %s",
			rc->run_id, rc->run_id);
	sbuf_release(&report_dir);
	return code;
}

static char *abs_path(const char *p)
{
	char buf[PATH_MAX];

	if (realpath(p, buf))
		return xstrdup(buf);
	return xstrdup(p);
}

int runner_run(const struct run_opts *o)
{
	struct run_ctx rc;
	struct sbuf p = SBUF_INIT;
	const char *runs_dir = store_runs_dir(o->runs_dir);
	char *spec_abs = NULL;
	int ret = EXIT_USAGE, dirty = 0, lockfd = -1, lim;
	struct prov_repo spec_repo;

	memset(&rc, 0, sizeof(rc));
	rc.seams = o->seams;
	memset(&spec_repo, 0, sizeof(spec_repo));
	runner_install_signals();
	if (o->spec_text)
		rc.spec = spec_parse(o->spec_text, o->spec_len, o->spec_path, o->spec_base_dir);
	else
		rc.spec = spec_load(o->spec_path);
	if (!rc.spec)
		goto out;
	if (!o->spec_text) {
		/* A new run from a file says what `harness check` says; a
		 * rerun's spec is the stored one, frozen as it ran. */
		if (rc.spec->refusals) {
			fputs(rc.spec->refusals, stderr);
			goto out;
		}
		if (rc.spec->warnings)
			fputs(rc.spec->warnings, stderr);
	}
	/* host.require: an untuned host is an environment error (exit 3),
	 * before anything is made */
	if (hosttune_refuse(rc.spec->host_require, o->spec_path)) {
		ret = EXIT_ENV;
		goto out;
	}
	rc.stages = o->stages ? o->stages : STAGE_SATURATION | STAGE_LADDER | STAGE_CONFIRM | STAGE_SOAK;
	rc.nrungs = spec_ladder_rungs(rc.spec, &rc.rungs);
	if (runner_deps_bind(&rc)) {
		ret = EXIT_ENV;
		goto out;
	}
	if (make_arms(&rc, o->arms, o->narms) || jails_reach_deps(&rc))
		goto out;
	if ((lim = jails_limited(&rc))) {
		ret = lim;
		goto out;
	}

	if (!o->spec_text) {
		spec_abs = abs_path(o->spec_path);
		dirty = prov_file_dirty(spec_abs);
		prov_repo_read(spec_abs, &spec_repo);
		if (!spec_repo.commit)
			dirty = 1; /* no commit to trace it to */
		if (dirty && !o->allow_dirty) {
			error("%s: the spec has uncommitted changes (or is not in a git repository);"
			      " commit it, or pass --allow-dirty to stamp the run exploratory",
			      o->spec_path);
			goto out;
		}
	} else {
		spec_abs = xstrdup(o->spec_path);
	}

	if (mkdir_p(runs_dir, 0755)) {
		ret = EXIT_ENV;
		goto out;
	}
	rc.run_id = o->run_id ? xstrdup(o->run_id) : runner_new_run_id(runs_dir, NULL);
	sbuf_addf(&p, "%s/%s", runs_dir, rc.run_id);
	rc.dir = xstrdup(p.buf);
	sbuf_addf(&p, "/logs");
	rc.logs_dir = xstrdup(p.buf);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s/run.db", rc.dir);
	if (!access(p.buf, F_OK)) {
		error("%s: run %s already exists", rc.dir, rc.run_id);
		goto out;
	}
	ret = EXIT_ENV;
	if (mkdir_p(rc.logs_dir, 0755) || (lockfd = runlock_take(rc.dir)) < 0 ||
	    store_open(&rc.st, p.buf, 1))
		goto out;
	if (hostfacts_read(&rc.facts))
		warning("host facts could not all be read");

	if (store_begin(&rc.st))
		goto out;
	if (runner_record_run(&rc, o, spec_abs, dirty, &spec_repo) ||
	    runner_record_impls(&rc, o) || runner_record_facts(&rc) ||
	    (o->until_decided && runner_until_register(&rc, o))) {
		store_rollback(&rc.st);
		goto out;
	}
	if (store_commit(&rc.st))
		goto out;
	runner_note_generator_sched(&rc);
	if (o->exploratory)
		store_event(&rc.st, rc.run_id, -1, "exploratory",
			    "the spec comes from exploratory run %s", o->parent_run ? o->parent_run : "?");
	if (dirty)
		store_event(&rc.st, rc.run_id, -1, "exploratory",
			    "spec %s has uncommitted changes; run stamped exploratory", spec_abs);

	/* The first line of standard output is the run id. */
	printf("%s\n", rc.run_id);
	fflush(stdout);
	store_reserve(&rc.st);
	ret = build_and_run(&rc);
	if (rc.disk_full)
		ret = EXIT_ENV;
	runner_arm_disk_release(&rc, rc.over);
out:
	prov_repo_release(&spec_repo);
	free(spec_abs);
	sbuf_release(&p);
	run_ctx_release(&rc);
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}

/* -------------------------------------------------------------- resume */

/* The arms of a run being resumed, from its impls rows (names, work
 * trees, commits); a commit that moved is a mismatch (*mismatch set). */
static int resume_arms(struct run_ctx *rc, const struct run_record *rec, int force,
		       int *mismatch)
{
	size_t i;

	rc->arms = xcalloc(rec->nimpls + 1, sizeof(*rc->arms));
	for (i = 0; i < rec->nimpls; i++) {
		const struct run_impl *im = &rec->impls[i];
		const char *name = im->name ? im->name : "";
		const struct spec_impl *impl = spec_impl_find(rc->spec,
							      im->baseline_of ? im->baseline_of : name);
		struct arm *a = &rc->arms[rc->narms];
		struct prov_repo pr;

		if (!impl)
			return error("%s: implementation %s is not in the stored spec", rc->run_id, name);
		if (im->src_dir && impl->host)
			return error("%s: implementation %s was fetched on %s for this rerun, and that"
				     " checkout was removed when the rerun ended: resume cannot"
				     " rebuild it; rerun again", rc->run_id, name, impl->host);
		arm_from_impl(a, impl, name, im->src_dir);
		a->untrusted = im->src_dir != NULL;
		a->frozen = a->untrusted && im->baseline_of;
		if (a->untrusted)
			a->jailed = 1, a->ro = 0;
		rc->narms++;
		memset(&pr, 0, sizeof(pr));
		/* its disk, unmounted when it stopped, mounted again in a
		 * mount namespace of the harness's own (quota.h) */
		a->quota = a->untrusted;
		if (a->quota && (quota_own_namespace() || quota_attach(a->workdir)))
			return -1;
		prov_repo_read(a->workdir, &pr);
		if (im->commit_id && (!pr.commit || strcmp(pr.commit, im->commit_id))) {
			error("%s: implementation %s is at commit %.12s, the run started at %.12s%s",
			      rc->run_id, name, pr.commit ? pr.commit : "(none)", im->commit_id,
			      force ? "; continuing (--force)" : "; pass --force to continue anyway");
			*mismatch = 1;
		}
		prov_repo_release(&pr);
	}
	return 0;
}

/* Windows that were in flight when the harness died run again. */
static int resume_windows(struct run_ctx *rc)
{
	struct view v;
	size_t i;

	if (runner_view(rc, &v))
		return -1;
	for (i = 0; i < v.nwindows; i++)
		if (v.windows[i].running)
			store_event(&rc->st, rc->run_id, v.windows[i].id, "window_retry",
				    "%s: in flight when the harness stopped; discarded and run again",
				    v.windows[i].impl);
	view_release(&v);
	return store_windows_unrun(&rc->st, rc->run_id);
}

/* The stored spec, parsed; and whether the one on disk is still it (a
 * rerun's spec came from another run's database, not from a file). */
static int resume_spec(struct run_ctx *rc, const struct run_record *rec, int force,
		       int *mismatch)
{
	struct sbuf dir_copy = SBUF_INIT;
	struct spec *ondisk = NULL;
	const char *text, *path = rec->spec_path ? rec->spec_path : "spec.yaml";
	size_t len;
	char *base;

	if (run_record_spec(rec, rc->st.path, &text, &len))
		return -1;
	sbuf_adds(&dir_copy, path);
	base = xstrdup(dirname(dir_copy.buf));
	rc->spec = spec_parse(text, len, path, base);
	free(base);
	sbuf_release(&dir_copy);
	if (!rc->spec)
		return -1;
	if (rec->parent_run)
		return 0;
	ondisk = spec_load(path);
	if (!ondisk || !rec->spec_hash || strcmp(ondisk->hash, rec->spec_hash)) {
		error("%s: spec %s %s since the run started (hash %.12s, now %.12s)%s",
		      rc->run_id, path, ondisk ? "changed" : "cannot be read",
		      rec->spec_hash ? rec->spec_hash : "-", ondisk ? ondisk->hash : "-",
		      force ? "; continuing (--force)" : "; pass --force to continue anyway");
		*mismatch = 1;
	}
	if (ondisk)
		spec_free(ondisk);
	return 0;
}

int runner_resume(const char *run_dir, int force)
{
	struct run_ctx rc;
	struct run_record rec;
	struct sbuf p = SBUF_INIT;
	int ret = EXIT_USAGE, lockfd = -1, mismatch = 0, lim;
	size_t i;

	memset(&rc, 0, sizeof(rc));
	run_record_init(&rec);
	runner_install_signals();
	rc.dir = xstrdup(run_dir);
	sbuf_addf(&p, "%s/logs", run_dir);
	rc.logs_dir = xstrdup(p.buf);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s/run.db", run_dir);
	if ((lockfd = runlock_take(run_dir)) < 0 || store_open(&rc.st, p.buf, 0) ||
	    run_record_load(&rc.st, NULL, &rec))
		goto out;
	rc.run_id = xstrdup(rec.id);
	if (resume_spec(&rc, &rec, force, &mismatch))
		goto out;
	if (rec.status && !strcmp(rec.status, "finished")) {
		error("%s: run is already finished", rc.run_id);
		goto out;
	}
	/* A pre-flight that passed (or was recorded only) is not run again. */
	rc.preflight_done = rec.preflight_cases >= 0 &&
			    (rec.preflight_passed == rec.preflight_cases ||
			     !rc.spec->workload.preflight.enforce);
	runner_parse_stages(rec.stages ? rec.stages : "", &rc.stages);
	rc.nrungs = spec_ladder_rungs(rc.spec, &rc.rungs);
	if (runner_deps_bind(&rc)) {
		ret = EXIT_ENV;
		goto out;
	}
	if (resume_arms(&rc, &rec, force, &mismatch) || (mismatch && !force))
		goto out;
	if ((lim = jails_limited(&rc))) {
		ret = lim;
		goto out;
	}
	/* A database that cannot be read or written is an input error (2). */
	if ((mismatch && store_run_set_forced(&rc.st, rc.run_id)) || resume_windows(&rc))
		goto out;
	ret = EXIT_ENV;
	if (hosttune_refuse(rc.spec->host_require, rc.run_id))
		goto out;
	if (hostfacts_read(&rc.facts))
		warning("host facts could not all be read");
	runner_note_generator_sched(&rc);
	store_event(&rc.st, rc.run_id, -1, "resume", "resumed%s", mismatch ? " with --force" : "");
	runner_set_status(&rc, "running", NULL, NULL);
	printf("%s\n", rc.run_id);
	fflush(stdout);
	for (i = 0; i < rc.narms; i++)
		rc.arms[i].last_block = -1;
	store_reserve(&rc.st);
	ret = build_and_run(&rc);
	if (rc.disk_full)
		ret = EXIT_ENV;
out:
	runner_arm_disk_release(&rc, rc.over);
	run_record_release(&rec);
	sbuf_release(&p);
	run_ctx_release(&rc);
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}
