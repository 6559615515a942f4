/*
 * csv: a small reader for comma-separated files with a header row
 * (RFC 4180: quoted fields with "" escapes, LF or CRLF line ends; blank
 * lines are skipped). Used by `harness knee --windows FILE.csv`.
 *
 * Ownership: a struct csv owns every string it points to; csv_release()
 * frees them all and leaves an empty struct.
 */
#ifndef HARNESS_CSV_H
#define HARNESS_CSV_H

#include <stddef.h>

struct csv {
	size_t ncols;
	char **header;     /* ncols names, surrounding spaces trimmed */
	size_t nrows;
	char ***rows;      /* rows[r][c], c < ncols */
	size_t *lines;     /* 1-based line where row r starts */
};

#define CSV_INIT { 0, NULL, 0, NULL, NULL }

/* Parse text; `name` prefixes messages. Every row must have exactly ncols
 * fields. On error prints one line "NAME:LINE: what" and returns -1 (out
 * is released). */
int csv_parse(const char *text, size_t len, const char *name, struct csv *out);
/* Read and parse a file. */
int csv_read_file(const char *path, struct csv *out);
void csv_release(struct csv *c);
/* The index of column `name`, or -1. */
int csv_col(const struct csv *c, const char *name);

#endif
