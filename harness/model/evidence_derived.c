/*
 * evidence_derived: the implementation's derived signals (stats.signals
 * "= EXPR", sigexpr.h) over a phase's polls, for the gates: a per-poll one
 * becomes a series like a polled signal (pools_warm can read a pool summed
 * over its label sets), and every one a value over the phase
 * (signal_range judges it). The same code runs in the runner and in
 * `audit --recheck`, which rebuilds the evidence from the run database.
 */
#include "model/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sigexpr.h"
#include "base/util.h"

size_t evidence_sigexpr_rows(const struct evidence *e, double t0, struct sigexpr_row **out)
{
	size_t i, n = 0;

	*out = xcalloc(e->nstats + 1, sizeof(**out));
	for (i = 0; i < e->nstats; i++) {
		const struct ev_stat *st = &e->stats[i];

		if (st->t < t0 || !*st->signal)
			continue;
		(*out)[n].t = st->t;
		(*out)[n].signal = st->signal;
		(*out)[n].key = st->key;
		(*out)[n++].value = st->value;
	}
	return n;
}

/* The polled signals' names, for sigexpr_parse. */
static const char **polled_names(const struct spec_impl *impl)
{
	const char **names = xcalloc(impl->nsignals + 1, sizeof(*names));
	size_t i;

	for (i = 0; i < impl->nsignals; i++)
		names[i] = impl->signals[i].name;
	return names;
}

static void register_buf(struct evidence_scratch *s, double *b)
{
	s->bufs = xrealloc(s->bufs, (s->nbufs + 1) * sizeof(*s->bufs));
	s->bufs[s->nbufs++] = b;
}

void evidence_derived(const struct evidence *e, const struct spec_impl *impl, double t0,
		      struct gate_input *in, struct evidence_scratch *s)
{
	struct sigexpr_row *rows;
	const char **names;
	size_t n, i;

	if (!impl || !impl->nderived)
		return;
	names = polled_names(impl);
	n = evidence_sigexpr_rows(e, t0, &rows);
	s->derived = xcalloc(impl->nderived, sizeof(*s->derived));
	for (i = 0; i < impl->nderived; i++) {
		struct gate_derived *d = &s->derived[s->nderived++];
		struct sigexpr *x;
		char *err;

		d->signal = impl->derived[i].name;
		d->value = NAN;
		if (sigexpr_parse(impl->derived[i].expr, names, impl->nsignals, &x, &err)) {
			free(err);     /* the spec was checked: not reached */
			d->why = "not a valid expression";
			continue;
		}
		d->value = sigexpr_window(x, rows, n, &d->why);
		if (sigexpr_kind(x) == SIGEXPR_POLL) {
			struct gate_series *gs = &s->series[s->nseries++];
			double *t, *v;

			memset(gs, 0, sizeof(*gs));
			gs->signal = d->signal;
			gs->n = sigexpr_series(x, rows, n, &t, &v);
			register_buf(s, t);
			register_buf(s, v);
			gs->t = t;
			gs->v = v;
		}
		sigexpr_free(x);
	}
	in->nseries = s->nseries;
	in->series = s->series;
	in->nderived = s->nderived;
	in->derived = s->derived;
	free(rows);
	free(names);
}
