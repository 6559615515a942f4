/*
 * cmd_rerun: `harness rerun RUN --impl NAME=REPO#REF`: fetch a
 * contributor's commit, and run the spec text stored in RUN (same seed,
 * same gates) with that implementation replaced, optionally with the
 * baseline commit interleaved as "<impl>@base".
 *
 * Order of work: read RUN (never written), choose the new run id, fetch
 * every checkout into runs/<new-id>/src/<arm>/, then hand over to
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

#include "cmd.h"
#include "gitfetch.h"
#include "runner.h"
#include "sandbox.h"
#include "spec.h"
#include "store.h"
#include "store_run.h"
#include "util.h"

static const char usage_text[] =
	"usage: harness rerun RUN --impl NAME=REPO#REF [--impl ...] [--with-baseline]\n"
	"                     [--stages ladder,confirm,soak] [--runs-dir D] [--run-id ID]\n"
	"\n"
	"Re-run RUN's stored spec (its exact text: same seed, gates, ladder) with\n"
	"implementation NAME built from REPO at REF, e.g. a pull request:\n"
	"  harness rerun 20260101T000000-box --impl go=https://host/o/r#refs/pull/42/head\n"
	"\n"
	"REPO: a local path, file:// URL or any URL libgit2 fetches (credentials in\n"
	"the URL are used, never recorded). REF: a branch, tag, full ref name\n"
	"(refs/pull/42/head) or commit id; omitted (NAME=REPO): the remote's HEAD.\n"
	"The commit is checked out detached in RUNS_DIR/<new-id>/src/NAME/ and\n"
	"recorded with the ref asked for and the remote URL.\n"
	"\n"
	"--with-baseline  also run, per --impl, RUN's recorded commit of NAME\n"
	"                 (fetched from RUN's recorded repository) as an arm\n"
	"                 \"NAME@base\" interleaved in the same blocks, so\n"
	"                 `harness compare RUN NEW` pairs them by block\n"
	"--stages LIST    default: the stages RUN ran\n"
	"\n"
	"Fetched code is untrusted: it builds and runs as the unprivileged user\n"
	"of the spec's sandbox.user (default harness-sut; created with useradd\n"
	"--system --no-create-home --shell /usr/sbin/nologin when missing, which\n"
	"needs root), owning only its checkout and the run's logs/, in its own\n"
	"cgroup with sandbox.memory_max / pids_max and a build time limit, with\n"
	"only the environment the spec lists.\n"
	"\n"
	"The new run id is the first line of standard output (also when the run\n"
	"fails: `harness compare RUN NEW` reads why). Exit: 0 measured; 1 the\n"
	"commit under test failed to build or never came up healthy, or a stage\n"
	"measured nothing usable; 2 an unknown RUN or implementation, a repository\n"
	"that cannot be fetched or a ref that does not exist (RUN is never\n"
	"modified, no run is made); 3 the host could not measure (the sandbox user\n"
	"could not be prepared, an @base control failed to build or start, an\n"
	"environment error). Every failure is recorded in the new run (status\n"
	"failed, runs.failure_kind and failure_impl). In a CI script keep this exit\n"
	"code: `set -o pipefail`, or write the output to a file, not a pipe.\n";

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

static int parent_load(struct parent *p, const char *runs_dir, const char *run)
{
	struct store st = { 0 };
	struct sbuf dir = SBUF_INIT, id = SBUF_INIT;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	run_record_init(&p->rec);
	if (store_open_run(&st, runs_dir, run, &dir, &id))
		goto out;
	p->dir = sbuf_detach(&dir, NULL);
	if (run_record_load(&st, id.buf, &p->rec) ||
	    run_record_spec(&p->rec, st.path, &p->spec_text, &p->spec_len))
		goto out;
	ret = 0;
out:
	store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&id);
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

/* ------------------------------------------------------------ command */

