/*
 * cmd_report: harness report RUN [--format md|html|json|csv|all] [-o DIR]
 * [--runs-dir D]. Reads the run database, writes the chosen formats into
 * runs/<id>/report/ (or DIR) and prints that directory on stdout.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "report.h"
#include "store.h"
#include "util.h"

static const char usage[] =
	"usage: harness report RUN [--format md|html|json|csv|all] [-o DIR] [--runs-dir D] [--json]\n"
	"\n"
	"Write the report of RUN (a run id under --runs-dir, default ./runs or\n"
	"$HARNESS_RUNS_DIR, or a path to a run directory) into RUN/report/ or DIR:\n"
	"  report.md     summary, tables, provenance\n"
	"  report.html   one self-contained file: summary, inline SVG charts, tables,\n"
	"                provenance\n"
	"  report.json   every number the other formats show, and every window;\n"
	"                run_quality first\n"
	"  windows.csv   one row per finished window, its status accepted, failed or\n"
	"                rejected; its first columns are what `harness knee\n"
	"                --windows` reads:\n"
	"                impl,stage,offered_rps,block,p99_ms,requests,errors,achieved_rps,warm\n"
	"                (no comment lines, so no summary: see report.json)\n"
	"Default: all formats (a comma list picks several). Prints the report\n"
	"directory on standard output; with --json, one object: report_dir, files,\n"
	"windows (total, accepted), exploratory, forced.\n"
	"\n"
	"The summary comes first: per implementation its knee (a point, a bracket\n"
	"(lo, hi] when failed windows made the crossing, or >= X when it held at\n"
	"every valid rung) with its interval, CPU and memory at a reference rate,\n"
	"and the run quality line. Charts draw failed windows (valid, over the\n"
	"SLO) as red crosses and rejected ones (void) as grey rings.\n"
	"Only accepted windows feed a percentile, cost or memory figure (failed\n"
	"ones also count for the knee), and every number carries its counts.\n"
	"Percentiles across windows come from merged histograms, never averages.\n"
	"A run stamped exploratory (dirty spec) or forced shows the stamp in every\n"
	"format. Exit: 0 written, 2 unknown run or unreadable spec, 3 write error.\n";

static int parse_formats(const char *s, unsigned *out)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "md", REPORT_MD }, { "html", REPORT_HTML }, { "json", REPORT_JSON },
		{ "csv", REPORT_CSV }, { "all", REPORT_ALL },
	};
	const char *p = s;

	*out = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, p, len))
				break;
		if (i == ARRAY_SIZE(names))
			return error("report: --format %s: expected md, html, json, csv or all", s);
		*out |= names[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	return *out ? 0 : error("report: --format: empty");
}

static void print_json(const struct report *r, const char *dir, unsigned formats)
{
	struct sbuf sb = SBUF_INIT;
	unsigned bit;
	int first = 1;

	sbuf_adds(&sb, "{\"report_dir\": ");
	sbuf_add_json_str(&sb, dir);
	sbuf_adds(&sb, ", \"files\": [");
	for (bit = 1; bit & REPORT_ALL; bit <<= 1) {
		if (!(formats & bit))
			continue;
		sbuf_adds(&sb, first ? "" : ", ");
		sbuf_add_json_str(&sb, report_file_name(bit));
		first = 0;
	}
	sbuf_addf(&sb, "], \"windows\": {\"total\": %zu, \"accepted\": %zu}, "
		  "\"exploratory\": %s, \"forced\": %s}\n", r->total, r->accepted,
		  r->exploratory ? "true" : "false", r->forced ? "true" : "false");
	fputs(sb.buf, stdout);
	sbuf_release(&sb);
}

int cmd_report(int argc, char **argv)
{
	const char *run = NULL, *outdir = NULL, *runs_opt = NULL;
	struct sbuf dir = SBUF_INIT, run_id = SBUF_INIT, target = SBUF_INIT;
	struct store st = { 0 };
	struct report r;
	unsigned formats = REPORT_ALL;
	int i, ret = EXIT_USAGE, loaded = 0, opened = 0, json = 0;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--runs-dir") ||
		     !strcmp(a, "--output")) && i + 1 >= argc) {
			error("report: %s needs a value", a);
			goto usage;
		}
		if (!strcmp(a, "--format")) {
			if (parse_formats(argv[++i], &formats))
				goto usage;
		} else if (!strncmp(a, "--format=", 9)) {
			if (parse_formats(a + 9, &formats))
				goto usage;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			outdir = argv[++i];
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--runs-dir")) {
			runs_opt = argv[++i];
		} else if (!strncmp(a, "--runs-dir=", 11)) {
			runs_opt = a + 11;
		} else if (a[0] == '-' && a[1]) {
			error("report: unknown option '%s'", a);
			goto usage;
		} else if (!run) {
			run = a;
		} else {
			error("report: more than one RUN ('%s' and '%s')", run, a);
			goto usage;
		}
	}
	if (!run) {
		error("report: no RUN given");
		goto usage;
	}
	if (store_open_run(&st, store_runs_dir(runs_opt), run, &dir, &run_id))
		goto out;
	opened = 1;
	if (report_load(&r, &st, run_id.buf)) {
		report_release(&r);
		goto out;
	}
	loaded = 1;
	if (outdir)
		sbuf_adds(&target, outdir);
	else
		sbuf_addf(&target, "%s/report", dir.buf);
	ret = EXIT_ENV;
	if (report_write_files(&r, target.buf, formats))
		goto out;
	if (r.accepted == 0)
		warning("report: run %s has no accepted window: the report holds counts only",
			r.run_id);
	if (json)
		print_json(&r, target.buf, formats);
	else
		printf("%s\n", target.buf);
	if (fflush(stdout) || ferror(stdout)) {
		error("report: cannot write to standard output");
		goto out;
	}
	ret = EXIT_OK;
	goto out;
usage:
	fputs(usage, stderr);
	ret = EXIT_USAGE;
out:
	if (loaded)
		report_release(&r);
	if (opened)
		store_close(&st);
	sbuf_release(&dir);
	sbuf_release(&run_id);
	sbuf_release(&target);
	return ret;
}
