/*
 * cmd_rerun: `harness rerun RUN --impl NAME=REPO#REF`: fetch a
 * contributor's commit, and run the spec text stored in RUN (same seed,
 * same gates) with that implementation replaced, optionally with the
 * baseline commit interleaved as "<impl>@base".
 *
 * Order of work: read RUN (never written), choose the new run id, fetch
 * every checkout into runs/<new-id>/src/<arm>/ (an implementation on
 * another host: there, held by an agent until the run ends, rsut_fetch.h),
 * then hand over to
 * runner_run(), which builds and runs the untrusted arms as the sandbox
 * user (sandbox.h). A fetch that fails removes runs/<new-id>/ again, so a
 * bad ref leaves nothing behind.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "base/jout.h"
#include "report/compare_plan.h"
#include "base/gitfetch.h"
#include "sandbox/quota.h"
#include "sut/rsut_fetch.h"
#include "runner/runner.h"
#include "sandbox/sandbox.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

struct impl_arg {
	char *name, *repo, *ref;
};

/* What rerun needs of RUN: its record (the runs row and impls). */
struct parent {
	char *dir;
	struct run_record rec;
	const char *spec_text;  /* borrowed from rec; never empty */
	size_t spec_len;
};

static void parent_release(struct parent *p)
{
	free(p->dir);
	run_record_release(&p->rec);
}

/* RUN as the dispatcher opened it (cmd.h); its database is closed after:
 * the new run may take hours, RUN is only read here. */
static int parent_load(struct parent *p, struct cmd_ctx *c)
{
	int ret = -1;

	memset(p, 0, sizeof(*p));
	run_record_init(&p->rec);
	p->dir = xstrdup(c->run_dir.buf);
	if (run_record_load(&c->st, c->run_id.buf, &p->rec) ||
	    run_record_spec(&p->rec, c->st.path, &p->spec_text, &p->spec_len))
		goto out;
	ret = 0;
out:
	store_close(&c->st);
	return ret;
}

