/*
 * spec_schema: the JSON Schema (draft 2020-12) and the markdown key
 * reference of the spec language, generated from the very tables the
 * validator reads (spec_table.c) and from the gate registry, so neither
 * can drift from the parser. specs/schema.json and the reference section
 * of specs/README.md are this output, checked by tests/e2e/spec.sh.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"
#include "spec/spec_internal.h"
#include "base/util.h"

static json_t *num(double x)
{
	if (x == floor(x) && fabs(x) < 9e15)
		return json_integer((json_int_t)x);
	return json_real(x);
}

static void bounds(json_t *o, const struct field *f)
{
	if ((f->flags & F_MIN) && f->min > -9e18)
		json_object_set_new(o, (f->flags & F_MINX) ? "exclusiveMinimum" : "minimum", num(f->min));
	if ((f->flags & F_MAX) && f->max < 9e18)
		json_object_set_new(o, (f->flags & F_MAXX) ? "exclusiveMaximum" : "maximum", num(f->max));
}

static json_t *enum_list(const char *const *names)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; names[i]; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static json_t *str_or_num(void)
{
	json_t *t = json_array();

	json_array_append_new(t, json_string("string"));
	json_array_append_new(t, json_string("number"));
	return t;
}

static const char *string_pattern(unsigned flags)
{
	if (flags & F_IDENT)
		return "^[A-Za-z0-9_.-]+$";
	if (flags & F_URL)
		return "^https?://";
	if (flags & F_PATH)
		return "^/[^ \\t\\r\\n]*$";
	if (flags & F_TOKEN)
		return "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
	if (flags & F_CPUS)
		return "^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$";
	return NULL;
}

static json_t *gate_names(unsigned phase)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < gate_registry_count; i++)
		if (gate_registry[i]->phases & phase)
			json_array_append_new(a, json_string(gate_registry[i]->name));
	return a;
}

static json_t *default_gates(unsigned phase)
{
	const char *const *names = phase == GATE_PHASE_WARMUP ? spec_default_warmup_gates
							      : spec_default_window_gates;
	json_t *a = json_array();
	const struct gate_def *g;
	size_t i;

	for (i = 0; names[i]; i++)
		if ((g = gate_find(names[i])) && (g->phases & phase))
			json_array_append_new(a, json_string(names[i]));
	return a;
}

static json_t *object_schema(const struct field *tab, const char *help);

static json_t *gate_schema(const struct gate_def *g)
{
	json_t *o = json_object(), *props = json_object(), *p;
	const struct gate_param *gp;

	json_object_set_new(o, "type", json_string("object"));
	json_object_set_new(o, "description", json_string(g->help ? g->help : ""));
	/* validity: a failure voids the window (rejected); outcome: a valid
	 * window that failed the SLO (failed). Fixed in the registry. */
	json_object_set_new(o, "x-gate-class", json_string(gate_class_name(g->class)));
	json_object_set_new(o, "additionalProperties", json_false());
	p = json_object();
	json_object_set_new(p, "type", json_string("boolean"));
	json_object_set_new(p, "default", json_true());
	json_object_set_new(p, "description", json_string("false: record the verdict, never reject on it"));
	json_object_set_new(props, "enforce", p);
	for (gp = g->params; gp && gp->name; gp++) {
		p = json_object();
		switch (gp->type) {
		case GP_NUM:
			json_object_set_new(p, "type", json_string("number"));
			json_object_set_new(p, "minimum", num(gp->min));
			json_object_set_new(p, "maximum", num(gp->max));
			if (!gp->required && !isnan(gp->def))
				json_object_set_new(p, "default", num(gp->def));
			break;
		case GP_BOOL:
			json_object_set_new(p, "type", json_string("boolean"));
			if (!gp->required)
				json_object_set_new(p, "default", json_boolean(gp->def != 0));
			break;
		case GP_SIGNAL:
			json_object_set_new(p, "type", json_string("string"));
			json_object_set_new(p, "pattern", json_string("^[A-Za-z0-9_.-]+$"));
			break;
		case GP_NUM_MAP: {
			json_t *v = json_object();
			json_object_set_new(p, "type", json_string("object"));
			json_object_set_new(v, "type", json_string("number"));
			json_object_set_new(v, "minimum", num(gp->min));
			json_object_set_new(v, "maximum", num(gp->max));
			json_object_set_new(p, "additionalProperties", v);
			break;
		}
		}
		{
			struct sbuf sb = SBUF_INIT;
			sbuf_addf(&sb, "%s%s", gp->required ? "(required) " : "", gp->help ? gp->help : "");
			json_object_set_new(p, "description", json_string(sb.buf));
			sbuf_release(&sb);
		}
		json_object_set_new(props, gp->name, p);
	}
	json_object_set_new(o, "properties", props);
	return o;
}

