/*
 * svgpng: an SVG document to PNG through rsvg-convert (Debian
 * librsvg2-bin), run with fork/execvp from an argv array, never a shell.
 * The SVG goes through a temporary file (mkstemp under $TMPDIR or /tmp),
 * removed before returning.
 */
#ifndef HARNESS_SVGPNG_H
#define HARNESS_SVGPNG_H

#include <stddef.h>

/* Write the PNG of svg (len bytes) to out_path, or to standard output
 * when out_path is NULL. 0, or -1 after an error() naming rsvg-convert
 * (missing: "install librsvg2-bin") or the file. */
int svg_to_png(const char *svg, size_t len, const char *out_path);

#endif
