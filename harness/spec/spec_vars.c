/*
 * spec_vars: the checks of template variables (workload.vars) and of the
 * keys that go with them: one kind per variable, csv files read (their
 * bytes hashed with the spec, spec.c) and their column's values kept,
 * every {NAME} in a request's path naming a variable, variables no
 * request uses (a warning), and workload.http / workload.tls against the
 * transport.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csv.h"
#include "load/load_pool.h"
#include "spec/spec_internal.h"
#include "base/util.h"

#define MAX_CSV_FILE (256u << 20)

/* The column named or numbered col, or -1. */
static long csv_column(const struct csv *c, const char *col)
{
	long n;
	size_t i;

	for (i = 0; i < c->ncols; i++)
		if (!strcmp(c->header[i], col))
			return (long)i;
	if (!parse_long(col, &n) && n >= 1 && (size_t)n <= c->ncols)
		return n - 1;
	return -1;
}

static void read_csv_var(struct vctx *v, struct load_var *var, const char *path)
{
	struct sbuf sb = SBUF_INIT, vals = SBUF_INIT;
	struct csv c = CSV_INIT;
	char *abs = spec_resolve(v->s->base_dir, var->csv);
	char p[200];
	size_t r, *offs = NULL;
	long col;

	snprintf(p, sizeof(p), "%.150s.csv", path);
	if (spec_read_ref_file(v, abs, &sb, MAX_CSV_FILE, p, var->csv))
		goto out;
	if (csv_parse(sb.buf, sb.len, abs, &c)) {
		spec_err_at(v, p, "\"%s\" is not a CSV file with a header row (see above)", var->csv);
		goto out;
	}
	col = csv_column(&c, var->column ? var->column : "1");
	if (col < 0) {
		snprintf(p, sizeof(p), "%.150s.column", path);
		spec_err_at(v, p, "\"%s\" is neither a header of \"%s\" nor a column number 1..%zu",
			    var->column, var->csv, c.ncols);
		goto out;
	}
	if (!c.nrows) {
		spec_err_at(v, p, "\"%s\" has no rows below its header", var->csv);
		goto out;
	}
	offs = xcalloc(c.nrows, sizeof(*offs));
	for (r = 0; r < c.nrows; r++) {
		const char *val = c.rows[r][col];

		if (strlen(val) > LOAD_VAR_VALUE_MAX || strpbrk(val, "\r\n")) {
			spec_err_at(v, p, "\"%s\" line %zu: a value must be one line of at most %d bytes",
				    var->csv, c.lines[r], LOAD_VAR_VALUE_MAX);
			goto out;
		}
		offs[r] = vals.len;
		sbuf_add(&vals, val, strlen(val) + 1);
	}
	var->vbuf = sbuf_detach(&vals, NULL);
	var->values = xcalloc(c.nrows, sizeof(*var->values));
	for (r = 0; r < c.nrows; r++)
		var->values[r] = var->vbuf + offs[r];
	var->nvalues = c.nrows;
	var->data = sbuf_detach(&sb, &var->data_len);
out:
	free(var->csv);
	var->csv = abs;
	free(offs);
	csv_release(&c);
	sbuf_release(&sb);
	sbuf_release(&vals);
}

static void check_var(struct vctx *v, struct load_var *var, const char *path)
{
	int kinds = !!var->zipf.present + !!var->nuniform + !!var->csv + !!var->sequence.present +
		    !!var->uuid.present;
	char p[200];

	if (kinds != 1) {
		spec_err_at(v, path, "give exactly one of zipf, uniform, csv, sequence, uuid (got %d)",
			    kinds);
		return;
	}
	if (var->zipf.present) {
		var->kind = LVAR_ZIPF;
	} else if (var->nuniform) {
		var->kind = LVAR_UNIFORM;
		snprintf(p, sizeof(p), "%.150s.uniform", path);
		if (var->nuniform != 2 || var->uniform[0] > var->uniform[1])
			spec_err_at(v, p, "must be [lo, hi] with lo < hi");
	} else if (var->csv) {
		var->kind = LVAR_CSV;
		read_csv_var(v, var, path);
	} else if (var->sequence.present) {
		var->kind = LVAR_SEQUENCE;
	} else {
		var->kind = LVAR_UUID;
	}
}

