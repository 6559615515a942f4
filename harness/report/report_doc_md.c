/*
 * report_doc_md: a document (report_doc.h) as Markdown: report.md
 * (report_md) and `history --format md`. Charts are not drawn here; their
 * place names report.html.
 */
#include "report/report.h"

#include <string.h>

#include "report/report_doc.h"
#include "base/util.h"

/* Markdown table cells: a '|' inside a value would split the cell. */
static void text(struct sbuf *out, const char *s, int in_table)
{
	int strong = !strncmp(s, RDOC_STRONG, 1) || !strncmp(s, RDOC_BEST, 1);

	if (strong) {
		s++;
		sbuf_adds(out, "**");
	}
	for (; *s; s++) {
		if (in_table && *s == '|')
			sbuf_adds(out, "\\|");
		else if (in_table && *s == '\n')
			sbuf_adds(out, " ");
		else
			sbuf_add(out, s, 1);
	}
	if (strong)
		sbuf_adds(out, "**");
}

static void table(struct sbuf *out, const struct rdoc_block *b)
{
	size_t i;

	for (i = 0; i < b->ncells; i++) {
		sbuf_adds(out, i % b->ncols ? " " : "| ");
		text(out, b->cells[i], 1);
		sbuf_adds(out, " |");
		if (i % b->ncols == b->ncols - 1) {
			sbuf_adds(out, "\n");
			if (i == b->ncols - 1) {
				size_t k;

				sbuf_adds(out, "|");
				for (k = 0; k < b->ncols; k++)
					sbuf_adds(out, b->align && k < strlen(b->align) &&
						  b->align[k] == 'r' ? "---:|" : "---|");
				sbuf_adds(out, "\n");
			}
		}
	}
	sbuf_adds(out, "\n");
}

/* GitHub's heading anchor: lower case, spaces to '-', other punctuation
 * dropped. */
static void slug(struct sbuf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ')
			sbuf_adds(out, "-");
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
			 c >= 0x80)
			sbuf_add(out, s, 1);
		else if (c >= 'A' && c <= 'Z')
			sbuf_addf(out, "%c", c - 'A' + 'a');
	}
}

static void toc(const struct rdoc *d, struct sbuf *out)
{
	size_t i;

	sbuf_adds(out, "Contents:");
	for (i = 0; i < d->n; i++) {
		if (d->b[i].kind != RDOC_H2)
			continue;
		sbuf_addf(out, "\n- [%s](#", d->b[i].text);
		slug(out, d->b[i].text);
		sbuf_adds(out, ")");
	}
	sbuf_adds(out, "\n\n");
}

/* The blocks written as one line of text and a blank line. */
static const char *const line_fmt[] = {
	[RDOC_TITLE] = "# %s\n\n", [RDOC_HEADLINE] = "**%s**\n\n", [RDOC_STAMP] = "> **%s**\n\n",
	[RDOC_H2] = "## %s\n\n", [RDOC_H3] = "### %s\n\n", [RDOC_P] = "%s\n\n",
	[RDOC_CHART] = "_Chart in report.html: %s._\n\n",
};

void rdoc_md(const struct rdoc *d, unsigned flags, struct sbuf *out)
{
	size_t i, k;
	int toc_done = !(flags & RDOC_MD_TOC);

	for (i = 0; i < d->n; i++) {
		const struct rdoc_block *b = &d->b[i];

		if (b->kind == RDOC_H2 && !toc_done) {
			toc(d, out);
			toc_done = 1;
		}
		if (b->kind == RDOC_TABLE) {
			table(out, b);
		} else if (b->kind == RDOC_LIST) {
			for (k = 0; k < b->ncells; k++)
				sbuf_addf(out, "- %s\n", b->cells[k]);
			sbuf_adds(out, "\n");
		} else {
			sbuf_addf(out, line_fmt[b->kind], b->text);
		}
	}
	if ((flags & RDOC_MD_TIGHT) && out->len >= 2 && !strcmp(out->buf + out->len - 2, "\n\n"))
		out->buf[--out->len] = 0;
}

void report_md(const struct report *r, struct sbuf *out)
{
	struct rdoc d;

	report_doc_build(r, &d);
	rdoc_md(&d, RDOC_MD_TOC, out);
	rdoc_release(&d);
}
