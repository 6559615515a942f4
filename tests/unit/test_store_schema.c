/* test_store_schema: migrations carry an old run database forward; the
 * gate classes' migration (version 3) reclassifies exactly the windows
 * harness/gate/judge.h would call failed and records one event per run. */
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_sql.h"
#include "base/util.h"
#include "t.h"

static const char *const windows[][3] = {
	/* reasons, status before, status after */
	{ "achieved_vs_offered", "rejected", "failed" },
	{ "error_rate,stationarity", "rejected", "failed" },
	{ "sut_exited,sut_alive,generator:not_evaluable", "rejected", "failed" },
	{ "achieved_vs_offered,stationarity:not_evaluable", "rejected", "failed" },
	{ "generator", "rejected", "rejected" },
	{ "achieved_vs_offered,generator", "rejected", "rejected" },
	{ "under_warmed,error_rate", "rejected", "rejected" },
	{ "stationarity:not_evaluable", "rejected", "rejected" },
	{ NULL, "accepted", "accepted" },
};

static int64_t count(struct store *st, const char *sql)
{
	sqlite3_stmt *s = store_prepare(st, sql);
	int64_t n = -1;

	if (s && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

TEST(v3_reclassifies_outcome_windows)
{
	char path[] = "/tmp/test_store_schema_XXXXXX";
	struct store st;
	struct sbuf sql = SBUF_INIT;
	sqlite3 *db;
	size_t i;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	/* A version 2 database, as the harness before the classes wrote it. */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, store_migrations[0], NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, store_migrations[1], NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 2;"
			   "INSERT INTO runs (id, spec_name, spec_path, spec_text, spec_hash, seed,"
			   " stages, created_at, status, harness_version) VALUES"
			   " ('r1', 's', 's.yaml', 'x', 'h', 1, 'ladder', 0, 'finished', 'v'),"
			   " ('r2', 's', 's.yaml', 'x', 'h', 1, 'ladder', 0, 'finished', 'v');",
			   NULL, NULL, NULL) == SQLITE_OK);
	for (i = 0; i < ARRAY_SIZE(windows); i++) {
		sqlite3_stmt *s;

		CHECK(sqlite3_prepare_v2(db, "INSERT INTO windows (run_id, stage, rung, block, slot,"
					 " impl, rate, state, status, reasons) VALUES"
					 " ('r1', 'ladder', 0, ?, 0, 'a', 100, 'done', ?, ?)",
					 -1, &s, NULL) == SQLITE_OK);
		sqlite3_bind_int(s, 1, (int)i);
		sqlite3_bind_text(s, 2, windows[i][1], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, windows[i][0], -1, SQLITE_STATIC);
		CHECK(sqlite3_step(s) == SQLITE_DONE);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);

	CHECK(store_open(&st, path, 0) == 0);
	CHECK(count(&st, "PRAGMA user_version") == store_schema_version());
	for (i = 0; i < ARRAY_SIZE(windows); i++) {
		sbuf_reset(&sql);
		sbuf_addf(&sql, "SELECT COUNT(*) FROM windows WHERE block = %zu AND status = '%s'", i,
			  windows[i][2]);
		if (count(&st, sql.buf) != 1) {
			printf("#   window with reasons %s: want %s\n",
			       windows[i][0] ? windows[i][0] : "(none)", windows[i][2]);
			CHECK(0);
		}
	}
	/* One event for r1 (4 windows), none for r2 (nothing reclassified). */
	CHECK(count(&st, "SELECT COUNT(*) FROM events WHERE kind = 'migration'") == 1);
	CHECK(count(&st, "SELECT COUNT(*) FROM events WHERE kind = 'migration' AND run_id = 'r1'"
			 " AND detail LIKE '%: 4 rejected window(s)%'") == 1);
	/* The new per-second columns exist. */
	CHECK(count(&st, "SELECT COUNT(s4xx) + COUNT(s_other) FROM seconds") == 0);
	store_close(&st);
	sbuf_release(&sql);
	unlink(path);
}

/* Version 6: before expect, the only expectation was 2xx/3xx, so an old
 * window's and second's unexpected responses are its 4xx + 5xx + other
 * statuses (NULL counted as 0); the error rate of an old run is unchanged. */
TEST(v6_unexpected_from_statuses)
{
	char path[] = "/tmp/test_store_schema_XXXXXX";
	struct store st;
	sqlite3 *db;
	int fd = mkstemp(path), v;

	CHECK(fd >= 0);
	close(fd);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	for (v = 0; v < 5; v++)
		CHECK(sqlite3_exec(db, store_migrations[v], NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 5;"
			   "INSERT INTO runs (id, spec_name, spec_path, spec_text, spec_hash, seed,"
			   " stages, created_at, status, harness_version) VALUES"
			   " ('r1', 's', 's.yaml', 'x', 'h', 1, 'ladder', 0, 'finished', 'v');"
			   "INSERT INTO windows (id, run_id, stage, rung, block, slot, impl, rate, state,"
			   " s4xx, s5xx, s_other) VALUES"
			   " (1, 'r1', 'ladder', 0, 0, 0, 'a', 100, 'done', 3, 4, 5),"
			   " (2, 'r1', 'ladder', 0, 1, 0, 'a', 100, 'done', NULL, 2, NULL),"
			   " (3, 'r1', 'ladder', 0, 2, 0, 'a', 100, 'planned', NULL, NULL, NULL);"
			   "INSERT INTO seconds (window_id, phase, idx, s4xx, s5xx, s_other) VALUES"
			   " (1, 'measured', 0, 1, 2, 3), (2, 'measured', 0, NULL, 7, NULL);",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(store_open(&st, path, 0) == 0);
	CHECK(count(&st, "PRAGMA user_version") == store_schema_version());
	CHECK(count(&st, "SELECT err_unexpected FROM windows WHERE id = 1") == 12);
	CHECK(count(&st, "SELECT err_unexpected FROM windows WHERE id = 2") == 2);
	CHECK(count(&st, "SELECT err_unexpected IS NULL FROM windows WHERE id = 3") == 1);
	CHECK(count(&st, "SELECT unexpected FROM seconds WHERE window_id = 1") == 6);
	CHECK(count(&st, "SELECT unexpected FROM seconds WHERE window_id = 2") == 7);
	CHECK(count(&st, "SELECT COUNT(*) FROM unexpected_samples") == 0);
	store_close(&st);
	unlink(path);
}

int main(void)
{
	RUN(v3_reclassifies_outcome_windows);
	RUN(v6_unexpected_from_statuses);
	return t_done();
}
