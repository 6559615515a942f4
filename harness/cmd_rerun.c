/* cmd_rerun: placeholder until its issue lands; exits 2 with a clear line. */
#include "cmd.h"
#include "util.h"

int cmd_rerun(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("rerun: this subcommand is not built yet") ? EXIT_USAGE : EXIT_USAGE;
}
