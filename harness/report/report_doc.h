/*
 * report_doc: the document layer. A document is a list of blocks
 * (headings, paragraphs, lists, tables, chart slots): the report's is
 * built once by report_doc_build() and rendered by report_md() and
 * report_html(), so the two formats cannot disagree; `history`'s and
 * `compare`'s are built as ones too (history_md.c, history_html.c,
 * compare_md.c; compare's HTML is made from its Markdown, html.h).
 * rdoc_md() is the one Markdown writer of them (report_doc_md.c),
 * rdoc_html() the one HTML writer of their blocks (report_doc_html.c);
 * compare's JUnit (compare_junit.c) and `status`'s text (status_text.c)
 * are documents too, written by rdoc_junit() and rdoc_text().
 *
 * Cells and texts are plain UTF-8; a cell whose text starts with
 * RDOC_STRONG (a warning) or RDOC_BEST (the best) is shown emphasised
 * (the marker is not part of the text).
 * Ownership: the doc owns every string; rdoc_release() frees them.
 */
#ifndef HARNESS_REPORT_DOC_H
#define HARNESS_REPORT_DOC_H

#include <stddef.h>

struct report;
struct sbuf;

#define RDOC_STRONG "\x01"
/* A cell that is the best of its column (the summary's winning knee):
 * emphasised as RDOC_STRONG, in html green where RDOC_STRONG is red. */
#define RDOC_BEST "\x02"

enum rdoc_kind { RDOC_TITLE, RDOC_HEADLINE, RDOC_STAMP, RDOC_H2, RDOC_H3, RDOC_P, RDOC_TABLE,
		 RDOC_CHART, RDOC_LIST };

struct rdoc_block {
	enum rdoc_kind kind;
	char *text;          /* title, stamp, heading, paragraph; table caption id
				(NULL: none); chart caption (NULL: none) */
	size_t ncols;        /* table */
	char **cells;        /* table: row-major, the first ncols are the header;
				list: its items, each a line of text (Markdown
				in a document written as Markdown) */
	size_t ncells;
	char *align;         /* table: per column, 'r' right-aligned, else as
				the reader's default; NULL: every column so */
	size_t *width;       /* table: per column, its text's least width in
				characters (rdoc_text); NULL: none */
	size_t chart;        /* RDOC_CHART: index for report_chart() */
};

struct rdoc {
	struct rdoc_block *b;
	size_t n, alloc;
};

void report_doc_build(const struct report *r, struct rdoc *d);
void rdoc_release(struct rdoc *d);

/* The document as Markdown, appended to out: "# " title, "**headline**",
 * "> **stamp**", "## " and "### " headings, paragraphs and lists as
 * given, tables ("| a | b |", the "|---|" rule under the header, "|---:|"
 * for a right-aligned column; '|' and newlines in a cell escaped), a
 * chart slot as a line naming report.html; a blank line after each block.
 * RDOC_MD_TOC: a list of the "## " headings (GitHub's
 * anchors) before the first; RDOC_MD_TIGHT: the document ends with one
 * newline, not a blank line. */
#define RDOC_MD_TOC 1
#define RDOC_MD_TIGHT 2
void rdoc_md(const struct rdoc *d, unsigned flags, struct sbuf *out);

/* The document as one HTML page (html.h's page), appended to out: "<h1>"
 * title, "<p class=\"headline\">", "<div class=\"stamp\">", "<h2>" and
 * "<h3>", "<p>", "<ul>" lists ("<li>" an item; an item starting with
 * RDOC_STRONG "<li class=\"strong_item\">" when the page names one),
 * tables ("<table id=\"t-ID\">", a "<tr>" a row, "<th>" the header's
 * cells, "<td>" the rest, emphasised cells "<strong>", the best
 * "<strong class=\"best\">"), a chart slot as the chart (how->chart) in
 * a "<figure id=\"chart-NAME\">" with its caption, or alone without one;
 * every text escaped.
 * RDOC_HTML_TOC: a table of contents of the "<h2>"s (id "s-N", N the
 * block's index) and the captioned charts before the first;
 * RDOC_HTML_COMPACT: the page's head on one line (HTML_COMPACT), tables
 * without an id and their header row on the "<table>" line, as history's
 * page has always been written. */
