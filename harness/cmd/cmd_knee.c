/*
 * cmd_knee: `harness knee --windows FILE.csv` and `harness knee RUN`:
 * per-implementation knees through the one rule of harness/model/knee.h, from
 * windows measured elsewhere (another harness, vegeta scripts, a run's own
 * windows.csv) or from a run database (what the report shows).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/jout.h"
#include "base/csv.h"
#include "model/knee.h"
#include "model/view.h"
#include "store/store_run.h"
#include "spec/spec.h"
#include "store/store.h"
#include "base/util.h"

static const char *const required_cols[] = { "impl", "stage", "offered_rps", "block",
	"p99_ms", "requests", "errors", "achieved_rps", "warm" };

enum { R_NOT_WARM, R_EMPTY, R_ERROR_RATE, R_STATUS, R_COUNT };
static const char *const reason_names[R_COUNT] = { "not_warm", "empty", "error_rate",
	"status" };

/* Optional columns (-1: absent). */
struct knee_cols {
	int pct;             /* the percentile's column */
	int status, not_ok;
	int completed, duration;  /* requests answered; the window's seconds */
};

/* One (group, implementation) fit. */
struct kfit {
	char *group;         /* NULL without --group-by */
	char *impl;
	struct knee_window *win;  /* valid windows */
	size_t nwin, alloc;
	size_t total, accepted, failed;
	size_t under;        /* failed: answered short of due beyond the tolerance */
	size_t rejected[R_COUNT];
	struct knee_result k;     /* a CSV fit's */
	const struct knee_result *kp;  /* the fit printed: &k, or the run view's */
};

struct knee_opts {
	const char *windows, *group_by, *run, *runs_dir;
	double slo_ms, percentile, error_rate_max, tolerance_pct, level;
	uint64_t seed;
	long min_reps;
	int json;
};

static struct knee_opts o = {
	.slo_ms = 20, .percentile = 99, .error_rate_max = 0.001, .tolerance_pct = 2,
	.level = 0.95, .seed = 1, .min_reps = 10,
};
static long seed_opt = -1;

static const struct opt options[] = {
	OPT_STRING(0, "windows", "FILE.csv", &o.windows, "fit the windows of this CSV"),
	OPT_NUMBER("slo-ms", "MS", &o.slo_ms, 1e-9, 1e9, "the SLO threshold (default 20)"),
	OPT_NUMBER("percentile", "P", &o.percentile, 1e-9, 99.9999999,
		   "the SLO percentile (default 99)"),
	OPT_NUMBER("error-rate-max", "X", &o.error_rate_max, 0, 1,
		   "a window above it is failed (default 0.001)"),
	OPT_NUMBER("rate-tolerance-pct", "PCT", &o.tolerance_pct, 0, 1e9,
		   "how far the requests answered may fall below the\n"
		   "requests due, percent of due (default 2, as the\n"
		   "achieved_vs_offered gate)"),
	OPT_STRING(0, "group-by", "COLUMN", &o.group_by, "one fit per value of COLUMN"),
	OPT_LONG("seed", "N", &seed_opt, 0, 9.2e18, "bootstrap seed (default 1)"),
	OPT_LONG("min-reps", "N", &o.min_reps, 1, 1e9,
		 "valid windows a bracketing rung needs (default 10)"),
	OPT_NUMBER("level", "L", &o.level, 1e-9, 0.999999999, "interval level (default 0.95)"),
	OPT_END(),
};

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
	(*fits)[*n].group = group ? xstrdup(group) : NULL;
	(*fits)[*n].impl = xstrdup(impl);
	return &(*fits)[(*n)++];
}

static void fit_one(struct kfit *f, const struct knee_opts *o)
{
	struct knee_params p = { .percentile = o->percentile, .threshold_ms = o->slo_ms,
				 .error_rate_max = o->error_rate_max,
				 .min_reps = (size_t)o->min_reps, .seed = o->seed, .nboot = 2000,
				 .level = o->level };

	knee_fit(f->win, f->nwin, &p, &f->k);
	f->kp = &f->k;
}


