/*
 * cmd_knee: `harness knee --windows FILE.csv`: fit per-implementation knees
 * from windows measured elsewhere (another harness, vegeta scripts), with
 * the same definitions as a run's report (stat.h): rung-mean p99 over
 * accepted windows weighted by requests, PAVA, first SLO crossing
 * interpolated between rungs, bootstrap interval over windows within rungs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "csv.h"
#include "stat.h"
#include "util.h"

static const char usage_text[] =
	"usage: harness knee --windows FILE.csv [--slo-ms 20] [--error-rate-max 0.001]\n"
	"                    [--rate-tolerance-pct 2] [--group-by COLUMN] [--seed N]\n"
	"                    [--min-reps N] [--level 0.95] [--json]\n"
	"\n"
	"Fit the knee (the offered rate where p99 first reaches the SLO) of each\n"
	"implementation, separately, from a CSV of measured windows.\n"
	"\n"
	"CSV: a header row, then one row per window. Required columns (any order,\n"
	"extra columns allowed and usable by --group-by):\n"
	"  impl          implementation name (fits are never pooled across impls)\n"
	"  stage         only rows with stage=ladder feed the knee; others are ignored\n"
	"  offered_rps   the rung's offered rate, req/s (rows with equal rates form a rung)\n"
	"  block         block number (recorded; not used by the fit)\n"
	"  p99_ms        the window's p99 latency, ms (from its own merged histogram)\n"
	"  requests      requests in the window, all outcomes (the window's weight)\n"
	"  errors        failed requests (transport errors, 5xx, dropped)\n"
	"  achieved_rps  completed requests / window duration, req/s\n"
	"  warm          1 if the window passed its warm-up gates, else 0\n"
	"\n"
	"A ladder row is rejected (and counted per implementation, per reason) when\n"
	"warm is 0 (not_warm), requests is 0 (empty), errors/requests exceeds\n"
	"--error-rate-max (error_rate), or |achieved - offered| / offered exceeds\n"
	"--rate-tolerance-pct percent (rate_off); a row failing several reasons is\n"
	"counted under each. The knee interpolates linearly between the rungs\n"
	"bracketing the first crossing of the isotonic (PAVA) fit; with no crossing\n"
	"it is reported as \">= highest rung\" and never extrapolated. The interval is\n"
	"a percentile bootstrap (2000 resamples of the accepted windows within each\n"
	"rung, seeded by --seed, default 1), labelled non-inferential when a\n"
	"bracketing rung has fewer than --min-reps accepted windows (default 10,\n"
	"the spec's confirm.reps default).\n"
	"\n"
	"--json prints {\"fits\": [{\"group\", \"impl\", \"crossed\", \"at_first_rung\",\n"
	"\"knee_rps\", \"highest_rung_rps\", \"interval_rps\": [lo, hi] (null without a\n"
	"crossing), \"boot_resamples\", \"boot_crossed\", \"inferential\",\n"
	"\"rungs\", \"accepted\", \"total\", \"rejected\": {\"not_warm\", \"empty\",\n"
	"\"error_rate\", \"rate_off\"}}]}. Exit 0, or 2 on a usage or input error.\n";

static const char *const required_cols[] = { "impl", "stage", "offered_rps", "block",
	"p99_ms", "requests", "errors", "achieved_rps", "warm" };

enum { R_NOT_WARM, R_EMPTY, R_ERROR_RATE, R_RATE_OFF, R_COUNT };
static const char *const reason_names[R_COUNT] = { "not_warm", "empty", "error_rate",
	"rate_off" };

struct kwin {
	double rate, p99, requests;
};

/* One (group, implementation) fit. */
struct kfit {
	const char *group;   /* NULL without --group-by; points into the csv */
	const char *impl;
	struct kwin *win;    /* accepted windows */
	size_t nwin, alloc;
	size_t total;
	size_t rejected[R_COUNT];
	struct knee_fit fit;
	struct knee_interval iv;
	int ok;              /* a fit was possible (some accepted window) */
};

struct knee_opts {
	const char *windows, *group_by;
	double slo_ms, error_rate_max, tolerance_pct, level;
	uint64_t seed;
	long min_reps;
	int json;
};

