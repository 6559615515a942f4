/*
 * report_doc_html: a document (report_doc.h) as one HTML page (html.h's
 * page): report.html (report_html.c) and `history --format html`
 * (history_html.c). Each block kind has one markup; the page's options
 * (struct rdoc_html) say only what differs between pages: its head, a
 * table of contents, its charts.
 */
#include "report/report_doc.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "report/html.h"

/* A cell: escaped, emphasised after RDOC_STRONG or RDOC_BEST. */
static void cell_text(struct sbuf *out, const char *s)
{
	if (!strncmp(s, RDOC_STRONG, 1)) {
		sbuf_adds(out, "<strong>");
		sbuf_add_xml(out, s + 1);
		sbuf_adds(out, "</strong>");
	} else if (!strncmp(s, RDOC_BEST, 1)) {
		sbuf_adds(out, "<strong class=\"best\">");
		sbuf_add_xml(out, s + 1);
		sbuf_adds(out, "</strong>");
	} else {
		sbuf_add_xml(out, s);
	}
}

/* The table of contents: every section (h2 id s-N, N its block index),
 * the charts nested under theirs. */
static void toc(const struct rdoc *d, const struct rdoc_html *how, struct sbuf *out)
{
	size_t i;
	int open = 0;

	sbuf_adds(out, "<nav class=\"toc\"><strong>Contents</strong>\n<ol>\n");
	for (i = 0; i < d->n; i++) {
		const struct rdoc_block *b = &d->b[i];

		if (b->kind == RDOC_H2) {
			if (open)
				sbuf_adds(out, "</ol>");
			if (i)
				sbuf_adds(out, "</li>\n");
			open = 0;
			sbuf_addf(out, "<li><a href=\"#s-%zu\">", i);
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</a>");
		} else if (b->kind == RDOC_CHART && b->text) {
			if (!open)
				sbuf_adds(out, "<ol>");
			open = 1;
			sbuf_addf(out, "<li><a href=\"#chart-%s\">", how->chart_name(b->chart));
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</a></li>");
		}
	}
	if (open)
		sbuf_adds(out, "</ol>");
	sbuf_adds(out, "</li>\n</ol></nav>\n");
}

static void table(const struct rdoc_block *b, unsigned flags, struct sbuf *out)
{
	size_t k;

	sbuf_adds(out, "<table");
	if (b->text && !(flags & RDOC_HTML_COMPACT)) {
		sbuf_adds(out, " id=\"t-");
		sbuf_add_xml(out, b->text);
		sbuf_adds(out, "\"");
	}
	sbuf_adds(out, flags & RDOC_HTML_COMPACT ? ">" : ">\n");
	for (k = 0; k < b->ncells; k++) {
		int head = k < b->ncols;

		if (k % b->ncols == 0)
			sbuf_adds(out, "<tr>");
		sbuf_adds(out, head ? "<th>" : "<td>");
		cell_text(out, b->cells[k]);
		sbuf_adds(out, head ? "</th>" : "</td>");
		if (k % b->ncols == b->ncols - 1)
			sbuf_adds(out, "</tr>\n");
	}
	sbuf_adds(out, "</table>\n");
}

static void list(const struct rdoc_block *b, const struct rdoc_html *how, struct sbuf *out)
{
	char attrs[96];
	size_t k;

	sbuf_adds(out, "<ul>\n");
	for (k = 0; k < b->ncells; k++) {
		const char *s = b->cells[k];
		int strong = !strncmp(s, RDOC_STRONG, 1) && how->strong_item;

		if (strong)
			snprintf(attrs, sizeof(attrs), "class=\"%s\"", how->strong_item);
		html_elem(out, "li", strong ? attrs : NULL, s + strong, 0);
	}
	sbuf_adds(out, "</ul>\n");
}

/* A chart slot: with a caption, a figure (id chart-NAME) holding the
 * chart and its caption; without, the chart alone. */
static void chart(const struct rdoc_block *b, const struct rdoc_html *how, struct sbuf *out)
{
	if (!b->text) {
		how->chart(how->ctx, b->chart, out);
		return;
	}
	sbuf_addf(out, "<figure class=\"chart\" id=\"chart-%s\">\n", how->chart_name(b->chart));
	how->chart(how->ctx, b->chart, out);
	sbuf_adds(out, "<figcaption>");
	sbuf_add_xml(out, b->text);
	sbuf_adds(out, " (hover a mark for its numbers)</figcaption>\n</figure>\n");
}

void rdoc_html(const struct rdoc *d, const struct rdoc_html *how, struct sbuf *out)
{
	int toc_done = !(how->flags & RDOC_HTML_TOC);
	unsigned page = how->flags & RDOC_HTML_COMPACT ? HTML_COMPACT : 0;
	char id[32];
	size_t i;

	html_page_open(out, how->title, how->style, page);
	for (i = 0; i < d->n; i++) {
		const struct rdoc_block *b = &d->b[i];

		switch (b->kind) {
		case RDOC_TITLE:
			html_elem(out, "h1", NULL, b->text, 0);
			break;
		case RDOC_HEADLINE:
			html_elem(out, "p", "class=\"headline\"", b->text, 0);
			break;
		case RDOC_STAMP:
			html_elem(out, "div", "class=\"stamp\"", b->text, 0);
			break;
		case RDOC_H2:
			if (!toc_done) {
				toc(d, how, out);
				toc_done = 1;
			}
			snprintf(id, sizeof(id), "id=\"s-%zu\"", i);
			html_elem(out, "h2", how->flags & RDOC_HTML_TOC ? id : NULL, b->text, 0);
			break;
		case RDOC_H3:
			html_elem(out, "h3", NULL, b->text, 0);
			break;
		case RDOC_P:
			html_elem(out, "p", NULL, b->text, 0);
			break;
		case RDOC_TABLE:
			table(b, how->flags, out);
			break;
		case RDOC_LIST:
			list(b, how, out);
			break;
		case RDOC_CHART:
			chart(b, how, out);
			break;
		}
	}
	html_page_close(out, page);
}
