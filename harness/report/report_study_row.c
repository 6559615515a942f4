/*
 * report_study_row: one row of study.csv (report_study.h), the leaf the
 * sections write through.
 */
#include "report/report_study.h"

#include <math.h>
#include <string.h>

#include "base/util.h"

static void csv_field(struct sbuf *out, const char *s)
{
	const char *p;

	sbuf_adds(out, ",");
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		sbuf_adds(out, s);
		return;
	}
	sbuf_adds(out, "\"");
	for (p = s; *p; p++) {
		if (*p == '"')
			sbuf_adds(out, "\"");
		sbuf_add(out, p, 1);
	}
	sbuf_adds(out, "\"");
}

static void csv_num(struct sbuf *out, double v)
{
	sbuf_adds(out, ",");
	if (isfinite(v))
		sbuf_addf(out, "%.10g", v);
}

void report_study_csv_row(struct sbuf *out, const char *section, const char *impl,
			  const char *stage, double rate, const char *name, double value,
			  double lo, double hi, long long windows, const char *detail)
{
	sbuf_adds(out, section);
	csv_field(out, impl);
	csv_field(out, stage);
	csv_num(out, rate);
	csv_field(out, name);
	csv_num(out, value);
	csv_num(out, lo);
	csv_num(out, hi);
	if (windows >= 0)
		sbuf_addf(out, ",%lld", windows);
	else
		sbuf_adds(out, ",");
	csv_field(out, detail);
	sbuf_adds(out, "\n");
}