static int parent_find(const struct parent *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->rec.nimpls; i++)
		if (p->rec.impls[i].name && !strcmp(p->rec.impls[i].name, name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------ helpers */

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	remove(path);
	return 0;
}

/* Remove a directory tree we created (never follows symlinks). */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static char *dir_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* ------------------------------------------------------------ arguments */

struct rerun_args {
	const char *runs_dir, *run, *run_id_opt, *stages_opt;
	struct impl_arg *impls;  /* owned: every string in it */
	size_t nimpls, alloc;
	int with_baseline;
	int until_decided;
	double max_minutes;      /* 0: compare.sequential.max_minutes */
	int plan;                /* --plan: print what compare could decide, run nothing */
};

static void rerun_args_release(struct rerun_args *a)
{
	size_t i;

	for (i = 0; i < a->nimpls; i++) {
		free(a->impls[i].name);
		free(a->impls[i].repo);
		free(a->impls[i].ref);
	}
	free(a->impls);
}

/* One --impl NAME=REPO#REF; NAME may be given once. */
static int add_impl(struct rerun_args *a, const char *arg)
{
	struct impl_arg *n;
	size_t j;

	XGROW(a->impls, a->alloc, a->nimpls + 1);
	n = &a->impls[a->nimpls];
	memset(n, 0, sizeof(*n));
	if (gitfetch_parse_arg(arg, &n->name, &n->repo, &n->ref))
		return -1;
	a->nimpls++;
	for (j = 0; j + 1 < a->nimpls; j++)
		if (!strcmp(a->impls[j].name, n->name))
			return error("rerun: --impl %s given twice", n->name);
	return 0;
}

static struct rerun_args a;

static int opt_impl(const struct opt *o, const char *v)
{
	return add_impl(&a, v);
}

static int opt_run_id(const struct opt *o, const char *v)
{
	if (runner_check_run_id("rerun", v))
		return -1;
	a.run_id_opt = v;
	return 0;
}

static const struct opt options[] = {
	OPT_CALLBACK("impl", "NAME=REPO#REF", opt_impl,
		     "build NAME from REPO at REF (repeatable; at least one)"),
	OPT_BOOL(0, "with-baseline", &a.with_baseline,
		 "also run, per --impl, RUN's recorded commit of NAME\n"
		 "(fetched from RUN's recorded repository) as an arm\n"
		 "\"NAME@base\" interleaved in the same blocks, so\n"
		 "`harness compare RUN NEW` pairs them by block"),
	OPT_BOOL(0, "until-decided", &a.until_decided,
		 "after RUN's pre-registered blocks, add paired blocks\n"
		 "(NEW and @base once each) at the judged rates until\n"
		 "every metric is decided by an anytime-valid confidence\n"
		 "sequence, or the budget ends; needs --with-baseline"),
	OPT_BOOL(0, "plan", &a.plan,
		 "run nothing: print what compare could decide from such\n"
		 "a rerun (per metric the pairs of RUN's plan, the pairs\n"
		 "its test needs, the smallest shift it could call from\n"
		 "RUN's spread); exit 2 when it can never decide, unless\n"
		 "--until-decided or compare.sequential"),
	OPT_NUMBER("max-minutes", "N", &a.max_minutes, 0.1, 10080,
		   "--until-decided's budget, wall minutes of the whole\n"
		   "rerun (default: compare.sequential.max_minutes, 30)"),
	OPT_STRING(0, "stages", "LIST", &a.stages_opt,
		   "saturation,ladder,confirm,soak (default: the stages RUN ran)"),
	OPT_CALLBACK("run-id", "ID", opt_run_id,
		     "name the new run: A-Z a-z 0-9 . _ -, not first . or -, at\n"
		     "most 64 (default: UTC time and \"rerun\")"),
	OPT_END(),
};

/* ------------------------------------------------------------ the arms */

/* The arms of the new run, each fetched into runs/<new-id>/src/<arm>/,
 * or, for an implementation on another host, there (rsut_fetch.h). */
struct arm_set {
	struct gitfetch_result *fetched;
	struct run_arm *arms;
	char **names, **src_dirs;  /* owned; arms[] borrows them */
	struct rsut_src **remote;  /* owned: the agents holding remote checkouts */
	size_t n, cap;
	int env_error;             /* a fetch failed through the host, not the ref */
};

static void arm_set_init(struct arm_set *s, size_t cap)
{
	s->cap = cap;
	s->n = 0;
	s->fetched = xcalloc(cap, sizeof(*s->fetched));
	s->arms = xcalloc(cap, sizeof(*s->arms));
	s->names = xcalloc(cap, sizeof(*s->names));
	s->src_dirs = xcalloc(cap, sizeof(*s->src_dirs));
	s->remote = xcalloc(cap, sizeof(*s->remote));
}

/* The disks of the checkouts made (quota.h), unmounted and removed. */
static void arm_set_remove_quotas(struct arm_set *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (s->src_dirs[i])
			quota_remove(s->src_dirs[i]);
}

static void arm_set_release(struct arm_set *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++) {
		gitfetch_result_release(&s->fetched[i]);
		/* a run that may be resumed keeps its image, unmounted (the
		 * runner removed those of a run that ended) */
		if (s->src_dirs[i])
			quota_detach(s->src_dirs[i]);
		free(s->names[i]);
		free(s->src_dirs[i]);
		/* its agent removes the checkout there */
		rsut_src_close(s->remote[i]);
	}
	free(s->remote);
	free(s->fetched);
	free(s->arms);
	free(s->names);
	free(s->src_dirs);
}

/* Fetch REPO at REF on IM's host (implementations[].host) through an
 * agent that holds the checkout there for the run. */
static int fetch_remote(struct arm_set *s, const struct spec *spec, const struct spec_impl *im,
			const char *name, const char *repo, const char *ref)
{
	struct agent_opts o;
	size_t n = 0;

	while (spec->workload.ssh_options && spec->workload.ssh_options[n])
		n++;
	memset(&o, 0, sizeof(o));
	o.binary = im->host_binary;
	o.ssh_options = (const char *const *)spec->workload.ssh_options;
	o.nssh_options = n;
	/* its own disk there too (sandbox.disk_mb), made by the agent */
	s->remote[s->n] = rsut_fetch(im->host, &o, name, repo, ref, spec->sandbox.disk_max_bytes,
				     &s->fetched[s->n], &s->env_error);
	if (!s->remote[s->n])
		return -1;
	s->src_dirs[s->n] = xstrdup(rsut_src_path(s->remote[s->n]));
	s->arms[s->n].remote_src = s->remote[s->n];
	fprintf(stderr, "harness: %s: commit %.12s fetched on %s into %s\n", name,
		s->fetched[s->n].commit, im->host, s->src_dirs[s->n]);
	return 0;
}