int cmd_rerun(int argc, char **argv)
{
	const char *runs_dir = NULL, *run = NULL, *run_id_opt = NULL, *stages_opt = NULL;
	struct impl_arg *args = NULL;
	struct gitfetch_result *fetched = NULL;
	struct run_arm *arms = NULL;
	struct parent par;
	struct spec *spec = NULL;
	struct run_opts o;
	struct sbuf run_dir = SBUF_INIT, p = SBUF_INIT, base_name = SBUF_INIT;
	char **arm_names = NULL, **src_dirs = NULL, *run_id = NULL, *base_dir = NULL;
	size_t nargs = 0, alloc = 0, narms = 0, i, j;
	int with_baseline = 0, ret = EXIT_USAGE, created = 0;
	unsigned stages = 0;

	memset(&par, 0, sizeof(par));
	if (cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--impl") && i + 1 < (size_t)argc) {
			XGROW(args, alloc, nargs + 1);
			if (gitfetch_parse_arg(argv[++i], &args[nargs].name, &args[nargs].repo,
					       &args[nargs].ref))
				goto out;
			for (j = 0; j < nargs; j++)
				if (!strcmp(args[j].name, args[nargs].name)) {
					error("rerun: --impl %s given twice", args[nargs].name);
					nargs++;
					goto out;
				}
			nargs++;
		} else if (!strcmp(a, "--with-baseline")) {
			with_baseline = 1;
		} else if (!strcmp(a, "--stages") && i + 1 < (size_t)argc) {
			stages_opt = argv[++i];
		} else if (!strcmp(a, "--runs-dir") && i + 1 < (size_t)argc) {
			runs_dir = argv[++i];
		} else if (!strcmp(a, "--run-id") && i + 1 < (size_t)argc) {
			run_id_opt = argv[++i];
			if (!*run_id_opt || strchr(run_id_opt, '/') || run_id_opt[0] == '.') {
				error("rerun: --run-id: '%s' is not a valid run id", run_id_opt);
				goto out;
			}
		} else if (a[0] == '-') {
			error("rerun: unknown option '%s'; see 'harness rerun --help'", a);
			goto out;
		} else if (!run) {
			run = a;
		} else {
			error("rerun: unexpected argument '%s'", a);
			goto out;
		}
	}
	if (!run || !nargs) {
		fputs(usage_text, stderr);
		goto out;
	}
	runs_dir = store_runs_dir(runs_dir);

	/* RUN: read, never written. */
	if (parent_load(&par, runs_dir, run))
		goto out;
	base_dir = dir_of(par.rec.spec_path);
	spec = spec_parse(par.spec_text, par.spec_len, par.rec.spec_path, base_dir);
	if (!spec) {
		error("rerun: %s: its stored spec no longer parses", par.rec.id);
		goto out;
	}
	for (i = 0; i < nargs; i++) {
		if (!spec_impl_find(spec, args[i].name) || parent_find(&par, args[i].name) < 0) {
			error("rerun: --impl %s: run %s has no implementation '%s'", args[i].name,
			      par.rec.id, args[i].name);
			goto out;
		}
	}
	if (stages_opt ? runner_parse_stages(stages_opt, &stages)
		       : (par.rec.stages && runner_parse_stages(par.rec.stages, &stages))) {
		error("rerun: --stages: '%s': expected ladder, confirm, soak",
		      stages_opt ? stages_opt : par.rec.stages);
		goto out;
	}

	/* The new run's directory, and every checkout in it. */
	if (mkdir_p(runs_dir, 0755)) {
		error("rerun: %s: cannot create: %s", runs_dir, strerror(errno));
		ret = EXIT_ENV;
		goto out;
	}
	run_id = run_id_opt ? xstrdup(run_id_opt) : runner_new_run_id(runs_dir, "rerun");
	sbuf_addf(&run_dir, "%s/%s", runs_dir, run_id);
	if (!access(run_dir.buf, F_OK)) {
		error("rerun: %s already exists", run_dir.buf);
		goto out;
	}
	sbuf_addf(&p, "%s/src", run_dir.buf);
	if (mkdir_p(p.buf, 0755)) {
		error("rerun: %s: cannot create: %s", p.buf, strerror(errno));
		ret = EXIT_ENV;
		goto out;
	}
	created = 1;

	narms = nargs * (with_baseline ? 2 : 1);
	fetched = xcalloc(narms, sizeof(*fetched));
	arms = xcalloc(narms, sizeof(*arms));
	arm_names = xcalloc(narms, sizeof(*arm_names));
	src_dirs = xcalloc(narms, sizeof(*src_dirs));
	for (i = 0, j = 0; i < nargs; i++) {
		int pi = parent_find(&par, args[i].name);

		sbuf_reset(&p);
		sbuf_addf(&p, "%s/src/%s", run_dir.buf, args[i].name);
		src_dirs[j] = xstrdup(p.buf);
		arm_names[j] = xstrdup(args[i].name);
		fprintf(stderr, "harness: fetching %s from %s at %s\n", args[i].name, args[i].repo,
			args[i].ref ? args[i].ref : "HEAD");
		if (gitfetch(args[i].repo, args[i].ref, src_dirs[j], &fetched[j]))
			goto out;
		arms[j].name = arm_names[j];
		arms[j].src_dir = src_dirs[j];
		arms[j].commit = fetched[j].commit;
		arms[j].ref_asked = fetched[j].ref_asked;
		arms[j].remote_url = fetched[j].remote_url;
		arms[j].untrusted = 1;
		j++;
		if (!with_baseline)
			continue;

		/* NAME@base: RUN's recorded commit of NAME, from RUN's repo. */
		if (!par.rec.impls[pi].commit_id || !par.rec.impls[pi].repo) {
			error("rerun: --with-baseline: run %s recorded no commit for %s", par.rec.id,
			      args[i].name);
			goto out;
		}
		if (par.rec.impls[pi].dirty > 0)
			warning("run %s measured %s with uncommitted changes; %s@base is commit "
				"%.12s without them", par.rec.id, args[i].name, args[i].name,
				par.rec.impls[pi].commit_id);
		sbuf_reset(&base_name);
		sbuf_addf(&base_name, "%s@base", args[i].name);
		sbuf_reset(&p);
		sbuf_addf(&p, "%s/src/%s", run_dir.buf, base_name.buf);
		src_dirs[j] = xstrdup(p.buf);
		arm_names[j] = xstrdup(base_name.buf);
		fprintf(stderr, "harness: fetching %s from %s at %.12s\n", base_name.buf,
			par.rec.impls[pi].repo, par.rec.impls[pi].commit_id);
		if (gitfetch(par.rec.impls[pi].repo, par.rec.impls[pi].commit_id, src_dirs[j], &fetched[j]))
			goto out;
		arms[j].name = arm_names[j];
		arms[j].clone_of = args[i].name;
		arms[j].src_dir = src_dirs[j];
		arms[j].commit = fetched[j].commit;
		arms[j].ref_asked = fetched[j].ref_asked;
		arms[j].remote_url = fetched[j].remote_url;
		arms[j].untrusted = 1;
		j++;
	}

	memset(&o, 0, sizeof(o));
	o.runs_dir = runs_dir;
	o.run_id = run_id;
	o.stages = stages;
	o.spec_path = par.rec.spec_path;
	o.spec_text = par.spec_text;
	o.spec_len = par.spec_len;
	o.spec_base_dir = base_dir;
	o.parent_run = par.rec.id;
	o.exploratory = par.rec.exploratory;
	o.arms = arms;
	o.narms = narms;
	ret = runner_run(&o);
	sbuf_reset(&p);
	sbuf_addf(&p, "%s/run.db", run_dir.buf);
	if (!access(p.buf, F_OK)) {
		created = 0;  /* a run exists now: keep it, whatever happened */
	}
out:
	/* No run.db: nothing was recorded, so leave nothing behind. */
	if (created)
		rm_tree(run_dir.buf);
	for (i = 0; i < nargs; i++) {
		free(args[i].name);
		free(args[i].repo);
		free(args[i].ref);
	}
	for (i = 0; i < narms; i++) {
		gitfetch_result_release(&fetched[i]);
		free(arm_names[i]);
		free(src_dirs[i]);
	}
	free(args);
	free(fetched);
	free(arms);
	free(arm_names);
	free(src_dirs);
	free(run_id);
	free(base_dir);
	if (spec)
		spec_free(spec);
	parent_release(&par);
	sbuf_release(&run_dir);
	sbuf_release(&p);
	sbuf_release(&base_name);
	return ret;
}
