/*
 * spec_gates: the gates: map and the gate lists (warmup.gates,
 * window_gates), checked against the gate registry (gates/registry.c):
 * names, phases, parameter names, types and ranges. Every gate a list
 * names gets a struct gate_params with every default filled in, so
 * consumers only ever call spec_gate_find() + spec_gate_num().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "spec/spec_internal.h"
#include "base/util.h"

/* The lists used when the spec does not give one (docs/DESIGN.md's sketch,
 * minus the gates that need runtime-stats signals). */
const char *const spec_default_warmup_gates[] = { "p99_flat", "p999_flat", "hot_set_touched", NULL };
const char *const spec_default_head_gates[] = { "p99_flat", "p999_flat", NULL };
const char *const spec_default_window_gates[] = {
	"error_rate", "achieved_vs_offered", "stationarity", "throttled", "oom",
	"generator", "sut_alive", "idle_arms_quiet", "acct_span", "host_held", NULL,
};

#define AT(base, off, type) ((type *)((char *)(base) + (off)))

static char *path_idx(const char *parent, size_t i)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s[%zu]", parent, i);
	return sbuf_detach(&sb, NULL);
}

static char *path_key(const char *parent, const char *key)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%s.%s", parent, key);
	return sbuf_detach(&sb, NULL);
}

static void known_gates(struct sbuf *sb)
{
	size_t i;

	for (i = 0; i < gate_registry_count; i++)
		sbuf_addf(sb, "%s%s", i ? ", " : "", gate_registry[i]->name);
}

static void unknown_gate(struct vctx *v, const struct ynode *n, const char *path, const char *name)
{
	const char *names[128] = { 0 };
	struct sbuf sb = SBUF_INIT;
	size_t i, k = 0;
	const char *sugg;

	for (i = 0; i < gate_registry_count && k < ARRAY_SIZE(names); i++)
		names[k++] = gate_registry[i]->name;
	sugg = spec_suggest(name, names, k);
	known_gates(&sb);
	if (sugg)
		VERR(v, n, path, "unknown gate \"%.60s\" (did you mean %s?); known gates: %s",
		     name, sugg, sb.buf);
	else
		VERR(v, n, path, "unknown gate \"%.60s\"; known gates: %s", name, sb.buf);
	sbuf_release(&sb);
}

static const char *phase_name(unsigned phase)
{
	return phase == GATE_PHASE_WARMUP ? "warm-up" : "window";
}

void spec_read_gatelist(struct vctx *v, const struct field *f, void *base,
			const struct ynode *n, const char *path)
{
	char **names;
	size_t i, j, k = 0;
	const struct gate_def *g;

	if (ynode_is_null(n)) {
		*AT(base, f->off, char **) = xcalloc(1, sizeof(char *));
		return;
	}
	if (n->kind != Y_SEQ) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a list of gate names, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	names = xcalloc(n->n + 1, sizeof(*names));
	for (i = 0; i < n->n; i++) {
		const struct ynode *e = n->vals[i];
		char *p = path_idx(path, i);

		if (e->kind != Y_SCALAR || ynode_is_null(e) || strlen(e->str) != e->len) {
			VERR(v, e, p, "must be a gate name");
		} else if (!(g = gate_find(e->str))) {
			unknown_gate(v, e, p, e->str);
		} else if (!(g->phases & f->phase)) {
			VERR(v, e, p, "%s is not a %s gate (it runs on %s)", g->name,
			     phase_name(f->phase),
			     f->phase == GATE_PHASE_WARMUP ? "measured windows" : "warm-ups");
		} else {
			for (j = 0; j < k; j++)
				if (!strcmp(names[j], g->name))
					break;
			if (j < k)
				VERR(v, e, p, "%s is listed twice", g->name);
			else
				names[k++] = xstrdup(g->name);
		}
		free(p);
	}
	*AT(base, f->off, char **) = names;
	*AT(base, f->off2, size_t) = k;
}

static struct gate_params *gate_add(struct spec *s, const char *name)
{
	struct gate_params *g;

	s->gates = xrealloc(s->gates, (s->ngates + 1) * sizeof(*s->gates));
	g = &s->gates[s->ngates++];
	memset(g, 0, sizeof(*g));
	g->name = xstrdup(name);
	g->enforce = 1;
	return g;
}

static struct gate_value *value_add(struct gate_params *g, const char *key)
{
	struct gate_value *val;

