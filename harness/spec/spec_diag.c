/*
 * spec_diag: the diagnostics every spec file reports into (collected with
 * their positions, sorted, formatted one line each), beneath the readers
 * and validators. Declared in spec.h and spec_internal.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec_internal.h"
#include "base/util.h"

/* ----------------------------------------------------------- diagnostics */

void spec_diag_add(struct spec_diags *d, int line, int col, const char *path,
		   const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	if (d->n >= SPEC_MAX_DIAGS) {
		d->more++;
		return;
	}
	sbuf_addf(&sb, "%s: ", path && *path ? path : "spec");
	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	XGROW(d->v, d->alloc, d->n + 1);
	d->v[d->n].line = line;
	d->v[d->n].col = col;
	d->v[d->n].msg = sbuf_detach(&sb, NULL);
	d->n++;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct spec_diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	/* msg holds the index of discovery here (see spec_diags_format) */
	return (uintptr_t)x->msg < (uintptr_t)y->msg ? -1 : (uintptr_t)x->msg > (uintptr_t)y->msg;
}

void spec_diags_format(struct spec_diags *d, const char *file, struct sbuf *sb)
{
	struct spec_diag *tmp;
	size_t i, j;

	/* stable sort by position: qsort is not stable, so sort an index */
	tmp = xmalloc((d->n + 1) * sizeof(*tmp));
	for (i = 0; i < d->n; i++) {
		tmp[i] = d->v[i];
		tmp[i].msg = (char *)(uintptr_t)i; /* order of discovery breaks ties */
	}
	qsort(tmp, d->n, sizeof(*tmp), diag_cmp);
	for (i = 0; i < d->n; i++) {
		j = (size_t)(uintptr_t)tmp[i].msg;
		sbuf_addf(sb, "%s:%d:%d: %s\n", file, d->v[j].line, d->v[j].col, d->v[j].msg);
	}
	if (d->more)
		sbuf_addf(sb, "%s: %zu more errors not shown\n", file, d->more);
	free(tmp);
}

void spec_diags_release(struct spec_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].msg);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