static int parse_opts(int argc, char **argv, struct knee_opts *o)
{
	int i;

	o->slo_ms = 20;
	o->error_rate_max = 0.001;
	o->tolerance_pct = 2;
	o->level = 0.95;
	o->seed = 1;
	o->min_reps = 10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq;
		char key[64];
		double d;
		long l;

		if (!strcmp(a, "--json")) {
			o->json = 1;
			continue;
		}
		if (strncmp(a, "--", 2))
			return error("knee: unexpected argument '%s' (see harness knee --help)", a);
		eq = strchr(a, '=');
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - a), a);
			v = eq + 1;
		} else {
			snprintf(key, sizeof(key), "%s", a);
			if (i + 1 >= argc)
				return error("knee: %s needs a value", a);
			v = argv[++i];
		}
		if (!strcmp(key, "--windows")) {
			o->windows = v;
		} else if (!strcmp(key, "--group-by")) {
			o->group_by = v;
		} else if (!strcmp(key, "--slo-ms")) {
			if (parse_double(v, &d) < 0 || !(d > 0) || !isfinite(d))
				return error("knee: --slo-ms: must be a number > 0, got '%s'", v);
			o->slo_ms = d;
		} else if (!strcmp(key, "--error-rate-max")) {
			if (parse_double(v, &d) < 0 || !(d >= 0 && d <= 1))
				return error("knee: --error-rate-max: must be in [0, 1], got '%s'", v);
			o->error_rate_max = d;
		} else if (!strcmp(key, "--rate-tolerance-pct")) {
			if (parse_double(v, &d) < 0 || !(d >= 0) || !isfinite(d))
				return error("knee: --rate-tolerance-pct: must be a number >= 0, got '%s'", v);
			o->tolerance_pct = d;
		} else if (!strcmp(key, "--level")) {
			if (parse_double(v, &d) < 0 || !(d > 0 && d < 1))
				return error("knee: --level: must be in (0, 1), got '%s'", v);
			o->level = d;
		} else if (!strcmp(key, "--seed")) {
			if (parse_long(v, &l) < 0 || l < 0)
				return error("knee: --seed: must be an integer >= 0, got '%s'", v);
			o->seed = (uint64_t)l;
		} else if (!strcmp(key, "--min-reps")) {
			if (parse_long(v, &l) < 0 || l < 1)
				return error("knee: --min-reps: must be an integer >= 1, got '%s'", v);
			o->min_reps = l;
		} else {
			return error("knee: unknown option '%s' (see harness knee --help)", key);
		}
	}
	if (!o->windows)
		return error("knee: --windows FILE.csv is required (see harness knee --help)");
	return 0;
}

static struct kfit *fit_for(struct kfit **fits, size_t *n, size_t *alloc, const char *group,
			    const char *impl)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*fits)[i].impl, impl) &&
		    ((!group && !(*fits)[i].group) ||
		     (group && (*fits)[i].group && !strcmp((*fits)[i].group, group))))
			return &(*fits)[i];
	XGROW(*fits, *alloc, *n + 1);
	memset(&(*fits)[*n], 0, sizeof(**fits));
	(*fits)[*n].group = group;
	(*fits)[*n].impl = impl;
	return &(*fits)[(*n)++];
}

/* Group the accepted windows into rungs (equal offered rates) and fit. */
static void fit_one(struct kfit *f, const struct knee_opts *o)
{
	struct knee_rung *rungs = xcalloc(f->nwin ? f->nwin : 1, sizeof(*rungs));
	double *p99 = xmalloc((f->nwin ? f->nwin : 1) * sizeof(double));
	double *w = xmalloc((f->nwin ? f->nwin : 1) * sizeof(double));
	size_t nr = 0, i, j, k = 0;
	char *used = xcalloc(f->nwin ? f->nwin : 1, 1);

	for (i = 0; i < f->nwin; i++) {
		if (used[i])
			continue;
		rungs[nr].rate = f->win[i].rate;
		rungs[nr].p99_ms = &p99[k];
		rungs[nr].weight = &w[k];
		for (j = i; j < f->nwin; j++) {
			if (used[j] || f->win[j].rate != f->win[i].rate)
				continue;
			used[j] = 1;
			p99[k] = f->win[j].p99;
			w[k] = f->win[j].requests;
			k++;
			rungs[nr].nwin++;
		}
		nr++;
	}
	f->ok = stat_knee(rungs, nr, o->slo_ms, &f->fit) == 0 &&
		stat_knee_bootstrap(rungs, nr, o->slo_ms, 2000, o->level, o->seed,
				    (size_t)o->min_reps, &f->iv) == 0;
	free(used);
	free(rungs);
	free(p99);
	free(w);
}

