/*
 * cmd: the subcommands, one file each (cmd_<name>.c), dispatched by main.c.
 * Each returns the process exit code (enum exit_code) and handles --help.
 */
#ifndef HARNESS_CMD_H
#define HARNESS_CMD_H

int cmd_check(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_knee(int argc, char **argv);
int cmd_rerun(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_runs(int argc, char **argv);

/* True when argv holds -h or --help (before a "--"). */
int cmd_wants_help(int argc, char **argv);

#endif
