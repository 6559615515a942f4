/*
 * report_doc_junit: a document (report_doc.h) as JUnit XML, the test
 * report CI reads: `compare --format junit` and --junit (compare_junit.c
 * builds the document). Contract in report_doc.h (rdoc_junit).
 */
#include "report/report_doc.h"

#include <string.h>

#include "base/util.h"

struct tally {
	size_t tests, fails, errors, skips;
};

static int is_cases(const struct rdoc_block *b)
{
	return b->kind == RDOC_TABLE && b->ncols == 5;
}

static int is_props(const struct rdoc_block *b)
{
	return b->kind == RDOC_TABLE && b->ncols == 2;
}

/* A name attribute: escaped but for '>', which an attribute value may
 * hold as it is (a suite "BASE -> NEW"). */
static void add_name(struct sbuf *o, const char *s)
{
	struct sbuf seg = SBUF_INIT;
	const char *gt;

	for (; (gt = strchr(s, '>')); s = gt + 1) {
		sbuf_reset(&seg);
		sbuf_add(&seg, s, (size_t)(gt - s));
		sbuf_add_xml(o, seg.buf);
		sbuf_adds(o, ">");
	}
	sbuf_add_xml(o, s);
	sbuf_release(&seg);
}

/* The testcases of blocks [from, to) by outcome, written as the
 * attributes of their suite and the "\n" after it. */
static void counts(const struct rdoc *d, size_t from, size_t to, struct sbuf *o)
{
	struct tally n = { 0, 0, 0, 0 };
	size_t i, k;

	for (i = from; i < to; i++) {
		const struct rdoc_block *b = &d->b[i];

		for (k = b->ncols; is_cases(b) && k < b->ncells; k += b->ncols) {
			const char *outcome = b->cells[k + 2];

			n.tests++;
			n.fails += !strcmp(outcome, "failure");
			n.errors += !strcmp(outcome, "error");
			n.skips += !strcmp(outcome, "skipped");
		}
	}
	sbuf_addf(o, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", n.tests,
		  n.fails, n.errors, n.skips);
}

static void properties(const struct rdoc_block *b, struct sbuf *o)
{
	size_t k;

	sbuf_adds(o, "    <properties>\n");
	for (k = b->ncols; k < b->ncells; k += b->ncols) {
		sbuf_adds(o, "      <property name=\"");
		add_name(o, b->cells[k]);
		sbuf_adds(o, "\" value=\"");
		sbuf_add_xml(o, b->cells[k + 1]);
		sbuf_adds(o, "\"/>\n");
	}
	sbuf_adds(o, "    </properties>\n");
}

/* One row: class, name, outcome, type, message. */
static void testcase(char *const *row, struct sbuf *o)
{
	const char *outcome = row[2];

	sbuf_adds(o, "    <testcase classname=\"");
	add_name(o, row[0]);
	sbuf_adds(o, "\" name=\"");
	add_name(o, row[1]);
	sbuf_adds(o, "\">\n      ");
	if (!strcmp(outcome, "passed")) {
		sbuf_adds(o, "<system-out>");
		sbuf_add_xml(o, row[4]);
		sbuf_adds(o, "</system-out>\n    </testcase>\n");
		return;
	}
	sbuf_addf(o, "<%s", outcome);
	if (strcmp(outcome, "skipped")) {
		sbuf_adds(o, " type=\"");
		sbuf_add_xml(o, row[3]);
		sbuf_adds(o, "\"");
	}
	sbuf_adds(o, " message=\"");
	sbuf_add_xml(o, row[4]);
	sbuf_adds(o, "\"/>\n    </testcase>\n");
}

/* The suite of the heading at block h: up to the next heading. */
static void suite(const struct rdoc *d, size_t h, struct sbuf *o)
{
	size_t i, k, end = h + 1;

	while (end < d->n && d->b[end].kind != RDOC_H2)
		end++;
	sbuf_adds(o, "  <testsuite name=\"");
	add_name(o, d->b[h].text);
	sbuf_adds(o, "\"");
	counts(d, h + 1, end, o);
	for (i = h + 1; i < end; i++) {
		const struct rdoc_block *b = &d->b[i];

		if (is_props(b))
			properties(b, o);
		for (k = b->ncols; is_cases(b) && k < b->ncells; k += b->ncols)
			testcase(b->cells + k, o);
	}
	sbuf_adds(o, "  </testsuite>\n");
}

void rdoc_junit(const struct rdoc *d, struct sbuf *o)
{
	const char *title = "";
	size_t i, first = d->n;

	for (i = d->n; i-- > 0;) {
		if (d->b[i].kind == RDOC_TITLE)
			title = d->b[i].text;
		if (d->b[i].kind == RDOC_H2)
			first = i;
	}
	sbuf_adds(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
	add_name(o, title);
	sbuf_adds(o, "\"");
	counts(d, first, d->n, o);
	for (i = first; i < d->n; i++)
		if (d->b[i].kind == RDOC_H2)
			suite(d, i, o);
	sbuf_adds(o, "</testsuites>\n");
}
