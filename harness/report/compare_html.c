/*
 * compare_html: `harness compare --format html`, one self-contained page
 * for a pull request or a CI artifact: the comparison's document
 * (compare_doc) in Markdown, its heading and headline, the deltas chart
 * (compare_chart.c), then the rest, rendered as HTML by the page writer
 * (html.h), so the page says exactly what the Markdown says (one source of
 * words).
 */
#include "report/compare.h"

#include <string.h>

#include "base/util.h"
#include "report/html.h"
#include "report/report_doc.h"

/* The document's heading and headline (its first two blocks), then the
 * rest, each as Markdown; head without its final blank line. */
static void split_md(const struct compare *c, struct sbuf *head, struct sbuf *rest)
{
	struct rdoc d, part;
	size_t n;

	compare_doc(c, &d);
	n = d.n < 2 ? d.n : 2;
	part.b = d.b;
	part.n = part.alloc = n;
	rdoc_md(&part, 0, head);
	part.b = d.b + n;
	part.n = part.alloc = d.n - n;
	rdoc_md(&part, RDOC_MD_TIGHT, rest);
	rdoc_release(&d);
}

static const char style[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 12px}"
	"h1{font-size:20px}h2{font-size:19px}h3{font-size:16px;margin-top:24px;"
	"border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
	"th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f0f0f0}"
	"code{background:#f3f3f3;padding:0 3px}"
	"figure{margin:12px 0}figure svg{display:block;width:100%;height:auto}"
	"p{font-size:14px;line-height:1.4}h1+p{font-size:18px;line-height:1.35}";

void compare_html(const struct compare *c, struct sbuf *out)
{
	struct sbuf head = SBUF_INIT, rest = SBUF_INIT, title = SBUF_INIT;

	sbuf_addf(&title, "harness compare %s \xe2\x86\x92 %s", c->base.id, c->new_.id);
	split_md(c, &head, &rest);
	html_page_open(out, title.buf, style, 0);
	/* the heading and the headline first, then the chart */
	if (head.len >= 2)
		head.buf[head.len -= 2] = 0;
	html_from_md(out, head.buf);
	sbuf_adds(out, "<figure class=\"chart\" id=\"chart-compare_deltas\">\n");
	compare_chart(c, out);
	sbuf_adds(out, "</figure>\n");
	html_from_md(out, rest.buf);
	html_page_close(out, 0);
	sbuf_release(&head);
	sbuf_release(&rest);
	sbuf_release(&title);
}

void compare_md_linked(const struct compare *c, const char *chart, struct sbuf *out)
{
	struct sbuf head = SBUF_INIT, rest = SBUF_INIT;

	if (!chart) {
		compare_md(c, out);
		return;
	}
	/* after the heading and the headline: the chart, for the comment's
	 * reader */
	split_md(c, &head, &rest);
	sbuf_add(out, head.buf, head.len);
	sbuf_adds(out, "![per-rung deltas: shift of new vs base in % with intervals](");
	sbuf_adds(out, chart);
	sbuf_adds(out, ")\n\n");
	sbuf_add(out, rest.buf, rest.len);
	sbuf_release(&head);
	sbuf_release(&rest);
}