/* A number, boolean, string or enum key; NULL for other types. */
static json_t *scalar_schema(const struct field *f)
{
	const char *pat;
	json_t *o = NULL;

	switch (f->type) {
	case FT_INT:
	case FT_U64:
		o = json_object();
		json_object_set_new(o, "type", json_string("integer"));
		bounds(o, f);
		if (f->flags & F_DEF)
			json_object_set_new(o, "default", num(f->dnum));
		break;
	case FT_NUM:
	case FT_MB:
		o = json_object();
		json_object_set_new(o, "type", json_string("number"));
		bounds(o, f);
		if (f->flags & F_DEF)
			json_object_set_new(o, "default", num(f->dnum));
		break;
	case FT_BOOL:
		o = json_object();
		json_object_set_new(o, "type", json_string("boolean"));
		if (f->flags & F_DEF)
			json_object_set_new(o, "default", json_boolean(f->dnum != 0));
		break;
	case FT_STR:
	case FT_SCALAR:
		o = json_object();
		json_object_set_new(o, "type", f->type == FT_STR ? json_string("string") : str_or_num());
		if (f->type == FT_STR)
			json_object_set_new(o, "minLength", json_integer(1));
		if ((pat = string_pattern(f->flags)))
			json_object_set_new(o, "pattern", json_string(pat));
		if ((f->flags & F_DEF) && f->dstr)
			json_object_set_new(o, "default", json_string(f->dstr));
		break;
	case FT_ENUM:
		o = json_object();
		json_object_set_new(o, "enum", enum_list(f->enums));
		if (f->flags & F_DEF)
			json_object_set_new(o, "default", json_string(f->enums[(int)f->dnum]));
		break;
	default:
		break;
	}
	return o;
}

/* A list or map of scalars; NULL for other types. */
static json_t *list_schema(const struct field *f)
{
	json_t *t;
	size_t i;
	json_t *o = NULL;

	switch (f->type) {
	case FT_ENUMSET:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		t = json_object();
		json_object_set_new(t, "enum", enum_list(f->enums));
		json_object_set_new(o, "items", t);
		json_object_set_new(o, "minItems", json_integer(1));
		json_object_set_new(o, "uniqueItems", json_true());
		t = json_array();
		for (i = 0; f->enums[i]; i++)
			if ((unsigned)f->dnum & (1u << i))
				json_array_append_new(t, json_string(f->enums[i]));
		json_object_set_new(o, "default", t);
		break;
	case FT_INTLIST:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		t = json_object();
		json_object_set_new(t, "type", json_string("integer"));
		bounds(t, f);
		json_object_set_new(o, "items", t);
		json_object_set_new(o, "minItems", json_integer((json_int_t)f->min_items));
		json_object_set_new(o, "uniqueItems", json_true());
		break;
	case FT_ARGV:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		t = json_object();
		json_object_set_new(t, "type", str_or_num());
		json_object_set_new(o, "items", t);
		json_object_set_new(o, "minItems", json_integer((json_int_t)f->min_items));
		break;
	case FT_KV:
		o = json_object();
		json_object_set_new(o, "type", json_string("object"));
		t = json_object();
		json_object_set_new(t, "pattern", json_string((f->flags & F_ENVNAME) ?
			"^[A-Za-z_][A-Za-z0-9_]*$" : "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"));
		json_object_set_new(o, "propertyNames", t);
		t = json_object();
		json_object_set_new(t, "type", str_or_num());
		json_object_set_new(o, "additionalProperties", t);
		break;
	case FT_SIGNALS:
		o = json_object();
		json_object_set_new(o, "type", json_string("object"));
		t = json_object();
		json_object_set_new(t, "pattern", json_string("^[A-Za-z0-9_.-]+$"));
		json_object_set_new(o, "propertyNames", t);
		t = json_object();
		json_object_set_new(t, "type", json_string("string"));
		/* a JSON pointer (stats.format json), or a metric selector
		 * name{label="value",...} (prometheus); spec_check.c pairs
		 * each with its format */
		json_object_set_new(t, "pattern",
				    json_string("^(/([^~]|~[01])*)?$|^[A-Za-z_:][A-Za-z0-9_:]*"
						"(\\{.*\\})?$|^\\{.*\\}$"));
		json_object_set_new(o, "additionalProperties", t);
		break;
	default:
		break;
	}
	return o;
}

