/* Bounded text and numbers as text, for every part of gputop: the views,
 * the batch and export writers, the sources' descriptions. */
#include "gputop/text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* printf's "%*.*f" for the common case, in integer arithmetic: the scaled
 * value is rounded here unless it lies so close to a half that the
 * rounding error of the scaling could decide, and only then (or for huge,
 * infinite or NaN values) does snprintf run. Returns the length, or 0 when
 * snprintf is needed. */
static size_t fixed_fast(char *buf, size_t len, double v, int decimals, int width)
{
    static const double scale[] = { 1, 10, 100, 1000 };
    static const uint64_t iscale[] = { 1, 10, 100, 1000 };
    char tmp[32];
    double a = fabs(v), s, n, f;
    uint64_t q, ip, fp;
    size_t k = sizeof(tmp), out;
    int i;

    if (decimals < 0 || decimals > 3 || !(a < 1e12))
        return 0;
    s = a * scale[decimals];
    n = floor(s);
    f = s - n;
    if (fabs(f - 0.5) <= s * 4e-16 + 1e-300)
        return 0;
    q = (uint64_t)n + (f > 0.5);
    ip = q / iscale[decimals];
    fp = q % iscale[decimals];
    for (i = 0; i < decimals; i++, fp /= 10)
        tmp[--k] = (char)('0' + fp % 10);
    if (decimals)
        tmp[--k] = '.';
    do
        tmp[--k] = (char)('0' + ip % 10);
    while (ip /= 10);
    if (signbit(v))
        tmp[--k] = '-';
    while ((int)(sizeof(tmp) - k) < width && k > 0)
        tmp[--k] = ' ';
    out = sizeof(tmp) - k;
    if (out + 1 > len)
        return 0;
    memcpy(buf, tmp + k, out);
    buf[out] = '\0';
    return out;
}

size_t gt_fmt_fixed(char *buf, size_t len, double v, int decimals, int width)
{
    size_t n = fixed_fast(buf, len, v, decimals, width);
    int r;

    if (n || len == 0)
        return n;
    r = snprintf(buf, len, "%*.*f", width, decimals, v);
    return r < 0 ? 0 : (size_t)r < len ? (size_t)r : len - 1;
}

void gt_fmt_si(char *buf, size_t len, double v)
{
    static const char prefix[] = " kMGTPE";
    double a = fabs(v);
    size_t n;
    int i = 0;

    if (isnan(v)) {
        if (len >= 2)
            memcpy(buf, "-", 2);
        else if (len)
            buf[0] = '\0';
        return;
    }
    if (a < 1000) {
        gt_fmt_fixed(buf, len, v, a == floor(a) ? 0 : a < 10 ? 2 : 1, 0);
        return;
    }
    while (a >= 999.95 && i < 6) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    n = gt_fmt_fixed(buf, len, v, a < 10 ? 2 : a < 100 ? 1 : 0, 0);
    if (i && n + 2 <= len) {
        buf[n] = prefix[i];
        buf[n + 1] = '\0';
    }
}

/* Removes the zeros a "%.Nf" left at the end of a fraction, and the point. */
static void drop_trailing_zeros(char *buf)
{
    char *end;

    if (!strchr(buf, '.'))
        return;
    end = buf + strlen(buf);
    while (end[-1] == '0')
        *--end = '\0';
    if (end[-1] == '.')
        end[-1] = '\0';
}

static void shortest_exact(char *buf, size_t len, double v)
{
    int p;

    for (p = 15; p < 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return;
    }
    snprintf(buf, len, "%.17g", v);
}

void gt_fmt_sig(char *buf, size_t len, double v, int digits)
{
    double a = fabs(v);
    char e[40];
    int exp10;

    if (v == 0) {
        snprintf(buf, len, "0");   /* also for -0 */
        return;
    }
    if (digits <= 0) {
        shortest_exact(buf, len, v);
        return;
    }
    if (digits > 17)
        digits = 17;
    if (a == floor(a) && a < 1e18) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    /* The decimal exponent after rounding to digits, as %g decides it:
     * 99.99996 to six digits is 100.000, exponent 2. */
    snprintf(e, sizeof(e), "%.*e", digits - 1, v);
    exp10 = atoi(strchr(e, 'e') + 1);
    if (exp10 < -4 || exp10 >= 18) {
        snprintf(buf, len, "%.*g", digits, v);
        return;
    }
    snprintf(buf, len, "%.*f", exp10 >= digits - 1 ? 0 : digits - 1 - exp10, v);
    drop_trailing_zeros(buf);
}

void gt_text_init(struct gt_text *t, char *buf, size_t cap)
{
    t->p = buf;
    t->cap = cap;
    t->len = 0;
    buf[0] = '\0';
}

void gt_text_addn(struct gt_text *t, const char *s, size_t n)
{
    size_t room = t->cap - 1 - t->len;

    if (n > room)
        n = room;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void gt_text_add(struct gt_text *t, const char *s)
{
    gt_text_addn(t, s, strlen(s));
}

void gt_text_uint(struct gt_text *t, unsigned long long v)
{
    char d[24];
    size_t k = sizeof(d) - 1;

    d[k] = '\0';
    do
        d[--k] = (char)('0' + v % 10);
    while ((v /= 10) && k > 0);
    gt_text_add(t, d + k);
}

void gt_text_fixed(struct gt_text *t, double v, int decimals, int width)
{
    t->len += gt_fmt_fixed(t->p + t->len, t->cap - t->len, v, decimals, width);
}

void gt_text_si(struct gt_text *t, double v)
{
    gt_fmt_si(t->p + t->len, t->cap - t->len, v);
    t->len += strlen(t->p + t->len);
}

int gt_text_contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}
