/* cmd_runs: placeholder until its issue lands; exits 2 with a clear line. */
#include "cmd.h"
#include "util.h"

int cmd_runs(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("runs: this subcommand is not built yet") ? EXIT_USAGE : EXIT_USAGE;
}
