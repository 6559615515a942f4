/* cmd_resume: placeholder until its issue lands; exits 2 with a clear line. */
#include "cmd.h"
#include "util.h"

int cmd_resume(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("resume: this subcommand is not built yet") ? EXIT_USAGE : EXIT_USAGE;
}
