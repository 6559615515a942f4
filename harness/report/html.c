/* html: the one HTML page writer (contract in html.h). */
#include "report/html.h"

#include <string.h>

#include "base/util.h"

void html_page_open(struct sbuf *out, const char *title, const char *style, unsigned flags)
{
	if (flags & HTML_COMPACT) {
		sbuf_adds(out, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>");
		sbuf_add_xml(out, title);
		sbuf_addf(out, "</title>\n<style>%s</style></head><body>\n", style);
		return;
	}
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
	sbuf_add_xml(out, title);
	sbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

void html_page_close(struct sbuf *out, unsigned flags)
{
	sbuf_adds(out, flags & HTML_COMPACT ? "</body></html>\n" : "</body>\n</html>\n");
}

void html_elem(struct sbuf *out, const char *tag, const char *attrs, const char *text,
	       unsigned flags)
{
	sbuf_addf(out, "<%s%s%s>", tag, attrs ? " " : "", attrs ? attrs : "");
	sbuf_add_xml(out, text);
	sbuf_addf(out, "</%s>%s", tag, flags & HTML_INLINE ? "" : "\n");
}

/* ------------------------------------------------------ from Markdown */

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

void html_from_md(struct sbuf *out, const char *md)
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

