/* Text for values, bars and sparklines: what a cell shows, apart from
 * where the dashboard puts it. */
#include "gputop/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gt_fmt_si(char *buf, size_t len, double v)
{
    static const char prefix[] = " kMGTPE";
    double a = fabs(v);
    int i = 0;

    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    if (a < 1000) {
        if (a == floor(a))
            snprintf(buf, len, "%.0f", v);
        else
            snprintf(buf, len, a < 10 ? "%.2f" : "%.1f", v);
        return;
    }
    while (a >= 999.95 && i < 6) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    snprintf(buf, len, a < 10 ? "%.2f%c" : a < 100 ? "%.1f%c" : "%.0f%c", v, prefix[i]);
}

static size_t put(char *buf, size_t len, size_t pos, const char *s)
{
    size_t n = strlen(s);

    if (pos + n + 1 > len)
        return pos;
    memcpy(buf + pos, s, n + 1);
    return pos + n;
}

size_t gt_fmt_bar(char *buf, size_t len, int width, double fraction, int ascii)
{
    static const char *const eighths[] = { "", "\u258f", "\u258e", "\u258d", "\u258c",
                                           "\u258b", "\u258a", "\u2589" };
    size_t pos = 0;
    int i, full, part;

    if (len)
        buf[0] = '\0';
    if (isnan(fraction) || fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    full = (int)(fraction * width);
    part = (int)((fraction * width - full) * 8);
    for (i = 0; i < full; i++)
        pos = put(buf, len, pos, ascii ? "#" : "\u2588");
    if (full < width) {
        pos = put(buf, len, pos, ascii ? (part >= 4 ? "+" : ".") : (part ? eighths[part] : " "));
        for (i = full + 1; i < width; i++)
            pos = put(buf, len, pos, ascii ? "." : " ");
    }
    return pos;
}

size_t gt_fmt_sparkline(char *buf, size_t len, const double *v, size_t n,
                        double lo, double hi, int ascii)
{
    static const char *const ticks[] = { "\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588" };
    static const char ascii_ticks[] = "_.-:=+*#";
    size_t pos = 0, i;
    char one[2] = { 0, 0 };

    if (len)
        buf[0] = '\0';
    for (i = 0; i < n; i++) {
        int level;
        if (isnan(v[i])) {
            pos = put(buf, len, pos, " ");
            continue;
        }
        level = hi > lo ? (int)((v[i] - lo) / (hi - lo) * 7.999) : 0;
        level = level < 0 ? 0 : level > 7 ? 7 : level;
        one[0] = ascii_ticks[level];
        pos = put(buf, len, pos, ascii ? one : ticks[level]);
    }
    return pos;
}
