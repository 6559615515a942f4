/*
 * runner_command: where a command of an implementation or dependency (its
 * build, version, reset, setup) runs: here with sut_build, or on its
 * impl.host through an agent (rsut_run), with the spec's ssh options and,
 * for a jailed arm, the sandbox it gets there (runner_remote_sandbox,
 * shared with its starts).
 */
#include <string.h>

#include "agent/agent_link.h"
#include "sut/rsut.h"
#include "sut/rsut_fetch.h"
#include "sut/sut_wire.h"
#include "runner/runner_internal.h"
#include "sut/sut.h"
#include "base/util.h"

void runner_agent_opts(const struct run_ctx *rc, const char *binary, struct agent_opts *o)
{
	size_t n = 0;

	while (rc->spec->workload.ssh_options && rc->spec->workload.ssh_options[n])
		n++;
	memset(o, 0, sizeof(*o));
	o->binary = binary;
	o->ssh_options = (const char *const *)rc->spec->workload.ssh_options;
	o->nssh_options = n;
}

/* The arm named name, or NULL. */
static struct arm *arm_find(struct run_ctx *rc, const char *name)
{
	size_t i;

	for (i = 0; name && i < rc->narms; i++)
		if (!strcmp(rc->arms[i].name, name))
			return &rc->arms[i];
	return NULL;
}

void runner_remote_sandbox(const struct run_ctx *rc, const struct arm *a, int uid, int ro,
			   struct sut_wire_sandbox *out, char *hide, size_t hide_len)
{
	const char *slash = a->src ? strrchr(rsut_src_path(a->src), '/') : NULL;

	memset(out, 0, sizeof(*out));
	out->on = 1;
	out->user = (char *)rc->spec->sandbox.user;
	out->uid = uid;
	out->ro = ro;
	out->cpu_max = rc->spec->sandbox.cpu_max;
	hide[0] = 0;
	if (slash && (size_t)(slash - rsut_src_path(a->src)) < hide_len) {
		snprintf(hide, hide_len, "%.*s", (int)(slash - rsut_src_path(a->src)),
			 rsut_src_path(a->src));
		out->hide = hide;
	}
}

int runner_command(struct run_ctx *rc, struct sut_build_config *bc)
{
	const struct spec_impl *im = bc->impl;
	struct rsut_config cfg;
	struct agent_opts o;
	struct sut_wire_sandbox rs;
	struct arm *a;
	struct sbuf label = SBUF_INIT;
	char hide[4096];
	int ret;

	if (!im->host)
		return sut_build(bc);
	runner_agent_opts(rc, im->host_binary, &o);
	if (bc->cgroup_name)
		sbuf_adds(&label, bc->cgroup_name);
	else
		sbuf_addf(&label, "harness.%s.%s.command", rc->run_id, im->name);
	memset(&cfg, 0, sizeof(cfg));
	cfg.dest = im->host;
	cfg.opts = &o;
	cfg.impl = im;
	cfg.workdir = bc->workdir;
	cfg.label = label.buf;
	cfg.backend = bc->backend;
	cfg.stop = bc->stop;
	/* a jailed arm's command (bind_build gave it its uid): jailed there,
	 * with the sandbox's limits */
	if (bc->uid >= 0 && (a = arm_find(rc, im->name))) {
		runner_remote_sandbox(rc, a, bc->uid, bc->jail && bc->jail->frozen, &rs, hide,
				      sizeof(hide));
		rs.cpu_max = bc->cpu_max;
		cfg.sandbox = &rs;
		cfg.memory_max_bytes = bc->memory_max_bytes;
		cfg.pids_max = bc->pids_max;
	}
	ret = rsut_run(&cfg, im->build, bc->timeout_s, bc->log_path, bc->quiet, bc->exit_code);
	sbuf_release(&label);
	return ret;
}