static json_t *field_schema(const struct field *f)
{
	json_t *o, *t;
	size_t i;

	o = scalar_schema(f);
	if (!o)
		o = list_schema(f);
	switch (f->type) {   /* the object-valued types */
	case FT_OBJ:
		o = object_schema(f->sub, NULL);
		break;
	case FT_LIST:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		json_object_set_new(o, "items", object_schema(f->sub, NULL));
		json_object_set_new(o, "minItems", json_integer((json_int_t)f->min_items));
		break;
	case FT_NAMED:
		o = json_object();
		json_object_set_new(o, "type", json_string("object"));
		t = json_object();
		json_object_set_new(t, "pattern", json_string("^[A-Za-z_][A-Za-z0-9_]*$"));
		json_object_set_new(o, "propertyNames", t);
		json_object_set_new(o, "additionalProperties", object_schema(f->sub, NULL));
		break;
	case FT_GATELIST:
		o = json_object();
		json_object_set_new(o, "type", json_string("array"));
		t = json_object();
		json_object_set_new(t, "enum", gate_names(f->phase));
		json_object_set_new(o, "items", t);
		json_object_set_new(o, "uniqueItems", json_true());
		json_object_set_new(o, "default", default_gates(f->phase));
		break;
	case FT_GATES:
		o = json_object();
		json_object_set_new(o, "type", json_string("object"));
		json_object_set_new(o, "additionalProperties", json_false());
		t = json_object();
		for (i = 0; i < gate_registry_count; i++)
			json_object_set_new(t, gate_registry[i]->name, gate_schema(gate_registry[i]));
		json_object_set_new(o, "properties", t);
		break;
	default:
		break;
	}
	/* the validator reads "key:" with no value as an empty map or list */
	if (f->type == FT_OBJ || f->type == FT_KV || f->type == FT_SIGNALS ||
	    f->type == FT_NAMED || f->type == FT_GATES || f->type == FT_GATELIST) {
		json_t *types = json_array();
		json_array_append_new(types, json_string(f->type == FT_GATELIST ? "array" : "object"));
		json_array_append_new(types, json_string("null"));
		json_object_set_new(o, "type", types);
	}
	{
		struct sbuf sb = SBUF_INIT;
		sbuf_adds(&sb, f->help ? f->help : "");
		if (!(f->flags & F_DEF) && f->dstr)
			sbuf_addf(&sb, " (default: %s)", f->dstr);
		json_object_set_new(o, "description", json_string(sb.buf));
		sbuf_release(&sb);
	}
	return o;
}

static json_t *object_schema(const struct field *tab, const char *help)
{
	json_t *o = json_object(), *props = json_object(), *req = json_array();
	const struct field *f;

	json_object_set_new(o, "type", json_string("object"));
	if (help)
		json_object_set_new(o, "description", json_string(help));
	json_object_set_new(o, "additionalProperties", json_false());
	for (f = tab; f->key; f++) {
		json_object_set_new(props, f->key, field_schema(f));
		if (f->flags & F_REQ)
			json_array_append_new(req, json_string(f->key));
	}
	json_object_set_new(o, "properties", props);
	if (json_array_size(req))
		json_object_set_new(o, "required", req);
	else
		json_decref(req);
	return o;
}

