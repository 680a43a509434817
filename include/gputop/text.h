/* Bounded text and numbers as text (src/base/text.c): a string built by
 * appends that never overflows, and the number forms the views and the
 * batch writers share. */
#ifndef GPUTOP_TEXT_H
#define GPUTOP_TEXT_H

#include <stddef.h>

/* Exactly what snprintf's "%*.*f" (width, decimals 0-3) writes, faster for
 * ordinary values; returns the length written. */
size_t gt_fmt_fixed(char *buf, size_t len, double v, int decimals, int width);
/* "85.2M", "1.23G", "512", "0.25", "-" for no data; at most 6 columns. */
void gt_fmt_si(char *buf, size_t len, double v);
/* A finite v with digits (1..17) significant digits, for batch output:
 * plain notation from 1e-4 up to 1e18 with trailing zeros dropped, an
 * integer part never cut short ("955550380", "25.3908", "0.000123457"),
 * integers whole; an exponent outside that range ("1.23457e-05").
 * digits 0: the shortest text that reads back as the same double. */
void gt_fmt_sig(char *buf, size_t len, double v, int digits);

/* A bounded string under construction: appends are clipped to the buffer
 * and the text stays terminated, without printf's parsing. */
struct gt_text {
    char *p;
    size_t cap, len;
};

void gt_text_init(struct gt_text *t, char *buf, size_t cap);   /* cap >= 1 */
void gt_text_add(struct gt_text *t, const char *s);
void gt_text_addn(struct gt_text *t, const char *s, size_t n);   /* n bytes of s, all there */
void gt_text_uint(struct gt_text *t, unsigned long long v);
/* gt_fmt_fixed and gt_fmt_si appended. */
void gt_text_fixed(struct gt_text *t, double v, int decimals, int width);
void gt_text_si(struct gt_text *t, double v);

/* 1 when needle is in hay, letters' case ignored ("" is in any). */
int gt_text_contains_nocase(const char *hay, const char *needle);

#endif
