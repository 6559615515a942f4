/*
 * cmd_report: harness report RUN [--format md|html|json|csv|hgrm|all] [-o DIR].
 * Reads the run database, writes the chosen formats into
 * runs/<id>/report/ (or DIR) and prints that directory on stdout.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/jout.h"
#include "report/report.h"
#include "store/store.h"
#include "base/util.h"

static int parse_formats(const char *s, unsigned *out)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "md", REPORT_MD }, { "html", REPORT_HTML }, { "json", REPORT_JSON },
		{ "csv", REPORT_CSV }, { "hgrm", REPORT_HGRM }, { "all", REPORT_ALL },
	};
	const char *p = s;

	*out = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, p, len))
				break;
		if (i == ARRAY_SIZE(names))
			return error("report: --format %s: expected md, html, json, csv, hgrm or all", s);
		*out |= names[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	return *out ? 0 : error("report: --format: empty");
}

static int print_json(const struct report *r, const char *dir, unsigned formats)
{
	json_t *o = json_object(), *files = json_array(), *w = json_object();
	unsigned bit;

	json_object_set_new(o, "report_dir", jout_str(dir));
	for (bit = 1; bit & REPORT_ALL; bit <<= 1)
		if (formats & bit) {
			json_array_append_new(files, jout_str(report_file_name(bit)));
			if (bit == REPORT_CSV)
				json_array_append_new(files, jout_str("study.csv"));
		}
	json_object_set_new(o, "files", files);
	json_object_set_new(w, "total", json_integer((json_int_t)r->total));
	json_object_set_new(w, "accepted", json_integer((json_int_t)r->accepted));
	json_object_set_new(o, "windows", w);
	json_object_set_new(o, "exploratory", json_boolean(r->exploratory));
	json_object_set_new(o, "forced", json_boolean(r->forced));
	return jout_print(o, stdout);
}

static const char *outdir, *ratios;
static unsigned formats = REPORT_ALL;
static double spectrum_rate = NAN;

static int opt_format(const struct opt *o, const char *v)
{
	return parse_formats(v, &formats);
}

static const struct opt options[] = {
	OPT_CALLBACK("format", "md|html|json|csv|hgrm|all", opt_format,
		     "the formats to write, a comma list (default all)"),
	OPT_STRING('o', "output", "DIR", &outdir, "write into DIR (default RUN/report)"),
	OPT_STRING(0, "ratios", "NEW/BASE,...", &ratios,
		   "the ratio pairs (default every implementation over the first)"),
	OPT_RATE("spectrum-rate", &spectrum_rate,
		 "the ladder rung percentile_spectrum draws, req/s\n"
		 "(default the summary's reference rate, else the lowest\n"
		 "ladder rung)"),
	OPT_END(),
};

static int cmd_report(struct cmd_ctx *c)
{
	struct sbuf target = SBUF_INIT;
	struct report r;
	int ret = EXIT_USAGE, loaded = 0;

	if (report_load(&r, &c->st, c->run_id.buf)) {
		report_release(&r);
		goto out;
	}
	loaded = 1;
	if (ratios && report_ratios(&r, ratios))
		goto out;    /* exit 2: a pair names no implementation of the run */
	if (!isnan(spectrum_rate) && report_spectrum_choose(&r, spectrum_rate))
		goto out;    /* exit 2: no such ladder rung */
	if (outdir)
		sbuf_adds(&target, outdir);
	else
		sbuf_addf(&target, "%s/report", c->run_dir.buf);
	ret = EXIT_ENV;
	if (report_write_files(&r, target.buf, formats))
		goto out;
	if (r.accepted == 0)
		warning("report: run %s has no accepted window: the report holds counts only",
			r.run_id);
	if (c->json) {
		if (print_json(&r, target.buf, formats))
			goto out;
	} else
		printf("%s\n", target.buf);
	if (fflush(stdout) || ferror(stdout)) {
		error("report: cannot write to standard output");
		goto out;
	}
	ret = EXIT_OK;
out:
	if (loaded)
		report_release(&r);
	sbuf_release(&target);
	return ret;
}

const struct cmd_desc cmd_report_desc = {
	.name = "report",
	.summary = "write a run's report (md, html, json, csv)",
	.synopsis = "RUN [options]",
	.about =
	"Write the report of RUN (a run id under --runs-dir, a run directory, or\n"
	"`latest`) into RUN/report/ or DIR:\n"
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
	"  study.csv     (with csv) receipts, memory steady and peak, derived signals,\n"
	"                dependencies, closed-loop saturation and footprint in long form:\n"
	"                section,impl,stage,rate_rps,name,value,lo,hi,windows,detail\n"
	"  hgrm/         per implementation and rung (IMPL_STAGE_RATErps.hgrm), the\n"
	"                merged latency of its accepted windows in HdrHistogram's\n"
	"                percentile-distribution text (ms), for HdrHistogram plotters\n"
	"Default: all formats (a comma list picks several). Prints the report\n"
	"directory on standard output; with --json, one object: report_dir, files,\n"
	"windows (total, accepted), exploratory, forced.\n"
	"\n"
	"The summary comes first: per implementation its knee (a point, a bracket\n"
	"(lo, hi] when failed windows made the crossing, or >= X when it held at\n"
	"every valid rung) with its interval, CPU and memory at a reference rate,\n"
	"and the run quality line. Charts draw failed windows (valid, over the\n"
	"SLO) as red crosses and rejected ones (void) as grey rings;\n"
	"percentile_spectrum draws one ladder rung, the one --spectrum-rate names\n"
	"(default the reference rate). The Dependencies section (and\n"
	"report.json's dependencies) gives each dependency's version, its peak\n"
	"window against the cores it may use and its headroom per rung.\n"
	"Only accepted windows feed a percentile, cost or memory figure (failed\n"
	"ones also count for the knee), and every number carries its counts.\n"
	"Percentiles across windows come from merged histograms, never averages.\n"
	"A run stamped exploratory (dirty spec) or forced shows the stamp in every\n"
	"format. Exit: 0 written (a stored spec this harness cannot parse, or an\n"
	"empty one, is a warning: the report uses default rules and omits the\n"
	"knees), 2 unknown or damaged run, 3 write error.\n",
	.opts = options,
	.flags = CMD_RUN | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_report,
};
