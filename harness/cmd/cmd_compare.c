/*
 * cmd_compare: `harness compare BASE NEW`: did NEW get slower or costlier
 * than BASE? The analysis is compare.c; this file parses the command line,
 * prints, and turns the verdicts into the exit code a CI job acts on.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "report/compare.h"
#include "base/svgpng.h"
#include "base/util.h"

static const char *format = "md", *junit, *output, *chart, *interval, *correction;
static struct compare_opts copts;
static int inconclusive_ok;

static const struct opt options[] = {
	OPT_STRING(0, "impl", "NAME", &copts.only, "judge exactly NAME (paired or not)"),
	OPT_BOOL(0, "judge-unpaired", &copts.judge_unpaired,
		 "also judge every implementation whose commit differs"),
	OPT_BOOL(0, "inconclusive-ok", &inconclusive_ok, "exit 0 instead of 3 when inconclusive"),
	OPT_STRING(0, "format", "md|json|html|png", &format, "output format (default md)"),
	OPT_STRING('o', "output", "FILE", &output, "write it to FILE, not standard output"),
	OPT_STRING(0, "chart", "FILE", &chart,
		   "also write the deltas chart to FILE (.png, or .svg) and link it"),
	OPT_STRING(0, "junit", "FILE", &junit, "also write JUnit XML to FILE"),
	OPT_STRING(0, "interval", "hodges_lehmann|t|confidence_sequence", &interval,
		   "the shift's method (default: compare.interval of NEW's spec)"),
	OPT_STRING(0, "correction", "holm|none", &correction,
		   "multiplicity across the cells (default: compare.correction)"),
	OPT_END(),
};

/* --chart FILE: the deltas chart as PNG (rsvg-convert) or, for a .svg
 * name, as SVG. */
static int write_chart(const struct compare *cmp, const char *path)
{
	struct sbuf svg = SBUF_INIT;
	size_t n = strlen(path);
	int ret;

	compare_chart(cmp, &svg);
	if (n > 4 && !strcmp(path + n - 4, ".svg"))
		ret = write_file(path, svg.buf, svg.len);
	else
		ret = svg_to_png(svg.buf, svg.len, path);
	sbuf_release(&svg);
	return ret ? error("compare: --chart %s: not written", path) : 0;
}

/* The document to --output FILE or standard output. */
static int emit(const struct sbuf *out)
{
	if (output)
		return write_file(output, out->buf, out->len) ?
			error("compare: --output %s: cannot write it", output) : 0;
	fwrite(out->buf, 1, out->len, stdout);
	if (fflush(stdout) || ferror(stdout))
		return error("compare: cannot write to standard output");
	return 0;
}