/* Fetch REPO at REF into RUN_DIR/src/NAME (or on the implementation's
 * host, fetch_remote) as the next (untrusted) arm; CLONE_OF names the
 * implementation an @base arm stands for, or NULL. */
static int fetch_arm(struct arm_set *s, const struct spec *spec, const char *run_dir,
		     const char *name, const char *repo, const char *ref, const char *clone_of)
{
	const struct spec_impl *im = spec_impl_find(spec, clone_of ? clone_of : name);
	struct run_arm *arm = &s->arms[s->n];
	struct sbuf dir = SBUF_INIT;
	char *shown = gitfetch_redact_url(repo);

	s->names[s->n] = xstrdup(name);
	fprintf(stderr, "harness: fetching %s from %s at %.*s%s%s\n", name, shown,
		clone_of ? 12 : (int)strlen(ref ? ref : "HEAD"), ref ? ref : "HEAD",
		im->host ? " on " : "", im->host ? im->host : "");
	free(shown);
	if (im->host) {
		if (fetch_remote(s, spec, im, name, repo, ref))
			return -1;
	} else {
		sbuf_addf(&dir, "%s/src/%s", run_dir, name);
		s->src_dirs[s->n] = sbuf_detach(&dir, NULL);
		/* its own disk (sandbox.disk_mb) before a byte of it arrives;
		 * none to be had is the host's failure (3), not the ref's */
		if (quota_own_namespace() ||
		    quota_make(s->src_dirs[s->n], spec->sandbox.disk_max_bytes, "the runs filesystem")) {
			s->env_error = 1;
			return -1;
		}
		if (gitfetch(repo, ref, s->src_dirs[s->n], &s->fetched[s->n])) {
			quota_remove(s->src_dirs[s->n]);
			return -1;
		}
	}
	arm->name = s->names[s->n];
	arm->clone_of = clone_of;
	arm->src_dir = s->src_dirs[s->n];
	arm->commit = s->fetched[s->n].commit;
	arm->ref_asked = s->fetched[s->n].ref_asked;
	arm->remote_url = s->fetched[s->n].remote_url;
	arm->untrusted = 1;
	s->n++;
	return 0;
}

/* NAME@base: RUN's recorded commit of NAME, from RUN's recorded repo. */
static int fetch_baseline(struct arm_set *s, const struct spec *spec, const char *run_dir,
			  const struct parent *par, const char *name)
{
	const struct run_impl *ri = &par->rec.impls[parent_find(par, name)];
	struct sbuf base = SBUF_INIT;
	int ret;

	if (!ri->commit_id || !ri->repo)
		return error("rerun: --with-baseline: run %s recorded no commit for %s",
			     par->rec.id, name);
	if (ri->dirty > 0)
		warning("run %s measured %s with uncommitted changes; %s@base is commit "
			"%.12s without them", par->rec.id, name, name, ri->commit_id);
	sbuf_addf(&base, "%s@base", name);
	ret = fetch_arm(s, spec, run_dir, base.buf, ri->repo, ri->commit_id, name);
	sbuf_release(&base);
	return ret;
}

