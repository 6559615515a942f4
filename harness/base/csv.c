/* csv: RFC 4180 reader (see csv.h). */
#include "base/csv.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct fields {
	char **v;
	size_t n, alloc;
};

static void fields_push(struct fields *f, struct sbuf *sb)
{
	XGROW(f->v, f->alloc, f->n + 1);
	f->v[f->n++] = sbuf_detach(sb, NULL);
}

static void fields_free(struct fields *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* Trim spaces and tabs around an unquoted header name, in place. */
static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

void csv_release(struct csv *c)
{
	size_t r, i;

	for (i = 0; i < c->ncols; i++)
		free(c->header[i]);
	free(c->header);
	for (r = 0; r < c->nrows; r++) {
		for (i = 0; i < c->ncols; i++)
			free(c->rows[r][i]);
		free(c->rows[r]);
	}
	free(c->rows);
	free(c->lines);
	memset(c, 0, sizeof(*c));
}

int csv_parse(const char *text, size_t len, const char *name, struct csv *out)
{
	struct sbuf field = SBUF_INIT;
	struct fields f = { 0 };
	size_t pos = 0, line = 1, start_line = 1, rows_alloc = 0, lines_alloc = 0, i;
	int quoted, was_quoted = 0, ret = -1, blank;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		/* One record: fields until an unquoted newline or the end. */
		start_line = line;
		blank = 1;
		for (;;) {
			quoted = 0;
			was_quoted = 0;
			sbuf_reset(&field);
			if (pos < len && text[pos] == '"') {
				quoted = was_quoted = 1;
				pos++;
			}
			while (pos < len) {
				char ch = text[pos];

				if (quoted) {
					if (ch == '"' && pos + 1 < len && text[pos + 1] == '"') {
						sbuf_add(&field, "\"", 1);
						pos += 2;
					} else if (ch == '"') {
						quoted = 0;
						pos++;
						if (pos < len && text[pos] != ',' && text[pos] != '\n' &&
						    text[pos] != '\r') {
							error("%s:%zu: text after a closing quote", name, line);
							goto out;
						}
					} else {
						if (ch == '\n')
							line++;
						sbuf_add(&field, &ch, 1);
						pos++;
					}
					continue;
				}
				if (ch == ',' || ch == '\n' || ch == '\r')
					break;
				if (ch == '"') {
					error("%s:%zu: a quote inside an unquoted field", name, line);
					goto out;
				}
				sbuf_add(&field, &ch, 1);
				pos++;
			}
			if (quoted) {
				error("%s:%zu: unterminated quoted field", name, start_line);
				goto out;
			}
			if (field.len || was_quoted)
				blank = 0;
			fields_push(&f, &field);
			if (pos < len && text[pos] == ',') {
				blank = 0;
				pos++;
				continue;
			}
			break;
		}
		if (pos < len && text[pos] == '\r')
			pos++;
		if (pos < len && text[pos] == '\n')
			pos++;
		line++;
		if (blank) {
			fields_free(&f);
			continue;
		}
		if (!out->header) {
			for (i = 0; i < f.n; i++)
				trim(f.v[i]);
			out->header = f.v;
			out->ncols = f.n;
			memset(&f, 0, sizeof(f));
			continue;
		}
		if (f.n != out->ncols) {
			error("%s:%zu: %zu fields, the header has %zu", name, start_line, f.n,
			      out->ncols);
			goto out;
		}
		XGROW(out->rows, rows_alloc, out->nrows + 1);
		XGROW(out->lines, lines_alloc, out->nrows + 1);
		out->rows[out->nrows] = f.v;
		out->lines[out->nrows] = start_line;
		out->nrows++;
		memset(&f, 0, sizeof(f));
	}
	if (!out->header) {
		error("%s: empty file (no header row)", name);
		goto out;
	}
	ret = 0;
out:
	fields_free(&f);
	sbuf_release(&field);
	if (ret < 0)
		csv_release(out);
	return ret;
}

int csv_read_file(const char *path, struct csv *out)
{
	struct sbuf sb = SBUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (read_file(path, &sb, 256u << 20) < 0)
		return -1;
	ret = csv_parse(sb.buf, sb.len, path, out);
	sbuf_release(&sb);
	return ret;
}

int csv_col(const struct csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ncols; i++)
		if (!strcmp(c->header[i], name))
			return (int)i;
	return -1;
}
