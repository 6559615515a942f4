-- The database's own statistics, read by the harness at the start and the
-- end of every window (spec.yaml: dependencies[db].stats; psql -At -F '|'):
-- one "NAME|NUMBER" line per counter. statements (every call
-- pg_stat_statements counted: it counts at once, where pg_stat_database's
-- xact_commit lags up to a second behind) is the demand judged against the
-- ceiling pgbench measured (ladder); time:STATEMENT and
-- calls:STATEMENT attribute the database's time per statement to the
-- implementation the window measured. The harness's own psql sessions are
-- left out (pg_stat_statements' statements of this file).
SELECT 'statements', sum(calls) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%';
SELECT 'xact_commit', xact_commit FROM pg_stat_database WHERE datname = 'postgres';
SELECT 'time:' || left(regexp_replace(query, '\s+', ' ', 'g'), 120), round(sum(total_exec_time)::numeric, 3)
  FROM pg_stat_statements
 WHERE query NOT LIKE '%pg_stat%'
 GROUP BY 1;
SELECT 'calls:' || left(regexp_replace(query, '\s+', ' ', 'g'), 120), sum(calls)
  FROM pg_stat_statements
 WHERE query NOT LIKE '%pg_stat%'
 GROUP BY 1;
