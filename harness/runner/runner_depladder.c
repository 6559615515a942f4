/*
 * runner_depladder: a dependency's own ceiling (dependencies[].ladder),
 * measured once per run before the first window: its load command (e.g.
 * pgbench -R {rate} -T {duration}, redis-benchmark) run rung by rung from
 * start_rate, x step, to max_rate, each rung's achieved ops/s read from its
 * output (ladder.throughput), and, with stats.demand, the demand counter's
 * rate over the rung (runner_depstats_read before and after): the unit
 * each window's demand is judged in. Fail closed: a rung whose output
 * has no throughput, or whose demand (when declared) cannot be read,
 * stops the run (exit 3) rather than leave a ceiling in the wrong unit
 * or none at all. A rung keeps up at (100 -
 * tolerance_pct)% of its rate; the ladder stops at the first that does
 * not. The ceiling is the most it achieved on any rung (in demand units
 * when the demand was read at every rung, else as the command reported
 * it). A command without {rate} runs once, closed loop. Every rung is
 * stored (dep_ceiling); a resumed run reads them back when the ladder
 * they hold is complete (ladder_complete), and measures it again from its
 * first rung when it is not (interrupted between rungs): never a ceiling
 * from a partial ladder.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/depstats.h"
#include "base/util.h"
#include "runner/runner_internal.h"
#include "store/store.h"
#include "store/store_dep.h"

#define LADDER_OUT_MAX (4u << 20)
#define LADDER_MAX_RUNGS 40

/* argv with {rate} and {duration} replaced (a copy). */
static char **subst(char **argv, double rate, double duration_s)
{
	size_t n, i;
	char **out;

	for (n = 0; argv[n]; n++)
		;
	out = xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		struct sbuf sb = SBUF_INIT;
		const char *p = argv[i];

		while (*p) {
			if (!strncmp(p, "{rate}", 6)) {
				sbuf_addf(&sb, "%.0f", rate);
				p += 6;
			} else if (!strncmp(p, "{duration}", 10)) {
				sbuf_addf(&sb, "%.0f", duration_s);
				p += 10;
			} else
				sbuf_add(&sb, p++, 1);
		}
		out[i] = sbuf_detach(&sb, NULL);
	}
	return out;
}

static int has_rate(char **argv)
{
	for (; *argv; argv++)
		if (strstr(*argv, "{rate}"))
			return 1;
	return 0;
}

/* The demand counter's rate over a rung: its increase between the
 * readings before and after the command, over the command's seconds (a
 * fixed-rate command's own duration: its start-up is no load). */
static double demand_rate(const struct spec_dep *sd, const struct depstats *a,
			  const struct depstats *b, double seconds)
{
	double x = depstats_get(a, sd->stats_demand), y = depstats_get(b, sd->stats_demand);

	return isfinite(x) && isfinite(y) && y >= x && seconds > 0 ? (y - x) / seconds : NAN;
}

/* One rung: run, read its throughput and its demand rate. */
static int run_rung(struct run_ctx *rc, size_t i, struct dep_ceiling_row *row)
{
	struct dep_run *d = &rc->deps[i];
	const struct spec_dep *sd = d->spec;
	struct depstats a, b;
	struct sbuf log = SBUF_INIT, text = SBUF_INIT;
	char **argv = subst(sd->ladder_cmd, row->rate, sd->ladder_duration_s);
	double ta[2] = { 0, 0 }, tb[2] = { 0, 0 }, t0, secs;
	int want_demand = sd->stats_cmd && sd->stats_demand, demand = want_demand, rc_cmd, ret = -1;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	demand = demand && !runner_depstats_read(rc, i, -1, &a, ta);
	sbuf_addf(&log, "%s/%s.ladder.%d.log", rc->logs_dir, d->sut_name, row->idx);
	unlink(log.buf);
	t0 = now_wall();
	rc_cmd = runner_dep_command(rc, d, argv, "ladder", sd->ladder_duration_s * 3 + 60, 1,
				    log.buf);
	secs = now_wall() - t0;
	if (isfinite(row->rate) && secs > sd->ladder_duration_s)
		secs = sd->ladder_duration_s;
	if (rc_cmd < 0)
		goto out;
	demand = demand && !runner_depstats_read(rc, i, -1, &b, tb);
	row->exit_code = rc_cmd ? 1 : 0;
	if (read_file(log.buf, &text, LADDER_OUT_MAX))
		goto out;
	depstats_throughput(sd->ladder_throughput, text.buf, &row->throughput);
	if (!isfinite(row->throughput)) {
		/* fail closed: a rung that printed no throughput measured
		 * nothing (a failed command, or a pattern that never matches) */
		error("dependency %s: ladder rung %d: %s (exit %s) printed no throughput matching"
		      " \"%s\" (see %s)", sd->impl.name, row->idx, sd->ladder_cmd[0],
		      row->exit_code ? "non-zero" : "0", sd->ladder_throughput, log.buf);
		goto out_quiet;
	}
	row->demand_rps = demand ? demand_rate(sd, &a, &b, secs) : NAN;
	if (want_demand && !isfinite(row->demand_rps)) {
		/* the ceiling must be in the unit each window's demand is read
		 * in (stats.demand), or the gate compares two units */
		error("dependency %s: ladder rung %d: its stats.demand counter \"%s\" was not read"
		      " before and after the rung (stats.command failed, or its output has no such"
		      " line: see %s/%s.stats.out)", sd->impl.name, row->idx, sd->stats_demand,
		      rc->logs_dir, d->sut_name);
		goto out_quiet;
	}
	row->kept_up = depstats_kept_up(row->rate, row->throughput, row->exit_code,
					sd->ladder_tolerance_pct);
	ret = 0;
out:
	if (ret)
		error("dependency %s: ladder rung %d could not run (see %s)", sd->impl.name,
		      row->idx, log.buf);
out_quiet:
	depstats_release(&a);
	depstats_release(&b);
	strv_free(argv);
	sbuf_release(&log);
	sbuf_release(&text);
	return ret;
}