	g->values = xrealloc(g->values, (g->nvalues + 1) * sizeof(*g->values));
	val = &g->values[g->nvalues++];
	memset(val, 0, sizeof(*val));
	val->key = xstrdup(key);
	return val;
}

static void unknown_param(struct vctx *v, const struct gate_def *def, const struct ynode *k,
			  const char *path)
{
	const char *names[64] = { 0 };
	struct sbuf sb = SBUF_INIT;
	const struct gate_param *p;
	size_t n = 0;
	const char *sugg;

	names[n++] = "enforce";
	for (p = def->params; p && p->name && n < ARRAY_SIZE(names); p++)
		names[n++] = p->name;
	sugg = spec_suggest(k->str, names, n);
	if (sugg) {
		VERR(v, k, path, "unknown parameter of gate %s (did you mean %s?)", def->name, sugg);
	} else {
		size_t i;
		for (i = 0; i < n; i++)
			sbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
		VERR(v, k, path, "unknown parameter of gate %s; it takes: %s", def->name, sb.buf);
	}
	sbuf_release(&sb);
}

static void read_num_map(struct vctx *v, const struct gate_param *gp, struct gate_params *g,
			 const struct ynode *n, const char *path)
{
	struct gate_value *val;
	size_t i;
	double d;

	if (n->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a map of name: number, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	val = value_add(g, gp->name);
	val->type = GATE_VAL_MAP;
	val->map = xcalloc(n->n + 1, sizeof(*val->map));
	for (i = 0; i < n->n; i++) {
		char *p = path_key(path, n->keys[i]->str);
		if (!spec_read_number(v, n->vals[i], p, &d) &&
		    !spec_check_range(v, n->vals[i], p, d, F_MIN | F_MAX, gp->min, gp->max, 0)) {
			val->map[val->nmap].key = xstrdup(n->keys[i]->str);
			val->map[val->nmap].value = xstrdup(n->vals[i]->str);
			val->nmap++;
		}
		free(p);
	}
}

static void read_param(struct vctx *v, const struct gate_param *gp, struct gate_params *g,
		       const struct ynode *n, const char *path)
{
	struct gate_value *val;
	double d;
	int b;

	switch (gp->type) {
	case GP_NUM:
		if (spec_read_number(v, n, path, &d) ||
		    spec_check_range(v, n, path, d, F_MIN | F_MAX, gp->min, gp->max, 0))
			return;
		val = value_add(g, gp->name);
		val->type = GATE_VAL_NUM;
		val->num = d;
		return;
	case GP_BOOL:
		if (spec_read_bool(v, n, path, &b))
			return;
		val = value_add(g, gp->name);
		val->type = GATE_VAL_BOOL;
		val->num = b;
		return;
	case GP_SIGNAL:
		if (n->kind != Y_SCALAR || ynode_is_null(n) || strlen(n->str) != n->len ||
		    !spec_is_ident(n->str)) {
			struct sbuf sb = SBUF_INIT;
			ynode_describe(n, &sb);
			VERR(v, n, path, "must name a runtime-stats signal (letters, digits, '_', '.' or '-'), got %s",
			     sb.buf);
			sbuf_release(&sb);
			return;
		}
		val = value_add(g, gp->name);
		val->type = GATE_VAL_STR;
		val->str = xstrdup(n->str);
		return;
	case GP_NUM_MAP:
		read_num_map(v, gp, g, n, path);
		return;
	}
}

void spec_read_gates(struct vctx *v, const struct ynode *n, const char *path)
{
	size_t i, j;

	if (ynode_is_null(n))
		return;
	if (n->kind != Y_MAP) {
		struct sbuf sb = SBUF_INIT;
		ynode_describe(n, &sb);
		VERR(v, n, path, "must be a map of gate name: parameters, got %s", sb.buf);
		sbuf_release(&sb);
		return;
	}
	for (i = 0; i < n->n; i++) {
		const struct ynode *k = n->keys[i], *m = n->vals[i];
		const struct gate_def *def = gate_find(k->str);
		char *p = path_key(path, k->str);
		struct gate_params *g;

		if (!def) {
			unknown_gate(v, k, p, k->str);
			free(p);
			continue;
		}
		g = gate_add(v->s, def->name);
		if (!ynode_is_null(m) && m->kind != Y_MAP) {
			struct sbuf sb = SBUF_INIT;
			ynode_describe(m, &sb);
			VERR(v, m, p, "must be a map of parameters, got %s", sb.buf);
			sbuf_release(&sb);
		} else if (!ynode_is_null(m)) {
			for (j = 0; j < m->n; j++) {
				const struct ynode *pk = m->keys[j];
				const struct gate_param *gp;
				char *pp = path_key(p, pk->str);

				if (!strcmp(pk->str, "enforce")) {
					spec_read_bool(v, m->vals[j], pp, &g->enforce);
				} else {
					for (gp = def->params; gp && gp->name; gp++)
						if (!strcmp(gp->name, pk->str))
							break;
					if (gp && gp->name)
						read_param(v, gp, g, m->vals[j], pp);
					else
						unknown_param(v, def, pk, pp);
				}
				free(pp);
			}
		}
		free(p);
	}
}

static char **default_list(const char *const *names, unsigned phase, size_t *count)
{
	char **out = xcalloc(16, sizeof(*out));
	size_t i, k = 0;
	const struct gate_def *g;

	for (i = 0; names[i] && k < 15; i++) {
		g = gate_find(names[i]);
		if (g && (g->phases & phase))
			out[k++] = xstrdup(names[i]);
	}
	*count = k;
	return out;
}

/* Where gate `name` is first named in a list, for messages about it. */
static int find_use(struct vctx *v, const char *name, char *path, size_t n)
{
	const struct spec *s = v->s;
	size_t i;

	for (i = 0; i < s->warmup.ngates; i++) {
		if (!strcmp(s->warmup.gates[i], name)) {
			snprintf(path, n, "warmup.gates[%zu]", i);
			return 1;
		}
	}
	for (i = 0; i < s->nwindow_gates; i++) {
		if (!strcmp(s->window_gates[i], name)) {
			snprintf(path, n, "window_gates[%zu]", i);
			return 1;
		}
	}
	return 0;
}

static int has_value(const struct gate_params *g, const char *key)
{
	size_t i;

	for (i = 0; i < g->nvalues; i++)
		if (!strcmp(g->values[i].key, key))
			return 1;
	return 0;
}

static void ensure(struct spec *s, char **names)
{
	size_t i;

	for (i = 0; names && names[i]; i++)
		if (!spec_gate_find(s, names[i]))
			gate_add(s, names[i]);
}

/* Gate name judges every window even when the spec's own window_gates
 * list leaves it out (a spec that wants it recorded only says so with
 * gates: { NAME: { enforce: false } }). */
static void always_window_gate(struct spec *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nwindow_gates; i++)
		if (!strcmp(s->window_gates[i], name))
			return;
	s->window_gates = xrealloc(s->window_gates, (s->nwindow_gates + 2) * sizeof(char *));
	s->window_gates[s->nwindow_gates++] = xstrdup(name);
	s->window_gates[s->nwindow_gates] = NULL;
}

