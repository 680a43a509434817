/* The triage line: the layout's decision tree's verdict and the values that
 * decided it; for a layout without a tree ('triage step'), the busiest queue
 * and unit (a metric with a peak by its percent of peak). Narrow, the
 * values give way: the verdict stays. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <math.h>
#include <string.h>

enum { FORM_FULL, FORM_UNIT, FORM_VERDICT, NFORMS };

static void triage_text(struct tui *t, char *buf, size_t len, int form)
{
    double best_q = NAN, best_u = NAN;
    const struct gt_triage_rule *q = NULL, *u = NULL;
    struct gt_text s;
    long r;

    if (t->have_data) {
        r = gt_triage_best_rule(t->l, t->cfg->engine, t->triage_metric, t->vals, "queue", &best_q);
        q = r >= 0 ? &t->l->triage[r] : NULL;
        r = gt_triage_best_rule(t->l, t->cfg->engine, t->triage_metric, t->vals, "unit", &best_u);
        u = r >= 0 ? &t->l->triage[r] : NULL;
    }
    gt_text_init(&s, buf, len);
    if (!q && !u) {
        gt_text_add(&s, " triage: no data yet");
        return;
    }
    if (u && u->verdict && form == FORM_VERDICT) {
        gt_text_add(&s, " ");
        gt_text_add(&s, u->verdict);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_u, 0, 0);
        gt_text_add(&s, "%");
        return;
    }
    if (q && !(u && form != FORM_FULL)) {
        gt_text_add(&s, " ");
        gt_text_add(&s, q->label);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_q, 0, 0);
        gt_text_add(&s, "%");
    }
    if (u) {
        gt_text_add(&s, s.len ? tui_sep(t) : " ");
        gt_text_add(&s, u->label);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_u, 0, 0);
        gt_text_add(&s, "%");
        if (u->verdict) {
            gt_text_add(&s, t->ascii ? " -> " : " \u2192 ");
            gt_text_add(&s, u->verdict);
        }
    }
}

/* One piece of evidence, "Execution core utilization 86%"; brief: the
 * guide's number or, for gputop's own metrics, the title. */
static void evidence_text(const struct tui *t, struct gt_text *s,
                          const struct gt_triage_evidence *ev, int brief)
{
    const struct gt_triage_cond *c = &t->l->steps[ev->step].conds[ev->cond];
    const struct gt_metric_def *m = c->metric >= 0 ? &t->l->metrics[c->metric] : NULL;
    const char *unit = m ? m->unit : "%";

    gt_text_add(s, brief && m && m->ref ? m->ref : ev->what);
    gt_text_add(s, " ");
    gt_text_fixed(s, ev->value, fabs(ev->value) < 10 && strcmp(unit, "%") ? 1 : 0, 0);
    gt_text_add(s, strcmp(unit, "%") == 0 || !unit[0] ? "" : " ");
    gt_text_add(s, unit);
}

/* The verdict, then (FULL by title, UNIT by guide number) the values this
 * interval gave the tests of the step behind it. */
static void verdict_text(struct tui *t, char *buf, size_t len, int form)
{
    const struct gt_triage_result *r = t->verdict;
    struct gt_text s;
    size_t i;

    gt_text_init(&s, buf, len);
    gt_text_add(&s, " triage: ");
    gt_text_add(&s, r ? r->verdict : GT_TRIAGE_NO_DATA);
    if (!r || form == FORM_VERDICT)
        return;
    for (i = 0; i < r->nev; i++) {
        /* All of the step's values, so that a verdict held over a change
         * (triage hold) shows the value that has not yet lasted. */
        if ((int)r->ev[i].step != r->step || r->ev[i].met < 0)
            continue;
        gt_text_add(&s, tui_sep(t));
        evidence_text(t, &s, &r->ev[i], form == FORM_UNIT);
    }
}

void tui_draw_triage(struct tui *t, int y)
{
    char buf[256];
    int form;

    for (form = FORM_FULL; form < NFORMS; form++) {
        if (t->triage)
            verdict_text(t, buf, sizeof(buf), form);
        else
            triage_text(t, buf, sizeof(buf), form);
        if (tui_text_columns(buf) <= COLS)
            break;
    }
    tui_put_clipped(t, y, 0, buf, COLS, ST_ALERT);
}
