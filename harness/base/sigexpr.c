/*
 * sigexpr: parse and evaluate derived signals (sigexpr.h). A recursive
 * descent parser builds a small tree; evaluation walks it over the polls
 * of one window, found by grouping the rows on their t.
 */
#include "base/sigexpr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define SIGEXPR_MAX_DEPTH 32
#define SIGEXPR_MAX_LEN 1024

enum node_op { N_NUM, N_REF, N_ADD, N_SUB, N_MUL, N_DIV, N_NEG, N_AGG };
enum agg_fn { A_DELTA, A_RATE, A_MEAN, A_MIN, A_MAX, A_LAST, A_QUANTILE };

struct node {
	enum node_op op;
	double num;                  /* N_NUM; A_QUANTILE's q */
	char *name;                  /* N_REF */
	enum agg_fn fn;              /* N_AGG */
	struct node *l, *r;          /* operands; N_AGG: l its argument */
};

struct sigexpr {
	struct node *root;
	enum sigexpr_kind kind;
};

static const struct { const char *name; enum agg_fn fn; int signal_only; } fns[] = {
	{ "delta", A_DELTA, 1 }, { "rate", A_RATE, 1 }, { "mean", A_MEAN, 0 },
	{ "min", A_MIN, 0 }, { "max", A_MAX, 0 }, { "last", A_LAST, 0 },
	{ "quantile", A_QUANTILE, 1 },
};

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->l);
	node_free(n->r);
	free(n->name);
	free(n);
}

static struct node *node_new(enum node_op op, struct node *l, struct node *r)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->op = op;
	n->l = l;
	n->r = r;
	return n;
}

/* ------------------------------------------------------------- parser */

struct parser {
	const char *s, *p;
	const char *const *known;
	size_t nknown;
	int depth, in_agg;
	char *err;
};

static void perr(struct parser *ps, const char *what)
{
	struct sbuf sb = SBUF_INIT;

	if (ps->err)
		return;
	sbuf_addf(&sb, "column %d: %s", (int)(ps->p - ps->s) + 1, what);
	ps->err = sbuf_detach(&sb, NULL);
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n')
		ps->p++;
}

static int ident_char(int c, int first)
{
	return isalpha(c) || c == '_' || (!first && (isdigit(c) || c == '.'));
}

static struct node *parse_expr(struct parser *ps);

static int known_name(const struct parser *ps, const char *name)
{
	size_t i;

	if (!ps->known)       /* any name: a dependency's counters (sigexpr.h) */
		return 1;
	for (i = 0; i < ps->nknown; i++)
		if (!strcmp(ps->known[i], name))
			return 1;
	return 0;
}

static struct node *parse_ref(struct parser *ps, char *name, const char *start)
{
	struct node *n;

	if (!known_name(ps, name)) {
		struct sbuf sb = SBUF_INIT;
		ps->p = start;     /* the column of the name */
		sbuf_addf(&sb, "'%s' is not a polled signal of this implementation", name);
		perr(ps, sb.buf);
		sbuf_release(&sb);
		free(name);
		return NULL;
	}
	n = node_new(N_REF, NULL, NULL);
	n->name = name;
	return n;
}

