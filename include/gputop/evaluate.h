/* One interval as every view gets it: the snapshot, its metric values and
 * the triage's verdict on it, worked out once (issue 48). The dashboard or
 * the batch writer evaluates each snapshot it takes here and hands the
 * result to the exports beside it (Prometheus, trace) through its tap, so
 * that all of them show one verdict from one evaluation. */
#ifndef GPUTOP_EVALUATE_H
#define GPUTOP_EVALUATE_H

#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/snapshot.h"
#include "gputop/triage.h"

struct gt_interval {
    const struct gt_snapshot *snap;
    const double *vals;      /* [nmetrics] as gt_engine_eval gave them (counts per
                              * interval); all NaN when snap->missing */
    /* The decision tree's result, NULL for a layout without one (or
     * before an interval with data). An interval without data
     * (snap->missing) is not judged: the result is the last one. */
    const struct gt_triage_result *triage;
    /* What an export labels the interval with: the tree's held verdict,
     * or, without a tree, the verdict of the 'triage unit' rule whose
     * metric is highest; NULL when there is none. */
    const char *verdict;
};

struct gt_evaluator;

/* NULL when out of memory. The layout and engine are borrowed. */
struct gt_evaluator *gt_evaluator_new(const struct gt_layout *l, struct gt_engine *e);
void gt_evaluator_free(struct gt_evaluator *ev);
/* The layout's decision tree ('triage step'), NULL without one. */
const struct gt_triage *gt_evaluator_tree(const struct gt_evaluator *ev);
/* Evaluates s into vals[nmetrics] and judges it. The result points into
 * ev, s and vals, and holds until the next call. */
const struct gt_interval *gt_evaluate(struct gt_evaluator *ev, const struct gt_snapshot *s,
                                      double *vals);

#endif