static void print_json(struct sbuf *sb, const struct kfit *fits, size_t n,
		       const struct knee_opts *o)
{
	json_t *top = json_object(), *arr = json_array();
	size_t i, r;
	char *text;

	jout_set(top, "slo_ms", jout_num(o->slo_ms), "percentile", jout_num(o->percentile),
		 "level", jout_num(o->level), "seed", json_integer((json_int_t)o->seed),
		 "min_reps", json_integer(o->min_reps), NULL);
	for (i = 0; i < n; i++) {
		const struct kfit *f = &fits[i];
		const struct knee_result *k = f->kp;
		json_t *fo = json_object(), *ci = json_array(), *rej = json_object();

		jout_set(fo, "group", jout_str(f->group), "impl", jout_str(f->impl),
			 "kind", json_string(knee_kind_name(k->kind)),
			 "crossed", json_boolean(k->crossed),
			 "at_first_rung", json_boolean(k->at_first_rung),
			 "knee_rps", jout_num(k->knee_rps), "lo_rps", jout_num(k->lo_rps),
			 "hi_rps", jout_num(k->hi_rps), "hold_rps", jout_num(k->hold_rps),
			 "reason", jout_str(k->reason),
			 "highest_rung_rps", jout_num(k->highest_rung_rps), NULL);
		/* No crossing: no interval for a knee that was not found. */
		json_array_append_new(ci, jout_num(k->crossed && k->has_ci ? k->ci_lo : NAN));
		json_array_append_new(ci, jout_num(k->crossed && k->has_ci ? k->ci_hi : NAN));
		jout_set(fo, "interval_rps", ci,
			 "boot_resamples", json_integer((json_int_t)k->nboot),
			 "boot_crossed", json_integer((json_int_t)k->ncrossed),
			 "inferential", json_boolean(k->kind != KNEE_NONE && k->inferential),
			 "rungs", json_integer((json_int_t)k->nrungs),
			 "accepted", json_integer((json_int_t)f->accepted),
			 "failed", json_integer((json_int_t)f->failed),
			 "under_delivered", json_integer((json_int_t)f->under),
			 "total", json_integer((json_int_t)f->total), NULL);
		for (r = 0; r < R_COUNT; r++)
			json_object_set_new(rej, reason_names[r], json_integer((json_int_t)f->rejected[r]));
		json_object_set_new(fo, "rejected", rej);
		json_array_append_new(arr, fo);
	}
	json_object_set_new(top, "fits", arr);
	text = jout_dumps(top);
	sbuf_adds(sb, text);
	free(text);
}

static void print_text(struct sbuf *sb, const struct kfit *fits, size_t n,
		       const struct knee_opts *o)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct kfit *f = &fits[i];
		const struct knee_result *k = f->kp;

		if (f->group)
			sbuf_addf(sb, "[%s=%s] ", o->group_by, f->group);
		sbuf_addf(sb, "%s: ", f->impl);
		if (k->kind == KNEE_NONE)
			sbuf_adds(sb, "no valid window: no knee");
		else if (k->kind == KNEE_FLOOR)
			sbuf_addf(sb, "knee >= %.0f req/s (highest rung; held the SLO at every valid"
				      " rung, the fit never reached %g ms)", k->highest_rung_rps,
				  o->slo_ms);
		else
			knee_describe(k, sb);
		if (k->kind != KNEE_NONE && !k->crossed)
			sbuf_addf(sb, ", %zu of %zu bootstrap resamples crossed", k->ncrossed, k->nboot);
		else if (k->kind != KNEE_NONE && k->has_ci)
			sbuf_addf(sb, ", %g%% interval %.0f..%.0f req/s (%s)", o->level * 100,
				  k->ci_lo, k->ci_hi,
				  k->ncrossed < k->nboot
					  ? "some resamples never crossed: the upper end is the highest rung"
				  : k->inferential ? "bootstrap"
						   : "non-inferential: a bracketing rung has "
						     "fewer valid windows than --min-reps");
		sbuf_addf(sb, "; %zu rungs; %zu/%zu windows accepted, %zu failed (%zu under-delivered; "
			      "rejected: %zu not warm, %zu empty, %zu error rate, %zu by status)\n",
			  k->nrungs, f->accepted, f->total, f->failed, f->under,
			  f->rejected[R_NOT_WARM], f->rejected[R_EMPTY], f->rejected[R_ERROR_RATE],
			  f->rejected[R_STATUS]);
	}
}