/* name(args): a window function; the '(' is at ps->p. */
static struct node *parse_call(struct parser *ps, char *name)
{
	struct node *n = NULL, *arg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fns) && strcmp(fns[i].name, name); i++)
		;
	if (i == ARRAY_SIZE(fns)) {
		perr(ps, "unknown function (delta, rate, mean, min, max, last, quantile)");
		goto out;
	}
	if (ps->in_agg) {
		perr(ps, "a window function inside another");
		goto out;
	}
	ps->p++;
	n = node_new(N_AGG, NULL, NULL);
	n->fn = fns[i].fn;
	skip_ws(ps);
	if (n->fn == A_QUANTILE) {
		char *end;
		n->num = strtod(ps->p, &end);
		if (end == ps->p || !(n->num >= 0 && n->num <= 1)) {
			perr(ps, "quantile(q, signal): q must be a number in [0, 1]");
			goto fail;
		}
		ps->p = end;
		skip_ws(ps);
		if (*ps->p++ != ',') {
			perr(ps, "quantile(q, signal): ',' expected");
			goto fail;
		}
	}
	ps->in_agg = 1;
	arg = parse_expr(ps);
	ps->in_agg = 0;
	n->l = arg;
	if (!arg)
		goto fail;
	if (fns[i].signal_only && arg->op != N_REF) {
		perr(ps, "delta, rate and quantile take a signal's name");
		goto fail;
	}
	skip_ws(ps);
	if (*ps->p != ')') {
		perr(ps, "')' expected");
		goto fail;
	}
	ps->p++;
out:
	free(name);
	return n;
fail:
	node_free(n);
	n = NULL;
	goto out;
}

static struct node *parse_primary(struct parser *ps)
{
	const char *start;

	skip_ws(ps);
	if (*ps->p == '(') {
		struct node *n;
		ps->p++;
		n = parse_expr(ps);
		skip_ws(ps);
		if (n && *ps->p != ')') {
			perr(ps, "')' expected");
			node_free(n);
			return NULL;
		}
		ps->p++;
		return n;
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		char *end;
		struct node *n = node_new(N_NUM, NULL, NULL);
		n->num = strtod(ps->p, &end);
		ps->p = end;
		return n;
	}
	start = ps->p;
	if (!ident_char((unsigned char)*ps->p, 1)) {
		perr(ps, *ps->p ? "a number, a signal's name, a function or '(' expected"
				: "unexpected end");
		return NULL;
	}
	while (ident_char((unsigned char)*ps->p, 0))
		ps->p++;
	{
		char *name = xstrndup(start, (size_t)(ps->p - start));
		skip_ws(ps);
		if (*ps->p == '(')
			return parse_call(ps, name);
		return parse_ref(ps, name, start);
	}
}

static struct node *parse_unary(struct parser *ps)
{
	struct node *n;

	skip_ws(ps);
	if (*ps->p != '-')
		return parse_primary(ps);
	ps->p++;
	if (++ps->depth > SIGEXPR_MAX_DEPTH) {
		perr(ps, "nested too deep");
		return NULL;
	}
	n = parse_unary(ps);
	ps->depth--;
	return n ? node_new(N_NEG, n, NULL) : NULL;
}

static struct node *parse_binary(struct parser *ps, int level)
{
	struct node *l, *r;

	l = level ? parse_unary(ps) : parse_binary(ps, 1);
	for (;;) {
		char c;
		enum node_op op;

		skip_ws(ps);
		c = *ps->p;
		if (!l || !(level ? (c == '*' || c == '/') : (c == '+' || c == '-')))
			return l;
		op = c == '*' ? N_MUL : c == '/' ? N_DIV : c == '+' ? N_ADD : N_SUB;
		ps->p++;
		r = level ? parse_unary(ps) : parse_binary(ps, 1);
		if (!r) {
			node_free(l);
			return NULL;
		}
		l = node_new(op, l, r);
	}
}

static struct node *parse_expr(struct parser *ps)
{
	struct node *n;

	if (++ps->depth > SIGEXPR_MAX_DEPTH) {
		perr(ps, "nested too deep");
		return NULL;
	}
	n = parse_binary(ps, 0);
	ps->depth--;
	return n;
}

/* Any N_REF outside a window function (outside: 1 at the top). */
static int has_bare_ref(const struct node *n)
{
	if (!n || n->op == N_AGG)
		return 0;
	return n->op == N_REF || has_bare_ref(n->l) || has_bare_ref(n->r);
}

static int has_agg(const struct node *n)
{
	return n && (n->op == N_AGG || has_agg(n->l) || has_agg(n->r));
}

