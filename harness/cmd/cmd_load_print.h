/*
 * cmd_load_print: what `harness load` measured (cmd_load.c), on stdout:
 * a text block, or one line of JSON for scripts. Percentiles print as -
 * (JSON null) when nothing was recorded; times in ms, rates in req/s.
 */
#ifndef HARNESS_CMD_LOAD_PRINT_H
#define HARNESS_CMD_LOAD_PRINT_H

#include <jansson.h>

#include "load/load.h"

/* (unexpected + transport errors + dropped) / due: what --error-rate-max
 * judges, as the error_rate gate does. */
double cmd_load_error_rate(const struct load_counts *c);

/* One line of JSON: every count, the percentiles in ms, the samples of
 * unexpected responses, per request name; agents (NULL: none) is added
 * under "agents" (a reference is taken, the caller keeps its own). */
void cmd_load_print_json(const struct load_config *cfg, const struct load_result *r,
			 const char *transport, double error_rate_max, json_t *agents);

/* The same as text lines, the per-request lines only for a mix. */
void cmd_load_print_text(const struct load_config *cfg, const struct load_result *r,
			 const char *transport, double error_rate_max);

#endif