/* The column holding the windows' knee input: knee_ms (a run's
 * windows.csv at the run's SLO percentile: that percentile raised by
 * per-request promises, knee_run.h), <label>_ms_from_hist (an older
 * windows.csv), else the stored percentile columns. */
static int pct_col(const struct csv *c, double pct)
{
	static const struct { double p; const char *col; } cols[] = {
		{ 99, "p99_ms" }, { 99.9, "p999_ms" }, { 90, "p90_ms" }, { 50, "p50_ms" },
	};
	char name[64];
	size_t i;
	int k;

	if (pct == 99)
		snprintf(name, sizeof(name), "p99_ms_from_hist");
	else
		snprintf(name, sizeof(name), "p%g_ms_from_hist", pct);
	/* knee_ms is at the run's SLO percentile: the one its
	 * <label>_ms_from_hist column names. */
	if ((k = csv_col(c, name)) >= 0 && csv_col(c, "knee_ms") >= 0)
		return csv_col(c, "knee_ms");
	if (k >= 0)
		return k;
	for (i = 0; i < ARRAY_SIZE(cols); i++)
		if (fabs(cols[i].p - pct) < 1e-9)
			return csv_col(c, cols[i].col);
	return -1;
}

/* A row's requests answered: its completed column, else achieved_rps x
 * duration_s, else achieved_rps x the nominal seconds requests / offered.
 * NAN after error(). */
static double answered_of(const struct knee_opts *o, const struct csv *c, size_t r,
			  const struct knee_cols *oc, const double *v)
{
	const int cols[2] = { oc->completed, oc->duration };
	double x[2] = { NAN, NAN };
	int i;

	for (i = 0; i < 2; i++)
		if (cols[i] >= 0 && (parse_double(c->rows[r][cols[i]], &x[i]) < 0 ||
				     !(x[i] >= 0))) {
			error("%s:%zu: column '%s': must be a number >= 0, got '%s'", o->windows,
			      c->lines[r], c->header[cols[i]], c->rows[r][cols[i]]);
			return NAN;
		}
	if (cols[0] >= 0)
		return x[0];
	return v[7] * (cols[1] >= 0 ? x[1] : v[5] / v[2]);
}

