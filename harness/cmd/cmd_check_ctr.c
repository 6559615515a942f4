/*
 * cmd_check_ctr: what `harness check` says about the arms that run as
 * containers (ctr.h): the engine and its version, the ulimits every
 * container is given (within the harness's hard limits), and what it will run:
 * the build of a Containerfile, or a local image, which must exist (no
 * registry is ever asked). A missing engine is the host's (exit 3), a
 * missing image or Containerfile the spec's (exit 2): one line each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd_check_ctr.h"
#include "sut/ctr.h"
#include "sandbox/jail.h"
#include "base/util.h"

/* One arm (`at`: "implementations[0]"), what it runs appended to out
 * (NULL: nothing): EXIT_OK, or the exit code after one error() line. */
static int check_arm(const struct spec *s, const struct spec_impl *im, const char *at,
		     int host_network, struct sbuf *out)
{
	struct ctr_engine e;
	struct ctr_create cc;
	struct stat st;
	char **argv = NULL, *text = NULL, *image, *path = NULL;
	/* image inspect, not podman's image exists: docker has no such verb */
	char *exists[] = { NULL, "image", "inspect", "--format", "{{.Id}}", NULL, NULL };
	int ret = EXIT_OK;

	if (ctr_engine_open(im->ctr.engine, &e))
		return EXIT_ENV;        /* its one line names the engine and package */
	image = ctr_image_ref(im, im->repo);
	memset(&cc, 0, sizeof(cc));
	cc.impl = im;
	cc.name = "harness-OWNER-NAME";
	cc.owner = "OWNER";
	cc.image = image;
	cc.host_network = host_network;
	cc.lim.memory_bytes = im->memory_max_bytes;
	cc.lim.pids = im->pids_max;
	cc.lim.cpus = im->cpus;
	ctr_ulimits(&cc.lim.nofile, &cc.lim.nproc);
	if (im->ctr.containerfile) {
		struct sbuf pb = SBUF_INIT;

		sbuf_addf(&pb, "%s/%s", im->repo, im->ctr.containerfile);
		path = sbuf_detach(&pb, NULL);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			error("%s: %s.container.containerfile: %s not found", s->path, at, path);
			ret = EXIT_USAGE;
			goto out;
		}
		argv = ctr_argv_build(&e, im, im->repo, &cc.lim);
		text = jail_argv_text(argv);
		if (out)
			sbuf_addf(out, "  %-12s build: %s\n", im->name, text);
		strv_free(argv);
		free(text);
	} else {
		exists[0] = e.path;
		exists[5] = image;
		if (ctr_exec(exists, 30, NULL, NULL) != 0) {
			error("%s: %s.container.image: %s is not in %s's local images (no registry is "
			      "used: build or import it)", s->path, at, image, ctr_engine_name(e.kind));
			ret = EXIT_USAGE;
			goto out;
		}
	}
	argv = ctr_argv_create(&e, &cc);
	text = jail_argv_text(argv);
	if (out)
		sbuf_addf(out, "  %-12s %s %s%s, ulimits nofile %llu nproc %llu; runs: %s\n", im->name,
		       ctr_engine_name(e.kind), e.version, e.runtime ? " (runtime runc)" : "",
		       (unsigned long long)cc.lim.nofile, (unsigned long long)cc.lim.nproc, text);
	strv_free(argv);
	free(text);
out:
	free(path);
	free(image);
	ctr_engine_release(&e);
	return ret;
}

int check_containers(const struct spec *s, int print)
{
	struct sbuf out = SBUF_INIT;
	char at[64];
	size_t i;
	int n = 0, ret = EXIT_OK;

	for (i = 0; i < s->nimpls; i++)
		n += s->impls[i].ctr.present;
	for (i = 0; i < s->ndeps; i++)
		n += s->deps[i].impl.ctr.present;
	if (!n)
		return EXIT_OK;
	sbuf_addf(&out, "containers (%d):\n", n);
	for (i = 0; i < s->nimpls && ret == EXIT_OK; i++) {
		if (!s->impls[i].ctr.present)
			continue;
		snprintf(at, sizeof(at), "implementations[%zu]", i);
		ret = check_arm(s, &s->impls[i], at, 0, print ? &out : NULL);
	}
	for (i = 0; i < s->ndeps && ret == EXIT_OK; i++) {
		if (!s->deps[i].impl.ctr.present)
			continue;
		snprintf(at, sizeof(at), "dependencies[%zu]", i);
		ret = check_arm(s, &s->deps[i].impl, at, 1, print ? &out : NULL);
	}
	/* all of it once every arm passed: a refused spec gets its line alone */
	if (print && ret == EXIT_OK)
		fputs(out.buf, stdout);
	sbuf_release(&out);
	return ret;
}
