/* Freeing a layout and its parts: the parser frees what it abandons, the
 * loader and the {hw:} binding free what they drop. */
#include "gputop/layout.h"
#include "gputop/expr.h"
#include "gputop/triage.h"

#include <stdlib.h>

void gt_layout_metric_free(struct gt_metric_def *m)
{
    free(m->title);
    free(m->ref);
    free(m->unit);
    free(m->desc);
    free(m->expr_text);
    gt_expr_free(m->expr);
    free(m->peak_text);
    gt_expr_free(m->peak);
    free(m->pop_text);
    gt_expr_free(m->pop);
}

void gt_layout_rule_free(struct gt_triage_rule *r)
{
    free(r->kind);
    free(r->metric);
    free(r->label);
    free(r->verdict);
    free(r->next);
}

void gt_layout_free(struct gt_layout *l)
{
    size_t i;

    if (!l)
        return;
    for (i = 0; i < l->ngpus; i++)
        free(l->gpus[i]);
    free(l->gpus);
    for (i = 0; i < l->nmatches; i++) {
        free(l->matches[i].source);
        free(l->matches[i].ids);
    }
    free(l->matches);
    for (i = 0; i < l->naggs; i++)
        free(l->aggs[i].block);
    free(l->aggs);
    for (i = 0; i < l->noptions; i++) {
        free(l->options[i].source);
        free(l->options[i].key);
        free(l->options[i].value);
    }
    free(l->options);
    for (i = 0; i < l->nsections; i++) {
        free(l->sections[i].title);
        free(l->sections[i].tab);
    }
    free(l->sections);
    for (i = 0; i < l->ngroups; i++)
        free(l->groups[i].title);
    free(l->groups);
    for (i = 0; i < l->nmetrics; i++)
        gt_layout_metric_free(&l->metrics[i]);
    free(l->metrics);
    for (i = 0; i < l->ntriage; i++)
        gt_layout_rule_free(&l->triage[i]);
    free(l->triage);
    gt_layout_triage_free(l);
    free(l->name);
    free(l->title);
    free(l->family);
    free(l->file);
    free(l->text);
    free(l);
}