void spec_schema_json(struct sbuf *sb)
{
	json_t *root = json_object(), *body;
	const char *k;
	json_t *v;
	char *text;

	json_object_set_new(root, "$schema", json_string("https://json-schema.org/draft/2020-12/schema"));
	json_object_set_new(root, "$id", json_string("https://harness.invalid/specs/schema.json"));
	json_object_set_new(root, "title", json_string("harness benchmark spec"));
	body = object_schema(spec_root_fields,
			     "A frozen benchmark spec for harness (generated by `harness schema`; "
			     "reference: specs/README.md)");
	json_object_foreach(body, k, v)
		json_object_set(root, k, v);
	json_decref(body);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text) {
		sbuf_adds(sb, text);
		sbuf_adds(sb, "\n");
	}
	free(text);
	json_decref(root);
}

/* ------------------------------------------------------------- markdown */

/* Table cells: a '|' would end the cell. */
static void md_text(struct sbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			sbuf_adds(sb, "\\|");
		else
			sbuf_add(sb, s, 1);
	}
}

static void md_type(struct sbuf *sb, const struct field *f)
{
	static const char *const names[] = {
		[FT_INT] = "integer", [FT_U64] = "integer", [FT_NUM] = "number",
		[FT_MB] = "number (MiB)", [FT_BOOL] = "bool", [FT_STR] = "string",
		[FT_SCALAR] = "string", [FT_ENUM] = "enum", [FT_ENUMSET] = "list of enum",
		[FT_ARGV] = "argv list", [FT_KV] = "map", [FT_SIGNALS] = "map name: JSON pointer or metric selector",
		[FT_OBJ] = "map", [FT_LIST] = "list of maps", [FT_GATELIST] = "list of gate names",
		[FT_GATES] = "map gate: params", [FT_INTLIST] = "list of integers",
		[FT_NAMED] = "map name: map",
	};
	size_t i;

	sbuf_adds(sb, names[f->type]);
	if (f->type == FT_ENUM || f->type == FT_ENUMSET) {
		sbuf_adds(sb, ": ");
		for (i = 0; f->enums[i]; i++)
			sbuf_addf(sb, "%s%s", i ? " \\| " : "", f->enums[i]);
	}
}

static void md_num(struct sbuf *sb, double x)
{
	if (x == floor(x) && fabs(x) < 1e15)
		sbuf_addf(sb, "%.0f", x);
	else
		sbuf_addf(sb, "%g", x);
}

static void md_range(struct sbuf *sb, const struct field *f)
{
	if (f->type == FT_LIST || f->type == FT_ARGV) {
		if (f->min_items)
			sbuf_addf(sb, ">= %zu entr%s", f->min_items, f->min_items == 1 ? "y" : "ies");
		return;
	}
	if (!(f->flags & (F_MIN | F_MAX)))
		return;
	if ((f->flags & F_MIN) && (f->flags & F_MAX) && f->min == f->max) {
		md_num(sb, f->min);
		return;
	}
	if (f->flags & F_MIN) {
		sbuf_adds(sb, (f->flags & F_MINX) ? "(" : "[");
		md_num(sb, f->min);
	} else {
		sbuf_adds(sb, "(-inf");
	}
	sbuf_adds(sb, ", ");
	if ((f->flags & F_MAX) && f->max < 9e18) {
		md_num(sb, f->max);
		sbuf_adds(sb, (f->flags & F_MAXX) ? ")" : "]");
	} else {
		sbuf_adds(sb, "2^64)");
	}
}

static void md_default(struct sbuf *sb, const struct field *f)
{
	size_t i;

	if (f->type == FT_GATELIST) {
		const char *const *names = f->phase == GATE_PHASE_WARMUP ?
			spec_default_warmup_gates : spec_default_window_gates;
		sbuf_adds(sb, "[");
		for (i = 0; names[i]; i++)
			sbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
		sbuf_adds(sb, "]");
		return;
	}
	if (!(f->flags & F_DEF)) {
		if (f->dstr)
			sbuf_adds(sb, f->dstr);
		else if (f->flags & F_REQ)
			sbuf_adds(sb, "**required**");
		else
			sbuf_adds(sb, "-");
		return;
	}
	switch (f->type) {
	case FT_ENUM:
		sbuf_adds(sb, f->enums[(int)f->dnum]);
		break;
	case FT_ENUMSET:
		sbuf_adds(sb, "[");
		for (i = 0; f->enums[i]; i++)
			if ((unsigned)f->dnum & (1u << i))
				sbuf_addf(sb, "%s%s", sb->buf[sb->len - 1] == '[' ? "" : ", ", f->enums[i]);
		sbuf_adds(sb, "]");
		break;
	case FT_BOOL:
		sbuf_adds(sb, f->dnum ? "true" : "false");
		break;
	case FT_STR:
	case FT_SCALAR:
		sbuf_addf(sb, "%s", f->dstr ? f->dstr : "-");
		break;
	default:
		md_num(sb, f->dnum);
	}
}

