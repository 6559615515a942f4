/*
 * promtext: a reader of the Prometheus text exposition format (version
 * 0.0.4, as served at /metrics by Go's client_golang, prometheus-net,
 * Micrometer and most exporters; OpenMetrics text is read too: `# EOF`,
 * `# UNIT`, exemplars), for runtime stats (rtstats.c, `stats.format:
 * prometheus`). docs/prometheus.md describes what is read and why.
 *
 * A sample line is
 *     name{label="value",...} value [timestamp_ms] [# exemplar]
 * Label values are unescaped (\\ \" \n); a trailing comma in the label
 * set (older Java clients) and a quoted UTF-8 name inside the braces
 * ({"my.metric",a="x"}) are accepted. Values are floats, +Inf, -Inf or NaN.
 * `# HELP` and `# TYPE` lines give each family's help and type; other
 * comments are skipped.
 *
 * Selectors pick samples the way a PromQL instant vector selector with
 * only `=` matchers does: `name` or `name{label="value",...}`; a sample
 * matches when its name is `name` and it has every listed label with that
 * value (other labels are free). A counter may be named with or without
 * its `_total` suffix (OpenMetrics families drop it, text 0.0.4 ones keep
 * it): when nothing is named exactly, the other spelling is tried.
 *
 * Ownership: a struct promtext owns every string in it; promtext_release()
 * frees it. Not thread-safe; no global state.
 */
#ifndef HARNESS_PROMTEXT_H
#define HARNESS_PROMTEXT_H

#include <stddef.h>
#include <stdint.h>

struct prom_label {
	char *name, *value;
};

struct prom_sample {
	char *name;
	struct prom_label *labels;   /* in document order */
	size_t nlabels;
	double value;                /* may be +-INFINITY or NAN */
	int64_t ts_ms;               /* 0 when has_ts is 0 */
	int has_ts;
};

struct prom_family {
	char *name;
	char *type;                  /* counter, gauge, summary, histogram, untyped, ... */
	char *help;                  /* unescaped; NULL without # HELP */
};

struct promtext {
	struct prom_sample *samples;
	size_t nsamples, asamples;
	struct prom_family *families;
	size_t nfamilies, afamilies;
};

/* Parse len bytes of exposition text into p (initialised here). 0, or -1
 * with *err (malloc'd, "line N: ...") at the first malformed line; p then
 * holds nothing (released). */
int promtext_parse(const char *text, size_t len, struct promtext *p, char **err);
void promtext_release(struct promtext *p);

/* The family that declares `name` (exactly, or as the base of a
 * _total/_count/_sum/_bucket/_created sample of it); NULL when none. */
const struct prom_family *promtext_family(const struct promtext *p, const char *name);

struct prom_selector {
	char *name;
	struct prom_label *labels;
	size_t nlabels;
};

/* Parse "name" or "name{a=\"x\",b=\"y\"}". 0, or -1 with *err (malloc'd). */
int prom_selector_parse(const char *s, struct prom_selector *sel, char **err);
void prom_selector_release(struct prom_selector *sel);
/* True when s is a selector prom_selector_parse() accepts. */
int prom_selector_valid(const char *s);

/* The samples sel matches, in document order: *out malloc'd (NULL when
 * none; free() it), pointing into p. Returns the count. */
size_t promtext_select(const struct promtext *p, const struct prom_selector *sel,
		       const struct prom_sample ***out);

/* The labels of s that sel does not fix, as "value" when there is one
 * and "a=x,b=y" otherwise (the name of one counter of a multi-series
 * signal); malloc'd. */
char *promtext_series_name(const struct prom_sample *s, const struct prom_selector *sel);

#endif