int sigexpr_parse(const char *text, const char *const *known, size_t nknown,
		  struct sigexpr **out, char **err)
{
	struct parser ps = { text, text, known, nknown, 0, 0, NULL };
	struct node *root;

	*out = NULL;
	*err = NULL;
	if (strlen(text) > SIGEXPR_MAX_LEN) {
		*err = xstrdup("longer than 1024 characters");
		return -1;
	}
	root = parse_expr(&ps);
	skip_ws(&ps);
	if (root && *ps.p)
		perr(&ps, "an operator or the end expected");
	if (root && !ps.err && has_agg(root) && has_bare_ref(root))
		perr(&ps, "a signal outside a window function in an expression with one"
		     " (write mean(x) or delta(x))");
	if (ps.err) {
		node_free(root);
		*err = ps.err;
		return -1;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->root = root;
	(*out)->kind = has_agg(root) ? SIGEXPR_WINDOW : SIGEXPR_POLL;
	return 0;
}

enum sigexpr_kind sigexpr_kind(const struct sigexpr *x)
{
	return x->kind;
}

static int uses(const struct node *n, enum agg_fn fn)
{
	return n && ((n->op == N_AGG && n->fn == fn) || uses(n->l, fn) || uses(n->r, fn));
}

int sigexpr_uses(const struct sigexpr *x, const char *fn)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if (!strcmp(fns[i].name, fn))
			return uses(x->root, fns[i].fn);
	return 0;
}

void sigexpr_free(struct sigexpr *x)
{
	if (!x)
		return;
	node_free(x->root);
	free(x);
}

/* ---------------------------------------------------------- evaluation */

/* The polls of a window: [start[i], start[i+1]) are the rows of poll i. */
struct polls {
	const struct sigexpr_row *rows;
	size_t *start;
	size_t n;
};

static void polls_init(struct polls *p, const struct sigexpr_row *rows, size_t n)
{
	size_t i;

	p->rows = rows;
	p->start = xcalloc(n + 1, sizeof(*p->start));
	p->n = 0;
	for (i = 0; i < n; i++)
		if (!i || rows[i].t != rows[i - 1].t)
			p->start[p->n++] = i;
	p->start[p->n] = n;
}

static int row_of(const struct sigexpr_row *r, const char *name)
{
	return r->signal && !strcmp(r->signal, name) && isfinite(r->value);
}

/* The signal at poll i: its series summed; NAN when not read there. */
static double value_at(const struct polls *p, size_t i, const char *name)
{
	double sum = 0;
	size_t k;
	int any = 0;

	for (k = p->start[i]; k < p->start[i + 1]; k++)
		if (row_of(&p->rows[k], name)) {
			sum += p->rows[k].value;
			any = 1;
		}
	return any ? sum : NAN;
}

static double eval_poll(const struct node *n, const struct polls *p, size_t i)
{
	double a, b;

	switch (n->op) {
	case N_NUM:
		return n->num;
	case N_REF:
		return value_at(p, i, n->name);
	case N_NEG:
		return -eval_poll(n->l, p, i);
	default:
		break;
	}
	a = eval_poll(n->l, p, i);
	b = eval_poll(n->r, p, i);
	switch (n->op) {
	case N_ADD: return a + b;
	case N_SUB: return a - b;
	case N_MUL: return a * b;
	case N_DIV: return b != 0 ? a / b : NAN;
	default: return NAN;     /* N_AGG never reaches here: parse keeps it out */
	}
}

/* The series' keys of signal name across the window (NULL key: one). */
static size_t series_keys(const struct polls *p, const char *name, const char ***keys)
{
	size_t i, k, n = 0, alloc = 0;

	*keys = NULL;
	for (i = 0; i < p->start[p->n]; i++) {
		const struct sigexpr_row *r = &p->rows[i];
		if (!row_of(r, name))
			continue;
		for (k = 0; k < n; k++)
			if ((*keys)[k] == r->key || ((*keys)[k] && r->key && !strcmp((*keys)[k], r->key)))
				break;
		if (k == n) {
			XGROW(*keys, alloc, n + 1);
			(*keys)[n++] = r->key;
		}
	}
	return n;
}