static void md_table(struct sbuf *sb, const struct field *tab, const char *prefix)
{
	const struct field *f;
	struct sbuf p = SBUF_INIT;

	for (f = tab; f->key; f++) {
		sbuf_reset(&p);
		sbuf_addf(&p, "%s%s%s", prefix, *prefix ? "." : "", f->key);
		sbuf_addf(sb, "| `%s` | ", p.buf);
		md_type(sb, f);
		sbuf_adds(sb, " | ");
		md_default(sb, f);
		sbuf_adds(sb, " | ");
		md_range(sb, f);
		sbuf_adds(sb, " | ");
		md_text(sb, f->help);
		sbuf_addf(sb, "%s |\n", (f->flags & F_PORT) ? " ({port} allowed)" : "");
		if (f->type == FT_OBJ)
			md_table(sb, f->sub, p.buf);
		if (f->type == FT_LIST) {
			sbuf_adds(&p, "[]");
			md_table(sb, f->sub, p.buf);
		}
		if (f->type == FT_NAMED) {
			sbuf_adds(&p, ".NAME");
			md_table(sb, f->sub, p.buf);
		}
	}
	sbuf_release(&p);
}

void spec_reference_md(struct sbuf *sb)
{
	const struct gate_param *gp;
	size_t i;

	sbuf_adds(sb, "| key | type | default | range | meaning |\n|---|---|---|---|---|\n");
	md_table(sb, spec_root_fields, "");
	sbuf_adds(sb, "\n#### Gates and their parameters (from the gate registry)\n\n"
		      "A failing *validity* gate voids the window (`rejected`); a failing *outcome*\n"
		      "gate makes it a valid window that failed the SLO (`failed`). The class is\n"
		      "fixed in the registry (gates/README.md).\n\n"
		      "| gate | class | phases | parameter | type | default | range | meaning |\n"
		      "|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < gate_registry_count; i++) {
		const struct gate_def *g = gate_registry[i];
		const char *ph = (g->phases & GATE_PHASE_WARMUP) && (g->phases & GATE_PHASE_WINDOW) ?
			"warm-up, window" : (g->phases & GATE_PHASE_WARMUP) ? "warm-up" : "window";
		sbuf_addf(sb, "| `%s` | %s | %s | `enforce` | bool | true | | ", g->name,
			  gate_class_name(g->class), ph);
		md_text(sb, g->help);
		sbuf_adds(sb, " |\n");
		for (gp = g->params; gp && gp->name; gp++) {
			sbuf_addf(sb, "| `%s` | | | `%s` | %s | ", g->name, gp->name,
				  gp->type == GP_NUM ? "number" : gp->type == GP_BOOL ? "bool" :
				  gp->type == GP_SIGNAL ? "signal name" : "map name: number");
			if (gp->required)
				sbuf_adds(sb, "**required**");
			else if ((gp->type == GP_NUM || gp->type == GP_BOOL) && !isnan(gp->def))
				md_num(sb, gp->def);
			else
				sbuf_adds(sb, "-");
			sbuf_adds(sb, " | ");
			if (gp->type == GP_NUM || gp->type == GP_NUM_MAP) {
				sbuf_adds(sb, "[");
				md_num(sb, gp->min);
				sbuf_adds(sb, ", ");
				md_num(sb, gp->max);
				sbuf_adds(sb, "]");
			}
			sbuf_adds(sb, " | ");
			md_text(sb, gp->help);
			sbuf_adds(sb, " |\n");
		}
	}
}
