/*
 * report_study_row: one row of study.csv (report_study.h), the leaf the
 * sections write through.
 */
#include "report/report_study.h"

#include "base/util.h"
#include "report/report.h"

/* a cell after the row's first: the comma, then the cell as report_csv.c
 * quotes it */
static void csv_field(struct sbuf *out, const char *s)
{
	sbuf_adds(out, ",");
	report_csv_field(out, s);
}

void report_study_csv_row(struct sbuf *out, const char *section, const char *impl,
			  const char *stage, double rate, const char *name, double value,
			  double lo, double hi, long long windows, const char *detail)
{
	sbuf_adds(out, section);
	csv_field(out, impl);
	csv_field(out, stage);
	report_csv_num(out, rate);
	csv_field(out, name);
	report_csv_num(out, value);
	report_csv_num(out, lo);
	report_csv_num(out, hi);
	if (windows >= 0)
		sbuf_addf(out, ",%lld", windows);
	else
		sbuf_adds(out, ",");
	csv_field(out, detail);
	sbuf_adds(out, "\n");
}