void spec_finish_gates(struct vctx *v)
{
	struct spec *s = v->s;
	size_t i;

	if (!spec_node_at(v->root, "warmup.gates") && !s->warmup.gates)
		s->warmup.gates = default_list(spec_default_warmup_gates, GATE_PHASE_WARMUP,
					       &s->warmup.ngates);
	if (!spec_node_at(v->root, "window_gates") && !s->window_gates)
		s->window_gates = default_list(spec_default_window_gates, GATE_PHASE_WINDOW,
					       &s->nwindow_gates);
	if (!spec_node_at(v->root, "warmup.head_gates") && !s->warmup.head_gates)
		s->warmup.head_gates = default_list(spec_default_head_gates, GATE_PHASE_WARMUP,
						    &s->warmup.nhead_gates);
	if (!s->warmup.head_gates)
		s->warmup.head_gates = xcalloc(1, sizeof(char *));
	for (i = 0; i < s->warmup.nhead_gates; i++)
		if (strcmp(s->warmup.head_gates[i], "p99_flat") &&
		    strcmp(s->warmup.head_gates[i], "p999_flat")) {
			char p[64];
			snprintf(p, sizeof(p), "warmup.head_gates[%zu]", i);
			spec_err_at(v, p, "%s is not a flatness gate: the head has per-second "
				    "latencies only (p99_flat, p999_flat)", s->warmup.head_gates[i]);
		}
	ensure(s, s->warmup.head_gates);
	if (!s->warmup.gates)
		s->warmup.gates = xcalloc(1, sizeof(char *));
	if (!s->window_gates)
		s->window_gates = xcalloc(1, sizeof(char *));
	/* docs/DESIGN.md, "Arms not being measured do not run" */
	always_window_gate(s, "idle_arms_quiet");
	ensure(s, s->warmup.gates);
	ensure(s, s->window_gates);

	for (i = 0; i < s->ngates; i++) {
		struct gate_params *g = &s->gates[i];
		const struct gate_def *def = gate_find(g->name);
		const struct gate_param *gp;

		for (gp = def ? def->params : NULL; gp && gp->name; gp++) {
			char entry[128], use[64], p[192];
			int line, col;

			if (has_value(g, gp->name))
				continue;
			if (!gp->required) {
				struct gate_value *val;
				if ((gp->type != GP_NUM && gp->type != GP_BOOL) || isnan(gp->def))
					continue; /* no default: the gate resolves it */
				val = value_add(g, gp->name);
				val->type = gp->type == GP_NUM ? GATE_VAL_NUM : GATE_VAL_BOOL;
				val->num = gp->def;
				continue;
			}
			snprintf(entry, sizeof(entry), "gates.%s", g->name);
			snprintf(p, sizeof(p), "gates.%s.%s", g->name, gp->name);
			if (spec_node_at(v->root, entry)) {
				spec_path_pos(v, entry, &line, &col);
				spec_diag_add(v->d, line, col, p, "required parameter missing");
			} else if (find_use(v, g->name, use, sizeof(use))) {
				spec_path_pos(v, use, &line, &col);
				spec_diag_add(v->d, line, col, p,
					      "required parameter missing (%s names gate %s, which has no default for it)",
					      use, g->name);
			}
		}
	}
}

