/*
 * cmd_agent: `harness agent [--version]`, the agent mode (agent.h). Not
 * for people: the coordinator starts it over ssh and speaks frames to it.
 */
#include <stdio.h>
#include <string.h>

#include "agent/agent.h"
#include "cmd/cmd.h"
#include "sut/sut_agent.h"
#include "base/util.h"

static int version, sut_role;

static const struct opt options[] = {
	OPT_BOOL(0, "version", &version,
		 "print \"harness-agent PROTOCOL VERSION\" and exit; the\n"
		 "coordinator refuses an agent whose line differs from its own"),
	OPT_BOOL(0, "sut", &sut_role,
		 "the implementation role: run one implementation on this host\n"
		 "for the coordinator (implementations[].host), accounted here"),
	OPT_END(),
};

static int cmd_agent(struct cmd_ctx *c)
{
	char line[256];

	if (version) {
		printf("%s\n", agent_version_line(line, sizeof(line)));
		return EXIT_OK;
	}
	if (sut_role)
		return agent_serve_sut(0, 1);
	return agent_serve(0, 1);
}

const struct cmd_desc cmd_agent_desc = {
	.name = "agent",
	.summary = "the load agent a coordinator starts over ssh (frames on stdin/stdout)",
	.synopsis = "[--version] [--sut]",
	.about =
	"The agent mode: speaks the agent protocol (docs/AGENT_PROTOCOL.md) on\n"
	"standard input and output, for a coordinator that started it as\n"
	"`ssh -T DEST harness agent` (harness load --agent DEST). It drives the\n"
	"load it is given and streams back per-second histograms and counters.\n"
	"It exits when its standard input closes, taking any load in flight\n"
	"with it. With --sut it runs an implementation instead (the run's\n"
	"implementations[].host): started, accounted and stopped on this host;\n"
	"when its standard input closes it kills the implementation's whole\n"
	"tree and removes its cgroup before exiting.\n",
	.opts = options,
	.min_args = 0,
	.max_args = 0,
	.fn = cmd_agent,
};