static int cmd_compare(struct cmd_ctx *c)
{
	struct cmp_run base, new_;
	struct compare cmp;
	struct sbuf out = SBUF_INIT;
	int ret = EXIT_USAGE;

	memset(&cmp, 0, sizeof(cmp));
	if (c->json)
		format = "json";
	if (strcmp(format, "md") && strcmp(format, "json") && strcmp(format, "html") &&
	    strcmp(format, "png"))
		return error("compare: --format %s: expected md, json, html or png", format),
		       EXIT_USAGE;
	copts.interval = !interval ? -1
			 : !strcmp(interval, "hodges_lehmann") ? CMP_INTERVAL_HL
			 : !strcmp(interval, "t") ? CMP_INTERVAL_T
			 : !strcmp(interval, "confidence_sequence") ? CMP_INTERVAL_CS : -2;
	if (copts.interval == -2)
		return error("compare: --interval %s: expected hodges_lehmann, t or "
			     "confidence_sequence", interval), EXIT_USAGE;
	copts.correction = !correction ? -1
			   : !strcmp(correction, "holm") ? CMP_CORRECT_HOLM
			   : !strcmp(correction, "none") ? CMP_CORRECT_NONE : -2;
	if (copts.correction == -2)
		return error("compare: --correction %s: expected holm or none", correction),
		       EXIT_USAGE;
	/* BASE and NEW were resolved and opened by the dispatcher (CMD_RUN2) */
	if (cmp_run_read(&base, &c->st, c->run_dir.buf, c->run_id.buf))
		return EXIT_USAGE;
	if (cmp_run_read(&new_, &c->st2, c->run_dir2.buf, c->run_id2.buf)) {
		cmp_run_release(&base);
		return EXIT_USAGE;
	}
	if (compare_runs(&cmp, &base, &new_, &copts))
		goto out;
	if (junit) {
		struct sbuf x = SBUF_INIT;
		compare_junit(&cmp, &x);
		if (write_file(junit, x.buf, x.len)) {
			sbuf_release(&x);
			error("compare: --junit %s: cannot write it", junit);
			goto out;
		}
		sbuf_release(&x);
	}
	if (chart && write_chart(&cmp, chart)) {
		ret = EXIT_ENV;
		goto out;
	}
	if (!strcmp(format, "png")) {
		compare_chart(&cmp, &out);
		if (svg_to_png(out.buf, out.len, output)) {
			ret = EXIT_ENV;
			goto out;
		}
	} else {
		if (!strcmp(format, "json"))
			compare_json(&cmp, &out);
		else if (!strcmp(format, "html"))
			compare_html(&cmp, &out);
		else
			compare_md_linked(&cmp, chart, &out);
		if (emit(&out)) {
			ret = EXIT_ENV;
			goto out;
		}
	}
	ret = cmp.exit_code == 1 ? EXIT_NEGATIVE : cmp.exit_code == 3 && !inconclusive_ok ? EXIT_ENV
									     : EXIT_OK;
out:
	compare_release(&cmp);
	sbuf_release(&out);
	return ret;
}

