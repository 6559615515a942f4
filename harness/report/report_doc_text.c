/*
 * report_doc_text: a document (report_doc.h) as plain text lines, for a
 * terminal: `harness status`. Contract in report_doc.h (rdoc_text).
 */
#include "report/report_doc.h"

#include <string.h>

#include "base/util.h"

/* A cell padded to its column's width (by bytes, as printf's "%-8s"). */
static void cell(struct sbuf *out, const struct rdoc_block *b, size_t col, const char *s)
{
	size_t w, n;
	int right = b->align && col < strlen(b->align) && b->align[col] == 'r';

	if (!strncmp(s, RDOC_STRONG, 1) || !strncmp(s, RDOC_BEST, 1))
		s++;   /* no emphasis in plain text */
	w = b->width ? b->width[col] : 0;
	n = strlen(s);
	if (right)
		sbuf_addf(out, "%*s", (int)(w > n ? w - n : 0), "");
	sbuf_adds(out, s);
	if (!right)
		sbuf_addf(out, "%*s", (int)(w > n ? w - n : 0), "");
}

static void table(struct sbuf *out, const struct rdoc_block *b)
{
	size_t k;

	for (k = b->ncols; k < b->ncells; k++) {
		size_t col = k % b->ncols;

		if (col == 0)
			sbuf_adds(out, "  ");
		else
			sbuf_addf(out, "%s%s ", col == 1 ? " " : "  ", b->cells[col]);
		cell(out, b, col, b->cells[k]);
		if (col == b->ncols - 1)
			sbuf_adds(out, "\n");
	}
}

void rdoc_text(const struct rdoc *d, struct sbuf *out)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		const struct rdoc_block *b = &d->b[i];

		switch (b->kind) {
		case RDOC_TITLE:
		case RDOC_HEADLINE:
		case RDOC_STAMP:
			sbuf_addf(out, "%s\n", b->text);
			break;
		case RDOC_H2:
		case RDOC_H3:
			sbuf_addf(out, "%s:\n", b->text);
			break;
		case RDOC_P:
			sbuf_addf(out, "  %s\n", b->text);
			break;
		case RDOC_LIST:
			for (k = 0; k < b->ncells; k++)
				sbuf_addf(out, "  %s\n", b->cells[k]);
			break;
		case RDOC_TABLE:
			table(out, b);
			break;
		case RDOC_CHART:
			break;
		}
	}
}
