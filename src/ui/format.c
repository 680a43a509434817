/* Text for values, bars and sparklines: what a cell shows, apart from
 * where the dashboard puts it. */
#include "gputop/format.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gt_utf8_encode(char *u, uint32_t c)
{
    if (c < 0x80) {
        u[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        u[0] = (char)(0xC0 | (c >> 6));
        u[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        u[0] = (char)(0xE0 | (c >> 12));
        u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    u[0] = (char)(0xF0 | (c >> 18));
    u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    u[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Code points as UTF-8 into buf, whole characters only; returns bytes. */
static size_t encode(char *buf, size_t len, const uint32_t *cp, size_t n)
{
    size_t pos = 0, i;
    char u[4];

    if (len)
        buf[0] = '\0';
    for (i = 0; i < n; i++) {
        size_t k = gt_utf8_encode(u, cp[i]);
        if (pos + k + 1 > len)
            break;
        memcpy(buf + pos, u, k);
        pos += k;
        buf[pos] = '\0';
    }
    return pos;
}

void gt_fmt_bar_cells(uint32_t *out, int width, double fraction, int ascii)
{
    static const uint32_t eighths[] = { ' ', 0x258F, 0x258E, 0x258D, 0x258C,
                                        0x258B, 0x258A, 0x2589 };
    int i, full, part;

    if (isnan(fraction) || fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    full = (int)(fraction * width);
    part = (int)((fraction * width - full) * 8);
    for (i = 0; i < width; i++) {
        if (i < full)
            out[i] = ascii ? '#' : 0x2588;
        else if (i == full)
            out[i] = ascii ? (part >= 4 ? '+' : '.') : eighths[part];
        else
            out[i] = ascii ? '.' : ' ';
    }
}

size_t gt_fmt_bar(char *buf, size_t len, int width, double fraction, int ascii)
{
    uint32_t cp[512];

    if (width < 0)
        width = 0;
    if (width > 512)
        width = 512;
    gt_fmt_bar_cells(cp, width, fraction, ascii);
    return encode(buf, len, cp, (size_t)width);
}

void gt_fmt_sparkline_cells(uint32_t *out, const double *v, size_t n, double lo, double hi,
                            int ascii)
{
    static const char ascii_ticks[] = "_.-:=+*#";
    size_t i;

    for (i = 0; i < n; i++) {
        int level;
        if (isnan(v[i])) {
            out[i] = ' ';
            continue;
        }
        level = hi > lo ? (int)((v[i] - lo) / (hi - lo) * 7.999) : 0;
        level = level < 0 ? 0 : level > 7 ? 7 : level;
        out[i] = ascii ? (uint32_t)ascii_ticks[level] : 0x2581 + (uint32_t)level;
    }
}

size_t gt_fmt_sparkline(char *buf, size_t len, const double *v, size_t n,
                        double lo, double hi, int ascii)
{
    uint32_t cp[256];

    if (n > 256)
        n = 256;
    gt_fmt_sparkline_cells(cp, v, n, lo, hi, ascii);
    return encode(buf, len, cp, n);
}
