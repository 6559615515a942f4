/*
 * report_svg: the chart kit shared by the charts of report.html (one
 * report_chart_*.c per chart) and by compare's page: axes with round
 * ticks, the frame, the window marks, the legend, colours.
 *
 * Every chart is one <svg> with data-chart="NAME", a viewBox and no
 * script or external resource; hover details are SVG <title> elements.
 * Numbers on axes are plain: 500, 1k, 2k, 1.5k, 0.05; never 1.52e+03.
 *
 * Nothing here allocates beyond the caller's sbuf.
 */
#ifndef HARNESS_REPORT_SVG_H
#define HARNESS_REPORT_SVG_H

#include <stddef.h>

struct sbuf;
struct report;
struct view_window;

#define SVG_SLO_COLOR "#d62728"
#define SVG_FAILED_COLOR "#d62728"     /* failed windows: filled red cross */
#define SVG_REJECTED_COLOR "#8a8a8a"   /* rejected windows: hollow grey ring */

/* Margins of a plot (pixels): left, right (legend), top, bottom. */
#define SVG_ML 64.0
#define SVG_MR 150.0
#define SVG_MT 36.0
#define SVG_MB 48.0

struct axis {
	double lo, hi;   /* data range */
	int log;
	double p0, p1;   /* pixel range */
	/* ticks: 0 = 1-2-5 steps (log: 1, 2, 5 per decade); 1 = percentile
	 * labels on a 1/(1-p) axis (1 -> "0%", 10 -> "90%", 100 -> "99%");
	 * 2 = none (the chart draws its own) */
	int tick_kind;
};

struct plot {
	struct axis x, y;
	double w, h;
};

const char *svg_color(int impl);

double svg_amap(const struct axis *a, double v);
int svg_in_axis(const struct axis *a, double v);
/* Up to 16 round tick values into t; their number. */
size_t svg_ticks(const struct axis *a, double *t);
/* A plain number: "1k", "2.5k", "1.2M", "750", "0.05"; never an exponent. */
void svg_num(struct sbuf *out, double v);

/* <svg data-chart="name" ...>, white background and the title. */
void svg_open(struct sbuf *out, const char *name, const char *title, double w, double h);
/* The plot area, grid, tick labels and axis labels. */
void svg_frame(struct sbuf *out, const struct plot *p, const char *xlabel, const char *ylabel);
/* A grey centred note inside the plot area ("no accounting data"). */
void svg_note(struct sbuf *out, const struct plot *p, const char *text);
/* The SLO's dashed horizontal line across p at r->slo_ms (stroke width
 * `width`, as written), when the y axis holds it. */
void svg_slo_line(struct sbuf *out, const struct plot *p, const struct report *r,
		  const char *width);

/* The offered-rate x axis over every rung's rate (log when they span > 3x). */
void svg_rate_axis(const struct report *r, struct axis *a, double w);
/* A value y axis from lo to hi (log when lo > 0 and hi / lo > 50). */
void svg_value_axis(struct axis *a, double lo, double hi, double h);
/* The same, never log, from 0. */
void svg_linear_axis(struct axis *a, double hi, double h);

/* Window marks: accepted a dot in the implementation's colour, failed a
 * red cross, rejected a hollow grey ring; each carries
 * data-status="accepted|failed|rejected". open_mark leaves the element
 * open for a <title>; close_mark closes it. */
enum wstatus { WS_ACCEPTED, WS_FAILED, WS_REJECTED };
extern const char *const svg_wstatus_names[];
enum wstatus svg_wstatus(const struct view_window *w);
void svg_open_mark(struct sbuf *out, const char *cls, enum wstatus st, double x, double y,
		   const char *col);
void svg_close_mark(struct sbuf *out, enum wstatus st);
/* Legend rows of the three marks from (x, y); returns the next y. */
double svg_legend_marks(struct sbuf *out, double x, double y);
/* One legend row per implementation at the plot's right; returns the next y. */
double svg_legend_impls(struct sbuf *out, const struct report *r, const struct plot *p);

/* The charts (report_chart_*.c), listed in report_charts.c, each drawn
 * with its registered title. */
void report_chart_latency(const struct report *r, const char *title, struct sbuf *out);
void report_chart_spectrum(const struct report *r, const char *title, struct sbuf *out);
void report_chart_timeline(const struct report *r, const char *title, struct sbuf *out);
void report_chart_cpu(const struct report *r, const char *title, struct sbuf *out);
void report_chart_memory(const struct report *r, const char *title, struct sbuf *out);
void report_chart_ratio(const struct report *r, const char *title, struct sbuf *out);
void report_chart_seconds(const struct report *r, const char *title, struct sbuf *out);
void report_chart_rejections(const struct report *r, const char *title, struct sbuf *out);

#endif
