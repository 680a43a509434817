/* The evaluation step every view shares: a snapshot's metric values and
 * the triage's verdict on them, once per interval, whichever views and
 * exports show them. */
#include "gputop/evaluate.h"

#include <math.h>
#include <stdlib.h>

struct gt_evaluator {
    const struct gt_layout *l;
    struct gt_engine *e;
    struct gt_triage *tree;      /* NULL: the layout has none */
    int *rule_metric;            /* per 'triage unit|queue' rule: its metric, -1 none */
    struct gt_interval iv;
};

struct gt_evaluator *gt_evaluator_new(const struct gt_layout *l, struct gt_engine *e)
{
    struct gt_evaluator *ev = calloc(1, sizeof(*ev));
    size_t i;

    if (!ev)
        return NULL;
    ev->l = l;
    ev->e = e;
    ev->rule_metric = calloc(l->ntriage + 1, sizeof(int));
    if (!ev->rule_metric || (l->nsteps && !(ev->tree = gt_triage_new(l, e)))) {
        gt_evaluator_free(ev);
        return NULL;
    }
    for (i = 0; i < l->ntriage; i++)
        ev->rule_metric[i] = gt_layout_find_metric(l, l->triage[i].metric);
    return ev;
}

void gt_evaluator_free(struct gt_evaluator *ev)
{
    if (!ev)
        return;
    gt_triage_free(ev->tree);
    free(ev->rule_metric);
    free(ev);
}

const struct gt_triage *gt_evaluator_tree(const struct gt_evaluator *ev)
{
    return ev->tree;
}

/* An interval in which a source had no data (it failed, or waits to be
 * retried) has no values, never zeros, and is not judged: a gap is no
 * evidence, and the verdict held before it still stands. */
const struct gt_interval *gt_evaluate(struct gt_evaluator *ev, const struct gt_snapshot *s,
                                      double *vals)
{
    struct gt_interval *iv = &ev->iv;
    size_t i;

    gt_engine_eval(ev->e, s, vals);
    iv->snap = s;
    iv->vals = vals;
    if (s->missing) {
        for (i = 0; i < ev->l->nmetrics; i++)
            vals[i] = NAN;
        return iv;
    }
    if (ev->tree) {
        iv->triage = gt_triage_update(ev->tree, s, vals);
        iv->verdict = iv->triage->verdict;
    } else {
        iv->verdict = gt_triage_verdict(ev->l, ev->e, ev->rule_metric, vals, NULL);
    }
    return iv;
}