/* Read one CSV row into f (or count it rejected). 0, or -1 after error(). */
static int csv_row(const struct knee_opts *o, const struct csv *c, size_t r, const int *col,
		   const struct knee_cols *oc, struct kfit *f)
{
	int pcol = oc->pct, scol = oc->status, bcol = oc->not_ok;
	double unserved = 0;
	double v[ARRAY_SIZE(required_cols)];
	int bad[R_COUNT] = { 0 }, k, any = 0, failed = 0;
	size_t i;

	for (i = 2; i < ARRAY_SIZE(required_cols); i++) {
		const char *s = c->rows[r][i == 4 ? pcol : col[i]];

		if (i == 8 && (!strcmp(s, "true") || !strcmp(s, "false"))) {
			v[i] = !strcmp(s, "true");
			continue;
		}
		/* A window with no completed request has no percentile. */
		if (i == 4 && !*s && scol >= 0) {
			v[i] = NAN;
			continue;
		}
		if (parse_double(s, &v[i]) < 0 || !isfinite(v[i]))
			return error("%s:%zu: column '%s': not a number: '%s'", o->windows,
				     c->lines[r], i == 4 ? c->header[pcol] : required_cols[i], s);
		if (v[i] < 0)
			return error("%s:%zu: column '%s': must be >= 0, got '%s'", o->windows,
				     c->lines[r], required_cols[i], s);
	}
	if (!(v[2] > 0))
		return error("%s:%zu: column 'offered_rps': must be > 0, got '%s'", o->windows,
			     c->lines[r], c->rows[r][col[2]]);
	f->total++;
	if (scol >= 0) {
		const char *st = c->rows[r][scol];

		if (!strcmp(st, "rejected"))
			bad[R_STATUS] = 1;
		else if (!strcmp(st, "failed"))
			failed = 1;
		else if (strcmp(st, "accepted"))
			return error("%s:%zu: column 'status': accepted, failed or rejected, got '%s'",
				     o->windows, c->lines[r], st);
	} else {
		bad[R_NOT_WARM] = v[8] == 0;
		bad[R_EMPTY] = v[5] == 0;
		bad[R_ERROR_RATE] = v[5] > 0 && v[6] / v[5] > o->error_rate_max;
		/* achieved_vs_offered's rule: answered against the requests
		 * due, one-sided; under-delivery is the outcome (failed) */
		if (v[5] > 0) {
			double ans = answered_of(o, c, r, oc, v);

			if (isnan(ans))
				return -1;
			if ((v[5] - ans) / v[5] * 100 > o->tolerance_pct) {
				failed = 1;
				f->under++;
				unserved = v[5] - ans;
			}
		}
	}
	for (k = 0; k < R_COUNT; k++) {
		f->rejected[k] += bad[k];
		any |= bad[k];
	}
	if (any)
		return 0;
	if (failed)
		f->failed++;
	else
		f->accepted++;
	XGROW(f->win, f->alloc, f->nwin + 1);
	/* not answered as expected: errors, and what an under-delivering
	 * window left unserved (a run's not_ok; knee.h) */
	f->win[f->nwin++] = (struct knee_window){ v[2], failed, v[4], v[5], v[6] + unserved };
	if (bcol >= 0) {
		double nb;

		if (parse_double(c->rows[r][bcol], &nb) < 0 || !(nb >= 0))
			return error("%s:%zu: column 'not_ok': must be a number >= 0, got '%s'",
				     o->windows, c->lines[r], c->rows[r][bcol]);
		f->win[f->nwin - 1].bad = nb;
	}
	return 0;
}

static int from_csv(struct knee_opts *o, struct kfit **fits, size_t *nfits)
{
	struct csv c = CSV_INIT;
	size_t afits = 0, r, i, used = 0;
	int col[ARRAY_SIZE(required_cols)], gcol = -1, ret = -1;
	struct knee_cols oc;

	if (csv_read_file(o->windows, &c) < 0)
		goto out;
	for (i = 0; i < ARRAY_SIZE(required_cols); i++) {
		col[i] = csv_col(&c, required_cols[i]);
		if (col[i] < 0) {
			error("%s: missing column '%s' (see harness knee --help)", o->windows,
			      required_cols[i]);
			goto out;
		}
	}
	if ((oc.pct = pct_col(&c, o->percentile)) < 0) {
		error("%s: no column with the windows' p%g (p%g_ms_from_hist; see harness knee --help)",
		      o->windows, o->percentile, o->percentile);
		goto out;
	}
	if (o->group_by && (gcol = csv_col(&c, o->group_by)) < 0) {
		error("%s: --group-by: no column '%s'", o->windows, o->group_by);
		goto out;
	}
	oc.status = csv_col(&c, "status");
	oc.not_ok = csv_col(&c, "not_ok");
	oc.completed = csv_col(&c, "completed");
	oc.duration = csv_col(&c, "duration_s");
	for (r = 0; r < c.nrows; r++) {
		const char *stage = c.rows[r][col[1]];
		struct kfit *f;

		if (strcmp(stage, "ladder") &&
		    (oc.status < 0 || (strcmp(stage, "confirm") && strcmp(stage, "refine"))))
			continue;
		used++;
		f = fit_for(fits, nfits, &afits, gcol >= 0 ? c.rows[r][gcol] : NULL,
			    c.rows[r][col[0]]);
		if (csv_row(o, &c, r, col, &oc, f))
			goto out;
	}
	if (!used) {
		error("%s: no rows with stage=ladder", o->windows);
		goto out;
	}
	ret = 0;
out:
	csv_release(&c);
	return ret;
}

