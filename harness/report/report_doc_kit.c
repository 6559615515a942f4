/*
 * report_doc_kit: the document builder (blocks, tables, cells) and the
 * cell formats the sections share (report_doc.h, "for the sections").
 */
#include "report/report_doc.h"
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "base/util.h"

/* ------------------------------------------------------------ builder */

struct rdoc_block *rdoc_add(struct rdoc *d, enum rdoc_kind kind, const char *text)
{
	struct rdoc_block *b;

	XGROW(d->b, d->alloc, d->n + 1);
	b = &d->b[d->n++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->text = text ? xstrdup(text) : NULL;
	return b;
}

void rdoc_addf(struct rdoc *d, enum rdoc_kind kind, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rdoc_add(d, kind, sb.buf);
	sbuf_release(&sb);
}

void rdoc_push_cell(struct rdoc_block *t, const char *s)
{
	t->cells = xrealloc(t->cells, (t->ncells + 1) * sizeof(*t->cells));
	t->cells[t->ncells++] = xstrdup(s ? s : "");
}

/* Push the scratch buffer as the next cell and empty it. */
void rdoc_cell(struct rdoc_block *t, struct sbuf *c)
{
	rdoc_push_cell(t, c->buf);
	sbuf_reset(c);
}

void rdoc_cellf(struct rdoc_block *t, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rdoc_push_cell(t, sb.buf);
	sbuf_release(&sb);
}

struct rdoc_block *rdoc_list(struct rdoc *d)
{
	return rdoc_add(d, RDOC_LIST, NULL);
}

void rdoc_align(struct rdoc_block *t, const char *align)
{
	free(t->align);
	t->align = xstrdup(align);
}

void rdoc_widths(struct rdoc_block *t, const size_t *width)
{
	free(t->width);
	t->width = xcalloc(t->ncols, sizeof(*t->width));
	memcpy(t->width, width, t->ncols * sizeof(*width));
}

struct rdoc_block *rdoc_table(struct rdoc *d, const char *id, size_t ncols, ...)
{
	struct rdoc_block *t = rdoc_add(d, RDOC_TABLE, id);
	va_list ap;
	size_t i;

	t->ncols = ncols;
	va_start(ap, ncols);
	for (i = 0; i < ncols; i++)
		rdoc_push_cell(t, va_arg(ap, const char *));
	va_end(ap);
	return t;
}

void rdoc_release(struct rdoc *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		free(d->b[i].text);
		for (k = 0; k < d->b[i].ncells; k++)
			free(d->b[i].cells[k]);
		free(d->b[i].cells);
		free(d->b[i].align);
		free(d->b[i].width);
	}
	free(d->b);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------ helpers */

/* "5.73 [5.60, 5.93]"; a '*' marks an interval whose real coverage is
 * below the level (too few requests for that percentile). */
void rdoc_pct(struct sbuf *c, const struct report *r, const struct report_pct *p)
{
	report_fmt_sig(c, p->ms);
	if (isfinite(p->lo_ms)) {
		sbuf_adds(c, " [");
		report_fmt_sig(c, p->lo_ms);
		sbuf_adds(c, ", ");
		report_fmt_sig(c, p->hi_ms);
		sbuf_adds(c, "]");
		if (p->coverage < r->level - 1e-9)
			sbuf_adds(c, "*");
	}
}

/* "failed: error_rate 2; rejected: generator 1", or "-". */
void rdoc_reasons(struct sbuf *c, const struct report_reason *v, size_t n)
{
	size_t i;
	int k, any = 0;

	for (k = 0; k < 2; k++) {
		int first = 1;

		for (i = 0; i < n; i++) {
			size_t m = k ? v[i].rejected : v[i].failed;

			if (!m)
				continue;
			if (first)
				sbuf_addf(c, "%s%s: ", any ? "; " : "", k ? "rejected" : "failed");
			sbuf_addf(c, "%s%s %zu", first ? "" : ", ", v[i].name, m);
			first = 0;
			any = 1;
		}
	}
	if (!any)
		sbuf_adds(c, "-");
}

/* "9 accepted, 2 failed, 1 rejected of 12" */
void rdoc_counts(struct sbuf *c, size_t total, size_t accepted, size_t failed)
{
	sbuf_addf(c, "%zu accepted, %zu failed, %zu rejected of %zu", accepted, failed,
		  total - accepted - failed, total);
}

const char *rdoc_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

