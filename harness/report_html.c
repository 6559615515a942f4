/*
 * report_html: report.html, ONE self-contained file: the report document
 * (report_doc.c) as HTML with the charts inline as SVG (report_svg.c).
 * No script, no external stylesheet, font or image: it opens offline and
 * from a CI artifact. Each chart is one <figure class="chart"> holding
 * exactly one <svg>.
 */
#include "report.h"

#include <string.h>

#include "report_doc.h"
#include "util.h"

static void cell_text(struct sbuf *out, const char *s)
{
	if (!strncmp(s, RDOC_STRONG, 1)) {
		sbuf_adds(out, "<strong>");
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
	"td strong{color:#a40000}"
	".stamp{background:#fff3cd;border:2px solid #d39e00;padding:10px;font-weight:bold;"
	"font-size:15px;margin:12px 0}"
	"figure.chart{margin:16px 0;overflow-x:auto}figure.chart svg{max-width:100%;height:auto}"
	"figcaption{font-size:13px;color:#555}"
	"p{font-size:14px;line-height:1.4}";

void report_html(const struct report *r, struct sbuf *out)
{
	struct rdoc d;
	size_t i, k;

	report_doc_build(r, &d);
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	sbuf_add_xml(out, d.n ? d.b[0].text : "report");
	sbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	for (i = 0; i < d.n; i++) {
		const struct rdoc_block *b = &d.b[i];

		switch (b->kind) {
		case RDOC_TITLE:
			sbuf_adds(out, "<h1>");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</h1>\n");
			break;
		case RDOC_STAMP:
			sbuf_adds(out, "<div class=\"stamp\">");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</div>\n");
			break;
		case RDOC_H2:
			sbuf_adds(out, "<h2>");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</h2>\n");
			break;
		case RDOC_P:
			sbuf_adds(out, "<p>");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, "</p>\n");
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
		case RDOC_CHART:
			sbuf_addf(out, "<figure class=\"chart\" id=\"chart-%zu\">\n", b->chart);
			report_chart(r, b->chart, out);
			sbuf_adds(out, "<figcaption>");
			sbuf_add_xml(out, b->text);
			sbuf_adds(out, " (hover a mark for its numbers)</figcaption>\n</figure>\n");
			break;
		}
	}
	sbuf_adds(out, "</body>\n</html>\n");
	rdoc_release(&d);
}
