/*
 * report_charts: the charts of report.html, in their order: name (the
 * <svg>'s data-chart), title and the function drawing it (one
 * report_chart_*.c each, over the kit in report_svg.c).
 */
#include "report/report_study.h"
#include "report/report.h"
#include "report/report_svg.h"

#include "base/util.h"

static const struct chart {
	const char *name, *title;
	void (*draw)(const struct report *r, const char *title, struct sbuf *out);
} charts[] = {
	{ "latency_vs_rate", "Tail latency vs offered rate", report_chart_latency },
	{ "percentile_spectrum", "Latency by percentile", report_chart_spectrum },
	{ "timeline", "The whole run over time", report_chart_timeline },
	{ "cpu_per_request", "CPU per request vs offered rate", report_chart_cpu },
	{ "memory", "Memory (anon p99) vs offered rate", report_chart_memory },
	{ "signals", "Derived signals vs offered rate", report_chart_signals },
	{ "ratio", "Ratios between implementations vs offered rate", report_chart_ratio },
	{ "per_second", "Per-second p99 of every window", report_chart_seconds },
	{ "rejections", "Failed and rejected windows per gate", report_chart_rejections },
};

size_t report_nchart(void)
{
	return ARRAY_SIZE(charts);
}

const char *report_chart_title(size_t i)
{
	return i < ARRAY_SIZE(charts) ? charts[i].title : "";
}

const char *report_chart_name(size_t i)
{
	return i < ARRAY_SIZE(charts) ? charts[i].name : "";
}

void report_chart(const struct report *r, size_t i, struct sbuf *out)
{
	if (i < ARRAY_SIZE(charts))
		charts[i].draw(r, charts[i].title, out);
}
