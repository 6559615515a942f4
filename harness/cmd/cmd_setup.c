/*
 * cmd_setup: what the dispatcher does around every command (cmd.h): the
 * option table parse, the generated usage, RUN resolution and the run
 * database, opened once. Kept out of main.c so unit tests, which link
 * everything but main.o, can link the commands.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/opt.h"
#include "store/store.h"
#include "base/util.h"

static const char *runs_dir_opt;
static int json_opt;

static const struct opt runs_dir_table[] = {
	OPT_STRING(0, "runs-dir", "D", &runs_dir_opt,
		   "where runs live (default $HARNESS_RUNS_DIR, else ./runs)"),
	OPT_END(),
};
static const struct opt json_table[] = {
	OPT_BOOL(0, "json", &json_opt, "print JSON on standard output"),
	OPT_END(),
};

static void option_set(const struct cmd_desc *d, struct opt_set *s,
		       const struct opt *tables[4])
{
	int n = 0;

	if (d->opts)
		tables[n++] = d->opts;
	if (d->flags & (CMD_RUNS_DIR | CMD_RUN))
		tables[n++] = runs_dir_table;
	if (d->flags & CMD_JSON)
		tables[n++] = json_table;
	tables[n] = NULL;
	s->cmd = d->name;
	s->tables = tables;
}

void cmd_usage(const struct cmd_desc *d, FILE *f)
{
	const struct opt *tables[4];
	struct opt_set s;
	const char *p, *nl;
	int first = 1;

	option_set(d, &s, tables);
	for (p = d->synopsis; p; p = nl ? nl + 1 : NULL, first = 0) {
		nl = strchr(p, '\n');
		fprintf(f, "%s harness %s %.*s\n", first ? "usage:" : "      ", d->name,
			nl ? (int)(nl - p) : (int)strlen(p), p);
	}
	if (d->about)
		fprintf(f, "\n%s", d->about);
	fputc('\n', f);
	opt_print_options(&s, f);
}

static int setup_run(const struct cmd_desc *d, struct cmd_ctx *c)
{
	if (c->nargs >= 1)
		c->run = c->args[0];
	else if (d->flags & CMD_RUN_LATEST)
		c->run = "latest";
	if (!c->run)
		return 0;
	if (store_open_run(&c->st, c->runs_dir, c->run, &c->run_dir, &c->run_id))
		return -1;
	if (!(d->flags & CMD_RUN2) || c->nargs < 2)
		return 0;
	c->run2 = c->args[1];
	return store_open_run(&c->st2, c->runs_dir, c->run2, &c->run_dir2, &c->run_id2);
}

int cmd_main(const struct cmd_desc *d, int argc, char **argv)
{
	const struct opt *tables[4];
	struct opt_set s;
	struct cmd_ctx c;
	int ret = EXIT_USAGE, min = d->min_args;

	memset(&c, 0, sizeof(c));
	sbuf_init(&c.run_dir);
	sbuf_init(&c.run_id);
	sbuf_init(&c.run_dir2);
	sbuf_init(&c.run_id2);
	c.desc = d;
	if (opt_wants_help(argc, argv)) {
		cmd_usage(d, stdout);
		return EXIT_OK;
	}
	option_set(d, &s, tables);
	c.args = xcalloc((size_t)argc + 1, sizeof(*c.args));
	if (opt_parse(&s, argc, argv, c.args, &c.nargs))
		goto out;
	if ((d->flags & CMD_RUN) && !(d->flags & (CMD_RUN_OPTIONAL | CMD_RUN_LATEST)) && min < 1)
		min = 1;
	if (c.nargs < min || c.nargs > d->max_args) {
		if (c.nargs > d->max_args)
			error("%s: unexpected argument '%s'; usage: harness %s %.*s", d->name,
			      c.args[d->max_args], d->name, (int)strcspn(d->synopsis, "\n"),
			      d->synopsis);
		else
			error("%s: missing arguments; usage: harness %s %.*s", d->name, d->name,
			      (int)strcspn(d->synopsis, "\n"), d->synopsis);
		goto out;
	}
	c.runs_dir = store_runs_dir(runs_dir_opt);
	c.runs_dir_given = runs_dir_opt != NULL;
	c.json = json_opt;
	if ((d->flags & CMD_RUN) && setup_run(d, &c))
		goto out;
	ret = d->fn(&c);
out:
	store_close(&c.st);
	store_close(&c.st2);
	sbuf_release(&c.run_dir);
	sbuf_release(&c.run_id);
	sbuf_release(&c.run_dir2);
	sbuf_release(&c.run_id2);
	free(c.args);
	return ret;
}