/* The ceiling of the stored rungs: the most achieved, in demand units
 * when every rung has its demand. */
static double ceiling_of(const struct dep_ceiling_row *v, size_t n)
{
	double best = NAN, best_demand = NAN;
	size_t k;
	int all_demand = n > 0;

	for (k = 0; k < n; k++) {
		if (isfinite(v[k].throughput) && !(v[k].throughput <= best))
			best = v[k].throughput;
		if (!isfinite(v[k].demand_rps))
			all_demand = 0;
		else if (!(v[k].demand_rps <= best_demand))
			best_demand = v[k].demand_rps;
	}
	return all_demand ? best_demand : best;
}

/* 1 when the stored rungs v[0..n) are a whole ladder of sd: a closed
 * loop's one run, or rungs 0.. in order up to the one that did not keep
 * up, the last rate under max_rate or LADDER_MAX_RUNGS (the loop below
 * stops at the same three). */
static int ladder_complete(const struct spec_dep *sd, const struct dep_ceiling_row *v, size_t n)
{
	const struct dep_ceiling_row *last = n ? &v[n - 1] : NULL;
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].idx != (int)k)
			return 0;
	if (!last)
		return 0;
	if (!has_rate(sd->ladder_cmd))
		return n == 1;
	return !last->kept_up || n >= LADDER_MAX_RUNGS ||
	       last->rate * sd->ladder_step > sd->ladder_max;
}

static int ladder_one(struct run_ctx *rc, size_t i)
{
	const struct spec_dep *sd = rc->deps[i].spec;
	struct dep_ceiling_rows have;
	struct dep_ceiling_row *rows = xcalloc(LADDER_MAX_RUNGS, sizeof(*rows));
	double rate = sd->ladder_start;
	size_t n = 0;
	int open = has_rate(sd->ladder_cmd), ret = -1;

	if (store_dep_ceilings_load(&rc->st, rc->run_id, sd->impl.name, &have))
		goto out;
	if (have.n && ladder_complete(sd, have.v, have.n)) {   /* a resumed run */
		runner_depstats_set_ceiling(rc, i, ceiling_of(have.v, have.n));
		dep_ceiling_rows_release(&have);
		ret = 0;
		goto out;
	}
	if (have.n) {            /* interrupted: its rungs so far are no ceiling */
		fprintf(stderr, "harness: dependency %s's ladder was interrupted after %zu rung%s:"
			" measuring it again from its first\n", sd->impl.name, have.n,
			have.n == 1 ? "" : "s");
		store_event(&rc->st, rc->run_id, -1, "dep_ladder_rerun", "%s: %zu rung%s of an"
			    " interrupted ladder dropped", sd->impl.name, have.n, have.n == 1 ? "" : "s");
		if (store_dep_ceilings_delete(&rc->st, rc->run_id, sd->impl.name)) {
			dep_ceiling_rows_release(&have);
			goto out;
		}
	}
	dep_ceiling_rows_release(&have);
	fprintf(stderr, "harness: measuring dependency %s's ceiling (%s)\n", sd->impl.name,
		sd->ladder_cmd[0]);
	while (n < LADDER_MAX_RUNGS && !runner_stop) {
		struct dep_ceiling_row *r = &rows[n];

		r->run_id = rc->run_id;
		r->name = sd->impl.name;
		r->idx = (int)n;
		r->rate = open ? rate : NAN;
		r->duration_s = sd->ladder_duration_s;
		if (run_rung(rc, i, r) || store_dep_ceiling_insert(&rc->st, r))
			goto out;
		if (open)
			fprintf(stderr, "harness: %s ladder rung %zu: offered %.0f ops/s, ", sd->impl.name,
				n, rate);
		else
			fprintf(stderr, "harness: %s ladder: closed loop, ", sd->impl.name);
		fprintf(stderr, "achieved %.0f (its demand counter: %.0f/s)%s\n", r->throughput,
			r->demand_rps, r->kept_up ? "" : ": not keeping up");
		n++;
		if (!open || !r->kept_up || rate * sd->ladder_step > sd->ladder_max)
			break;
		rate *= sd->ladder_step;
	}
	if (runner_stop)         /* between rungs: a partial ladder, no ceiling */
		goto out;
	runner_depstats_set_ceiling(rc, i, ceiling_of(rows, n));
	store_event(&rc->st, rc->run_id, -1, "dep_ceiling", "%s: %.0f ops/s over %zu rung%s",
		    sd->impl.name, ceiling_of(rows, n), n, n == 1 ? "" : "s");
	ret = 0;
out:
	free(rows);
	return ret;
}

int runner_dep_ladders(struct run_ctx *rc)
{
	size_t i;

	for (i = 0; i < rc->ndeps; i++)
		if (rc->deps[i].spec->ladder_present && rc->deps[i].spec->ladder_cmd &&
		    ladder_one(rc, i))
			return -1;
	return 0;
}
