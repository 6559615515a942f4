/*
 * depstats: what a dependency's own commands print, read as numbers
 * (dependencies[].stats and .ladder, specs/README.md "A dependency's
 * ceiling and costs").
 *
 * Stats output: each line "NAME<sep>NUMBER", sep the last ':', '|', tab
 * or space of the line (redis-cli INFO's "total_commands_processed:42",
 * psql -At's "time:SELECT ... WHERE id = $1|12.5"); a carriage return is
 * dropped; a line whose last field is not a number is skipped; a NAME
 * given twice keeps its last value.
 *
 * Ownership: struct depstats owns its keys (depstats_release). No global
 * state.
 */
#ifndef HARNESS_DEPSTATS_H
#define HARNESS_DEPSTATS_H

#include <stddef.h>

struct depstats {
	char **keys;
	double *vals;
	size_t n;
};

void depstats_parse(const char *text, size_t len, struct depstats *out);
/* The value of key, NAN when absent. */
double depstats_get(const struct depstats *s, const char *key);
void depstats_release(struct depstats *s);

/* The first group of pattern's (POSIX ERE) first match in text, as a
 * number: 0, or -1 when the pattern does not compile or nothing matched
 * as a number (*out NAN). */
int depstats_throughput(const char *pattern, const char *text, double *out);

/* A ladder rung keeps up when its command exited 0 and achieved at least
 * (100 - tolerance_pct)% of its rate (a closed-loop run, rate NAN: when
 * it achieved anything). */
int depstats_kept_up(double rate, double achieved, int exit_code, double tolerance_pct);

#endif
