/*
 * cmd_schema: `harness schema`: print the JSON Schema (draft 2020-12) of
 * the spec language, generated from the validator's own tables and the gate
 * registry (spec_schema.c). --markdown prints the key reference that
 * specs/README.md embeds.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "spec/spec.h"
#include "base/util.h"

static int markdown;

static const struct opt options[] = {
	OPT_BOOL(0, "markdown", &markdown,
		 "print the key reference table (as embedded in specs/README.md)"),
	OPT_END(),
};

static int cmd_schema(struct cmd_ctx *c)
{
	struct sbuf sb = SBUF_INIT;

	if (markdown)
		spec_reference_md(&sb);
	else
		spec_schema_json(&sb);
	fwrite(sb.buf, 1, sb.len, stdout);
	sbuf_release(&sb);
	return EXIT_OK;
}

const struct cmd_desc cmd_schema_desc = {
	.name = "schema",
	.summary = "print the JSON Schema of the spec language",
	.synopsis = "[--markdown]",
	.about =
	"Print the JSON Schema (draft 2020-12) of the spec language on standard\n"
	"output, generated from the same tables the validator uses and from the gate\n"
	"registry. Point a YAML language server at it for completion and checking:\n"
	"\n"
	"  harness schema > specs/schema.json\n"
	"  # yaml-language-server: $schema=../specs/schema.json   (first line of a spec)\n",
	.opts = options,
	.fn = cmd_schema,
};
