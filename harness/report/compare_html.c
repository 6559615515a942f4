/*
 * compare_html: `harness compare --format html`, one self-contained page
 * for a pull request or a CI artifact: compare_md()'s heading and
 * headline, the deltas chart (compare_chart.c), then the rest of its document rendered as HTML by the page writer
 * (html.h), so the page says exactly what the Markdown says (one source of
 * words).
 */
#include "report/compare.h"

#include <string.h>

#include "base/util.h"
#include "report/html.h"

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
	struct sbuf md = SBUF_INIT, title = SBUF_INIT;
	char *head;

	sbuf_addf(&title, "harness compare %s \xe2\x86\x92 %s", c->base.id, c->new_.id);
	compare_md(c, &md);
	html_page_open(out, title.buf, style, 0);
	/* the heading and the headline first, then the chart */
	head = strstr(md.buf, "\n\n");
	head = head ? strstr(head + 2, "\n\n") : NULL;
	if (head) {
		*head = '\0';
		html_from_md(out, md.buf);
		*head = '\n';
	}
	sbuf_adds(out, "<figure class=\"chart\" id=\"chart-compare_deltas\">\n");
	compare_chart(c, out);
	sbuf_adds(out, "</figure>\n");
	html_from_md(out, head ? head + 2 : md.buf);
	html_page_close(out, 0);
	sbuf_release(&md);
	sbuf_release(&title);
}

void compare_md_linked(const struct compare *c, const char *chart, struct sbuf *out)
{
	struct sbuf md = SBUF_INIT;
	const char *cut;

	compare_md(c, &md);
	cut = chart ? strstr(md.buf, "\n\n") : NULL;
	cut = cut ? strstr(cut + 2, "\n\n") : NULL;   /* after the headline */
	if (!cut) {
		sbuf_add(out, md.buf, md.len);
	} else {
		/* after the heading and the headline: the chart, for the
		 * comment's reader */
		sbuf_add(out, md.buf, (size_t)(cut - md.buf) + 2);
		sbuf_adds(out, "![per-rung deltas: shift of new vs base in % with intervals](");
		sbuf_adds(out, chart);
		sbuf_adds(out, ")\n\n");
		sbuf_adds(out, cut + 2);
	}
	sbuf_release(&md);
}
