/* promtext: the Prometheus text exposition format, read (see promtext.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "base/promtext.h"
#include "base/util.h"

/* ------------------------------------------------------------- scanning */

/* A cursor over one line [p, end). */
struct cur {
	const char *p, *end;
	struct sbuf why;             /* set on the first error */
};

static int fail(struct cur *c, const char *fmt, const char *arg)
{
	if (!c->why.len)
		sbuf_addf(&c->why, fmt, arg);
	return -1;
}

static void skip_blank(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static int name_start(int ch)
{
	return isalpha(ch) || ch == '_' || ch == ':';
}

static int name_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == ':';
}

/* A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), or a label name (no ':'). */
static char *scan_name(struct cur *c, int label)
{
	const char *s = c->p;

	if (c->p >= c->end || !name_start((unsigned char)*c->p) || (label && *c->p == ':'))
		return NULL;
	while (c->p < c->end && name_char((unsigned char)*c->p) && !(label && *c->p == ':'))
		c->p++;
	return xstrndup(s, (size_t)(c->p - s));
}

/* A double-quoted string with \\ \" \n escapes; the cursor is on the '"'. */
static char *scan_quoted(struct cur *c)
{
	struct sbuf v = SBUF_INIT;

	c->p++;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p == '\\' && c->p + 1 < c->end) {
			char e = c->p[1];

			if (e == 'n')
				sbuf_add(&v, "\n", 1);
			else if (e == '\\' || e == '"')
				sbuf_add(&v, &e, 1);
			else {
				/* Not an escape the format defines: kept as written. */
				sbuf_add(&v, c->p, 2);
			}
			c->p += 2;
			continue;
		}
		sbuf_add(&v, c->p, 1);
		c->p++;
	}
	if (c->p >= c->end) {
		sbuf_release(&v);
		fail(c, "%sunterminated quoted string", "");
		return NULL;
	}
	c->p++;
	return sbuf_detach(&v, NULL);
}

static void labels_free(struct prom_label *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].value);
	}
	free(l);
}

/* '{' ... '}' after a name (or holding a quoted name when *name is NULL).
 * The cursor is on the '{'. */
static int scan_labels(struct cur *c, char **name, struct prom_label **out, size_t *n)
{
	struct prom_label *l = NULL;
	size_t alloc = 0;
	char *key, *val;

	*out = NULL;
	*n = 0;
	c->p++;
	for (;;) {
		skip_blank(c);
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			break;
		}
		if (c->p < c->end && *c->p == '"') {
			/* {"quoted.name", ...}: the metric's name, once, first. */
			if (*name || *n)
				goto bad;
			*name = scan_quoted(c);
			if (!*name)
				goto bad;
		} else {
			key = scan_name(c, 1);
			if (!key) {
				fail(c, "%sexpected a label name", "");
				goto bad;
			}
			skip_blank(c);
			if (c->p >= c->end || *c->p != '=') {
				free(key);
				fail(c, "%sexpected '=' after a label name", "");
				goto bad;
			}
			c->p++;
			skip_blank(c);
			if (c->p >= c->end || *c->p != '"') {
				free(key);
				fail(c, "%sexpected a quoted label value", "");
				goto bad;
			}
			val = scan_quoted(c);
			if (!val) {
				free(key);
				goto bad;
			}
			XGROW(l, alloc, *n + 1);
			l[*n].name = key;
			l[*n].value = val;
			(*n)++;
		}
		skip_blank(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;   /* a trailing comma is allowed: the '}' test above */
			continue;
		}
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			break;
		}
		fail(c, "%sexpected ',' or '}' in the label set", "");
		goto bad;
	}
	*out = l;
	return 0;
bad:
	fail(c, "%sbad label set", "");
	labels_free(l, *n);
	*n = 0;
	return -1;
}

/* A sample value: a float, +Inf/-Inf/Inf or NaN (any case). */
static int scan_value(struct cur *c, double *v)
{
	char buf[64], *endp;
	const char *s = c->p;
	size_t len;

	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	len = (size_t)(c->p - s);
	if (!len || len >= sizeof(buf))
		return fail(c, "%sexpected a value", "");
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtod(buf, &endp);
	if (*endp || endp == buf)
		return fail(c, "bad value '%s'", buf);
	return 0;
}

/* -------------------------------------------------------------- parsing */

static struct prom_family *family_get(struct promtext *p, const char *name)
{
	struct prom_family *f;
	size_t i;

	for (i = p->nfamilies; i-- > 0;)
		if (!strcmp(p->families[i].name, name))
			return &p->families[i];
	XGROW(p->families, p->afamilies, p->nfamilies + 1);
	f = &p->families[p->nfamilies++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	return f;
}

/* HELP text: \\ and \n escapes. */
static char *unescape_help(const char *s, const char *end)
{
	struct sbuf v = SBUF_INIT;

	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end && (s[1] == 'n' || s[1] == '\\')) {
			sbuf_add(&v, s[1] == 'n' ? "\n" : "\\", 1);
			s++;
		} else {
			sbuf_add(&v, s, 1);
		}
	}
	return sbuf_detach(&v, NULL);
}

