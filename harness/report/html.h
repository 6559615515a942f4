/*
 * html: the one HTML page writer. Every page the harness writes (report.html,
 * compare --format html, history --format html) opens and closes here, and
 * a page made from Markdown (compare's) is converted here: no script, no
 * external stylesheet, font or image, so a page opens offline and from a
 * CI artifact. What goes between is the page's own: its document blocks
 * (report_doc_html.c), its chart (compare_chart.c, report_svg.c,
 * history_html.c).
 *
 * Text passed in is escaped here (sbuf_add_xml); styles and attributes are
 * the caller's literals, written as given.
 */
#ifndef HARNESS_HTML_H
#define HARNESS_HTML_H

struct sbuf;

/* html_page_open's flags. HTML_COMPACT: the head of history's page on one
 * line ("<!doctype html>", no lang), as that page has always been
 * written; the default is the full head of report.html and compare's. */
#define HTML_COMPACT 1

/* The doctype, head (charset, the escaped title, the style) and <body>. */
void html_page_open(struct sbuf *out, const char *title, const char *style, unsigned flags);
/* </body></html> and the final newline. */
void html_page_close(struct sbuf *out, unsigned flags);
/* <tag attrs>escaped text</tag>, then a newline unless HTML_INLINE. attrs
 * NULL: none; else written after a space as given. */
#define HTML_INLINE 1
void html_elem(struct sbuf *out, const char *tag, const char *attrs, const char *text,
	       unsigned flags);
/* The Markdown subset the harness writes, as HTML: "## " (the document's
 * title, as h1) and "### " headings, tables ("| a | b |" rows, the first
 * a header, the "|---|" rule skipped), blank-line separated paragraphs,
 * **strong** and `code`. */
void html_from_md(struct sbuf *out, const char *md);

#endif
