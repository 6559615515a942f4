/*
 * report_doc: the report's text as a list of blocks (headings, paragraphs,
 * tables, chart slots), built once by report_doc_build() and rendered by
 * report_md() and report_html(), so the two formats cannot disagree.
 *
 * Cells and texts are plain UTF-8; a cell whose text starts with
 * RDOC_STRONG is shown emphasised (the marker is not part of the text).
 * Ownership: the doc owns every string; rdoc_release() frees them.
 */
#ifndef HARNESS_REPORT_DOC_H
#define HARNESS_REPORT_DOC_H

#include <stddef.h>

struct report;
struct sbuf;

#define RDOC_STRONG "\x01"

enum rdoc_kind { RDOC_TITLE, RDOC_STAMP, RDOC_H2, RDOC_P, RDOC_TABLE, RDOC_CHART };

struct rdoc_block {
	enum rdoc_kind kind;
	char *text;          /* title, stamp, heading, paragraph; table caption id */
	size_t ncols;        /* table */
	char **cells;        /* row-major; the first ncols are the header */
	size_t ncells;
	size_t chart;        /* RDOC_CHART: index for report_chart() */
};

struct rdoc {
	struct rdoc_block *b;
	size_t n, alloc;
};

void report_doc_build(const struct report *r, struct rdoc *d);
void rdoc_release(struct rdoc *d);

#endif
