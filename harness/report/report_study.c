/*
 * report_study: the study sections' lifetime (report_study.h) and
 * study.csv, which gathers their figures in one long-form file.
 */
#include "report/report_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "spec/spec.h"
#include "base/util.h"

struct report_study *report_study_new(const struct spec *sp)
{
	struct report_study *s = xcalloc(1, sizeof(*s));
	struct sbuf nm = SBUF_INIT;
	size_t i, k;

	s->receipts.preflight_cases = s->receipts.preflight_passed = -1;
	s->receipts.oom_kills = -1;
	for (i = 0; sp && i < sp->nimpls; i++)
		for (k = 0; k < sp->impls[i].nderived; k++) {
			struct report_sigdef *d;

			s->sigdefs = xrealloc(s->sigdefs, (s->nsigdefs + 1) * sizeof(*s->sigdefs));
			d = &s->sigdefs[s->nsigdefs++];
			memset(d, 0, sizeof(*d));
			d->impl = xstrdup(sp->impls[i].name);
			d->name = xstrdup(sp->impls[i].derived[k].name);
			d->expr = xstrdup(sp->impls[i].derived[k].expr);
			d->npolled = sp->impls[i].nsignals;
			d->polled = xcalloc(d->npolled + 1, sizeof(*d->polled));
			for (size_t j = 0; j < d->npolled; j++)
				d->polled[j] = xstrdup(sp->impls[i].signals[j].name);
		}
	for (i = 0; sp && i < sp->ndeps; i++)
		for (k = 0; k < sp->deps[i].nstats_signals; k++) {
			const struct spec_signal *g = &sp->deps[i].stats_signals[k];
			struct report_sigdef *d;

			if (g->pointer[0] != '=')
				continue;
			s->sigdefs = xrealloc(s->sigdefs, (s->nsigdefs + 1) * sizeof(*s->sigdefs));
			d = &s->sigdefs[s->nsigdefs++];
			memset(d, 0, sizeof(*d));
			d->dep = xstrdup(sp->deps[i].impl.name);
			sbuf_addf(&nm, "%s.%s", sp->deps[i].impl.name, g->name);
			d->name = sbuf_detach(&nm, NULL);
			d->expr = xstrdup(g->pointer + 1 + strspn(g->pointer + 1, " \t"));
		}
	return s;
}

int report_study_load(struct report *r, struct store *st)
{
	if (!r->study)
		r->study = report_study_new(r->view.spec);
	return report_signals_load(r, st) || report_memory_load(r) ||
	       report_receipts_load(r) || report_depstudy_load(r, st) ? -1 : 0;
}

void report_study_free(struct report_study *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nsigdefs; i++) {
		free(s->sigdefs[i].impl);
		free(s->sigdefs[i].dep);
		free(s->sigdefs[i].name);
		free(s->sigdefs[i].expr);
		strv_free(s->sigdefs[i].polled);
	}
	free(s->sigdefs);
	for (i = 0; i < s->nsigrungs; i++)
		free(s->sigrungs[i].why);
	free(s->sigrungs);
	free(s->memrungs);
	report_depstudy_free(s);
	free(s);
}

void report_study_csv(const struct report *r, struct sbuf *out)
{
	sbuf_adds(out, "section,impl,stage,rate_rps,name,value,lo,hi,windows,detail\n");
	report_receipts_csv(r, out);
	report_memory_csv(r, out);
	report_signals_csv(r, out);
	report_saturation_csv(r, out);
	report_footprint_csv(r, out);
	report_depstudy_csv(r, out);
}
