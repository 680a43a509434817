/* The triage line: the layout's decision tree's verdict and the values that
 * decided it; for a layout without a tree ('triage step'), the busiest queue
 * and unit (a metric with a peak by its percent of peak). Narrow, the
 * values give way: the verdict stays. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <math.h>
#include <string.h>
#include <strings.h>

/* Narrower and narrower: titles and side findings, titles, guide numbers,
 * the verdict alone. */
enum { FORM_FULL, FORM_TITLES, FORM_UNIT, FORM_VERDICT, NFORMS };

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
    if (q && !(u && form > FORM_TITLES)) {
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

/* A value with its unit: "86%", "7.8 GB/s", "90% of peak". */
static void value_text(struct gt_text *s, double v, const char *unit, int of_peak)
{
    int pct = of_peak || strcmp(unit, "%") == 0 || strcasecmp(unit, "percent") == 0;

    if (isnan(v)) {
        gt_text_add(s, "no data");
        return;
    }
    gt_text_fixed(s, v, fabs(v) < 10 && !pct ? 1 : 0, 0);
    if (pct) {
        gt_text_add(s, of_peak ? "% of peak" : "%");
    } else if (unit[0]) {
        gt_text_add(s, " ");
        gt_text_add(s, unit);
    }
}

/* Whether the value meets the step's own threshold, not only the band's. */
static int meets_own(const struct gt_triage_cond *c, double v)
{
    switch (c->op) {
    case GT_TRIAGE_LT: return v < c->threshold;
    case GT_TRIAGE_LE: return v <= c->threshold;
    case GT_TRIAGE_GT: return v > c->threshold;
    case GT_TRIAGE_GE: return v >= c->threshold;
    }
    return 0;
}

/* One piece of evidence of the held verdict, "Execution core utilization
 * 86%"; brief: the guide's number or, for gputop's own metrics, the
 * title. A value that holds only by the band says so, so that the line
 * never shows a unit at 79 % under an 80 % rule without its reason. */
static void evidence_text(const struct tui *t, struct gt_text *s,
                          const struct gt_triage_evidence *ev, const char *what, double v,
                          int brief)
{
    const struct gt_triage_cond *c = &t->l->steps[ev->step].conds[ev->cond];
    /* the metric judged: the condition's, or its fallback's ('else') */
    const struct gt_metric_def *m = c->metric >= 0 ? &t->l->metrics[ev->metric] : NULL;

    if (brief && m && m->ref) { /* a guide section, not a dashboard key */
        gt_text_add(s, t->ascii ? "sec. " : "\u00a7");
        gt_text_add(s, m->ref);
    } else {
        gt_text_add(s, what);
    }
    gt_text_add(s, " ");
    value_text(s, v, m ? m->unit : "%", ev->of_peak);
    if (isnan(v) || meets_own(c, v))
        return;
    gt_text_add(s, ev->met > 0 ? " (held: " : " (changing: ");
    gt_text_add(s, gt_triage_op_text(c->op));
    gt_text_fixed(s, ev->met > 0 ? ev->limit : c->threshold, 0, 0);
    gt_text_add(s, ")");
}

/* The held verdict's evidence: every test of its step as judged on this
 * interval; a unit test names each unit the verdict names. */
static void held_evidence(struct tui *t, struct gt_text *s, int brief)
{
    const struct gt_triage_result *r = t->verdict;
    size_t i, u;

    for (i = 0; i < r->nev; i++) {
        const struct gt_triage_evidence *ev = &r->ev[i];
        int unit_test = t->l->steps[ev->step].conds[ev->cond].metric == GT_TRIAGE_UNIT;
        if ((int)ev->step != r->step)
            continue;
        for (u = 0; unit_test && u < r->nunits; u++) {
            if (!r->units[u].held)
                continue;
            gt_text_add(s, tui_sep(t));
            evidence_text(t, s, ev, r->units[u].label, r->units[u].value, brief);
        }
        if (unit_test && r->step >= 0 && strcmp(t->l->steps[r->step].verdict, "unit-bound") == 0)
            continue;
        gt_text_add(s, tui_sep(t));
        evidence_text(t, s, ev, ev->what, ev->value, brief);
    }
}

/* Side findings: "dominant queue: fragment queue", "over the DRAM budget". */
static void notes_text(struct tui *t, struct gt_text *s)
{
    const struct gt_triage_result *r = t->verdict;
    size_t i, k;

    for (i = 0; i < r->nnotes; i++) {
        const struct gt_triage_step *st = &t->l->steps[r->notes[i]];
        gt_text_add(s, tui_sep(t));
        gt_text_add(s, st->verdict);
        for (k = 0; k < r->nev; k++)
            if ((int)r->ev[k].step == r->notes[i] && st->conds[r->ev[k].cond].metric < 0) {
                gt_text_add(s, ": ");
                gt_text_add(s, r->ev[k].what);
                break;
            }
    }
}

/* The held verdict (what every view carries), its provisional mark, the
 * values of its step (FULL by title, UNIT by guide number), side findings,
 * and this interval's own verdict while a change is being confirmed. */
static void verdict_text(struct tui *t, char *buf, size_t len, int form)
{
    const struct gt_triage_result *r = t->verdict;
    struct gt_text s;

    gt_text_init(&s, buf, len);
    gt_text_add(&s, " triage: ");
    gt_text_add(&s, r ? r->verdict : GT_TRIAGE_NO_DATA);
    if (r && r->provisional)
        gt_text_add(&s, " (provisional)");
    if (!r || form == FORM_VERDICT)
        return;
    if (r->step < 0 && r->missing) {
        gt_text_add(&s, " (no data for ");
        gt_text_add(&s, r->missing);
        gt_text_add(&s, ")");
    }
    held_evidence(t, &s, form == FORM_UNIT);
    if (form == FORM_FULL)
        notes_text(t, &s);
    if (strcmp(r->raw, r->verdict) != 0) {
        gt_text_add(&s, tui_sep(t));
        gt_text_add(&s, "this interval: ");
        gt_text_add(&s, r->raw);
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