/* RUN's view (view.h), read by from_run, alive until the fits are printed. */
static struct view run_view;

/* Every implementation of RUN with its knee as its report has it (the
 * view's). Exit code: 2 when the database cannot be read or holds no
 * spec, 3 when this harness cannot parse the stored spec. */
static int from_run(struct cmd_ctx *c, struct knee_opts *o, struct kfit **fits, size_t *nfits)
{
	struct store *st = &c->st;
	const struct run_record *rec = &run_view.rec;
	struct knee_params p;
	const char *text;
	size_t afits = 0, k, i, len;

	if (view_load(&run_view, st, c->run_id.buf) || run_record_spec(rec, st->path, &text, &len))
		return EXIT_USAGE;
	if (!run_view.spec) {
		error("%s: run %s: its stored spec does not parse with this harness", st->path,
		      c->run_id.buf);
		return EXIT_ENV;
	}
	o->slo_ms = run_view.spec->slo.threshold_ms;
	o->percentile = run_view.spec->slo.percentile;
	knee_params_from_spec(&p, run_view.spec);
	if (rec->nimpls) {
		o->seed = p.seed;
		o->min_reps = (long)p.min_reps;
		o->level = p.level;
	}
	for (k = 0; k < rec->nimpls; k++) {
		const struct view_impl *vi = &run_view.impls[k];
		struct kfit *f = fit_for(fits, nfits, &afits, NULL, vi->name);

		f->kp = &vi->knee;
		f->total = vi->nknee;
		for (i = 0; i < run_view.nwindows; i++) {
			const struct view_window *w = &run_view.windows[i];

			f->failed += w->impl_idx == (int)k && w->failed &&
				     (!strcmp(w->stage, "ladder") || !strcmp(w->stage, "refine") ||
				      !strcmp(w->stage, "confirm"));
		}
		f->accepted = f->total - f->failed;
	}
	return EXIT_OK;
}

static int cmd_knee(struct cmd_ctx *c)
{
	struct sbuf out = SBUF_INIT;
	struct kfit *fits = NULL;
	size_t nfits = 0, i;
	int ret = EXIT_USAGE;

	o.json = c->json;
	o.run = c->run;
	if (seed_opt >= 0)
		o.seed = (uint64_t)seed_opt;
	if (!o.windows == !o.run)
		return error("knee: give either --windows FILE.csv or a RUN (see harness knee --help)"),
		       EXIT_USAGE;
	if (o.run) {
		ret = from_run(c, &o, &fits, &nfits);
		if (ret != EXIT_OK)
			goto out;
	} else {
		if (from_csv(&o, &fits, &nfits))
			goto out;
		for (i = 0; i < nfits; i++)
			fit_one(&fits[i], &o);
	}
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
	for (i = 0; i < nfits; i++) {
		free(fits[i].win);
		free(fits[i].group);
		free(fits[i].impl);
		knee_result_release(&fits[i].k);
	}
	free(fits);
	view_release(&run_view);
	sbuf_release(&out);
	return ret;
}