static double key_at(const struct polls *p, size_t i, const char *name, const char *key)
{
	size_t k;

	for (k = p->start[i]; k < p->start[i + 1]; k++) {
		const struct sigexpr_row *r = &p->rows[k];
		if (row_of(r, name) && (r->key == key || (r->key && key && !strcmp(r->key, key))))
			return r->value;
	}
	return NAN;
}

/* A counter series' increase over the window: the sum of its rises
 * between polls, a drop counting its new value (a restart from zero);
 * NAN when read at fewer than two polls. t0/t1: its first and last poll. */
static double series_delta(const struct polls *p, const char *name, const char *key,
			   double *t0, double *t1)
{
	double prev = NAN, sum = 0;
	size_t i, seen = 0;

	for (i = 0; i < p->n; i++) {
		double v = key_at(p, i, name, key);
		if (!isfinite(v))
			continue;
		if (seen++)
			sum += v >= prev ? v - prev : v;
		else if (p->rows[p->start[i]].t < *t0)
			*t0 = p->rows[p->start[i]].t;
		if (p->rows[p->start[i]].t > *t1)
			*t1 = p->rows[p->start[i]].t;
		prev = v;
	}
	return seen >= 2 ? sum : NAN;
}

static double agg_delta(const struct polls *p, const char *name, double *span, const char **why)
{
	const char **keys;
	size_t nk = series_keys(p, name, &keys), k;
	double sum = 0, t0 = INFINITY, t1 = -INFINITY;

	for (k = 0; k < nk; k++) {
		double d = series_delta(p, name, keys[k], &t0, &t1);
		if (!isfinite(d)) {
			free(keys);
			*why = "a counter read at fewer than two polls in the window";
			return NAN;
		}
		sum += d;
	}
	free(keys);
	if (!nk) {
		*why = "a signal never read in the window";
		return NAN;
	}
	*span = t1 - t0;
	return sum;
}

struct bucket {
	double le, count;
};

static int bucket_cmp(const void *a, const void *b)
{
	double x = ((const struct bucket *)a)->le, y = ((const struct bucket *)b)->le;
	return x < y ? -1 : x > y;
}

/* histogram_quantile over the window's increase of each bucket. */
static double agg_quantile(const struct polls *p, const char *name, double q, const char **why)
{
	const char **keys;
	size_t nk = series_keys(p, name, &keys), k;
	struct bucket *b = xcalloc(nk + 1, sizeof(*b));
	double t0 = INFINITY, t1 = -INFINITY, total, rank, lo = 0, ret = NAN;

	for (k = 0; k < nk; k++) {
		const char *key = keys[k];
		if (!key || (strcmp(key, "+Inf") && parse_double(key, &b[k].le))) {
			*why = "quantile of a signal whose series are not buckets (le)";
			goto out;
		}
		if (!strcmp(key, "+Inf"))
			b[k].le = INFINITY;
		b[k].count = series_delta(p, name, key, &t0, &t1);
		if (!isfinite(b[k].count)) {
			*why = "a histogram read at fewer than two polls in the window";
			goto out;
		}
	}
	qsort(b, nk, sizeof(*b), bucket_cmp);
	if (!nk || !isinf(b[nk - 1].le)) {
		*why = nk ? "a histogram without its +Inf bucket" : "a signal never read in the window";
		goto out;
	}
	total = b[nk - 1].count;
	if (!(total > 0)) {
		*why = "no observation in the window";
		goto out;
	}
	rank = q * total;
	for (k = 0; k < nk && b[k].count < rank; k++)
		lo = b[k].le;
	if (isinf(b[k].le)) {
		ret = nk >= 2 ? b[nk - 2].le : NAN;  /* the highest finite bound */
		*why = "no finite bucket";
	} else {
		double below = k ? b[k - 1].count : 0, in = b[k].count - below;
		if (!k && b[k].le <= 0)
			lo = b[k].le;
		ret = in > 0 ? lo + (b[k].le - lo) * (rank - below) / in : b[k].le;
	}
out:
	free(keys);
	free(b);
	return ret;
}