#define RDOC_HTML_TOC 1
#define RDOC_HTML_COMPACT 2
struct rdoc_html {
	const char *title;       /* the page's <title> */
	const char *style;       /* its stylesheet, written as given */
	unsigned flags;          /* RDOC_HTML_* */
	const char *strong_item; /* the class of an emphasised list item, or NULL */
	/* chart slot i: its NAME, its SVG appended to out (ctx the caller's) */
	const char *(*chart_name)(size_t i);
	void (*chart)(const void *ctx, size_t i, struct sbuf *out);
	const void *ctx;
};
void rdoc_html(const struct rdoc *d, const struct rdoc_html *how, struct sbuf *out);

/* The document as plain text lines (a terminal's), appended to out: the
 * title and a stamp at the margin, "## " and "### " headings too followed
 * by ':', paragraphs and list items two spaces in, a line each; a table's
 * rows (its header is not a row) two spaces in, the first cell then each
 * other one after its heading, "NAME HEADING VALUE  HEADING VALUE", every
 * cell padded to its column's width (rdoc_widths; right-aligned as
 * rdoc_align says); charts have no place in text. Texts as given. */
void rdoc_text(const struct rdoc *d, struct sbuf *out);

/* The document as JUnit XML, appended to out: the title names the
 * <testsuites>, each "## " heading a <testsuite> of the blocks up to the
 * next one; in a suite a table of two columns (name, value) is its
 * <properties>, a table of five (class, name, outcome, type, message)
 * its testcases, one a row: outcome "passed" (the message as
 * <system-out>), "failure", "error" (with type= and message=) or
 * "skipped" (message=); every other block has no place in JUnit and is
 * not written. Each <testsuites> and <testsuite> counts its testcases
 * (tests, failures, errors, skipped). Texts are escaped, but for '>' in a
 * name= attribute (an attribute value may hold it). */
void rdoc_junit(const struct rdoc *d, struct sbuf *out);

/* ---- for the sections (report_doc_*.c) ---- */
struct report_pct;
struct report_reason;

/* report_doc_kit.c: append a block (text copied), a table with its header
 * cells, a cell (a scratch buffer's text, then emptied; or printf's) */
struct rdoc_block *rdoc_add(struct rdoc *d, enum rdoc_kind kind, const char *text);
void rdoc_addf(struct rdoc *d, enum rdoc_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct rdoc_block *rdoc_table(struct rdoc *d, const char *id, size_t ncols, ...);
/* An empty list; its items pushed as cells (rdoc_push_cell, rdoc_cell). */
struct rdoc_block *rdoc_list(struct rdoc *d);
/* The table's columns' alignment: one letter a column, 'r' right. */
void rdoc_align(struct rdoc_block *t, const char *align);
/* The table's columns' least widths in characters, t->ncols of them. */
void rdoc_widths(struct rdoc_block *t, const size_t *width);
void rdoc_push_cell(struct rdoc_block *t, const char *s);
void rdoc_cell(struct rdoc_block *t, struct sbuf *c);
void rdoc_cellf(struct rdoc_block *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "5.73 [5.60, 5.93]" ('*': coverage below the level); "failed: g 2;
 * rejected: h 1" or "-"; "9 accepted, 2 failed, 1 rejected of 12"; s or "-" */
void rdoc_pct(struct sbuf *c, const struct report *r, const struct report_pct *p);
void rdoc_reasons(struct sbuf *c, const struct report_reason *v, size_t n);
void rdoc_counts(struct sbuf *c, size_t total, size_t accepted, size_t failed);
const char *rdoc_or_dash(const char *s);

/* report_doc_tables.c and report_doc_prov.c: one section each */
void rdoc_knees(const struct report *r, struct rdoc *d);
void rdoc_promise(const struct report *r, struct rdoc *d);
void rdoc_rungs(const struct report *r, struct rdoc *d);
/* report_doc_requests.c: the protocol, and per request per rung */
void rdoc_requests(const struct report *r, struct rdoc *d);
void rdoc_ratios(const struct report *r, struct rdoc *d);
void rdoc_verdicts(const struct report *r, struct rdoc *d);
void rdoc_rejections(const struct report *r, struct rdoc *d);
void rdoc_cells_table(const struct report *r, struct rdoc *d);
void rdoc_dependencies(const struct report *r, struct rdoc *d);
/* report_saturation.c, report_footprint.c: their own sections */
void rdoc_saturation(const struct report *r, struct rdoc *d);
void rdoc_footprint(const struct report *r, struct rdoc *d);
void rdoc_provenance(const struct report *r, struct rdoc *d);

#endif
