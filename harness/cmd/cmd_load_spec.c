/*
 * cmd_load_spec: `harness load SPEC --impl NAME` (cmd_load_spec.h): the
 * spec's workload, and its implementation started here when no --url
 * says where it already listens.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sut/bind.h"
#include "cmd/cmd.h"
#include "cmd/cmd_load_spec.h"
#include "base/util.h"

/* Start (and optionally build) an implementation of the spec; its logs go
 * to runs_dir/load-<time>-<pid>/logs, beside probe's (never a temporary
 * directory nobody removes). 0, or EXIT_ENV after one line. */
static int start_impl(const struct spec *spec, const struct spec_impl *impl, int build,
		      const char *runs_dir, struct sut **out)
{
	struct sbuf dir = SBUF_INIT, label = SBUF_INIT, blog = SBUF_INIT;
	struct sut_config sc;
	struct bind_sandbox sbx;
	const struct bind_sandbox *sb;
	char stamp[32], hide[PATH_MAX];
	time_t now = time(NULL);
	int ret = EXIT_ENV, err;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	sbuf_addf(&dir, "%s/load-%s-%d/logs", runs_dir, stamp, (int)getpid());
	if (mkdir_p(dir.buf, 0755)) {
		error("load: cannot create the log directory %s", dir.buf);
		goto out;
	}
	sbuf_addf(&label, "load.%d.%s", (int)getpid(), impl->name);
	/* sandbox: always holds here as in a run: bwrap, its own uid; the
	 * load then connects inside its namespace (sut_netns) */
	sb = bind_sandbox_always(spec, impl, runs_dir, &sbx, hide, &err);
	if (err)
		goto out;
	if (build && impl->build) {
		struct sut_build_config bc;

		sbuf_addf(&blog, "%s/%s.build.log", dir.buf, impl->name);
		bind_build(&bc, spec, impl, NULL, blog.buf, sb);
		if (sut_build(&bc))
			goto out;
	}
	bind_sut(&sc, spec, impl, NULL, dir.buf, label.buf, sb);
	*out = sut_start(&sc);
	if (!*out)
		goto out;
	if (sb)
		fprintf(stderr, "harness: load: %s: sandbox: always: in bwrap as uid %d, its repo "
			"read-only: %s\n", impl->name, sb->uid, sut_argv_text(*out));
	if (sut_wait_healthy(*out, impl->health_timeout_s))
		goto out;
	fprintf(stderr, "harness: load: %s started at %s (logs in %s)\n", impl->name,
		sut_url(*out), dir.buf);
	ret = 0;
out:
	sbuf_release(&dir);
	sbuf_release(&label);
	sbuf_release(&blog);
	return ret;
}

/* Checked before anything starts: a remote implementation, or vars for
 * agents, is refused before a build. */
int cmd_load_spec_workload(const struct cmd_load_opts *o, const char *runs_dir,
			   struct spec **spec, struct sut **sut, struct load_config *cfg,
			   const char **target)
{
	const struct spec_impl *impl;
	int ret;

	*spec = spec_load(o->target);
	if (!*spec)
		return EXIT_USAGE;
	impl = spec_impl_find(*spec, o->impl);
	if (!impl)
		return error("load: %s: no implementation named '%s'", o->target, o->impl),
		       EXIT_USAGE;
	bind_load(cfg, *spec, NULL, o->rate, o->duration, (*spec)->seed);
	if (o->nagents && cfg->nvars)
		return error("load: %s: template variables (workload.vars) are not sent to load"
			     " agents yet (docs/AGENT_PROTOCOL.md): drive this workload without"
			     " --agent", o->target), EXIT_USAGE;
	if (o->url)
		return 0;
	if (impl->host)
		return error("load: %s: implementation '%s' runs on another host (host: %s):"
			     " load starts implementations here only; give --url", o->target,
			     impl->name, impl->host), EXIT_USAGE;
	ret = start_impl(*spec, impl, o->build, runs_dir, sut);
	if (!ret) {
		*target = sut_url(*sut);
		cfg->netns_fd = sut_netns(*sut);   /* a sandboxed one's loopback */
	}
	return ret;
}