const struct cmd_desc cmd_knee_desc = {
	.name = "knee",
	.summary = "fit per-implementation knees from a windows CSV or a run",
	.synopsis = "--windows FILE.csv [options]\nRUN [--runs-dir D] [--json]",
	.about =
	"Fit the knee (the offered rate where the SLO percentile first reaches the\n"
	"SLO) of each implementation, separately, with the rule of docs/DESIGN.md\n"
	"\"The knee\": per rung, the request-weighted mean of the valid windows'\n"
	"percentile, or a crossing when every valid window failed or the pooled\n"
	"share of requests not answered as expected exceeds --error-rate-max (or\n"
	"100 - percentile %); isotonic (PAVA) over the rungs; the first crossing,\n"
	"interpolated between the rungs around it, or a bracket (lo, hi] with its\n"
	"reason when failed windows made it; \">= highest rung\" without a crossing,\n"
	"never extrapolated. Interval: percentile bootstrap (2000 resamples of the\n"
	"valid windows within each rung, seeded by --seed, default 1), labelled\n"
	"non-inferential when a bracketing rung has fewer than --min-reps valid\n"
	"windows (default 10, the spec's confirm.reps default).\n"
	"\n"
	"RUN: the run's valid windows (ladder, refine, confirm) with its stored\n"
	"spec's SLO, seed and confirm.reps: the knees its report shows.\n"
	"\n"
	"CSV: a header row, then one row per window. Required columns (any order,\n"
	"extra columns allowed and usable by --group-by):\n"
	"  impl          implementation name (fits are never pooled across impls)\n"
	"  stage         ladder rows feed the knee (with a status column: ladder,\n"
	"                refine and confirm rows); others are ignored\n"
	"  offered_rps   the rung's offered rate, req/s (rows with equal rates form a rung)\n"
	"  block         block number (recorded; not used by the fit)\n"
	"  p99_ms        the window's p99 latency, ms (from its own merged histogram);\n"
	"                for another --percentile: a column <label>_ms_from_hist\n"
	"                (p99.9_ms_from_hist, as a run's windows.csv has), or p50_ms,\n"
	"                p90_ms, p999_ms\n"
	"  requests      requests due in the window (the window's weight)\n"
	"  errors        of them, not answered as expected (unexpected statuses,\n"
	"                transport errors, dropped)\n"
	"  achieved_rps  completed requests / window duration, req/s\n"
	"  warm          1 if the window passed its warm-up gates, else 0\n"
	"Optional:\n"
	"  not_ok        requests not answered as expected, for the knee (a failed\n"
	"                window's unserved ones too; a run's windows.csv has it);\n"
	"                without it: errors\n"
	"  completed     requests answered in the window (else achieved_rps x\n"
	"                duration_s, else achieved_rps x requests / offered_rps)\n"
	"  duration_s    the window's measured seconds\n"
	"  status        accepted | failed | rejected: when present it decides: rejected\n"
	"                rows are left out, failed rows are valid windows above the SLO,\n"
	"                and the checks below are not applied (a CSV whose failed\n"
	"                windows are all marked rejected gives the knees of accepted\n"
	"                windows only, as before failed windows existed).\n"
	"\n"
	"Without a status column a ladder row is rejected (and counted per\n"
	"implementation, per reason) when warm is 0 (not_warm), requests is 0\n"
	"(empty) or errors/requests exceeds --error-rate-max (error_rate); a row\n"
	"failing several reasons is counted under each. A row that answered more\n"
	"than --rate-tolerance-pct percent fewer requests than were due,\n"
	"(requests - answered) / requests, is failed (under_delivered), the\n"
	"achieved_vs_offered gate's rule in a run: one-sided, against the requests\n"
	"due, never against the nominal rate when completed or duration_s say more;\n"
	"under-delivery is the implementation's outcome, a valid window above the\n"
	"SLO, not a void one.\n"
	"\n"
	"--json prints {\"fits\": [{\"group\", \"impl\", \"kind\" (point|bracket|floor|\n"
	"none), \"crossed\", \"at_first_rung\", \"knee_rps\", \"lo_rps\", \"hi_rps\",\n"
	"\"hold_rps\", \"reason\", \"highest_rung_rps\", \"interval_rps\": [lo, hi] (null\n"
	"without a crossing), \"boot_resamples\", \"boot_crossed\", \"inferential\",\n"
	"\"rungs\", \"accepted\", \"failed\", \"under_delivered\", \"total\",\n"
	"\"rejected\": {\"not_warm\", \"empty\", \"error_rate\", \"status\"}}]}. Exit 0, or 2\n"
	"on a usage or input error (an unknown RUN too), 3 when the run's stored spec does not\n"
	"parse with this harness.\n",
	.opts = options,
	.flags = CMD_RUN | CMD_RUN_OPTIONAL | CMD_JSON,
	.max_args = 1,
	.fn = cmd_knee,
};
