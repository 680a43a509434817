/* Text for values, bars and sparklines, in UTF-8 or plain ASCII. */
#ifndef GPUTOP_FORMAT_H
#define GPUTOP_FORMAT_H

#include <stddef.h>

/* "85.2M", "1.23G", "512", "0.25", "-" for no data; at most 6 columns. */
void gt_fmt_si(char *buf, size_t len, double v);
/* A bar of width columns filled to fraction (0..1, clamped). UTF-8 uses
 * eighth blocks; ASCII uses '#' for filled and '.' for empty columns.
 * Returns bytes written. */
size_t gt_fmt_bar(char *buf, size_t len, int width, double fraction, int ascii);
/* One column per value, scaled between lo and hi; no data is a blank. */
size_t gt_fmt_sparkline(char *buf, size_t len, const double *v, size_t n,
                        double lo, double hi, int ascii);

#endif
