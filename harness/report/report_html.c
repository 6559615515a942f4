/*
 * report_html: report.html, ONE self-contained file: the report document
 * (report_doc.c) as HTML with the charts inline as SVG (report_svg.c).
 * No script, no external stylesheet, font or image: it opens offline and
 * from a CI artifact. Each chart is one <figure class="chart"
 * id="chart-NAME"> holding exactly one <svg data-chart="NAME">, as wide as
 * the page (its viewBox keeps the proportions; printing keeps it whole).
 * The page itself is html.h's, its blocks rdoc_html()'s.
 * A table of contents after the title links every section and chart.
 */
#include "report/report.h"

#include "report/report_doc.h"

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

static void chart(const void *r, size_t i, struct sbuf *out)
{
	report_chart(r, i, out);
}

void report_html(const struct report *r, struct sbuf *out)
{
	struct rdoc d;
	struct rdoc_html how = { .style = style, .flags = RDOC_HTML_TOC,
				 .chart_name = report_chart_name, .chart = chart, .ctx = r };

	report_doc_build(r, &d);
	how.title = d.n ? d.b[0].text : "report";
	rdoc_html(&d, &how, out);
	rdoc_release(&d);
}
