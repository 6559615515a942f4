/*
 * cmd_compare: `harness compare BASE NEW`: did NEW get slower or costlier
 * than BASE? The analysis is compare.c; this file parses the command line,
 * prints, and turns the verdicts into the exit code a CI job acts on.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "util.h"

static const char usage_text[] =
	"usage: harness compare BASE NEW [--impl NAME] [--format md|json] [--json]\n"
	"                       [--junit FILE] [--runs-dir D]\n"
	"\n"
	"Compare run NEW with run BASE (run ids under --runs-dir, or run directories),\n"
	"for each implementation present in both, at each rate where both have\n"
	"accepted windows: p99 from the merged histograms (ms) and CPU per request\n"
	"(sum cpu / sum completed, us), the difference new - base with its interval,\n"
	"and the knee of each side with its bootstrap interval.\n"
	"\n"
	"When NEW holds an arm \"<impl>@base\" (harness rerun --with-baseline), <impl>\n"
	"is compared with that arm, paired by block (same stage and block, both\n"
	"windows accepted); otherwise BASE's windows against NEW's, unpaired (Welch),\n"
	"and the output says so.\n"
	"\n"
	"Verdict per metric and rate, with m = margin_pct %% of the base value and\n"
	"[lo, hi] the interval of the mean difference d (level 1 - alpha):\n"
	"  regression    lo > 0 and d > m\n"
	"  improvement   hi < 0 and d < -m\n"
	"  no change     -m < lo and hi < m (equivalent within the margin)\n"
	"  inconclusive  none of these (an interval too wide to tell), or fewer\n"
	"                than 2 windows/pairs\n"
	"Per implementation: regression if any cell is, else improvement if any,\n"
	"else inconclusive if any (or no common rate), else no change. The rule is\n"
	"NEW's stored spec `compare: { margin_pct: 5, metric: [p99,\n"
	"cpu_per_request], alpha: 0.05 }` (those are the defaults).\n"
	"\n"
	"--format md (default) is fit to paste as a pull-request comment; --format\n"
	"json (or --json) is machine-readable; --junit FILE also writes JUnit XML\n"
	"(one testcase per implementation verdict and per metric/rate; regression =\n"
	"failure, inconclusive = skipped).\n"
	"\n"
	"Exit 0 when no implementation regressed, 1 when any did, 2 on bad input\n"
	"(unknown run, --impl not in both, nothing in common).\n";

int cmd_compare(int argc, char **argv)
{
	const char *runs_dir = NULL, *only = NULL, *format = "md", *junit = NULL;
	const char *pos[2] = { NULL, NULL };
	struct cmp_run base, new_;
	struct compare c;
	struct sbuf out = SBUF_INIT;
	int i, npos = 0, ret = EXIT_USAGE, loaded = 0;

	memset(&c, 0, sizeof(c));
	if (cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--runs-dir") && i + 1 < argc)
			runs_dir = argv[++i];
		else if (!strcmp(a, "--impl") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(a, "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(a, "--json"))
			format = "json";
		else if (!strcmp(a, "--junit") && i + 1 < argc)
			junit = argv[++i];
		else if (a[0] == '-' && a[1])
			goto usage;
		else if (npos < 2)
			pos[npos++] = a;
		else
			goto usage;
	}
	if (npos != 2)
		goto usage;
	if (strcmp(format, "md") && strcmp(format, "json")) {
		error("compare: --format %s: expected md or json", format);
		return EXIT_USAGE;
	}

	if (cmp_run_load(&base, runs_dir, pos[0]))
		return EXIT_USAGE;
	if (cmp_run_load(&new_, runs_dir, pos[1])) {
		cmp_run_release(&base);
		return EXIT_USAGE;
	}
	loaded = 1;
	if (compare_runs(&c, &base, &new_, only))
		goto out;
	if (junit) {
		struct sbuf x = SBUF_INIT;
		compare_junit(&c, &x);
		if (write_file(junit, x.buf, x.len)) {
			sbuf_release(&x);
			error("compare: --junit %s: cannot write it", junit);
			goto out;
		}
		sbuf_release(&x);
	}
	if (!strcmp(format, "json"))
		compare_json(&c, &out);
	else
		compare_md(&c, &out);
	fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		error("compare: cannot write to standard output");
		ret = EXIT_ENV;
		goto out;
	}
	ret = c.regressions ? EXIT_NEGATIVE : EXIT_OK;
out:
	if (loaded)
		compare_release(&c);
	sbuf_release(&out);
	return ret;
usage:
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}
