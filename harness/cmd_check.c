/* cmd_check: placeholder until its issue lands; exits 2 with a clear line. */
#include "cmd.h"
#include "util.h"

int cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("check: this subcommand is not built yet") ? EXIT_USAGE : EXIT_USAGE;
}
