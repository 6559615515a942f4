/*
 * rate: when two offered rates are one rung. Every grouping of windows by
 * rate (cells, the knee's rungs, the report's roll-ups and dependency
 * rungs, history, compare, the runner's sequential stages, its
 * replacement count per cell and its test hook) asks rate_same, so a rung
 * has one definition.
 *
 * The tolerance, 1e-9 relative: the rates a run stores are doubles the
 * plan computed (a ladder rung start_rps * step^k, a refine point the
 * geometric middle of a bracket or the whole rate nearest it, a confirm
 * rate a bracket's end, a soak rate rounded), written to sqlite and read
 * back bit for bit, and the runner's own state carries them with %.17g;
 * two windows of one rung hold the same double. The one lossy path is
 * text: windows.csv prints rates with %.10g (`harness knee --windows`
 * reads it back), at most 5e-10 off, and a rate typed by hand (the stall
 * hook) is the nearest double to its decimal. Two distinct rungs are far
 * apart (a ladder's step above 1 by more than 1e-9, a refine point half a
 * resolution_pct from its bracket's ends), so no tolerance between 1e-9
 * and 1e-4 groups a stored run differently (tests/same_outputs.sh renders
 * stored runs with a build before and after).
 */
#ifndef HARNESS_RATE_H
#define HARNESS_RATE_H

/* 1 when a and b are one rung: |a - b| <= 1e-9 x max(1, |a|, |b|). */
int rate_same(double a, double b);

#endif