/* ------------------------------------------- gates that can never pass */

/* The key a user would change to fix a problem: the first of the paths the
 * spec gives, else the first (positioned at its nearest given parent). */
static const char *first_given(struct vctx *v, const char *const *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (paths[i][0] && spec_given(v, paths[i]))
			return paths[i];
	return paths[0];
}

static double min_points(const struct spec *s, const char *gate)
{
	return spec_gate_num(spec_gate_find(s, gate), "min_points", NAN);
}

/* Warm-up gates judge the trailing ceil(trailing_s) seconds (evidence.c):
 * a gate needing more seconds, or more runtime-stats polls than
 * trailing_s * poll_hz, is not evaluable at every warm-up, so every window
 * would end under-warmed. */
static void check_warmup_points(struct vctx *v)
{
	const struct spec *s = v->s;
	double trail = ceil(s->warmup.trailing_s);
	size_t i, k;

	for (i = 0; i < s->warmup.ngates; i++) {
		const struct gate_def *def = gate_find(s->warmup.gates[i]);
		double need = def ? min_points(s, def->name) : NAN;
		char mp[96], use[64], hz[64];

		if (!def || def->points == GATE_POINTS_NONE || isnan(need))
			continue;
		snprintf(mp, sizeof(mp), "gates.%s.min_points", def->name);
		snprintf(use, sizeof(use), "warmup.gates[%zu]", i);
		if (def->points == GATE_POINTS_SECONDS && need > trail) {
			const char *const paths[] = { "warmup.trailing_s", mp, use };
			spec_refuse_at(v, first_given(v, paths, ARRAY_SIZE(paths)),
				    "gate %s needs %g seconds with a value (%s) but the warm-up gates"
				    " judge the trailing %g s: it can never pass; lengthen"
				    " warmup.trailing_s or lower min_points",
				    def->name, need, mp, trail);
			continue;
		}
		for (k = 0; def->points == GATE_POINTS_POLLS && k < s->nimpls; k++) {
			const struct spec_impl *im = &s->impls[k];
			double polls = s->warmup.trailing_s * im->stats_poll_hz;

			if (!im->stats_url || need <= polls)
				continue;
			snprintf(hz, sizeof(hz), "implementations[%zu].stats.poll_hz", k);
			{
				const char *const paths[] = { "warmup.trailing_s", hz, mp, use };
				spec_refuse_at(v, first_given(v, paths, ARRAY_SIZE(paths)),
					    "gate %s needs %g polls (%s) but %s is polled %g times in the"
					    " trailing %g s (poll_hz %g): it can never pass; lengthen"
					    " warmup.trailing_s, raise poll_hz or lower min_points",
					    def->name, need, mp, im->name, polls,
					    s->warmup.trailing_s, im->stats_poll_hz);
			}
			break;
		}
	}
}

/* Window gates see the measured window_s - discard_s seconds of each stage
 * that runs: a gate needing more is not evaluable in every window of that
 * stage, so every window would be rejected. */
