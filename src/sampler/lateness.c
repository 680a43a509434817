/* Wake-up lateness: a log-scale histogram (eight buckets per power of two,
 * so any quantile is read to within 12.5 %) with the exact maximum. */
#include "gputop/lateness.h"

#include <stdio.h>
#include <string.h>

void gt_lateness_clear(struct gt_lateness *l)
{
    memset(l, 0, sizeof(*l));
}

/* Values below 8 ns have a bucket each; above, the power of two picks a
 * group of eight and the next three bits the bucket in it. */
static unsigned bucket_of(uint64_t v)
{
    unsigned e;

    if (v < GT_LATENESS_SUB)
        return (unsigned)v;
    e = 63u - (unsigned)__builtin_clzll(v);
    if (e - 2 >= GT_LATENESS_BUCKETS / GT_LATENESS_SUB)
        return GT_LATENESS_BUCKETS - 1;
    return (e - 2) * GT_LATENESS_SUB + (unsigned)((v >> (e - 3)) & (GT_LATENESS_SUB - 1));
}

/* The largest value that falls in bucket b. */
static uint64_t bucket_top(unsigned b)
{
    unsigned e = b / GT_LATENESS_SUB + 2, sub = b % GT_LATENESS_SUB;

    if (b < GT_LATENESS_SUB)
        return b;
    return ((uint64_t)(GT_LATENESS_SUB + sub + 1) << (e - 3)) - 1;
}

void gt_lateness_add(struct gt_lateness *l, uint64_t late_ns, uint64_t period_ns)
{
    l->bucket[bucket_of(late_ns)]++;
    l->count++;
    if (late_ns > l->max_ns)
        l->max_ns = late_ns;
    if (period_ns && late_ns > period_ns)
        l->over_period++;
}

uint64_t gt_lateness_quantile(const struct gt_lateness *l, double q)
{
    uint64_t want, seen = 0, top;
    unsigned b;

    if (!l->count)
        return 0;
    want = (uint64_t)(q * (double)l->count + 0.999999);
    if (want < 1)
        want = 1;
    for (b = 0; b < GT_LATENESS_BUCKETS; b++) {
        seen += l->bucket[b];
        if (seen >= want)
            break;
    }
    /* The last bucket has no top: everything later lands there. */
    if (b >= GT_LATENESS_BUCKETS - 1)
        return l->max_ns;
    top = bucket_top(b);
    return top < l->max_ns ? top : l->max_ns;
}

void gt_lateness_summarize(const struct gt_lateness *l, struct gt_lateness_summary *out)
{
    out->count = l->count;
    out->p50_ns = gt_lateness_quantile(l, 0.50);
    out->p99_ns = gt_lateness_quantile(l, 0.99);
    out->max_ns = l->max_ns;
    out->over_period = l->over_period;
}

static void duration(char *buf, size_t len, uint64_t ns)
{
    if (ns < 1000000)
        snprintf(buf, len, "%.0f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

void gt_lateness_quantiles(const struct gt_lateness_summary *s, char *buf, unsigned long len)
{
    char p50[24], p99[24], max[24];

    duration(p50, sizeof(p50), s->p50_ns);
    duration(p99, sizeof(p99), s->p99_ns);
    duration(max, sizeof(max), s->max_ns);
    snprintf(buf, len, "p50 %s, p99 %s, max %s", p50, p99, max);
}

void gt_lateness_format(const struct gt_lateness_summary *s, char *buf, unsigned long len)
{
    char q[80];

    gt_lateness_quantiles(s, q, sizeof(q));
    snprintf(buf, len, "%s, %llu late by more than a period", q,
             (unsigned long long)s->over_period);
}
