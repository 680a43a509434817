/* Text for values, bars and sparklines: the fast fixed-point formatter
 * against snprintf, SI prefixes, and the drawn widths. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gputop/format.h"

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void same_as_printf(double v, int decimals, int width)
{
    char want[64], got[64];
    size_t n = gt_fmt_fixed(got, sizeof(got), v, decimals, width);

    snprintf(want, sizeof(want), "%*.*f", width, decimals, v);
    cr_assert_str_eq(got, want, "%.17g with %d decimals, width %d", v, decimals, width);
    cr_assert_eq(n, strlen(want));
}

Test(format, fixed_matches_printf_on_random_values)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int i, d;

    for (i = 0; i < 200000; i++) {
        /* Mantissas over twelve decades, both signs, some exact binary fractions. */
        double mag = pow(10.0, (double)(next_rand(&x) % 120) / 10.0 - 3.0);
        double v = (double)(next_rand(&x) >> 11) / 9007199254740992.0 * mag;
        if (i % 7 == 0)
            v = (double)(next_rand(&x) % 100000) / 8.0;      /* exact ties */
        if (i % 2)
            v = -v;
        for (d = 0; d <= 3; d++)
            same_as_printf(v, d, (int)(next_rand(&x) % 8));
    }
}

Test(format, fixed_matches_printf_on_edges)
{
    static const double v[] = { 0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 0.005, 0.015, 0.045,
                                999.95, 999.949999, 1e11, 1e12, 1e300, -1e-300, 9.995,
                                99.95, 2.675, 1.005, INFINITY, -INFINITY, NAN };
    size_t i;
    int d;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        for (d = 0; d <= 3; d++) {
            same_as_printf(v[i], d, 0);
            same_as_printf(v[i], d, 5);
        }
}

Test(format, fixed_never_overflows_its_buffer)
{
    char buf[4] = "xxx";

    gt_fmt_fixed(buf, sizeof(buf), 12345.678, 2, 0);
    cr_assert_eq(strlen(buf), 3);
    cr_assert_eq(gt_fmt_fixed(buf, 0, 1.0, 1, 0), 0);
}

Test(format, si_prefixes)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        { 0, "0" }, { 512, "512" }, { 0.25, "0.25" }, { 12.5, "12.5" }, { 1000, "1.00k" },
        { 85200000, "85.2M" }, { 1234000000, "1.23G" }, { 999999, "1.00M" },
        { 336000, "336k" }, { -4200, "-4.20k" }, { NAN, "-" }, { 5e18, "5.00E" },
    };
    char buf[32];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gt_fmt_si(buf, sizeof(buf), cases[i].v);
        cr_assert_str_eq(buf, cases[i].want, "%g", cases[i].v);
    }
}

/* "-" for no value, cut to what a short buffer holds, as snprintf would. */
Test(format, si_without_value_fits_short_buffers)
{
    char two[2] = "xx", one[1] = "x";

    gt_fmt_si(two, sizeof(two), NAN);
    cr_assert_str_eq(two, "-");
    gt_fmt_si(one, sizeof(one), NAN);
    cr_assert_eq(one[0], '\0');
}

/* n bytes appended as given (a word of a unit, "cycles" of "cycles/s"),
 * cut at the buffer's end, and the text kept terminated. */
Test(format, text_addn_appends_a_prefix_and_stops_at_the_end)
{
    char buf[8];
    struct gt_text t;

    gt_text_init(&t, buf, sizeof(buf));
    gt_text_add(&t, "a ");
    gt_text_addn(&t, "cycles/s", 6);
    cr_assert_str_eq(buf, "a cycle");   /* 7 bytes and the terminator */
    cr_assert_eq(t.len, 7);
    gt_text_addn(&t, "more", 4);
    cr_assert_str_eq(buf, "a cycle");
    gt_text_init(&t, buf, sizeof(buf));
    gt_text_addn(&t, "ab/cd", 2);
    gt_text_uint(&t, 42);
    cr_assert_str_eq(buf, "ab42");
}

