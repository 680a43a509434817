/* Per-metric ring buffers of recent values plus running min and max. */
#include "gputop/history.h"

#include <math.h>
#include <stdlib.h>

struct gt_history {
    size_t nmetrics, depth, head, count;
    double *ring;      /* depth rows of nmetrics values */
    double *min, *max;
};

struct gt_history *gt_history_new(size_t nmetrics, size_t depth)
{
    struct gt_history *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    h->nmetrics = nmetrics ? nmetrics : 1;
    h->depth = depth ? depth : 1;
    h->ring = calloc(h->nmetrics * h->depth, sizeof(double));
    h->min = calloc(h->nmetrics, sizeof(double));
    h->max = calloc(h->nmetrics, sizeof(double));
    if (!h->ring || !h->min || !h->max) {
        gt_history_free(h);
        return NULL;
    }
    gt_history_reset(h);
    return h;
}

void gt_history_free(struct gt_history *h)
{
    if (!h)
        return;
    free(h->ring);
    free(h->min);
    free(h->max);
    free(h);
}

void gt_history_reset(struct gt_history *h)
{
    size_t i;

    for (i = 0; i < h->nmetrics; i++)
        h->min[i] = h->max[i] = NAN;
}

void gt_history_push(struct gt_history *h, const double *vals)
{
    double *row = h->ring + h->head * h->nmetrics;
    size_t i;

    for (i = 0; i < h->nmetrics; i++) {
        double v = vals[i];
        row[i] = v;
        if (isnan(v))
            continue;
        if (isnan(h->min[i]) || v < h->min[i])
            h->min[i] = v;
        if (isnan(h->max[i]) || v > h->max[i])
            h->max[i] = v;
    }
    h->head = (h->head + 1) % h->depth;
    if (h->count < h->depth)
        h->count++;
}

size_t gt_history_recent(const struct gt_history *h, size_t metric, double *out, size_t max)
{
    size_t n = h->count < max ? h->count : max, i;
    size_t start = (h->head + h->depth - n) % h->depth;

    for (i = 0; i < n; i++)
        out[i] = h->ring[((start + i) % h->depth) * h->nmetrics + metric];
    return n;
}

double gt_history_min(const struct gt_history *h, size_t metric) { return h->min[metric]; }
double gt_history_max(const struct gt_history *h, size_t metric) { return h->max[metric]; }

double gt_history_avg(const struct gt_history *h, size_t metric)
{
    double sum = 0;
    size_t i, n = 0;

    for (i = 0; i < h->count; i++) {
        double v = h->ring[i * h->nmetrics + metric];
        if (!isnan(v)) {
            sum += v;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}
