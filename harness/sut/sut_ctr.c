/*
 * sut_ctr: a container arm's start and stop through the engine's CLI
 * (sut_ctr.h for the steps, ctr.h for the argv).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sut/ctr.h"
#include "sandbox/jail.h"
#include "sandbox/netns.h"
#include "sandbox/portfwd.h"
#include "sut/sut_ctr.h"
#include "sut/sut_spawn.h"
#include "base/util.h"

#define CREATE_TIMEOUT_S 300    /* a user-namespaced copy of a large image */
#define VERB_TIMEOUT_S 60
#define PID_WAIT_S 10           /* docker: its main pid after start */

struct sut_ctr {
	struct ctr_engine e;
	char *name;
	char *image;
	char *dir;              /* the engine's commands run here (conmon's "oom") */
	char *what;             /* "impl go" for messages */
	int created, removed;
};

/* The container's name: "harness-<owner>-<label>-<n>", [A-Za-z0-9_.-]. */
static char *ctr_name(const struct sut_config *cfg)
{
	static unsigned seq;
	const char *label = cfg->cgroup_name ? cfg->cgroup_name : cfg->impl->name;
	struct sbuf sb = SBUF_INIT;
	const char *p;

	sbuf_addf(&sb, "harness-%s-", ctr_owner());
	for (p = label; *p && sb.len < 200; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-';
		sbuf_addf(&sb, "%c", ok ? *p : '_');
	}
	sbuf_addf(&sb, "-%u", ++seq);
	return sbuf_detach(&sb, NULL);
}

/* LOG_DIR/IMPL.container, where the engine's commands run: podman's conmon
 * (started by init) writes "oom" into its working directory when the
 * container's cgroup hits its memory limit; a stale one is removed. */
static int work_dir(struct sut_ctr *c, const struct sut_config *cfg)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s/%s.container", cfg->log_dir, cfg->impl->name);
	c->dir = sbuf_detach(&sb, NULL);
	if (mkdir_p(c->dir, 0755))
		return -1;
	sbuf_addf(&sb, "%s/oom", c->dir);
	if (unlink(sb.buf) && errno != ENOENT)
		warning("%s: %s: cannot remove: %s", c->what, sb.buf, strerror(errno));
	sbuf_release(&sb);
	return 0;
}

int sut_ctr_oom(const struct sut_ctr *c)
{
	struct sbuf sb = SBUF_INIT;
	int seen;

	if (!c || !c->dir)
		return 0;
	sbuf_addf(&sb, "%s/oom", c->dir);
	seen = !access(sb.buf, F_OK);
	sbuf_release(&sb);
	return seen;
}

/* Run ENGINE VERB [OPT] NAME; 0, or -1 after one error() line. */
static int verb(struct sut_ctr *c, const char *v, const char *opt, double timeout_s, int quiet)
{
	struct sbuf err = SBUF_INIT;
	char **argv = ctr_argv_verb(&c->e, v, opt, c->name);
	int rc = ctr_exec_in(argv, c->dir, timeout_s, NULL, &err);

	if (rc > 0 && !quiet) {
		while (err.len && err.buf[err.len - 1] == '\n')
			err.buf[--err.len] = '\0';
		error("%s: %s %s %s: %s", c->what, ctr_engine_name(c->e.kind), v, c->name,
		      strrchr(err.buf, '\n') ? strrchr(err.buf, '\n') + 1 : err.buf);
	}
	strv_free(argv);
	sbuf_release(&err);
	return rc ? -1 : 0;
}

static void fill_create(struct ctr_create *cc, const struct sut_config *cfg, int port,
			int host_network)
{
	const struct spec_impl *im = cfg->impl;

	memset(cc, 0, sizeof(*cc));
	cc->impl = im;
	cc->owner = ctr_owner();
	cc->port = port;
	cc->host_network = host_network;
	cc->untrusted = cfg->jail != NULL;
	cc->lim.memory_bytes = cfg->memory_max_bytes ? cfg->memory_max_bytes : im->memory_max_bytes;
	cc->lim.pids = cfg->pids_max ? cfg->pids_max : im->pids_max;
	cc->lim.cpu_max = cfg->cpu_max;
	cc->lim.cpus = im->cpus;
	ctr_ulimits(&cc->lim.nofile, &cc->lim.nproc);
}

/* ENGINE create ...: 0, or -1 after error() naming the image when the
 * engine does not have it. */
static int create(struct sut_ctr *c, const struct sut_config *cfg, const char *wd, int port,
		  int host_network, struct sut_proc *up)
{
	struct ctr_create cc;
	struct sbuf err = SBUF_INIT;
	char **argv;
	char *image = c->image = ctr_image_ref(cfg->impl, wd);
	int rc;

	fill_create(&cc, cfg, port, host_network);
	cc.name = c->name;
	cc.image = image;
	/* untrusted: its own user namespace, or it does not run (fail closed) */
	if (cc.untrusted && (rc = ctr_userns(&c->e)) != 1) {
		if (!rc)
			error("%s: an untrusted container needs a user namespace of its own: docker "
			      "gives one only when dockerd runs with --userns-remap (podman: per "
			      "container)", c->what);
		return -1;
	}
	argv = ctr_argv_create(&c->e, &cc);
	up->argv_text = jail_argv_text(argv);
	ctr_mark(c->name);
	rc = ctr_exec_in(argv, c->dir, CREATE_TIMEOUT_S, NULL, &err);
	c->created = rc <= 0;   /* timed out: it may exist, removed then */
	if (rc > 0) {
		ctr_unmark(c->name);
		while (err.len && err.buf[err.len - 1] == '\n')
			err.buf[--err.len] = '\0';
		error("%s: %s create (image %s): %s", c->what, ctr_engine_name(c->e.kind), image,
		      strrchr(err.buf, '\n') ? strrchr(err.buf, '\n') + 1 : err.buf);
	}
	strv_free(argv);
	sbuf_release(&err);
	return rc ? -1 : 0;
}

