/* How late timed wake-ups were: a fixed log-scale histogram, cheap and
 * allocation-free to update on the sampler thread, from which p50 and p99
 * are read to within 1/8 of the value; the maximum and the count late by
 * more than one period are exact. */
#ifndef GPUTOP_LATENESS_H
#define GPUTOP_LATENESS_H

#include <stdint.h>

/* Eight buckets per power of two of nanoseconds, up to 2^40 ns (18 min);
 * anything later goes in the last one. */
#define GT_LATENESS_SUB     8
#define GT_LATENESS_BUCKETS (GT_LATENESS_SUB * 38)

struct gt_lateness {
    uint64_t bucket[GT_LATENESS_BUCKETS];
    uint64_t count;          /* wake-ups recorded */
    uint64_t max_ns;
    uint64_t over_period;    /* later than one whole period */
};

/* What a view shows. */
struct gt_lateness_summary {
    uint64_t count, p50_ns, p99_ns, max_ns, over_period;
};

void gt_lateness_clear(struct gt_lateness *l);
/* A wake-up late_ns after its deadline, on a period of period_ns. */
void gt_lateness_add(struct gt_lateness *l, uint64_t late_ns, uint64_t period_ns);
/* The smallest bucket bound at or above the q-th fraction of wake-ups
 * (0 < q <= 1), never above the maximum; 0 when there are none. */
uint64_t gt_lateness_quantile(const struct gt_lateness *l, double q);
void gt_lateness_summarize(const struct gt_lateness *l, struct gt_lateness_summary *out);
/* "p50 115 us, p99 300 us, max 1.2 ms" */
void gt_lateness_quantiles(const struct gt_lateness_summary *s, char *buf, unsigned long len);
/* "p50 115 us, p99 300 us, max 1.2 ms, 0 late by more than a period" */
void gt_lateness_format(const struct gt_lateness_summary *s, char *buf, unsigned long len);

#endif