static double agg_poll(const struct node *n, const struct polls *p, const char **why)
{
	double acc = NAN, v;
	size_t i, m = 0;

	for (i = 0; i < p->n; i++) {
		v = eval_poll(n->l, p, i);
		if (!isfinite(v))
			continue;
		if (!m++)
			acc = v;
		else if (n->fn == A_MEAN)
			acc += v;
		else if (n->fn == A_MIN ? v < acc : n->fn == A_MAX ? v > acc : 1)
			acc = v;
	}
	if (!m) {
		*why = "not computable at any poll of the window";
		return NAN;
	}
	return n->fn == A_MEAN ? acc / (double)m : acc;
}

static double eval_window(const struct node *n, const struct polls *p, const char **why)
{
	double a, b, span = 0;

	switch (n->op) {
	case N_NUM:
		return n->num;
	case N_REF:      /* never: parse refuses a bare signal beside a function */
		return NAN;
	case N_NEG:
		return -eval_window(n->l, p, why);
	case N_AGG:
		switch (n->fn) {
		case A_DELTA:
			return agg_delta(p, n->l->name, &span, why);
		case A_RATE:
			a = agg_delta(p, n->l->name, &span, why);
			if (isfinite(a) && !(span > 0))
				*why = "a counter read at one instant only";
			return isfinite(a) && span > 0 ? a / span : NAN;
		case A_QUANTILE:
			return agg_quantile(p, n->l->name, n->num, why);
		default:
			return agg_poll(n, p, why);
		}
	default:
		break;
	}
	a = eval_window(n->l, p, why);
	b = eval_window(n->r, p, why);
	switch (n->op) {
	case N_ADD: return a + b;
	case N_SUB: return a - b;
	case N_MUL: return a * b;
	case N_DIV:
		if (b == 0 && isfinite(a))
			*why = "a division by zero";
		return b != 0 ? a / b : NAN;
	default: return NAN;
	}
}

double sigexpr_window(const struct sigexpr *x, const struct sigexpr_row *rows, size_t n,
		      const char **why)
{
	struct polls p;
	const char *w = NULL;
	double v;

	polls_init(&p, rows, n);
	if (x->kind == SIGEXPR_WINDOW) {
		v = eval_window(x->root, &p, &w);
	} else {
		struct node mean = { N_AGG, 0, NULL, A_MEAN, x->root, NULL };
		v = agg_poll(&mean, &p, &w);
	}
	free(p.start);
	if (!isfinite(v) && !w)
		w = "not a finite number";
	*why = isfinite(v) ? NULL : w;
	return isfinite(v) ? v : NAN;
}

size_t sigexpr_series(const struct sigexpr *x, const struct sigexpr_row *rows, size_t n,
		      double **t, double **v)
{
	struct polls p;
	size_t i, m = 0;

	*t = *v = NULL;
	if (x->kind != SIGEXPR_POLL)
		return 0;
	polls_init(&p, rows, n);
	for (i = 0; i < p.n; i++) {
		double y = eval_poll(x->root, &p, i);
		if (!isfinite(y))
			continue;
		*t = xrealloc(*t, (m + 1) * sizeof(**t));
		*v = xrealloc(*v, (m + 1) * sizeof(**v));
		(*t)[m] = rows[p.start[i]].t;
		(*v)[m++] = y;
	}
	free(p.start);
	return m;
}
