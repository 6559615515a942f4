/*
 * compare_html: `harness compare --format html`, one self-contained page
 * for a pull request or a CI artifact: the deltas chart (compare_chart.c)
 * first, then compare_md()'s document rendered as HTML, so the page says
 * exactly what the Markdown says (one source of words). The Markdown
 * subset compare_md() writes is all this renders: "## " and "### "
 * headings, tables ("| a | b |" rows, the "|---|" rule skipped), blank-
 * line separated paragraphs, **strong** and `code`.
 */
#include "report/compare.h"

#include <string.h>

#include "base/util.h"

static const char style[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 12px}"
	"h1{font-size:20px}h2{font-size:19px}h3{font-size:16px;margin-top:24px;"
	"border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}"
	"th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f0f0f0}"
	"code{background:#f3f3f3;padding:0 3px}"
	"figure{margin:12px 0}figure svg{display:block;width:100%;height:auto}"
	"p{font-size:14px;line-height:1.4}";

/* Inline: **strong**, `code`, the rest escaped. */
static void inline_md(struct sbuf *out, const char *s, size_t n)
{
	int strong = 0, code = 0;
	size_t i, start = 0;

	for (i = 0; i <= n; i++) {
		int end = i == n, star = !end && !code && i + 1 < n && s[i] == '*' && s[i + 1] == '*';
		int tick = !end && s[i] == '`';
		struct sbuf seg = SBUF_INIT;

		if (!end && !star && !tick)
			continue;
		sbuf_add(&seg, s + start, i - start);
		sbuf_add_xml(out, seg.buf);
		sbuf_release(&seg);
		if (star) {
			sbuf_adds(out, strong ? "</strong>" : "<strong>");
			strong = !strong;
			i++;
		} else if (tick) {
			sbuf_adds(out, code ? "</code>" : "<code>");
			code = !code;
		}
		start = i + 1;
	}
	if (strong)
		sbuf_adds(out, "</strong>");
	if (code)
		sbuf_adds(out, "</code>");
}

static int is_rule(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("|-: ", s[i]))
			return 0;
	return n > 0;
}

/* One "| a | b |" row; cells split on '|' not escaped as "\|". */
static void table_row(struct sbuf *out, const char *s, size_t n, int head)
{
	size_t i = 1, start = 1;

	sbuf_adds(out, "<tr>");
	for (; i < n; i++) {
		if (s[i] != '|' || s[i - 1] == '\\')
			continue;
		while (start < i && s[start] == ' ')
			start++;
		sbuf_adds(out, head ? "<th>" : "<td>");
		inline_md(out, s + start, i > start && s[i - 1] == ' ' ? i - 1 - start : i - start);
		sbuf_adds(out, head ? "</th>" : "</td>");
		start = i + 1;
	}
	sbuf_adds(out, "</tr>\n");
}

static void md_to_html(struct sbuf *out, const char *md)
{
	const char *p = md;
	int in_table = 0, in_p = 0, row = 0;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (in_table && (n == 0 || p[0] != '|')) {
			sbuf_adds(out, "</table>\n");
			in_table = 0;
		}
		if (in_p && (n == 0 || p[0] == '|' || p[0] == '#')) {
			sbuf_adds(out, "</p>\n");
			in_p = 0;
		}
		if (n == 0) {
			/* blank line */
		} else if (!strncmp(p, "### ", 4) || !strncmp(p, "## ", 3)) {
			int h = p[2] == '#' ? 3 : 1;   /* the document's "## " is its title */

			sbuf_addf(out, "<h%d>", h);
			inline_md(out, p + h + 1 + (h == 3 ? 0 : 1), n - (size_t)(h == 3 ? 4 : 3));
			sbuf_addf(out, "</h%d>\n", h);
		} else if (p[0] == '|') {
			if (!in_table) {
				sbuf_adds(out, "<table>\n");
				in_table = 1;
				row = 0;
			}
			if (!is_rule(p, n))
				table_row(out, p, n, row++ == 0);
		} else {
			sbuf_adds(out, in_p ? "\n" : "<p>");
			in_p = 1;
			inline_md(out, p, n);
		}
		p += n + (e ? 1 : 0);
	}
	if (in_table)
		sbuf_adds(out, "</table>\n");
	if (in_p)
		sbuf_adds(out, "</p>\n");
}

void compare_html(const struct compare *c, struct sbuf *out)
{
	struct sbuf md = SBUF_INIT;

	compare_md(c, &md);
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>harness compare ");
	sbuf_add_xml(out, c->base.id);
	sbuf_adds(out, " \xe2\x86\x92 ");
	sbuf_add_xml(out, c->new_.id);
	sbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	sbuf_adds(out, "<figure class=\"chart\" id=\"chart-compare_deltas\">\n");
	compare_chart(c, out);
	sbuf_adds(out, "</figure>\n");
	md_to_html(out, md.buf);
	sbuf_adds(out, "</body>\n</html>\n");
	sbuf_release(&md);
}

void compare_md_linked(const struct compare *c, const char *chart, struct sbuf *out)
{
	struct sbuf md = SBUF_INIT;
	const char *cut;

	compare_md(c, &md);
	cut = chart ? strstr(md.buf, "\n\n") : NULL;
	if (!cut) {
		sbuf_add(out, md.buf, md.len);
	} else {
		/* after the heading: the chart, for the comment's reader */
		sbuf_add(out, md.buf, (size_t)(cut - md.buf) + 2);
		sbuf_adds(out, "![per-rung deltas: shift of new vs base in % with intervals](");
		sbuf_adds(out, chart);
		sbuf_adds(out, ")\n\n");
		sbuf_adds(out, cut + 2);
	}
	sbuf_release(&md);
}
