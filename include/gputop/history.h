/* Recent values of every metric, for sparklines and min / avg / max. */
#ifndef GPUTOP_HISTORY_H
#define GPUTOP_HISTORY_H

#include <stddef.h>

struct gt_history;

struct gt_history *gt_history_new(size_t nmetrics, size_t depth);
void   gt_history_free(struct gt_history *h);
/* Appends one value per metric (NaN = no data). */
void   gt_history_push(struct gt_history *h, const double *vals);
/* Copies up to max recent values of a metric, oldest first; returns the count. */
size_t gt_history_recent(const struct gt_history *h, size_t metric, double *out, size_t max);
/* Since the last reset; NaN when every value was no data. */
double gt_history_min(const struct gt_history *h, size_t metric);
double gt_history_max(const struct gt_history *h, size_t metric);
/* Mean of the values held (no data skipped). */
double gt_history_avg(const struct gt_history *h, size_t metric);
void   gt_history_reset(struct gt_history *h);

#endif