static int fetch_arms(struct arm_set *s, const struct spec *spec, const char *run_dir,
		      const struct rerun_args *a, const struct parent *par)
{
	size_t i;

	for (i = 0; i < a->nimpls; i++) {
		const struct impl_arg *ia = &a->impls[i];

		/* no fetch more once a signal asked to stop */
		if (runner_stop_asked() || fetch_arm(s, spec, run_dir, ia->name, ia->repo, ia->ref, NULL))
			return -1;
		if (a->with_baseline && (runner_stop_asked() ||
					 fetch_baseline(s, spec, run_dir, par, ia->name)))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ command */

/* RUN read (never written), its spec parsed, every --impl checked
 * against it and the stages chosen. */
static int check_parent(const struct rerun_args *a, const struct parent *par,
			const struct spec *spec, unsigned *stages)
{
	const char *list = a->stages_opt ? a->stages_opt : par->rec.stages;
	size_t i;

	for (i = 0; i < a->nimpls; i++) {
		const char *name = a->impls[i].name;

		if (!spec_impl_find(spec, name) || parent_find(par, name) < 0)
			return error("rerun: --impl %s: run %s has no implementation '%s'", name,
				     par->rec.id, name);
	}
	if (list && runner_parse_stages(list, stages))
		return error("rerun: --stages: '%s': expected saturation, ladder, confirm, soak", list);
	return 0;
}

/* Make RUNS_DIR/<id>/src for a new run id; *RUN_DIR is set. */
static int make_run_dir(const char *runs_dir, const char *run_id, struct sbuf *run_dir)
{
	struct sbuf src = SBUF_INIT;
	int ret = EXIT_ENV;

	sbuf_addf(run_dir, "%s/%s", runs_dir, run_id);
	if (!access(run_dir->buf, F_OK)) {
		error("rerun: %s already exists", run_dir->buf);
		ret = EXIT_USAGE;
		goto out;
	}
	sbuf_addf(&src, "%s/src", run_dir->buf);
	if (mkdir_p(src.buf, 0755)) {
		error("rerun: %s: cannot create: %s", src.buf, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&src);
	return ret;
}

/*
 * --plan: what `harness compare RUN NEW` could decide from a rerun of RUN
 * (compare_plan.h, as `harness check SPEC --base RUN` says it): RUN's
 * stored spec, its windows' spread. A rerun is made for compare, so a plan
 * that can never decide is refused (exit 2) unless it is sequential
 * (--until-decided, or compare.sequential in the spec).
 */
static int rerun_plan(struct cmd_ctx *c, const struct parent *par, const struct spec *s)
{
	struct cmp_run base;
	struct cmp_plan cp;
	char line[1024];
	int ret = EXIT_OK;

	if (cmp_run_load(&base, c->runs_dir, par->dir))
		return EXIT_USAGE;
	cmp_plan_init(&cp, s, &base);
	cmp_run_release(&base);
	cp.base_id = par->rec.id;
	cp.compare_setup = 1;
	cp.sequential |= a.until_decided;
	if (a.max_minutes > 0) {
		cp.seq.budget_min = a.max_minutes;
		cp.seq.budget_name = "--max-minutes";
	}
	if (cmp_plan_refusal(&cp, par->rec.id, line, sizeof(line))) {
		fputs(line, stderr);
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmp_plan_seq_warning(&cp, par->rec.id, line, sizeof(line)))
		fputs(line, stderr);
	if (c->json) {
		json_t *o = cmp_plan_json(&cp);

		json_object_set_new(o, "sequential", json_boolean(cp.sequential));
		ret = jout_print(o, stdout) ? EXIT_ENV : EXIT_OK;  /* takes o */
	} else {
		cmp_plan_print(&cp, s);
	}
out:
	cmp_plan_release(&cp);
	return ret;
}

static int cmd_rerun(struct cmd_ctx *c)
{
	struct arm_set arms = { 0 };
	struct parent par;
	struct spec *spec = NULL;
	struct run_opts o;
	struct sbuf run_dir = SBUF_INIT, db = SBUF_INIT;
	char *run_id = NULL, *base_dir = NULL;
	int ret = EXIT_USAGE, created = 0;
	unsigned stages = 0;

	memset(&par, 0, sizeof(par));
	a.run = c->args[0];
	a.runs_dir = c->runs_dir;
	if (!a.nimpls && !a.plan) {
		error("rerun: --impl NAME=REPO#REF is required; see 'harness rerun --help'");
		goto out;
	}
	if (parent_load(&par, c))
		goto out;
	base_dir = dir_of(par.rec.spec_path);
	spec = spec_parse(par.spec_text, par.spec_len, par.rec.spec_path, base_dir);
	if (!spec) {
		error("rerun: %s: its stored spec no longer parses", par.rec.id);
		goto out;
	}
	if (a.plan) {
		ret = rerun_plan(c, &par, spec);
		goto out;
	}
	if (c->json) {
		error("rerun: --json is for --plan (a rerun prints its run id)");
		goto out;
	}
	if (check_parent(&a, &par, spec, &stages))
		goto out;
	if ((a.until_decided || a.max_minutes > 0) && !a.with_baseline) {
		error("rerun: --%s needs --with-baseline (it decides NEW against @base)",
		      a.until_decided ? "until-decided" : "max-minutes");
		goto out;
	}
	if (a.max_minutes > 0 && !a.until_decided) {
		error("rerun: --max-minutes is the budget of --until-decided; give both");
		goto out;
	}

	if (mkdir_p(a.runs_dir, 0755)) {
		error("rerun: %s: cannot create: %s", a.runs_dir, strerror(errno));
		ret = EXIT_ENV;
		goto out;
	}
	/* a signal from here on (the fetches): stop as a run does (exit 1),
	 * with nothing of it left (its disks unmounted and removed, its
	 * directory) */
	runner_catch_stop();
	run_id = a.run_id_opt ? xstrdup(a.run_id_opt) : runner_new_run_id(a.runs_dir, "rerun");
	ret = make_run_dir(a.runs_dir, run_id, &run_dir);
	if (ret)
		goto out;
	ret = EXIT_USAGE;
	created = 1;
	arm_set_init(&arms, a.nimpls * (a.with_baseline ? 2 : 1));
	if (fetch_arms(&arms, spec, run_dir.buf, &a, &par) || runner_stop_asked()) {
		if (runner_stop_asked()) {
			error("rerun: %s: interrupted while fetching its implementations: nothing"
			      " ran, nothing of it kept", run_id);
			ret = EXIT_NEGATIVE;
		} else if (arms.env_error) {
			ret = EXIT_ENV;
		}
		goto out;
	}
	/* every fetch is done: no credential outlives it in this process */
	gitfetch_forget_credentials();

	memset(&o, 0, sizeof(o));
	o.runs_dir = a.runs_dir;
	o.run_id = run_id;
	o.stages = stages;
	o.spec_path = par.rec.spec_path;
	o.spec_text = par.spec_text;
	o.spec_len = par.spec_len;
	o.spec_base_dir = base_dir;
	o.parent_run = par.rec.id;
	o.exploratory = par.rec.exploratory;
	o.arms = arms.arms;
	o.narms = arms.n;
	o.until_decided = a.until_decided;
	o.max_minutes = a.max_minutes;
	ret = runner_run(&o);
	sbuf_addf(&db, "%s/run.db", run_dir.buf);
	if (!access(db.buf, F_OK))
		created = 0;  /* a run exists now: keep it, whatever happened */
out:
	/* No run.db: nothing was recorded, so leave nothing behind. */
	if (created) {
		arm_set_remove_quotas(&arms);
		rm_tree(run_dir.buf);
	}
	rerun_args_release(&a);
	if (arms.cap)
		arm_set_release(&arms);
	free(run_id);
	free(base_dir);
	if (spec)
		spec_free(spec);
	parent_release(&par);
	sbuf_release(&run_dir);
	sbuf_release(&db);
	return ret;
}

const struct cmd_desc cmd_rerun_desc = {
	.name = "rerun",
	.summary = "re-run a stored spec with implementations from git refs",
	.synopsis = "RUN --impl NAME=REPO#REF [options]",
	.about =
	"Re-run RUN's stored spec (its exact text: same seed, gates, ladder) with\n"
	"implementation NAME built from REPO at REF, e.g. a pull request:\n"
	"  harness rerun 20260101T000000-box --impl go=https://host/o/r#refs/pull/42/head\n"
	"\n"
	"REPO: a local path, file:// URL or any URL libgit2 fetches. Credentials:\n"
	"HARNESS_GIT_PASSWORD (a token) as user HARNESS_GIT_USER (default\n"
	"x-access-token) from the environment, removed once fetched; or in the\n"
	"URL (used; printed as user:***, never recorded; but visible in this\n"
	"command line to every user of the host). REF: a branch, tag, full ref name\n"
	"(refs/pull/42/head) or commit id; omitted (NAME=REPO): the remote's HEAD.\n"
	"The commit is checked out detached in RUNS_DIR/<new-id>/src/NAME/ and\n"
	"recorded with the ref asked for and the remote URL. An implementation\n"
	"with implementations[].host is fetched, built and run on that host: an\n"
	"agent there holds the checkout (in its $TMPDIR) until the rerun ends\n"
	"(docs/AGENT_PROTOCOL.md); REPO is then read there.\n"
	"\n"
	"Fetched code is untrusted: it builds and runs inside bubblewrap (bwrap,\n"
	"Debian package bubblewrap) as a uid of its own per arm and run (group:\n"
	"the spec's sandbox.user, default harness-sut, created with useradd\n"
	"--system when missing, which needs root), with a read-only system, its\n"
	"checkout read-write, private /tmp and $HOME, no run database, log or\n"
	"other checkout visible, its own network (the harness connects from\n"
	"inside it), PID, IPC and user namespaces, no capabilities, only the\n"
	"environment the spec lists, and its logs written by the harness; in its\n"
	"own cgroup with sandbox.memory_mb / sandbox.pids, at most\n"
	"sandbox.relay_connections to the run's dependencies at once, its checkout\n"
	"on a disk of sandbox.disk_mb (an ext4 image, removed when the run ends):\n"
	"hitting any of them fails the arm; the build time limit\n"
	"sandbox.build_timeout_s; its logs cut at sandbox.log_mb. @base\n"
	"controls are built first, then frozen. An implementation with host:\n"
	"fetched, jailed and limited there alike.\n"
	"\n"
	"With --with-baseline the pre-flight holds each commit under test to its\n"
	"@base's answers (workload.preflight.base: strict, the default): status,\n"
	"media type and body (JSON as JSON; workload.preflight.ignore and what\n"
	"the base itself varies between two sends left out); a difference is\n"
	"shown and is the commit's regression (exit 1).\n"
	"\n"
	"The new run id is the first line of standard output (also when the run\n"
	"fails: `harness compare RUN NEW` reads why). Exit: 0 measured; 1 the\n"
	"commit under test failed to build, never came up healthy, answered\n"
	"otherwise than its @base or hit its sandbox limits; 2 an unknown RUN or\n"
	"implementation, a repository that cannot be fetched or a ref that does\n"
	"not exist (RUN is never modified, no run is made); 3 the host could\n"
	"not measure (the sandbox user could not be prepared, an @base control\n"
	"failed to build or start, an environment error) or measured no answer\n"
	"(a stage left an arm without one valid window: every one void, as\n"
	"compare reads it). Every failure is recorded in the new run (status\n"
	"failed, runs.failure_kind and failure_impl). In a CI script keep this\n"
	"exit code: `set -o pipefail`, or write the output to a file, not a pipe.\n"
	"\n"
	"--until-decided (with --with-baseline): after RUN's pre-registered\n"
	"blocks, paired blocks (NEW and NAME@base once each) at the judged rates\n"
	"until each metric (the SLO percentile, CPU per request) is decided by\n"
	"a confidence sequence of its per-round log(new / base): regression\n"
	"(the sequence above 0, the estimate above the margin), improvement\n"
	"(below 0, the estimate below it) or no change (the sequence wholly\n"
	"within it); valid however often it looks. Latency: the median's\n"
	"sign-count sequence over every judged rate's pair (compare.sequential.\n"
	"method median_cs, the default: no decision before 9 pairs at the\n"
	"default two metrics; 'no change' also needs the merged histograms'\n"
	"SLO percentile within the margin) or the rounds' mean (mean_cs);\n"
	"CPU: the mean's. A line per block on standard error shows each\n"
	"metric's estimate, sequence and margin. The budget: --max-minutes of\n"
	"the whole rerun, and compare.sequential.max_blocks; when it ends,\n"
	"inconclusive, with the MDE reached and the time a decision would\n"
	"need (--plan says the least time beforehand). The exit is then the\n"
	"answer: 0 no change or improvement, 1 regression, 3 inconclusive; and\n"
	"`harness compare` judges the run by the stored rule (docs/STATISTICS.md\n"
	"\"Sequential rerun\"). A failed window there is compare's outcome rule's:\n"
	"NEW failing most of its valid windows at a judged rate where @base\n"
	"failed none is a regression at once.\n"
	"\n"
	"--plan: nothing is fetched or run; prints what `harness compare RUN NEW`\n"
	"could decide from such a rerun (as `harness check SPEC --base RUN`): per\n"
	"metric the pairs of RUN's plan, the pairs its pooled test needs and the\n"
	"smallest shift it could call from RUN's spread, and the rounds and the\n"
	"least time a sequential decision needs (at the rates where RUN's windows\n"
	"held; a warning when --max-minutes or compare.sequential.max_minutes is\n"
	"below it and the rerun is sequential) (--json: the same as check's\n"
	"\"compare\" object). Exit 0, or 2 when the plan can never decide\n"
	"and the rerun is not sequential (--until-decided, compare.sequential).\n",
	.opts = options,
	.flags = CMD_RUN | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_rerun,
};
