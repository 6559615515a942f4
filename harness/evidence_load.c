/* evidence_load: rebuild a window phase's evidence from the run database,
 * exactly as the runner built it live (see runner_window.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "evidence_load.h"
#include "util.h"

static int load_seconds(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT p99_ms, p999_ms, due, sent, completed, errors,"
					    " dropped, s5xx, s4xx, s_other FROM seconds WHERE window_id = ? AND phase = ?"
					    " ORDER BY idx");

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_text(s, 2, phase, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		evidence_add_second(e, store_col_real(s, 0), store_col_real(s, 1));
		if (e->phase == GATE_PHASE_WARMUP) {
			e->due += (uint64_t)store_col_int(s, 2);
			e->sent += (uint64_t)store_col_int(s, 3);
			e->completed += (uint64_t)store_col_int(s, 4);
			e->errors += (uint64_t)store_col_int(s, 5);
			e->dropped += (uint64_t)store_col_int(s, 6);
			e->status[ST_5XX] += (uint64_t)store_col_int(s, 7);
			e->status[ST_4XX] += (uint64_t)store_col_int(s, 8);
			e->status_other += (uint64_t)store_col_int(s, 9);
		}
	}
	sqlite3_finalize(s);
	return 0;
}

static int load_requests(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT name, sent FROM window_requests"
					    " WHERE window_id = ? AND phase = ? ORDER BY rowid");
	const char **names = NULL;
	uint64_t *sent = NULL;
	size_t n = 0, an = 0, as = 0, i;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_text(s, 2, phase, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		XGROW(names, an, n + 1);
		XGROW(sent, as, n + 1);
		names[n] = xstrdup(store_col_text(s, 0));
		sent[n] = (uint64_t)store_col_int(s, 1);
		n++;
	}
	sqlite3_finalize(s);
	evidence_set_requests(e, n, names, sent);
	for (i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
	free(sent);
	return 0;
}

static int load_stats(struct store *st, int64_t wid, const char *phase, struct evidence *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT t_s, signal, key, value, error FROM rtstats"
					    " WHERE window_id = ? AND phase = ? ORDER BY rowid");

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, wid);
	sqlite3_bind_text(s, 2, phase, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW)
		evidence_add_stat(e, store_col_real(s, 0), store_col_text(s, 1), store_col_text(s, 2),
				  store_col_real(s, 3), store_col_text(s, 4));
	sqlite3_finalize(s);
	return 0;
}

int evidence_load(struct store *st, int64_t wid, enum gate_phase phase, struct evidence *e)
{
	const char *ph = phase == GATE_PHASE_WARMUP ? "warmup" : "measured";
	sqlite3_stmt *s;
	int ret = -1;

	evidence_init(e, phase);
	s = store_prepare(st, "SELECT warmup_s, warmup_rate, duration_s, offered_rps, achieved_rps,"
			      " due, sent, completed, dropped, s2xx, s3xx, s4xx, s5xx,"
			      " err_connect + err_reset + err_timeout + err_parse + err_other,"
			      " sched_lag_p99_ms, gen_cpu_s, acct_backend, nr_throttled, throttled_usec,"
			      " oom, oom_kill, pgmajfault, sut_exited, s_other FROM windows WHERE id = ?");
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, wid);
	if (sqlite3_step(s) != SQLITE_ROW) {
		error("%s: no window %lld", st->path, (long long)wid);
		goto out;
	}
	if (phase == GATE_PHASE_WARMUP) {
		e->duration_s = store_col_real(s, 0);
		e->offered_rps = store_col_real(s, 1);
		e->lateness_p99_ms = NAN;
		e->generator_cpu_s = NAN;
	} else {
		e->duration_s = store_col_real(s, 2);
		e->offered_rps = store_col_real(s, 3);
		e->achieved_rps = store_col_real(s, 4);
		e->due = (uint64_t)store_col_int(s, 5);
		e->sent = (uint64_t)store_col_int(s, 6);
		e->completed = (uint64_t)store_col_int(s, 7);
		e->dropped = (uint64_t)store_col_int(s, 8);
		e->status[ST_2XX] = (uint64_t)store_col_int(s, 9);
		e->status[ST_3XX] = (uint64_t)store_col_int(s, 10);
		e->status[ST_4XX] = (uint64_t)store_col_int(s, 11);
		e->status[ST_5XX] = (uint64_t)store_col_int(s, 12);
		e->errors = (uint64_t)store_col_int(s, 13);
		e->lateness_p99_ms = store_col_real(s, 14);
		e->generator_cpu_s = store_col_real(s, 15);
		if (sqlite3_column_type(s, 16) != SQLITE_NULL)
			e->acct_backend = xstrdup(store_col_text(s, 16));
		e->has_throttle = sqlite3_column_type(s, 17) != SQLITE_NULL;
		e->nr_throttled = (uint64_t)store_col_int(s, 17);
		e->throttled_usec = (uint64_t)store_col_int(s, 18);
		e->has_oom = sqlite3_column_type(s, 19) != SQLITE_NULL;
		e->oom_events = (uint64_t)store_col_int(s, 19);
		e->oom_kills = (uint64_t)store_col_int(s, 20);
		e->has_majfault = sqlite3_column_type(s, 21) != SQLITE_NULL;
		e->major_faults = (uint64_t)store_col_int(s, 21);
		e->status_other = (uint64_t)store_col_int(s, 23);
	}
	e->sut_exited = (int)store_col_int(s, 22);
	sqlite3_finalize(s);
	s = NULL;
	if (load_seconds(st, wid, ph, e) || load_requests(st, wid, ph, e) ||
	    load_stats(st, wid, ph, e))
		goto out;
	if (phase == GATE_PHASE_WARMUP)
		e->achieved_rps = e->duration_s > 0 ? (double)e->completed / e->duration_s : NAN;
	ret = 0;
out:
	if (s)
		sqlite3_finalize(s);
	return ret;
}
