/*
 * report_html: report.html, ONE self-contained file: the report document
 * (report_doc.c) as HTML with the charts inline as SVG (report_svg.c).
 * No script, no external stylesheet, font or image: it opens offline and
 * from a CI artifact. Each chart is one <figure class="chart"
 * id="chart-NAME"> holding exactly one <svg data-chart="NAME">, as wide as
 * the page (its viewBox keeps the proportions; printing keeps it whole).
 * The page itself is html.h's.
 * A table of contents after the title links every section and chart.
 */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

#include "report/report_doc.h"
#include "base/util.h"
#include "report/html.h"

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

static const char style[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 12px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
	"th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
	"th{background:#f0f0f0}tr:nth-child(even) td{background:#fafafa}"
	"td strong{color:#a40000}td strong.best{color:#1a7f37}"
	".stamp{background:#fff3cd;border:2px solid #d39e00;padding:10px;font-weight:bold;"
	"font-size:15px;margin:12px 0}"
	"figure.chart{margin:16px 0}figure.chart svg{display:block;width:100%;height:auto}"
	"nav.toc{font-size:14px;background:#f7f7f7;border:1px solid #ddd;padding:6px 14px}"
	"nav.toc ol{margin:4px 0;padding-left:22px}nav.toc li{margin:2px 0}"
	"@media print{body{max-width:none;margin:0}figure.chart,tr{break-inside:avoid}"
	"nav.toc{display:none}}"
	"figcaption{font-size:13px;color:#555}"
	"p{font-size:14px;line-height:1.4}"
	"p.headline{font-size:19px;font-weight:bold;line-height:1.35;margin:8px 0 14px}";

/* The table of contents: every section (h2 id s-N, N its block index),
 * the charts nested under theirs. */
static void toc(const struct rdoc *d, struct sbuf *out)
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
		} else if (b->kind == RDOC_CHART) {
			if (!open)
				sbuf_adds(out, "<ol>");
			open = 1;
			sbuf_addf(out, "<li><a href=\"#chart-%s\">", report_chart_name(b->chart));
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</a></li>");
		}
	}
	if (open)
		sbuf_adds(out, "</ol>");
	sbuf_adds(out, "</li>\n</ol></nav>\n");
}

void report_html(const struct report *r, struct sbuf *out)
{
	int toc_done = 0;
	char id[32];
	struct rdoc d;
	size_t i, k;

	report_doc_build(r, &d);
	html_page_open(out, d.n ? d.b[0].text : "report", style, 0);
	for (i = 0; i < d.n; i++) {
		const struct rdoc_block *b = &d.b[i];

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
				toc(&d, out);
				toc_done = 1;
			}
			snprintf(id, sizeof(id), "id=\"s-%zu\"", i);
			html_elem(out, "h2", id, b->text, 0);
			break;
		case RDOC_H3:
			html_elem(out, "h3", NULL, b->text, 0);
			break;
		case RDOC_P:
			html_elem(out, "p", NULL, b->text, 0);
			break;
		case RDOC_TABLE:
			sbuf_adds(out, "<table id=\"t-");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "\">\n");
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
			break;
		case RDOC_LIST:
			sbuf_adds(out, "<ul>\n");
			for (k = 0; k < b->ncells; k++)
				html_elem(out, "li", NULL, b->cells[k], 0);
			sbuf_adds(out, "</ul>\n");
			break;
		case RDOC_CHART:
			sbuf_addf(out, "<figure class=\"chart\" id=\"chart-%s\">\n",
				  report_chart_name(b->chart));
			report_chart(r, b->chart, out);
			sbuf_adds(out, "<figcaption>");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, " (hover a mark for its numbers)</figcaption>\n</figure>\n");
			break;
		}
	}
	html_page_close(out, 0);
	rdoc_release(&d);
}
