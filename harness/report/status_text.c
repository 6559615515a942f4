/* status_text: `harness status`'s text through the document layer
 * (status.h). */
#include <string.h>

#include "report/status.h"
#include "report/report_doc.h"
#include "store/store_run.h"
#include "base/util.h"

/* The first line of runs.preflight (its summary). */
const char *status_preflight_line(const char *text, struct sbuf *sb)
{
	sbuf_reset(sb);
	if (text)
		sbuf_add(sb, text, strcspn(text, "\n"));
	return sb->buf ? sb->buf : "";
}

/* A row of the text's table: planned is the windows stored so far, or,
 * while the run is not over, the plan's pre-registered windows when more
 * (the ladder plans rung by rung), with the replacements stored. */
static void counts_row(struct rdoc_block *t, const char *name, const struct status_counts *c,
		       int over)
{
	long planned = c->planned;

	if (!over && c->plan > c->planned - c->replacements)
		planned = c->plan + c->replacements;
	rdoc_push_cell(t, name);
	rdoc_cellf(t, "%ld", planned);
	rdoc_cellf(t, "%ld", c->done);
	rdoc_cellf(t, "%ld", c->replacements);
	rdoc_cellf(t, "%ld", c->accepted);
	rdoc_cellf(t, "%ld", c->failed);
	rdoc_cellf(t, "%ld", c->rejected);
}

/* The text: the run's status, its pre-flight, the EXPLORATORY stamp, its
 * plan, the counts per stage and in total (rdoc_text). */
void status_text(const char *run_id, const struct run_record *rec, const char *status,
		 const struct status_stage *stages, size_t nst, const struct status_counts *total,
		 long extra, struct sbuf *out)
{
	static const size_t width[] = { 8, 4, 4, 3, 4, 4, 4 };
	struct sbuf pf = SBUF_INIT;
	struct rdoc_block *t;
	struct rdoc d;
	size_t k;

	memset(&d, 0, sizeof(d));
	rdoc_addf(&d, RDOC_TITLE, "run %s: %s%s%s%s", run_id, status,
		  rec->failure ? " (" : "", rec->failure ? rec->failure : "",
		  rec->failure ? ")" : "");
	if (rec->preflight_cases >= 0)
		rdoc_addf(&d, RDOC_P, "pre-flight: %s", status_preflight_line(rec->preflight, &pf));
	if (rec->exploratory > 0)
		rdoc_add(&d, RDOC_STAMP, "EXPLORATORY: the spec had uncommitted changes");
	if (extra >= 0)
		rdoc_addf(&d, RDOC_P, "plan: %ld windows pre-registered (+%ld replacements at most);"
			  " %ld done, %ld of them replacements", total->plan, extra, total->done,
			  total->replacements);
	t = rdoc_table(&d, "stages", 7, "stage", "planned", "done", "replacements", "accepted",
		       "failed", "rejected");
	rdoc_align(t, "lrrrrrr");
	rdoc_widths(t, width);
	for (k = 0; k < nst; k++)
		counts_row(t, stages[k].stage, &stages[k].c, !strcmp(status, "finished"));
	counts_row(t, "total", total, !strcmp(status, "finished"));
	rdoc_text(&d, out);
	rdoc_release(&d);
	sbuf_release(&pf);
}
