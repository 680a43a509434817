/* The lateness histogram: quantiles within one bucket (1/8) above the
 * true value, exact maximum and count over a period. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/lateness.h"

Test(lateness, empty_is_zero)
{
    struct gt_lateness l;
    struct gt_lateness_summary s;

    gt_lateness_clear(&l);
    gt_lateness_summarize(&l, &s);
    cr_assert_eq(s.count, 0);
    cr_assert_eq(s.p50_ns, 0);
    cr_assert_eq(s.p99_ns, 0);
    cr_assert_eq(s.max_ns, 0);
}

/* 1000 wake-ups late by 1, 2, ... 1000 us on a 500 us period: the median
 * is 500 us and the 99th percentile 990 us (the 500th and 990th values),
 * 500 of them (501..1000 us) are later than the period, the latest 1 ms. */
Test(lateness, quantiles_of_a_known_spread)
{
    static struct gt_lateness l;
    struct gt_lateness_summary s;
    uint64_t k;

    gt_lateness_clear(&l);
    for (k = 1000; k >= 1; k--)
        gt_lateness_add(&l, k * 1000, 500000);
    gt_lateness_summarize(&l, &s);
    cr_assert_eq(s.count, 1000);
    cr_assert_eq(s.max_ns, 1000000);
    cr_assert_eq(s.over_period, 500);
    cr_assert_geq(s.p50_ns, 500000);
    cr_assert_leq(s.p50_ns, 562500, "p50 %llu more than 1/8 above 500 us",
                  (unsigned long long)s.p50_ns);
    cr_assert_geq(s.p99_ns, 990000);
    cr_assert_leq(s.p99_ns, 1000000, "never above the maximum");
}

/* Small values are exact; one huge value lands in the last bucket and the
 * quantiles never exceed the true maximum. */
Test(lateness, small_values_exact_and_huge_ones_capped)
{
    static struct gt_lateness l;
    int i;

    gt_lateness_clear(&l);
    for (i = 0; i < 99; i++)
        gt_lateness_add(&l, 5, 0);
    gt_lateness_add(&l, UINT64_MAX / 2, 0);
    cr_assert_eq(gt_lateness_quantile(&l, 0.5), 5);
    cr_assert_eq(gt_lateness_quantile(&l, 0.99), 5);
    cr_assert_eq(gt_lateness_quantile(&l, 1.0), UINT64_MAX / 2);
    cr_assert_eq(l.over_period, 0, "no period: nothing is over it");
}

Test(lateness, format)
{
    struct gt_lateness_summary s = { 100, 115000, 2500000, 1200000000, 3 };
    char buf[128];

    gt_lateness_format(&s, buf, sizeof(buf));
    cr_assert_str_eq(buf, "p50 115 us, p99 2.5 ms, max 1.20 s, 3 late by more than a period");
}
