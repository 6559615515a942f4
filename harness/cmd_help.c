/* cmd_help: helpers shared by the cmd_* files (kept out of main.c so unit
 * tests, which link everything but main.o, can link the commands). */
#include <string.h>

#include "cmd.h"

int cmd_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}