static void add_num(struct sbuf *sb, double v)
{
	if (isfinite(v))
		sbuf_addf(sb, "%.10g", v);
	else
		sbuf_adds(sb, "null");
}

static void print_json(struct sbuf *sb, const struct kfit *fits, size_t n,
		       const struct knee_opts *o)
{
	size_t i, r;

	sbuf_addf(sb, "{\"slo_ms\": %.10g, \"level\": %.10g, \"seed\": %llu, \"min_reps\": %ld, \"fits\": [",
		  o->slo_ms, o->level, (unsigned long long)o->seed, o->min_reps);
	for (i = 0; i < n; i++) {
		const struct kfit *f = &fits[i];

		sbuf_adds(sb, i ? ",\n  {" : "\n  {");
		sbuf_adds(sb, "\"group\": ");
		if (f->group)
			sbuf_add_json_str(sb, f->group);
		else
			sbuf_adds(sb, "null");
		sbuf_adds(sb, ", \"impl\": ");
		sbuf_add_json_str(sb, f->impl);
		sbuf_addf(sb, ", \"crossed\": %s, \"at_first_rung\": %s, \"knee_rps\": ",
			  f->ok && f->fit.crossed ? "true" : "false",
			  f->ok && f->fit.at_first_rung ? "true" : "false");
		add_num(sb, f->ok && f->fit.crossed ? f->fit.knee_rps : NAN);
		sbuf_adds(sb, ", \"highest_rung_rps\": ");
		add_num(sb, f->ok ? f->fit.highest_rung_rps : NAN);
		/* No crossing: no interval for a knee that was not found. */
		sbuf_adds(sb, ", \"interval_rps\": [");
		add_num(sb, f->ok && f->fit.crossed ? f->iv.lo : NAN);
		sbuf_adds(sb, ", ");
		add_num(sb, f->ok && f->fit.crossed ? f->iv.hi : NAN);
		sbuf_addf(sb, "], \"boot_resamples\": %zu, \"boot_crossed\": %zu",
			  f->ok ? f->iv.nboot : 0, f->ok ? f->iv.ncrossed : 0);
		sbuf_addf(sb, ", \"inferential\": %s, \"rungs\": %zu, \"accepted\": %zu, "
			      "\"total\": %zu, \"rejected\": {",
			  f->ok && f->iv.inferential ? "true" : "false", f->ok ? f->fit.rungs : 0,
			  f->nwin, f->total);
		for (r = 0; r < R_COUNT; r++)
			sbuf_addf(sb, "%s\"%s\": %zu", r ? ", " : "", reason_names[r], f->rejected[r]);
		sbuf_adds(sb, "}}");
	}
	sbuf_adds(sb, "\n]}\n");
}

static void print_text(struct sbuf *sb, const struct kfit *fits, size_t n,
		       const struct knee_opts *o)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct kfit *f = &fits[i];

		if (f->group)
			sbuf_addf(sb, "[%s=%s] ", o->group_by, f->group);
		sbuf_addf(sb, "%s: ", f->impl);
		if (!f->ok)
			sbuf_adds(sb, "no accepted ladder window: no knee");
		else if (!f->fit.crossed)
			sbuf_addf(sb, "knee >= %.1f req/s (highest rung; the fit never reached %g ms)",
				  f->fit.highest_rung_rps, o->slo_ms);
		else if (f->fit.at_first_rung)
			sbuf_addf(sb, "knee <= %.1f req/s (already over %g ms at the first rung)",
				  f->fit.knee_rps, o->slo_ms);
		else
			sbuf_addf(sb, "knee %.1f req/s", f->fit.knee_rps);
		if (f->ok && !f->fit.crossed)
			sbuf_addf(sb, ", %zu of %zu bootstrap resamples crossed", f->iv.ncrossed,
				  f->iv.nboot);
		else if (f->ok)
			sbuf_addf(sb, ", %g%% interval %.1f..%.1f req/s (%s)", o->level * 100,
				  f->iv.lo, f->iv.hi,
				  f->iv.ncrossed < f->iv.nboot
					  ? "some resamples never crossed: the upper end is the highest rung"
				  : f->iv.inferential ? "bootstrap"
						    : "non-inferential: a bracketing rung has "
						      "fewer accepted windows than --min-reps");
		sbuf_addf(sb, "; %zu rungs; %zu/%zu windows accepted (rejected: %zu not warm, "
			      "%zu empty, %zu error rate, %zu rate off)\n",
			  f->ok ? f->fit.rungs : 0, f->nwin, f->total, f->rejected[R_NOT_WARM],
			  f->rejected[R_EMPTY], f->rejected[R_ERROR_RATE], f->rejected[R_RATE_OFF]);
	}
}