/* Every {NAME} in a path must be a variable: braces are no path characters. */
static void check_path_refs(struct vctx *v, const struct load_request *r, size_t i)
{
	const struct spec_workload *w = &v->s->workload;
	size_t pos = 0, at, nl, len = r->path ? strlen(r->path) : 0;
	const char *nm;
	char p[96];
	size_t k;

	while (load_tmpl_next(r->path, len, &pos, &at, &nm, &nl)) {
		int x = load_var_find(w->vars, w->nvars, nm, nl);

		if (x >= 0) {
			/* csv values go into the request line as they are */
			for (k = 0; w->vars[x].kind == LVAR_CSV && k < w->vars[x].nvalues; k++) {
				if (strpbrk(w->vars[x].values[k], " \t")) {
					snprintf(p, sizeof(p), "workload.requests[%zu].path", i);
					spec_err_at(v, p, "{%s}: value \"%.40s\" has a space; a path cannot hold it",
						    w->vars[x].name, w->vars[x].values[k]);
					break;
				}
			}
			continue;
		}
		snprintf(p, sizeof(p), "workload.requests[%zu].path", i);
		spec_err_at(v, p, "{%.*s} is no variable of workload.vars", (int)nl, nm);
	}
}

void spec_check_vars(struct vctx *v)
{
	struct spec_workload *w = &v->s->workload;
	unsigned char *used;
	char p[200];
	size_t i, r;

	if (w->nvars > LOAD_MAX_VARS)
		spec_err_at(v, "workload.vars", "at most %d variables, got %zu", LOAD_MAX_VARS,
			    w->nvars);
	for (i = 0; i < w->nvars; i++) {
		snprintf(p, 160, "workload.vars.%s", w->vars[i].name);
		check_var(v, &w->vars[i], p);
	}
	for (r = 0; r < w->nrequests; r++)
		check_path_refs(v, &w->requests[r], r);
	used = xcalloc(w->nvars + 1, 1);
	for (r = 0; r < w->nrequests; r++) {
		const struct load_request *q = &w->requests[r];

		for (i = 0; i < w->nvars; i++) {
			struct load_var one = w->vars[i];

			if (load_request_uses_vars(q, &one, 1))
				used[i] = 1;
		}
	}
	for (i = 0; i < w->nvars; i++) {
		if (used[i])
			continue;
		snprintf(p, 160, "workload.vars.%s", w->vars[i].name);
		spec_warn_at(v, p, "no request refers to {%s}", w->vars[i].name);
	}
	free(used);
	if (w->http == HTTPV_H2C && w->transport == TRANSPORT_NATIVE)
		spec_err_at(v, "workload.http", "h2c needs the curl transport (workload.transport: native speaks HTTP/1.1 only)");
	if (w->tls.present && w->transport == TRANSPORT_NATIVE)
		spec_err_at(v, "workload.tls", "https needs the curl transport (workload.transport: native speaks plain http only)");
	/* Not in the agent protocol yet (fleet.c refuses them too). */
	if (w->ngenerators && w->nvars)
		spec_err_at(v, "workload.generators", "template variables (workload.vars) are not"
			    " sent to load agents yet (docs/AGENT_PROTOCOL.md): drive this workload"
			    " from the local generator");
	if (w->tls.cacert) {
		char *abs = spec_resolve(v->s->base_dir, w->tls.cacert);

		if (access(abs, R_OK))
			spec_err_at(v, "workload.tls.cacert", "cannot read \"%s\"", w->tls.cacert);
		free(w->tls.cacert);
		w->tls.cacert = abs;
	}
}
