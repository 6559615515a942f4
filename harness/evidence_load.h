/*
 * evidence_load: a window phase's evidence, read back from the run
 * database (audit --recheck). Kept apart from evidence.c so the runner's
 * hot path does not depend on sqlite reads.
 */
#ifndef HARNESS_EVIDENCE_LOAD_H
#define HARNESS_EVIDENCE_LOAD_H

#include "evidence.h"
#include "store.h"

/* Fill e (initialised here; caller releases) with window wid's evidence
 * for phase (warm-up: its seconds and polls; window: the measured part). */
int evidence_load(struct store *st, int64_t wid, enum gate_phase phase, struct evidence *e);

#endif