/* ENGINE start --attach NAME as the arm's process. */
static pid_t spawn_attach(struct sut_ctr *c, const struct sut_config *cfg, const char *wd,
			  int port, int out_fd, int err_fd)
{
	char **argv = ctr_argv_verb(&c->e, "start", "--attach", c->name);
	char **env = spawn_env(cfg->impl, port, -1, wd);
	struct spawn sp;
	pid_t pid;

	memset(&sp, 0, sizeof(sp));
	sp.argv = argv;
	sp.envp = env;
	sp.cwd = c->dir;
	sp.out_fd = out_fd;
	sp.err_fd = err_fd;
	sp.uid = sp.gid = -1;
	sp.what = c->what;
	pid = spawn_run(&sp);
	strv_free(argv);
	strv_free(env);
	return pid;
}

/* Its main pid, polled while the engine starts it (docker: no init). */
static int main_pid(struct sut_ctr *c, pid_t *pid)
{
	uint64_t deadline = now_ns() + (uint64_t)(PID_WAIT_S * 1e9);

	do {
		if (ctr_inspect_pid(&c->e, c->name, pid))
			return -1;
		if (*pid > 0)
			return 0;
		usleep(50000);
	} while (now_ns() < deadline);
	return error("%s: container %s has no process after %d s", c->what, c->name, PID_WAIT_S);
}

/* Its namespace and cgroup, and the dependencies relayed into it. */
static int attach_kernel(struct sut_ctr *c, const struct sut_config *cfg, int host_network,
			 struct sut_proc *up)
{
	const int *ports = cfg->nforward ? cfg->forward_ports : cfg->impl->dep_forward;
	size_t nports = cfg->nforward ? cfg->nforward : cfg->impl->ndep_forward;

	if (!host_network) {
		if ((up->netns_fd = netns_open(up->main)) < 0)
			return -1;
		if (nports && !(up->fwd = portfwd_start(up->netns_fd, ports, nports, cfg->relay_max)))
			return -1;
	}
	up->acct = account_open_pid(cfg->backend, up->main, cfg->sample_ms);
	if (!up->acct)
		return error("%s: the cgroup of container %s cannot be read", c->what, c->name);
	if (cfg->jail && account_backend(up->acct) == ACCT_PROCFS)
		return jail_refuse_procfs(cfg->impl->name);
	return 0;
}

struct sut_ctr *sut_ctr_start(const struct sut_config *cfg, const char *wd, int port,
			      int host_network, int out_fd, int err_fd, struct sut_proc *up)
{
	struct sut_ctr *c = xcalloc(1, sizeof(*c));
	struct sbuf what = SBUF_INIT;
	int podman = cfg->impl->ctr.engine == CTR_PODMAN;

	memset(up, 0, sizeof(*up));
	up->pid = up->main = -1;
	up->netns_fd = -1;
	sbuf_addf(&what, "impl %s", cfg->impl->name);
	c->what = sbuf_detach(&what, NULL);
	if (ctr_engine_open(cfg->impl->ctr.engine, &c->e) || work_dir(c, cfg))
		goto fail;
	c->name = ctr_name(cfg);
	if (create(c, cfg, wd, port, host_network, up))
		goto fail;
	/* podman: made, not running, so nothing of it runs before its
	 * namespace has the dependencies and its cgroup is accounted */
	if (podman && (verb(c, "init", NULL, VERB_TIMEOUT_S, 0) || main_pid(c, &up->main) ||
		       attach_kernel(c, cfg, host_network, up)))
		goto fail;
	dprintf(out_fd, "=== harness: container %s\n", c->name);
	up->pid = spawn_attach(c, cfg, wd, port, out_fd, err_fd);
	if (up->pid < 0)
		goto fail;
	if (!podman && (main_pid(c, &up->main) || attach_kernel(c, cfg, host_network, up)))
		goto fail;
	if (cfg->impl->cpus)
		up->cpus_method = "engine --cpuset-cpus";
	return c;
fail:
	sut_ctr_remove(c);
	sut_ctr_free(c);
	portfwd_stop(up->fwd);
	account_free(up->acct);
	if (up->netns_fd >= 0)
		close(up->netns_fd);
	free(up->argv_text);
	memset(up, 0, sizeof(*up));
	up->netns_fd = -1;
	return NULL;
}

void sut_ctr_stop(struct sut_ctr *c, double grace_s)
{
	char t[32];

	if (!c || c->removed || !c->created)
		return;
	snprintf(t, sizeof(t), "--time=%d", (int)(grace_s + 0.999));
	if (verb(c, "stop", t, grace_s + VERB_TIMEOUT_S, 1))
		verb(c, "kill", NULL, VERB_TIMEOUT_S, 1);
}

void sut_ctr_remove(struct sut_ctr *c)
{
	if (!c || c->removed || !c->created)
		return;
	if (verb(c, "rm", "--force", VERB_TIMEOUT_S, 0))
		warning("%s: container %s may be left (remove it with %s rm -f %s)", c->what,
			c->name, ctr_engine_name(c->e.kind), c->name);
	else
		ctr_unmark(c->name);
	c->removed = 1;
}

void sut_ctr_free(struct sut_ctr *c)
{
	if (!c)
		return;
	ctr_engine_release(&c->e);
	free(c->name);
	free(c->image);
	free(c->dir);
	free(c->what);
	free(c);
}

const char *sut_ctr_name(const struct sut_ctr *c)
{
	return c->name;
}

const char *sut_ctr_image(const struct sut_ctr *c)
{
	return c->image;
}
