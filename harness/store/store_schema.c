/*
 * store_schema: the run database's schema, version by version.
 *
 * Migrations are applied in order inside one transaction each; the version
 * reached is kept in PRAGMA user_version. Never edit a released migration:
 * add a new one. runs/README.md documents every table for people querying
 * a run with the sqlite3 shell.
 */
#include "store/store.h"

const char *const store_migrations[] = {
	/* version 1 */
	"CREATE TABLE runs ("
	"  id TEXT PRIMARY KEY,"
	"  spec_name TEXT NOT NULL,"
	"  spec_path TEXT NOT NULL,"         /* as given on the command line */
	"  spec_text BLOB NOT NULL,"         /* the frozen bytes */
	"  spec_hash TEXT NOT NULL,"         /* sha-256, spec + referenced files */
	"  seed INTEGER NOT NULL,"
	"  stages TEXT NOT NULL,"            /* e.g. 'ladder,confirm,soak' */
	"  created_at REAL NOT NULL,"        /* unix seconds */
	"  finished_at REAL,"
	"  status TEXT NOT NULL,"            /* running|finished|failed|interrupted */
	"  failure TEXT,"                    /* why, when failed */
	"  exploratory INTEGER NOT NULL DEFAULT 0," /* dirty spec with --allow-dirty */
	"  forced INTEGER NOT NULL DEFAULT 0,"      /* resume --force after a mismatch */
	"  harness_version TEXT NOT NULL,"
	"  parent_run TEXT,"                 /* rerun: the run whose spec this is */
	"  sandbox_user TEXT,"               /* rerun: the unprivileged user */
	"  spec_repo TEXT, spec_commit TEXT, spec_branch TEXT, spec_dirty INTEGER"
	");"
	"CREATE TABLE impls ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  name TEXT NOT NULL,"
	"  ord INTEGER NOT NULL,"            /* position in the spec */
	"  repo TEXT,"                       /* work tree path */
	"  commit_id TEXT, branch TEXT,"
	"  dirty INTEGER,"                   /* uncommitted changes in repo */
	"  diff_hash TEXT,"                  /* sha-256 of the uncommitted diff */
	"  ref_asked TEXT, remote_url TEXT," /* rerun: what was fetched */
	"  src_dir TEXT,"                    /* rerun: checkout directory */
	"  baseline_of TEXT,"                /* rerun --with-baseline: '<impl>' */
	"  knee_rps REAL, knee_crossed INTEGER," /* ladder result (for confirm/soak) */
	"  PRIMARY KEY (run_id, name)"
	");"
	"CREATE TABLE host_facts ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  key TEXT NOT NULL, value TEXT,"
	"  PRIMARY KEY (run_id, key)"
	");"
	"CREATE TABLE blocks ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  stage TEXT NOT NULL,"             /* ladder|confirm|soak */
	"  rung INTEGER NOT NULL,"           /* ladder rung index (confirm: rung of that rate; soak: -1) */
	"  block INTEGER NOT NULL,"          /* 0.. within the stage */
	"  rate REAL NOT NULL,"
	"  order_json TEXT NOT NULL,"        /* impl names in run order */
	"  PRIMARY KEY (run_id, stage, block)"
	");"
	"CREATE TABLE windows ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  stage TEXT NOT NULL, rung INTEGER NOT NULL, block INTEGER NOT NULL,"
	"  slot INTEGER NOT NULL,"           /* position in the block's order */
	"  impl TEXT NOT NULL,"
	"  rate REAL NOT NULL,"              /* offered, req/s */
	"  state TEXT NOT NULL,"             /* planned|running|done */
	"  status TEXT,"                     /* accepted|rejected (done windows); version 3: |failed */
	"  reasons TEXT,"                    /* comma list of failing gates, or sut_exited, under_warmed */
	"  attempts INTEGER NOT NULL DEFAULT 0," /* >1: re-run after a crash */
	"  warm INTEGER,"                    /* warm-up gates all passed */
	"  warmup_s REAL, warmup_rate REAL,"
	"  started_at REAL, ended_at REAL,"  /* unix seconds of the measured part */
	"  duration_s REAL,"                 /* measured seconds */
	"  offered_rps REAL, achieved_rps REAL,"
	"  due INTEGER, sent INTEGER, completed INTEGER, dropped INTEGER,"
	"  s2xx INTEGER, s3xx INTEGER, s4xx INTEGER, s5xx INTEGER, s_other INTEGER,"
	"  err_connect INTEGER, err_reset INTEGER, err_timeout INTEGER, err_parse INTEGER, err_other INTEGER,"
	"  p50_ms REAL, p90_ms REAL, p99_ms REAL, p999_ms REAL, max_ms REAL,"
	"  service_p50_ms REAL, service_p99_ms REAL,"
	"  lateness_p50_ms REAL, lateness_p99_ms REAL, lateness_max_ms REAL,"
	"  latency_hist BLOB, service_hist BLOB, lateness_hist BLOB," /* hist_serialize() */
	"  gen_cpu_s REAL,"                  /* load generator CPU over the measured part */
	"  acct_backend TEXT,"
	"  cpu_s REAL, cpu_user_s REAL, cpu_system_s REAL,"
	"  nr_throttled INTEGER, throttled_usec INTEGER,"  /* NULL: backend has none */
	"  anon_p50 REAL, anon_p99 REAL, anon_max REAL,"   /* bytes */
	"  mem_peak INTEGER, mem_peak_scope TEXT,"
	"  oom INTEGER, oom_kill INTEGER, pgmajfault INTEGER,"
	"  sampler_cpu_s REAL,"
	"  sut_exited INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (run_id, stage, block, impl)"
	");"
	"CREATE INDEX windows_run ON windows(run_id, stage, state);"
	"CREATE TABLE window_requests ("      /* per workload request name */
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  phase TEXT NOT NULL,"             /* warmup|measured */
	"  name TEXT NOT NULL,"
	"  sent INTEGER, completed INTEGER, errors INTEGER,"
	"  p99_ms REAL, hist BLOB,"
	"  PRIMARY KEY (window_id, phase, name)"
	");"
	"CREATE TABLE seconds ("              /* per-second series */
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  phase TEXT NOT NULL,"             /* warmup|discard|measured */
	"  idx INTEGER NOT NULL,"            /* seconds since the phase started */
	"  rate REAL,"
	"  due INTEGER, sent INTEGER, completed INTEGER, errors INTEGER, dropped INTEGER, s5xx INTEGER,"
	"  p50_ms REAL, p99_ms REAL, p999_ms REAL, max_ms REAL," /* NULL when none completed */
	"  lateness_p99_ms REAL,"
	"  hist BLOB,"                       /* latency, all requests */
	"  PRIMARY KEY (window_id, phase, idx)"
	");"
	"CREATE TABLE acct_samples ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  t_ms REAL NOT NULL, anon_bytes REAL, cpu_s REAL"
	");"
	"CREATE INDEX acct_samples_w ON acct_samples(window_id);"
	"CREATE TABLE rtstats ("               /* one row per signal per poll */
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  phase TEXT NOT NULL,"             /* warmup|measured */
	"  t_s REAL NOT NULL,"               /* seconds since the phase started */
	"  signal TEXT NOT NULL,"            /* '' for a failed poll */
	"  key TEXT,"                        /* counter name for object signals */
	"  value REAL,"                      /* NULL: missing or not a number */
	"  error TEXT"                       /* http_500, timeout, malformed, missing... */
	");"
	"CREATE INDEX rtstats_w ON rtstats(window_id, phase);"
	"CREATE TABLE gate_results ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  phase TEXT NOT NULL,"             /* warmup (final evaluation) | window */
	"  gate TEXT NOT NULL,"
	"  status TEXT NOT NULL,"            /* pass|fail|not_evaluable */
	"  enforced INTEGER NOT NULL,"
	"  stat_name TEXT, statistic REAL, threshold REAL,"
	"  evidence TEXT,"
	"  evaluations INTEGER,"             /* warm-up: times evaluated */
	"  PRIMARY KEY (window_id, phase, gate)"
	");"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  window_id INTEGER REFERENCES windows(id),"
	"  t REAL NOT NULL,"                 /* unix seconds */
	"  kind TEXT NOT NULL,"              /* host_drift, sut_exited, sut_restart, window_retry, resume, ... */
	"  detail TEXT"
	");",
	/* version 2: the generator's own lateness (schedule lag), apart from
	 * lateness, which includes waiting for a free connection. */
	"ALTER TABLE windows ADD COLUMN sched_lag_p99_ms REAL;"
	"ALTER TABLE windows ADD COLUMN sched_lag_max_ms REAL;"
	"ALTER TABLE seconds ADD COLUMN sched_lag_p99_ms REAL;",
	/* version 3: gates have a class (harness/gate/gate.h). A window whose
	 * reasons are all outcome failures (error_rate, achieved_vs_offered,
	 * stationarity, sut_alive, oom, sut_exited), with at most gates that
	 * could not be evaluated beside them, is a valid measurement that
	 * failed the SLO: 'failed', no longer 'rejected' (harness/gate/judge.h
	 * states the rule). One 'migration' event per run with the count.
	 * The seconds table gains 4xx and other statuses (error_rate counts
	 * them). */
	"ALTER TABLE seconds ADD COLUMN s4xx INTEGER;"
	"ALTER TABLE seconds ADD COLUMN s_other INTEGER;"
	"CREATE TEMP TABLE m3_reasons AS"
	"  WITH RECURSIVE split(id, item, rest) AS ("
	"    SELECT id, '', reasons || ',' FROM windows"
	"     WHERE state = 'done' AND status = 'rejected' AND reasons IS NOT NULL"
	"    UNION ALL"
	"    SELECT id, substr(rest, 1, instr(rest, ',') - 1), substr(rest, instr(rest, ',') + 1)"
	"      FROM split WHERE rest <> '')"
	"  SELECT id, item FROM split WHERE item <> '';"
	"CREATE TEMP TABLE m3_failed AS"
	"  SELECT id FROM m3_reasons GROUP BY id"
	"  HAVING SUM(item IN ('error_rate', 'achieved_vs_offered', 'stationarity',"
	"                      'sut_alive', 'oom', 'sut_exited')) > 0"
	"     AND SUM(item NOT IN ('error_rate', 'achieved_vs_offered', 'stationarity',"
	"                          'sut_alive', 'oom', 'sut_exited')"
	"             AND item NOT LIKE '%:not_evaluable') = 0;"
	"INSERT INTO events (run_id, window_id, t, kind, detail)"
	"  SELECT w.run_id, NULL, CAST(strftime('%s', 'now') AS REAL), 'migration',"
	"         'schema 3: ' || COUNT(*) || ' rejected window(s) whose reasons are all outcome"
	" gates reclassified as failed'"
	"    FROM windows w JOIN m3_failed f ON f.id = w.id GROUP BY w.run_id;"
	"UPDATE windows SET status = 'failed' WHERE id IN (SELECT id FROM m3_failed);"
	"DROP TABLE m3_reasons;"
	"DROP TABLE m3_failed;",
	/* version 4: the knee as the runner used it (harness/model/knee.h): point,
	 * bracket (lo, hi] with its reason, or floor (>= the highest rung). */
	"ALTER TABLE impls ADD COLUMN knee_kind TEXT;"
	"ALTER TABLE impls ADD COLUMN knee_lo_rps REAL;"
	"ALTER TABLE impls ADD COLUMN knee_hi_rps REAL;"
	"ALTER TABLE impls ADD COLUMN knee_reason TEXT;",
	/* version 5: why a run failed, for programs (harness compare tells a
	 * commit that failed to build or start from a host that failed):
	 * failure_kind sandbox|build|start|environment|interrupted|
	 * nothing_measured; failure_impl names the implementation for build
	 * and start. */
	"ALTER TABLE runs ADD COLUMN failure_kind TEXT;"
	"ALTER TABLE runs ADD COLUMN failure_impl TEXT;",
	/* version 6: responses checked against each request's expect
	 * (workload.requests[].expect; default any 2xx or 3xx). err_unexpected
	 * (windows), unexpected (seconds, window_requests): completed
	 * responses that did not match; before this version the only
	 * expectation was 2xx/3xx, so older rows get 4xx + 5xx + other
	 * statuses, which is what the error rate counted. unexpected_samples:
	 * the first few of them per window phase, for the audit. */
	"ALTER TABLE windows ADD COLUMN err_unexpected INTEGER;"
	"UPDATE windows SET err_unexpected = COALESCE(s4xx, 0) + COALESCE(s5xx, 0) +"
	"  COALESCE(s_other, 0) WHERE state = 'done';"
	"ALTER TABLE seconds ADD COLUMN unexpected INTEGER;"
	"UPDATE seconds SET unexpected = COALESCE(s4xx, 0) + COALESCE(s5xx, 0) + COALESCE(s_other, 0);"
	"ALTER TABLE window_requests ADD COLUMN unexpected INTEGER;"
	"CREATE TABLE unexpected_samples ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  phase TEXT NOT NULL,"             /* warmup|measured */
	"  seq INTEGER NOT NULL,"            /* 0.. in the order seen */
	"  name TEXT NOT NULL,"              /* the request */
	"  status INTEGER,"                  /* HTTP status received */
	"  why TEXT,"                        /* what did not match */
	"  body BLOB,"                       /* the body's first 200 bytes, when it was read */
	"  PRIMARY KEY (window_id, phase, seq)"
	");",
	/* version 7: replacement windows (docs/DESIGN.md "Replacement
	 * windows"): a window planned to replace a rejected one names it;
	 * NULL for the pre-registered windows. The stage may be 'refine'. */
	"ALTER TABLE windows ADD COLUMN replaces INTEGER;",
	/* version 8: what went over the wire in a window's measured part: the
	 * HTTP version(s) responses came in (most first, e.g. 'HTTP/1.1' or
	 * 'HTTP/2,HTTP/1.1'; NULL when nothing completed or before this
	 * version) and the HTTP bytes sent and received (load.h). */
	"ALTER TABLE windows ADD COLUMN protocol TEXT;"
	"ALTER TABLE windows ADD COLUMN bytes_sent INTEGER;"
	"ALTER TABLE windows ADD COLUMN bytes_received INTEGER;",
	/* version 9: dependencies (spec dependencies:), accounted over each
	 * window's measured part like the implementation (harness/account/account.h):
	 * one row per dependency per measured window. ncpus: the cores it
	 * may use (its cpus: as the kernel reports them, else every online
	 * cpu); exited: it exited during the window (the window is rejected
	 * by dependency_headroom and the dependency restarted before the
	 * next). Versions are events (kind dep_version). */
	"CREATE TABLE window_deps ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  name TEXT NOT NULL,"
	"  cpus TEXT,"                       /* cpu list it ran on, or NULL */
	"  ncpus REAL,"                      /* cores it may use */
	"  duration_s REAL,"
	"  cpu_s REAL,"                      /* CPU seconds over the window */
	"  nr_throttled INTEGER,"            /* NULL: backend gives none */
	"  throttled_usec INTEGER,"
	"  oom_kill INTEGER,"                /* NULL: backend gives none */
	"  anon_max REAL,"                   /* bytes */
	"  exited INTEGER NOT NULL,"
	"  PRIMARY KEY (window_id, name)"
	");",
	/* version 10: the rules a run was judged by (harness/gate/judge.h
	 * JUDGE_RULES); NULL for a run recorded before this version, whose
	 * error_rate verdicts followed the rule before the gate classes
	 * (audit --recheck reports those differences as rule changes). */
	"ALTER TABLE runs ADD COLUMN rules INTEGER;",
	/* version 11: the pre-flight (workload.preflight, harness/runner/preflight.h):
	 * cases sent to every implementation before the first window and how
	 * many passed (NULL: not run, e.g. recorded before this version), and
	 * its summary line followed by one line per failing case. Resets
	 * (implementations[].reset, dependencies[].reset): one row per reset
	 * command run before a window; exit_code -1 when it did not exit on
	 * its own (timed out, killed, could not be started). A failed reset
	 * rejects the window (reason reset_failed). */
	"ALTER TABLE runs ADD COLUMN preflight_cases INTEGER;"
	"ALTER TABLE runs ADD COLUMN preflight_passed INTEGER;"
	"ALTER TABLE runs ADD COLUMN preflight TEXT;"
	"CREATE TABLE window_resets ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  name TEXT NOT NULL,"              /* the implementation or dependency */
	"  kind TEXT NOT NULL,"              /* implementation|dependency */
	"  duration_s REAL,"
	"  exit_code INTEGER,"               /* -1: did not exit on its own */
	"  detail TEXT,"                     /* e.g. 'timed out after 300 s' */
	"  PRIMARY KEY (window_id, kind, name)"
	");",
	/* version 12: harness rerun --until-decided (harness/store/store_seq.h,
	 * docs/STATISTICS.md "Sequential rerun"): the stopping rule of each
	 * judged implementation, written before its sequential blocks, and
	 * its outcome; each metric's last estimate. */
	"CREATE TABLE sequential ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  impl TEXT NOT NULL,"              /* under test; its control: impl@base */
	"  alpha REAL NOT NULL,"             /* each metric's sequence at 1 - alpha */
	"  t_star REAL NOT NULL,"            /* the sequence's tuning, rounds */
	"  margin_pct REAL, margin_ms REAL, margin_cpu_us REAL,"
	"  max_minutes REAL NOT NULL, max_blocks INTEGER NOT NULL,"
	"  started_at REAL,"                 /* unix seconds: the rerun's start */
	"  rates TEXT,"                      /* judged rates, comma list; NULL: not yet */
	"  outcome TEXT,"                    /* regression|improvement|no change|inconclusive */
	"  stop TEXT,"                       /* decided|max_minutes|max_blocks|no_rates */
	"  blocks INTEGER, rounds INTEGER, elapsed_s REAL,"
	"  PRIMARY KEY (run_id, impl)"
	");"
	"CREATE TABLE sequential_metrics ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  impl TEXT NOT NULL,"
	"  metric TEXT NOT NULL,"            /* latency|cpu_per_request */
	"  verdict TEXT NOT NULL,"           /* undecided|no change|regression|improvement */
	"  rounds INTEGER,"
	"  est_pct REAL, lo_pct REAL, hi_pct REAL, margin_pct REAL, mde_pct REAL,"
	"  need_s REAL,"                     /* estimated seconds more to a decision */
	"  PRIMARY KEY (run_id, impl, metric)"
	");",
	/* version 13: arms not being measured do not run (docs/DESIGN.md):
	 * one row per other arm, and per dependency the window's
	 * implementation does not use and another arm does, over each window's measured part.
	 * frozen: the freezer that held it from warm-up to the window's end
	 * ('cgroup1 freezer', 'cgroup2 cgroup.freeze'), NULL when it was
	 * left running (no freezer: procfs, another host) and measured;
	 * cpu_s: its CPU seconds over the measured part (NULL unknown),
	 * judged by the idle_arms_quiet gate. */
	"CREATE TABLE window_idle ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  name TEXT NOT NULL,"              /* the arm, or dep-<name> */
	"  kind TEXT NOT NULL,"              /* implementation|dependency */
	"  frozen TEXT,"
	"  duration_s REAL,"
	"  cpu_s REAL,"
	"  PRIMARY KEY (window_id, kind, name)"
	");",
	/* version 14 (issue 28): the closed-loop stage (stages.saturation,
	 * harness/store/store_saturation.h): one row per implementation per rep,
	 * never a window (its latency is a service time, not comparable with
	 * the open loop's); and the footprint of each start of an
	 * implementation (harness/store/store_footprint.h): exec to first healthy,
	 * memory idle before any load, the declared artifact's size. */
	"CREATE TABLE saturation ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  impl TEXT NOT NULL,"
	"  rep INTEGER NOT NULL,"
	"  connections INTEGER NOT NULL,"
	"  elapsed_s REAL,"                  /* start to the last answer */
	"  requests INTEGER,"                /* answered */
	"  errors INTEGER,"                  /* transport errors + unexpected answers */
	"  throughput_rps REAL,"             /* requests / elapsed_s */
	"  p50_ms REAL, p90_ms REAL, p99_ms REAL, p999_ms REAL, max_ms REAL,"
	"  cpu_s REAL,"                      /* the implementation's CPU over it; NULL unknown */
	"  gen_cpu_pct REAL,"                /* generator CPU, % of its threads' cores */
	"  exited INTEGER,"                  /* 1: the implementation exited during it */
	"  hist BLOB,"                       /* latency histogram (hist.h) */
	"  PRIMARY KEY (run_id, impl, rep)"
	");"
	"CREATE TABLE footprint ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  impl TEXT NOT NULL,"
	"  at REAL,"                         /* unix seconds of the reading */
	"  startup_ms REAL,"                 /* exec -> first healthy answer */
	"  rss_kb INTEGER, pss_kb INTEGER,"  /* its processes, idle: after healthy, before load */
	"  artifact_bytes INTEGER"           /* implementations[].artifact; NULL none */
	");",
	/* version 15: a dependency's own ceiling and costs (issue 28,
	 * harness/store/store_dep.h). dep_ceiling: its ladder before the first
	 * window, one row per rung (rate NULL: a closed-loop command run
	 * once); throughput as the command reported it (ops/s), demand_rps
	 * its stats.demand counter's rate over the rung. window_dep_stats:
	 * its stats command's counters before (first) and after (last)
	 * each window's load (its discard seconds and drain included). window_deps gains the
	 * window's demand and the ceiling it was judged against
	 * (dependency_headroom, audit --recheck). */
	"CREATE TABLE dep_ceiling ("
	"  run_id TEXT NOT NULL REFERENCES runs(id),"
	"  name TEXT NOT NULL,"              /* the dependency */
	"  idx INTEGER NOT NULL,"            /* rung, 0.. */
	"  rate REAL,"                       /* offered ops/s; NULL: closed loop */
	"  duration_s REAL,"
	"  throughput REAL,"                 /* achieved ops/s, from its output */
	"  demand_rps REAL,"                 /* stats.demand's rate over the rung */
	"  kept_up INTEGER NOT NULL,"
	"  exit_code INTEGER,"               /* -1: did not exit on its own */
	"  PRIMARY KEY (run_id, name, idx)"
	");"
	"CREATE TABLE window_dep_stats ("
	"  window_id INTEGER NOT NULL REFERENCES windows(id),"
	"  name TEXT NOT NULL,"              /* the dependency */
	"  key TEXT NOT NULL,"               /* a counter of its stats output */
	"  first REAL, last REAL,"
	"  PRIMARY KEY (window_id, name, key)"
	");"
	"ALTER TABLE window_deps ADD COLUMN demand_rps REAL;"
	"ALTER TABLE window_deps ADD COLUMN ceiling_rps REAL;",
	/* version 16: requests the host held back (harness/load/load_hold.c):
	 * void, counted per window; the generator gate judges their share. */
	"ALTER TABLE windows ADD COLUMN host_void INTEGER;",
	/* version 17: how a sequential rule judged latency (decide.h
	 * decide_method_name; NULL in older runs: mean_cs). */
	"ALTER TABLE sequential ADD COLUMN method TEXT;",
	/* version 18: when each dependencies[].stats reading was taken (unix
	 * seconds: its command's start and end, before the window's load and
	 * after its drain); demand_rps is the demand counter's increase over
	 * the span between the two readings' middles. NULL: no reading. */
	"ALTER TABLE window_deps ADD COLUMN stats_first_start REAL;"
	"ALTER TABLE window_deps ADD COLUMN stats_first_end REAL;"
	"ALTER TABLE window_deps ADD COLUMN stats_last_start REAL;"
	"ALTER TABLE window_deps ADD COLUMN stats_last_end REAL;",
	/* version 19: the arm's CPU wait over each window (seconds its
	 * threads were runnable but not running: schedstat run_delay summed,
	 * harness/account/account_wait.c); evidence, no gate reads it. NULL:
	 * not known (older runs, an arm behind an agent, no thread read). */
	"ALTER TABLE windows ADD COLUMN cpu_wait_s REAL;",
	/* version 20: the span the arm's CPU accounting covered in each
	 * window (account.h duration_s: from the end of the discard seconds,
	 * as the load's coordinator saw it, to after the drain): the
	 * acct_span gate's evidence. NULL: not known (older runs, no
	 * accounting): not judged. */
	"ALTER TABLE windows ADD COLUMN acct_span_s REAL;",
	/* version 21: median_cs's guard rule of a sequential rule (decide.h
	 * decide_guard_rule_name: "drop_worst" sets each arm's worst window
	 * at a rate aside, "drop_worst_rise" too and holds only NEW's rise,
	 * new reruns' rule). NULL in older runs: "merged", every window. */
	"ALTER TABLE sequential ADD COLUMN guard TEXT;",
	/* version 22: what of the arm's CPU wait the host held in each
	 * window (account.h held_s, held_max_s, held_wait_s the whole
	 * sampled wait; account_held.c): the host_held gate's evidence, and
	 * the CPU the host gave work outside the arm and the harness over
	 * it; the gate's reference, the arm's usual held wait
	 * (harness/runner/runner_held.c). NULL: not known (older runs, an
	 * arm behind an agent): not judged. */
	"ALTER TABLE windows ADD COLUMN host_held_s REAL;"
	"ALTER TABLE windows ADD COLUMN host_held_max_s REAL;"
	"ALTER TABLE windows ADD COLUMN foreign_cpu_s REAL;"
	"ALTER TABLE windows ADD COLUMN host_held_ref_s REAL;"
	"ALTER TABLE windows ADD COLUMN host_wait_s REAL;",
	/* version 23: the margin a sequential rule judges "no change" against
	 * (decide.h decide_margin_rule_name, the spec's
	 * compare.sequential.margin_rule: "point", the default, the margin
	 * from BASE's medians; "base_bound", the margin from each rate's upper
	 * bound on BASE's median, the sequence at half the metric's alpha).
	 * NULL in older runs: "point". */
	"ALTER TABLE sequential ADD COLUMN margin_rule TEXT;",
	NULL,
};