/* "# HELP name text", "# TYPE name type"; any other comment is skipped. */
static int comment_line(struct promtext *p, struct cur *c)
{
	const char *kw;
	size_t kwlen;
	char *name;
	struct prom_family *f;

	c->p++;
	skip_blank(c);
	kw = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	kwlen = (size_t)(c->p - kw);
	if (!((kwlen == 4 && !memcmp(kw, "HELP", 4)) || (kwlen == 4 && !memcmp(kw, "TYPE", 4))))
		return 0;
	skip_blank(c);
	if (c->p < c->end && *c->p == '"')
		name = scan_quoted(c);
	else
		name = scan_name(c, 0);
	if (!name)
		return fail(c, "%s# HELP or # TYPE without a metric name", "");
	f = family_get(p, name);
	free(name);
	if (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		return fail(c, "%sbad metric name in # HELP or # TYPE", "");
	skip_blank(c);
	if (kw[0] == 'H') {
		free(f->help);
		f->help = unescape_help(c->p, c->end);
	} else {
		const char *t = c->p;

		while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
			c->p++;
		if (c->p == t)
			return fail(c, "%s# TYPE without a type", "");
		free(f->type);
		f->type = xstrndup(t, (size_t)(c->p - t));
	}
	return 0;
}

static int sample_line(struct promtext *p, struct cur *c)
{
	struct prom_sample s;
	char *endp, buf[32];
	const char *t;
	size_t len;

	memset(&s, 0, sizeof(s));
	s.name = scan_name(c, 0);
	if (!s.name && (c->p >= c->end || *c->p != '{'))
		return fail(c, "%sexpected a metric name", "");
	if (c->p < c->end && *c->p == '{' && scan_labels(c, &s.name, &s.labels, &s.nlabels))
		goto bad;
	if (!s.name) {
		fail(c, "%sa sample without a metric name", "");
		goto bad;
	}
	if (c->p >= c->end || (*c->p != ' ' && *c->p != '\t')) {
		fail(c, "%sexpected a space before the value", "");
		goto bad;
	}
	skip_blank(c);
	if (scan_value(c, &s.value))
		goto bad;
	skip_blank(c);
	if (c->p < c->end && *c->p != '#') {
		t = c->p;
		while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
			c->p++;
		len = (size_t)(c->p - t);
		if (len >= sizeof(buf)) {
			fail(c, "%sbad timestamp", "");
			goto bad;
		}
		memcpy(buf, t, len);
		buf[len] = '\0';
		/* OpenMetrics timestamps are seconds with a fraction; 0.0.4
		 * ones integer milliseconds. Both are kept as ms. */
		if (strchr(buf, '.')) {
			double sec = strtod(buf, &endp);
			s.ts_ms = (int64_t)(sec * 1000.0);
		} else {
			s.ts_ms = strtoll(buf, &endp, 10);
		}
		if (*endp || endp == buf) {
			fail(c, "bad timestamp '%s'", buf);
			goto bad;
		}
		s.has_ts = 1;
		skip_blank(c);
	}
	/* What follows '#' is an OpenMetrics exemplar: not a sample. */
	if (c->p < c->end && *c->p != '#') {
		fail(c, "%sunexpected text after the value", "");
		goto bad;
	}
	XGROW(p->samples, p->asamples, p->nsamples + 1);
	p->samples[p->nsamples++] = s;
	return 0;
bad:
	free(s.name);
	labels_free(s.labels, s.nlabels);
	return -1;
}

/*
 * The end of a parse: c's reason released; ret. When ret is not 0, *err:
 * the place (fmt...) and ": " and why c failed (dflt when it did not say).
 */
static int cur_end(struct cur *c, int ret, char **err, const char *dflt, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int cur_end(struct cur *c, int ret, char **err, const char *dflt, const char *fmt, ...)
{
	struct sbuf e = SBUF_INIT;
	va_list ap;

	if (ret) {
		va_start(ap, fmt);
		sbuf_vaddf(&e, fmt, ap);
		va_end(ap);
		sbuf_addf(&e, ": %s", c->why.len ? c->why.buf : dflt);
		*err = sbuf_detach(&e, NULL);
	}
	sbuf_release(&c->why);
	return ret;
}

int promtext_parse(const char *text, size_t len, struct promtext *p, char **err)
{
	const char *line = text, *end = text + len, *nl;
	struct cur c;
	size_t lineno = 0;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	*err = NULL;
	sbuf_init(&c.why);
	for (; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		lineno++;
		c.p = line;
		c.end = nl;
		if (c.end > c.p && c.end[-1] == '\r')
			c.end--;
		skip_blank(&c);
		if (c.p == c.end)
			continue;
		if (memchr(c.p, '\0', (size_t)(c.end - c.p))) {
			fail(&c, "%sa NUL byte", "");
			ret = -1;
		} else if (*c.p == '#') {
			ret = comment_line(p, &c);
		} else {
			ret = sample_line(p, &c);
		}
		if (ret)
			break;
	}
	if (ret)
		promtext_release(p);
	return cur_end(&c, ret, err, "malformed", "line %zu", lineno);
}

void promtext_release(struct promtext *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		free(p->samples[i].name);
		labels_free(p->samples[i].labels, p->samples[i].nlabels);
	}
	free(p->samples);
	for (i = 0; i < p->nfamilies; i++) {
		free(p->families[i].name);
		free(p->families[i].type);
		free(p->families[i].help);
	}
	free(p->families);
	memset(p, 0, sizeof(*p));
}

static const char *const suffixes[] = { "_total", "_count", "_sum", "_bucket", "_created",
	"_info", NULL };

const struct prom_family *promtext_family(const struct promtext *p, const char *name)
{
	size_t i, k, nl = strlen(name), fl;

	for (i = 0; i < p->nfamilies; i++)
		if (!strcmp(p->families[i].name, name))
			return &p->families[i];
	for (i = 0; i < p->nfamilies; i++) {
		fl = strlen(p->families[i].name);
		if (nl <= fl || strncmp(name, p->families[i].name, fl))
			continue;
		for (k = 0; suffixes[k]; k++)
			if (!strcmp(name + fl, suffixes[k]))
				return &p->families[i];
	}
	return NULL;
}

/* ------------------------------------------------------------ selectors */

int prom_selector_parse(const char *s, struct prom_selector *sel, char **err)
{
	struct cur c;
	int ret = -1;

	memset(sel, 0, sizeof(*sel));
	*err = NULL;
	sbuf_init(&c.why);
	c.p = s;
	c.end = s + strlen(s);
	skip_blank(&c);
	sel->name = scan_name(&c, 0);
	if (c.p < c.end && *c.p == '{' &&
	    scan_labels(&c, &sel->name, &sel->labels, &sel->nlabels))
		goto out;
	skip_blank(&c);
	if (!sel->name)
		fail(&c, "%sa metric name like go_goroutines or db_pool{state=\"busy\"}", "");
	else if (c.p != c.end)
		fail(&c, "%sunexpected text after the selector", "");
	else
		ret = 0;
out:
	if (ret)
		prom_selector_release(sel);
	return cur_end(&c, ret, err, "not a selector", "'%s'", s);
}

void prom_selector_release(struct prom_selector *sel)
{
	free(sel->name);
	labels_free(sel->labels, sel->nlabels);
	memset(sel, 0, sizeof(*sel));
}

int prom_selector_valid(const char *s)
{
	struct prom_selector sel;
	char *err;
	int ok = !prom_selector_parse(s, &sel, &err);

	free(err);
	prom_selector_release(&sel);
	return ok;
}

static const char *label_of(const struct prom_sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

static size_t select_named(const struct promtext *p, const struct prom_selector *sel,
			   const char *name, const struct prom_sample ***out)
{
	size_t i, k, n = 0, alloc = 0;

	*out = NULL;
	for (i = 0; i < p->nsamples; i++) {
		const struct prom_sample *s = &p->samples[i];

		if (strcmp(s->name, name))
			continue;
		for (k = 0; k < sel->nlabels; k++) {
			const char *v = label_of(s, sel->labels[k].name);

			if (!v || strcmp(v, sel->labels[k].value))
				break;
		}
		if (k < sel->nlabels)
			continue;
		XGROW(*out, alloc, n + 1);
		(*out)[n++] = s;
	}
	return n;
}

size_t promtext_select(const struct promtext *p, const struct prom_selector *sel,
		       const struct prom_sample ***out)
{
	struct sbuf alt = SBUF_INIT;
	size_t n = select_named(p, sel, sel->name, out), len = strlen(sel->name);

	if (n)
		return n;
	free(*out);
	/* A counter named the other way: foo <-> foo_total. */
	if (len > 6 && !strcmp(sel->name + len - 6, "_total"))
		sbuf_add(&alt, sel->name, len - 6);
	else
		sbuf_addf(&alt, "%s_total", sel->name);
	n = select_named(p, sel, alt.buf, out);
	sbuf_release(&alt);
	return n;
}

char *promtext_series_name(const struct prom_sample *s, const struct prom_selector *sel)
{
	struct sbuf o = SBUF_INIT;
	size_t i, k, nfree = 0, last = 0;

	for (i = 0; i < s->nlabels; i++) {
		for (k = 0; k < sel->nlabels && strcmp(sel->labels[k].name, s->labels[i].name); k++)
			;
		if (k == sel->nlabels) {
			nfree++;
			last = i;
		}
	}
	if (nfree == 1) {
		sbuf_adds(&o, s->labels[last].value);
		return sbuf_detach(&o, NULL);
	}
	for (i = 0; i < s->nlabels; i++) {
		for (k = 0; k < sel->nlabels && strcmp(sel->labels[k].name, s->labels[i].name); k++)
			;
		if (k < sel->nlabels)
			continue;
		sbuf_addf(&o, "%s%s=%s", o.len ? "," : "", s->labels[i].name, s->labels[i].value);
	}
	return sbuf_detach(&o, NULL);
}
