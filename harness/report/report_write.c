/* report_write: the report's files in a directory (used by harness report,
 * and by anything that wants a run's report written, e.g. at a run's end). */
#include "report/report.h"

#include "report/report_study.h"
#include "store/store.h"
#include "base/util.h"

static const struct {
	unsigned bit;
	const char *name;
	void (*fn)(const struct report *, struct sbuf *);
} outputs[] = {
	{ REPORT_MD, "report.md", report_md },
	{ REPORT_HTML, "report.html", report_html },
	{ REPORT_JSON, "report.json", report_json },
	{ REPORT_CSV, "windows.csv", report_csv },
	{ REPORT_CSV, "study.csv", report_study_csv },
};

const char *report_file_name(unsigned format)
{
	size_t i;

	if (format == REPORT_HGRM)
		return "hgrm/";
	for (i = 0; i < ARRAY_SIZE(outputs); i++)
		if (outputs[i].bit == format)
			return outputs[i].name;
	return NULL;
}

int report_write_files(const struct report *r, const char *dir, unsigned formats)
{
	struct sbuf path = SBUF_INIT, body = SBUF_INIT;
	size_t i;
	int ret = -1;

	if (mkdir_p(dir, 0755))
		goto out;
	for (i = 0; i < ARRAY_SIZE(outputs); i++) {
		if (!(formats & outputs[i].bit))
			continue;
		sbuf_reset(&body);
		sbuf_reset(&path);
		outputs[i].fn(r, &body);
		sbuf_addf(&path, "%s/%s", dir, outputs[i].name);
		if (write_file(path.buf, body.buf, body.len))
			goto out;
	}
	if ((formats & REPORT_HGRM) && report_write_hgrm(r, dir))
		goto out;
	ret = 0;
out:
	sbuf_release(&path);
	sbuf_release(&body);
	return ret;
}

int report_write_run(struct store *st, const char *run_id, const char *dir, unsigned formats)
{
	struct report r;
	int ret;

	if (report_load(&r, st, run_id)) {
		report_release(&r);
		return -1;
	}
	ret = report_write_files(&r, dir, formats);
	report_release(&r);
	return ret;
}
