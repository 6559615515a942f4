/* cmd_audit: `harness audit RUN`: every rejected window, why, and whether
 * the stored verdicts still follow from the stored data. The command:
 * options, the run's head lines and --recheck's; the tables and the
 * windows are report/audit_tables.c's and audit_windows.c's (audit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/audit.h"
#include "model/view.h"
#include "cmd/cmd.h"
#include "base/jout.h"
#include "gate/gate.h"
#include "gate/judge.h"
#include "spec/spec.h"
#include "store/store.h"
#include "store/store_run.h"
#include "base/util.h"

struct opts {
	struct audit_select sel;
	int recheck, json;
};

/* The host fact generator_sched (base/rtsched.h: fifo|other), or NULL for
 * a run recorded before it. */
static const char *generator_sched(const struct audit_data *d)
{
	size_t i;

	for (i = 0; i < d->v.rec.nhost; i++)
		if (!strcmp(d->v.rec.host[i].key, "generator_sched"))
			return d->v.rec.host[i].value;
	return NULL;
}

/* ", N differ by a rule change ..." for a run judged by older rules. */
static const char *rule_note(long n)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), "; %ld differ%s because the run was judged by the rules"
		 " before the gate classes (error_rate now counts every unexpected"
		 " response over requests due): rule changes, not drift", n, n == 1 ? "s" : "");
	return buf;
}

/* The run's stored spec, parsed (the view's); NULL after an error naming
 * the database or the spec. *legacy: the run was judged by rules older
 * than JUDGE_RULES. */
static const struct spec *stored_spec(struct store *st, const struct view *v, int *legacy)
{
	const char *text;
	size_t len;

	*legacy = v->rec.rules < JUDGE_RULES;
	if (run_record_spec(&v->rec, st->path, &text, &len))
		return NULL;
	if (!v->spec && v->spec_errors)
		fputs(v->spec_errors, stderr);
	return v->spec;
}

static struct opts o = { { NULL, NULL, -1 }, 0, 0 };

static int opt_window(const struct opt *opt, const char *v)
{
	long w;

	if (parse_long(v, &w) || w < 0)
		return error("audit: --window: '%s' is not a window id", v);
	o.sel.window = w;
	return 0;
}

static const struct opt options[] = {
	OPT_STRING(0, "impl", "I", &o.sel.impl, "only windows of that implementation"),
	OPT_STRING(0, "gate", "G", &o.sel.gate, "only windows rejected or failed by that gate"),
	OPT_CALLBACK("window", "W", opt_window,
		     "one window: its gates and its per-second p99 series as a\n"
		     "sparkline with the Mann-Kendall figures, its drain (what\n"
		     "ended after its last second), and the first unexpected\n"
		     "responses (request, status, why, body)"),
	OPT_BOOL(0, "recheck", &o.recheck,
		 "recompute every stored gate verdict and window status\n"
		 "from the stored raw series; exit 1 if any differs or a\n"
		 "window lacks a verdict the run stored for other windows"),
	OPT_END(),
};

static int cmd_audit(struct cmd_ctx *c)
{
	struct sbuf out = SBUF_INIT, rep = SBUF_INIT;
	struct store *st = &c->st;
	const char *run_id = c->run_id.buf;
	const struct spec *spec;
	struct audit_data d;
	int ret = EXIT_USAGE, mism = 0;
	struct recheck_count count = { 0 };
	json_t *top = NULL;

	memset(&d, 0, sizeof(d));
	o.json = c->json;
	if (o.sel.gate && !gate_find(o.sel.gate)) {
		error("audit: --gate: no gate named '%s'", o.sel.gate);
		goto out;
	}
	if (audit_data_load(st, run_id, &d))
		goto out;
	if (o.sel.window >= 0 && !audit_window_of(&d, o.sel.window)) {
		error("audit: --window %lld: run %s has no finished window %lld",
		      (long long)o.sel.window, run_id, (long long)o.sel.window);
		goto out;
	}
	if (o.json) {
		top = jout_set(json_object(), "run", jout_str(run_id),
			       "generator_sched", jout_str(generator_sched(&d)), NULL);
		audit_tables(&d, top, &out);
	} else {
		sbuf_addf(&out, "run %s\n", run_id);
		if (generator_sched(&d))
			sbuf_addf(&out, "generator threads: %s\n", !strcmp(generator_sched(&d), "fifo") ?
				  "SCHED_FIFO (real-time)" : "SCHED_OTHER (real-time not permitted)");
		audit_tables(&d, NULL, &out);
		sbuf_adds(&out, "\n");
	}
	if (audit_windows(st, &d, &o.sel, top, &out) < 0)
		goto out;
	ret = EXIT_OK;
	if (o.recheck) {
		json_t *details = o.json ? json_array() : NULL;

		spec = stored_spec(st, &d.v, &count.legacy);
		if (!spec) {
			json_decref(details);
			ret = EXIT_USAGE;
			goto out;
		}
		mism = audit_recheck(st, run_id, spec, o.sel.window, details, &rep, &count);
		if (mism < 0) {
			json_decref(details);
			ret = EXIT_USAGE;
			goto out;
		}
		if (o.json) {
			jout_set(top, "recheck",
				 jout_set(json_object(), "checked", json_integer(count.checked),
					  "mismatches", json_integer(mism),
					  "rule_changes", json_integer(count.rule_changes),
					  "details", details, NULL), NULL);
		} else {
			sbuf_addf(&out, "\nrecheck: %ld stored gate verdicts and window statuses"
					" recomputed from the stored series, %d mismatch%s%s\n%s",
				  count.checked, mism, mism == 1 ? "" : "es",
				  count.rule_changes ? rule_note(count.rule_changes) : "", rep.buf);
		}
		if (mism)
			ret = EXIT_NEGATIVE;
	}
	if (top) {
		char *text = jout_dumps(top);

		top = NULL;
		fputs(text, stdout);
		free(text);
	} else {
		fputs(out.buf, stdout);
	}
out:
	json_decref(top);
	audit_data_release(&d);
	sbuf_release(&out);
	sbuf_release(&rep);
	return ret;
}

const struct cmd_desc cmd_audit_desc = {
	.name = "audit",
	.summary = "rejected windows: gate, statistic, threshold, evidence",
	.synopsis = "RUN [options]",
	.about =
	"Lists failed windows (a valid measurement above the SLO: an outcome gate\n"
	"failed or the implementation exited) and rejected windows (void: a validity\n"
	"gate failed), each with its gates' statistic, threshold and evidence, and a\n"
	"table per gate per implementation (an asymmetric rejection rate shows at a\n"
	"glance). RUN is a run id, a run directory, or `latest`.\n"
	"Exit: 0, 1 when --recheck found a difference, 2 unknown run, gate or window.\n",
	.opts = options,
	.flags = CMD_RUN | CMD_JSON,
	.min_args = 1,
	.max_args = 1,
	.fn = cmd_audit,
};