static void check_stage_points(struct vctx *v, const char *stage, double window_s,
			       double discard_s)
{
	const struct spec *s = v->s;
	double measured = window_s - discard_s;
	char ws[64], ds[64], mp[96], use[64], hz[64];
	size_t i, k;

	if (measured <= 0)
		return; /* reported by the window checks */
	snprintf(ws, sizeof(ws), "stages.%s.window_s", stage);
	snprintf(ds, sizeof(ds), "stages.%s.discard_s", stage);
	for (i = 0; i < s->nwindow_gates; i++) {
		const struct gate_def *def = gate_find(s->window_gates[i]);
		double need = def ? min_points(s, def->name) : NAN;

		if (!def || def->points == GATE_POINTS_NONE || isnan(need))
			continue;
		snprintf(mp, sizeof(mp), "gates.%s.min_points", def->name);
		snprintf(use, sizeof(use), "window_gates[%zu]", i);
		if (def->points == GATE_POINTS_SECONDS && need > measured) {
			const char *const paths[] = { ws, ds, mp, use };
			spec_refuse_at(v, first_given(v, paths, ARRAY_SIZE(paths)),
				    "gate %s needs %g seconds with a value (%s) but a %s window"
				    " measures %g s (window_s %g - discard_s %g): every window would"
				    " be rejected; lengthen the window or lower min_points",
				    def->name, need, mp, stage, measured, window_s, discard_s);
			continue;
		}
		for (k = 0; def->points == GATE_POINTS_POLLS && k < s->nimpls; k++) {
			const struct spec_impl *im = &s->impls[k];
			double polls = measured * im->stats_poll_hz;

			if (!im->stats_url || need <= polls)
				continue;
			snprintf(hz, sizeof(hz), "implementations[%zu].stats.poll_hz", k);
			{
				const char *const paths[] = { ws, ds, hz, mp, use };
				spec_refuse_at(v, first_given(v, paths, ARRAY_SIZE(paths)),
					    "gate %s needs %g polls (%s) but %s is polled %g times in a"
					    " %s window's %g measured s: every window would be rejected;"
					    " lengthen the window, raise poll_hz or lower min_points",
					    def->name, need, mp, im->name, polls, stage, measured);
			}
			break;
		}
	}
}

/* An enforced head gate needs min_points seconds of head: fewer and it
 * is never evaluable, so every window of the stage would be rejected. */
static void check_head_points(struct vctx *v, const char *stage, double discard_s)
{
	const struct spec *s = v->s;
	size_t i;

	if (!s->warmup.head_enforce)
		return;
	for (i = 0; i < s->warmup.nhead_gates; i++) {
		double need = min_points(s, s->warmup.head_gates[i]);
		char p[64];

		if (!(floor(discard_s) < need))
			continue;
		snprintf(p, sizeof(p), "stages.%s.discard_s", stage);
		if (!spec_given(v, p))
			snprintf(p, sizeof(p), "warmup.head_enforce");
		spec_err_at(v, p, "a head of %g s gives %g per-second points; head gate %s "
			    "needs min_points %g, so with warmup.head_enforce every %s window "
			    "would be rejected (lengthen discard_s or record only)", discard_s,
			    floor(discard_s), s->warmup.head_gates[i], need, stage);
		return;
	}
}

void spec_check_gate_points(struct vctx *v)
{
	const struct spec *s = v->s;

	check_warmup_points(v);
	check_head_points(v, "ladder", s->ladder.discard_s);
	if (s->confirm.present)
		check_head_points(v, "confirm", s->confirm.discard_s);
	if (s->refine.present)
		check_head_points(v, "refine", s->refine.discard_s);
	if (s->soak.present)
		check_head_points(v, "soak", s->soak.discard_s);
	check_stage_points(v, "ladder", s->ladder.window_s, s->ladder.discard_s);
	/* A confirm stage that inherits the ladder's window has the ladder's
	 * problem, already reported there. */
	if (s->confirm.present && (spec_given(v, "stages.confirm.window_s") ||
				   spec_given(v, "stages.confirm.discard_s")))
		check_stage_points(v, "confirm", s->confirm.window_s, s->confirm.discard_s);
	if (s->refine.present && (spec_given(v, "stages.refine.window_s") ||
				  spec_given(v, "stages.refine.discard_s")))
		check_stage_points(v, "refine", s->refine.window_s, s->refine.discard_s);
	if (s->soak.present)
		check_stage_points(v, "soak", s->soak.window_s, s->soak.discard_s);
}