int cmd_knee(int argc, char **argv)
{
	struct knee_opts o = { 0 };
	struct csv c = CSV_INIT;
	struct sbuf out = SBUF_INIT;
	struct kfit *fits = NULL;
	size_t nfits = 0, afits = 0, r, i, ladder = 0;
	int col[ARRAY_SIZE(required_cols)], gcol = -1, ret = EXIT_USAGE;

	if (cmd_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (parse_opts(argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (csv_read_file(o.windows, &c) < 0)
		goto out;
	for (i = 0; i < ARRAY_SIZE(required_cols); i++) {
		col[i] = csv_col(&c, required_cols[i]);
		if (col[i] < 0) {
			error("%s: missing column '%s' (see harness knee --help)", o.windows,
			      required_cols[i]);
			goto out;
		}
	}
	if (o.group_by && (gcol = csv_col(&c, o.group_by)) < 0) {
		error("%s: --group-by: no column '%s'", o.windows, o.group_by);
		goto out;
	}
	for (r = 0; r < c.nrows; r++) {
		double v[ARRAY_SIZE(required_cols)];
		struct kfit *f;
		int bad[R_COUNT] = { 0 }, k, any = 0;

		if (strcmp(c.rows[r][col[1]], "ladder"))
			continue;
		for (i = 2; i < ARRAY_SIZE(required_cols); i++) {
			const char *s = c.rows[r][col[i]];

			if (i == 8 && (!strcmp(s, "true") || !strcmp(s, "false"))) {
				v[i] = !strcmp(s, "true");
				continue;
			}
			if (parse_double(s, &v[i]) < 0 || !isfinite(v[i])) {
				error("%s:%zu: column '%s': not a number: '%s'", o.windows,
				      c.lines[r], required_cols[i], s);
				goto out;
			}
			if (v[i] < 0) {
				error("%s:%zu: column '%s': must be >= 0, got '%s'", o.windows,
				      c.lines[r], required_cols[i], s);
				goto out;
			}
		}
		if (!(v[2] > 0)) {
			error("%s:%zu: column 'offered_rps': must be > 0, got '%s'", o.windows,
			      c.lines[r], c.rows[r][col[2]]);
			goto out;
		}
		ladder++;
		f = fit_for(&fits, &nfits, &afits, gcol >= 0 ? c.rows[r][gcol] : NULL,
			    c.rows[r][col[0]]);
		f->total++;
		bad[R_NOT_WARM] = v[8] == 0;
		bad[R_EMPTY] = v[5] == 0;
		bad[R_ERROR_RATE] = v[5] > 0 && v[6] / v[5] > o.error_rate_max;
		bad[R_RATE_OFF] = fabs(v[7] - v[2]) / v[2] * 100 > o.tolerance_pct;
		for (k = 0; k < R_COUNT; k++) {
			f->rejected[k] += bad[k];
			any |= bad[k];
		}
		if (any)
			continue;
		XGROW(f->win, f->alloc, f->nwin + 1);
		f->win[f->nwin++] = (struct kwin){ v[2], v[4], v[5] };
	}
	if (!ladder) {
		error("%s: no rows with stage=ladder", o.windows);
		goto out;
	}
	for (i = 0; i < nfits; i++)
		fit_one(&fits[i], &o);
	if (o.json)
		print_json(&out, fits, nfits, &o);
	else
		print_text(&out, fits, nfits, &o);
	fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		error("knee: writing standard output failed");
		ret = EXIT_ENV;
		goto out;
	}
	ret = EXIT_OK;
out:
	for (i = 0; i < nfits; i++)
		free(fits[i].win);
	free(fits);
	sbuf_release(&out);
	csv_release(&c);
	return ret;
}
