/*
 * cmd_schema: `harness schema`: print the JSON Schema (draft 2020-12) of
 * the spec language, generated from the validator's own tables and the gate
 * registry (spec_schema.c). --markdown prints the key reference that
 * specs/README.md embeds.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "spec.h"
#include "util.h"

static const char usage_text[] =
	"usage: harness schema [--markdown]\n"
	"\n"
	"Print the JSON Schema (draft 2020-12) of the spec language on standard\n"
	"output, generated from the same tables the validator uses and from the gate\n"
	"registry. Point a YAML language server at it for completion and checking:\n"
	"\n"
	"  harness schema > specs/schema.json\n"
	"  # yaml-language-server: $schema=../specs/schema.json   (first line of a spec)\n"
	"\n"
	"  --markdown  print the key reference table (as embedded in specs/README.md)\n"
	"  -h, --help  this text\n";

int cmd_schema(int argc, char **argv)
{
	struct sbuf sb = SBUF_INIT;
	int markdown = 0, i;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown")) {
			markdown = 1;
		} else {
			error("schema: unexpected argument '%s'; see 'harness schema --help'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (markdown)
		spec_reference_md(&sb);
	else
		spec_schema_json(&sb);
	fwrite(sb.buf, 1, sb.len, stdout);
	sbuf_release(&sb);
	return EXIT_OK;
}
