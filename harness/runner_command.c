/*
 * runner_command: where a command of an implementation or dependency (its
 * build, version, reset, setup) runs: here with sut_build, or on its
 * impl.host through an agent (rsut_run), with the spec's ssh options.
 */
#include <string.h>

#include "agent_link.h"
#include "rsut.h"
#include "runner_internal.h"
#include "sut.h"
#include "util.h"

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

int runner_command(struct run_ctx *rc, struct sut_build_config *bc)
{
	const struct spec_impl *im = bc->impl;
	struct rsut_config cfg;
	struct agent_opts o;
	struct sbuf label = SBUF_INIT;
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
	ret = rsut_run(&cfg, im->build, bc->timeout_s, bc->log_path, bc->quiet, bc->exit_code);
	sbuf_release(&label);
	return ret;
}