const struct cmd_desc cmd_compare_desc = {
	.name = "compare",
	.summary = "compare two runs and give a verdict (exit 1 on regression)",
	.synopsis = "BASE NEW [options]",
	.about =
	"Did NEW get slower, costlier or break against BASE? (run ids under\n"
	"--runs-dir, or run directories). The answer fails closed: no exit 0\n"
	"without the evidence for it.\n"
	"\n"
	"Judged implementations decide the exit code: by default those NEW pairs\n"
	"with a control \"<impl>@base\" (harness rerun --with-baseline: the changed\n"
	"arms, paired by block with the baseline commit interleaved in the same\n"
	"blocks). --impl NAME judges exactly NAME (paired or not); --judge-unpaired\n"
	"also judges every implementation whose commit differs between the runs,\n"
	"compared unpaired. The others are listed as advisory. BASE and NEW the same\n"
	"run: only its paired arms are compared (exit 2 when it has none).\n"
	"\n"
	"Evidence: valid windows are accepted or failed (a failed window is a valid\n"
	"measurement that fails the SLO; rejected ones are void). A judged\n"
	"implementation needs compare.min_pairs (default 3) valid window pairs at\n"
	"one rate or more. It REGRESSED when NEW's commit failed to build or never\n"
	"came up healthy; when, at a rate with min_pairs valid windows on both\n"
	"sides, most of NEW's windows failed (errors, unexpected statuses, under-\n"
	"delivery, death) and none of BASE's did; when NEW crosses the SLO at a rung\n"
	"where BASE holds; or when a metric is higher beyond the margin.\n"
	"\n"
	"Metrics, at each rate where both sides have accepted windows (a cell: rate\n"
	"x metric): latency at the SLO percentile of each window (spec key `p99`;\n"
	"ms) and CPU per request (us). The shift new - base is, by compare.interval\n"
	"(or --interval), the Hodges-Lehmann estimate d with its distribution-free\n"
	"interval [lo, hi] at 1 - 2 alpha (Wilcoxon signed-rank paired, Mann-Whitney\n"
	"unpaired; the default: one window the host stalled moves it by one rank),\n"
	"or the mean with a paired t / Welch interval. When NEW's confirm was\n"
	"sequential (stages.confirm.until), its paired cells are judged by the\n"
	"confidence sequence it stopped by (1 - alpha, valid at any stopping time).\n"
	"Each cell has one-sided p-values for a rise and a fall. A paired\n"
	"implementation also gets, per metric, one POOLED test over every rate: van\n"
	"Elteren's stratified signed-rank test of the per-block log ratios new/base\n"
	"(strata = rates), its Hodges-Lehmann shift in % of base and interval; with\n"
	"2 rates x 3 blocks all one way it gives p = 1/64, which no 3-pair cell can.\n"
	"By default the pooled tests and the cells form one family per direction,\n"
	"weighted Holm: the pooled metrics share 80% of alpha, the cells 20%\n"
	"(--correction none: raw). With m the margin, the larger of margin_pct % of\n"
	"the base value and the metric's floor (margin_ms, margin_cpu_us):\n"
	"  regression    adjusted p(rise) <= alpha and d > m\n"
	"  improvement   adjusted p(fall) <= alpha and d < -m\n"
	"  no change     -m < lo and hi < m    (equivalence, two one-sided tests)\n"
	"  inconclusive  none of these, or too few pairs for the level\n"
	"The pooled tests decide the metrics (a pooled rise beyond m unconfirmed is\n"
	"inconclusive); a cell can add a regression confined to one rate. Every\n"
	"format says which test decided (Decided by: pooled test, cell, ...).\n"
	"Beside every verdict: n, the method, the correction and the minimum\n"
	"detectable effect (MDE: the shift found with 80% power at the test's\n"
	"first step in the correction, given n and the spread).\n"
	"The rule is NEW's stored spec `compare: { margin_pct: 5, margin_ms: 0.75,\n"
	"margin_cpu_us: 2, metric: [p99, cpu_per_request], alpha: 0.05, min_pairs:\n"
	"3, interval: hodges_lehmann, correction: holm }` (the defaults); `harness\n"
	"check SPEC --base RUN` says what a plan can decide.\n"
	"\n"
	"--format md (default) is fit to paste as a pull-request comment; --format\n"
	"json (or --json) is machine-readable; --format html is one self-contained\n"
	"page (the per-rung deltas chart, then what the markdown says); --format png\n"
	"is the deltas chart alone (each implementation's verdict, the shift per\n"
	"rate in % of base with its interval, the margin band), drawn by\n"
	"rsvg-convert (Debian librsvg2-bin). -o FILE writes any of them to FILE.\n"
	"--chart FILE also writes the chart (PNG, or SVG for a .svg name) and the\n"
	"markdown links it under its heading. --junit FILE also writes JUnit XML\n"
	"(regression = failure, inconclusive = error, advisory = skipped): a\n"
	"testcase per implementation, per cell (rate x metric) and per request\n"
	"cell (\"request NAME p99 at R req/s\"; advisory unless the request has its\n"
	"own slo_ms). Each names both runs' status (finished, failed,\n"
	"interrupted, running).\n"
	"\n"
	"Exit: 0 every judged implementation has enough valid evidence and none\n"
	"regressed; 1 a judged implementation regressed; 2 bad input (unknown run,\n"
	"--impl not in both, nothing in common, a run against itself with nothing\n"
	"paired); 3 inconclusive: not enough valid evidence, either run failed (for\n"
	"another reason than NEW's build or start) or is unfinished, or nothing is\n"
	"judged; the reason is given per implementation. --inconclusive-ok turns 3\n"
	"into 0 (advisory jobs).\n",
	.opts = options,
	.flags = CMD_RUN | CMD_RUN2 | CMD_JSON,
	.min_args = 2,
	.max_args = 2,
	.fn = cmd_compare,
};