/* Columns of UTF-8 text: every character drawn is one column. */
static size_t columns(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

Test(format, bars_fill_their_width)
{
    char buf[256];

    gt_fmt_bar(buf, sizeof(buf), 10, 0.5, 1);
    cr_assert_str_eq(buf, "#####.....");
    gt_fmt_bar(buf, sizeof(buf), 10, 1.5, 1);
    cr_assert_str_eq(buf, "##########");
    gt_fmt_bar(buf, sizeof(buf), 4, NAN, 1);
    cr_assert_str_eq(buf, "....");
    gt_fmt_bar(buf, sizeof(buf), 10, 0.55, 0);
    cr_assert_eq(columns(buf), 10);
    cr_assert(strstr(buf, "\u258c"), "half a column drawn as a half block: %s", buf);
}

Test(format, sparklines_scale_between_lo_and_hi)
{
    double v[] = { 0, 50, 100, NAN };
    char buf[64];

    gt_fmt_sparkline(buf, sizeof(buf), v, 4, 0, 100, 1);
    cr_assert_str_eq(buf, "_:# ");
    gt_fmt_sparkline(buf, sizeof(buf), v, 4, 0, 100, 0);
    cr_assert_str_eq(buf, "\u2581\u2584\u2588 ");
}

/* Significant digits for batch output, worked out by hand: six digits by
 * default, whole integer parts never cut, no exponent between 1e-4 and
 * 1e18, trailing zeros dropped; 0 digits: the shortest text that reads
 * back as the same double. */
Test(format, significant_digits)
{
    const struct {
        double v;
        int digits;
        const char *want;
    } cases[] = {
        { 955550380.46924508, 6, "955550380" },      /* the issue's 17-digit value */
        { 25.390846464543397, 6, "25.3908" },
        { 0.59088782269021745, 6, "0.590888" },
        { 2.0084072863148061, 6, "2.00841" },
        { 250.0 / 3, 6, "83.3333" },
        { 99.99996, 6, "100" },                       /* rounds up a decade */
        { 1.5, 6, "1.5" },
        { -2.5, 6, "-2.5" },
        { 0, 6, "0" },
        { -0.0, 6, "0" },
        { 100, 6, "100" },
        { 5000000000.0, 6, "5000000000" },            /* integers whole */
        { 1234567.25, 6, "1234567" },
        { 0.000123456789, 6, "0.000123457" },
        { 0.0000123456789, 6, "1.23457e-05" },
        { 1e-300, 6, "1e-300" },
        { 1e20, 6, "1e+20" },
        { 25.390846464543397, 3, "25.4" },
        { 0.59088782269021745, 1, "0.6" },
        { 250.0 / 3, 0, "83.33333333333333" },         /* 16 digits suffice */
        { 1.0 / 3, 0, "0.3333333333333333" },
        { 0.1, 0, "0.1" },
        { 955550380.46924508, 0, "955550380.4692451" },   /* 16 read back */
        { 0.1 + 0.2, 0, "0.30000000000000004" },         /* needs all 17 */
        { 5000000000.0, 0, "5000000000" },
    };
    char buf[64];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        gt_fmt_sig(buf, sizeof(buf), cases[i].v, cases[i].digits);
        cr_assert_str_eq(buf, cases[i].want, "%.17g with %d digits", cases[i].v, cases[i].digits);
    }
}

Test(format, shortest_digits_read_back_exactly)
{
    uint64_t x = 0x2545F4914F6CDD1Dull;
    char buf[64];
    int i;

    for (i = 0; i < 20000; i++) {
        double mag = pow(10.0, (double)(next_rand(&x) % 400) / 10.0 - 20.0);
        double v = (double)(next_rand(&x) >> 11) / 9007199254740992.0 * mag;
        gt_fmt_sig(buf, sizeof(buf), v, 0);
        cr_assert_eq(strtod(buf, NULL), v, "%s", buf);
    }
}
