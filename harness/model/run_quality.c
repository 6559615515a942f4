/*
 * run_quality: the one-line summary of a run's windows and host load
 * (contract in run_quality.h).
 */
#include "model/run_quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cells.h"
#include "store/store.h"
#include "store/store_run.h"
#include "store/store_window.h"
#include "base/util.h"

void run_quality_init(struct run_quality *q)
{
	memset(q, 0, sizeof(*q));
	q->load_start = NAN;
	q->load_end = NAN;
}

void run_quality_release(struct run_quality *q)
{
	size_t i;

	for (i = 0; i < q->nreasons; i++)
		free(q->reasons[i].name);
	free(q->reasons);
	free(q->shorts);
	run_quality_init(q);
}

static void count_reason(struct run_quality *q, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < q->nreasons; i++)
		if (strlen(q->reasons[i].name) == len && !strncmp(q->reasons[i].name, name, len)) {
			q->reasons[i].count++;
			return;
		}
	XGROW(q->reasons, q->alloc, q->nreasons + 1);
	q->reasons[q->nreasons].name = xstrndup(name, len);
	q->reasons[q->nreasons].count = 1;
	q->nreasons++;
}

void run_quality_add(struct run_quality *q, const char *status, const char *reasons)
{
	const char *p, *end;

	if (!status || !*status) {
		q->not_done++;
		return;
	}
	if (!strcmp(status, "accepted")) {
		q->accepted++;
	} else if (!strcmp(status, "failed")) {
		q->failed++;
	} else if (!strcmp(status, "rejected")) {
		q->rejected++;
		for (p = reasons; p && *p; p = *end ? end + 1 : end) {
			end = strchr(p, ',');
			if (!end)
				end = p + strlen(p);
			while (p < end && *p == ' ')
				p++;
			if (end > p)
				count_reason(q, p, (size_t)(end - p));
		}
	} else {
		q->not_done++;
		return;
	}
	q->windows++;
}

const char *run_quality_top(const struct run_quality *q, size_t *count)
{
	const struct run_quality_reason *best = NULL;
	size_t i;

	for (i = 0; i < q->nreasons; i++) {
		const struct run_quality_reason *r = &q->reasons[i];

		if (!best || r->count > best->count ||
		    (r->count == best->count && strcmp(r->name, best->name) < 0))
			best = r;
	}
	if (count)
		*count = best ? best->count : 0;
	return best ? best->name : NULL;
}

double run_quality_parse_load(const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return NAN;
	v = strtod(s, &end);
	if (end == s || (*end && *end != ' ') || !isfinite(v) || v < 0)
		return NAN;
	return v;
}

static void load(struct sbuf *out, double v)
{
	if (isfinite(v))
		sbuf_addf(out, "%.1f", v);
	else
		sbuf_adds(out, "?");
}

void run_quality_format(const struct run_quality *q, struct sbuf *out)
{
	size_t top_n;
	const char *top = run_quality_top(q, &top_n);

	sbuf_addf(out, "%zu window%s: %zu accepted, %zu failed, %zu rejected", q->windows,
		  q->windows == 1 ? "" : "s", q->accepted, q->failed, q->rejected);
	if (top)
		sbuf_addf(out, " (top: %s %zu)", top, top_n);
	if (q->not_done)
		sbuf_addf(out, ", %zu not run", q->not_done);
	if (q->replacements)
		sbuf_addf(out, ", %zu replacement%s", q->replacements,
			  q->replacements == 1 ? "" : "s");
	if (q->nshort)
		sbuf_addf(out, "; %zu cell%s short: %s", q->nshort, q->nshort == 1 ? "" : "s",
			  q->shorts);
	sbuf_adds(out, "; load ");
	load(out, q->load_start);
	sbuf_adds(out, " -> ");
	load(out, q->load_end);
}

void run_quality_cells(struct run_quality *q, const struct cells *cells)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;

	for (i = 0; i < cells->n; i++) {
		const struct cell *c = &cells->v[i];

		q->replacements += c->replacements;
		if (!cell_short(c))
			continue;
		sbuf_addf(&sb, "%s%s %g req/s %s %zu/%zu valid", q->nshort ? ", " : "", c->stage,
			  c->rate, c->impl, c->valid, c->planned);
		q->nshort++;
	}
	free(q->shorts);
	q->shorts = q->nshort ? sbuf_detach(&sb, NULL) : NULL;
	sbuf_release(&sb);
}

int run_quality_load(struct store *st, const char *run_id, struct run_quality *q)
{
	struct window_rows rows = { 0 };
	struct run_record rec;
	size_t i;
	int ret = -1;

	run_record_init(&rec);
	if (store_windows_load(st, run_id, NULL, &rows) || run_record_load(st, run_id, &rec))
		goto out;
	for (i = 0; i < rows.n; i++)
		run_quality_add(q, rows.v[i].state == WINDOW_DONE ?
				window_status_name(rows.v[i].status) : NULL, rows.v[i].reasons);
	{
		struct cells cells;

		cells_init(&cells);
		cells_from_windows(&cells, rows.v, rows.n);
		run_quality_cells(q, &cells);
		cells_release(&cells);
	}
	for (i = 0; i < rec.nhost; i++) {
		if (!strcmp(rec.host[i].key, "loadavg_1m"))
			q->load_start = run_quality_parse_load(rec.host[i].value);
		else if (!strcmp(rec.host[i].key, RUN_QUALITY_LOAD_END_KEY))
			q->load_end = run_quality_parse_load(rec.host[i].value);
	}
	ret = 0;
out:
	window_rows_release(&rows);
	run_record_release(&rec);
	return ret;
}

int run_quality_finish(struct store *st, const char *run_id)
{
	struct run_quality q;
	struct sbuf line = SBUF_INIT, v = SBUF_INIT;
	int ret = -1;
	char *sp;

	run_quality_init(&q);
	if (read_file("/proc/loadavg", &v, 4096) == 0 && (sp = strchr(v.buf, ' ')) != NULL) {
		struct host_fact f = { (char *)run_id, (char *)RUN_QUALITY_LOAD_END_KEY, v.buf };

		*sp = '\0';
		if (store_host_fact_upsert(st, &f))
			goto out;
	}
	if (run_quality_load(st, run_id, &q))
		goto out;
	run_quality_format(&q, &line);
	fprintf(stderr, "harness: %s run quality: %s\n", run_id, line.buf);
	ret = 0;
out:
	run_quality_release(&q);
	sbuf_release(&line);
	sbuf_release(&v);
	return ret;
}
