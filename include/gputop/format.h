/* Bars and sparklines, in UTF-8 or plain ASCII (the numbers beside them
 * are text.h's). */
#ifndef GPUTOP_FORMAT_H
#define GPUTOP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "gputop/text.h"   /* the numbers the cells show */

/* A bar of width columns filled to fraction (0..1, clamped). UTF-8 uses
 * eighth blocks; ASCII uses '#' for filled and '.' for empty columns.
 * Returns bytes written. */
size_t gt_fmt_bar(char *buf, size_t len, int width, double fraction, int ascii);
/* One column per value, scaled between lo and hi; no data is a blank. */
size_t gt_fmt_sparkline(char *buf, size_t len, const double *v, size_t n,
                        double lo, double hi, int ascii);
/* The same as code points, one per column, into out[width] / out[n]. */
void gt_fmt_bar_cells(uint32_t *out, int width, double fraction, int ascii);
void gt_fmt_sparkline_cells(uint32_t *out, const double *v, size_t n, double lo, double hi,
                            int ascii);

/* One code point (at most U+10FFFF) as UTF-8 into u[4]; returns bytes. */
size_t gt_utf8_encode(char *u, uint32_t c);

#endif
