/* The triage panel ('v'): every step of the layout's decision tree with its
 * tests as judged on the last interval (value, threshold, guide reference),
 * the verdict with the guide's next step, and each verdict's share of the
 * intervals seen so far. */
#include "tui_internal.h"
#include "gputop/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tui_count_verdict(struct tui *t, const char *verdict)
{
    size_t i;

    for (i = 0; i < t->ntally && strcmp(t->tally[i].verdict, verdict) != 0; i++)
        ;
    if (i == t->ntally) {
        if (t->ntally == sizeof(t->tally) / sizeof(t->tally[0]))
            return;
        t->tally[t->ntally].verdict = verdict;
        t->tally[t->ntally++].n = 0;
    }
    t->tally[i].n++;
    t->ntallied++;
}

static const struct gt_triage_evidence *find_ev(const struct gt_triage_result *r, size_t step,
                                                size_t cond)
{
    size_t i;

    for (i = 0; r && i < r->nev; i++)
        if (r->ev[i].step == step && r->ev[i].cond == cond)
            return &r->ev[i];
    return NULL;
}

/* "5.3.5 Execution core utilization >= 70" and, once judged, "85.3 holds". */
static void cond_line(const struct tui *t, char *buf, size_t len, size_t step, size_t k)
{
    const struct gt_triage_step *st = &t->l->steps[step];
    const struct gt_triage_cond *c = &st->conds[k];
    const struct gt_triage_evidence *ev = find_ev(t->verdict, step, k);
    const char *what = ev ? ev->what : c->metric == GT_TRIAGE_UNIT ? "most loaded unit"
                     : c->metric == GT_TRIAGE_QUEUE ? "busiest queue" : c->name;
    char value[32] = "", named[160];

    if (c->metric >= 0 && t->l->metrics[c->metric].ref)
        what = (snprintf(named, sizeof(named), "%s %s", t->l->metrics[c->metric].ref, what),
                named);
    else if (c->metric < 0 && ev)
        what = (snprintf(named, sizeof(named), "%s (%s)", c->metric == GT_TRIAGE_UNIT
                         ? "most loaded unit" : "busiest queue", ev->what), named);
    if (ev && !isnan(ev->value))
        snprintf(value, sizeof(value), "%.4g", ev->value);
    snprintf(buf, len, "     %-44.44s %-2s %-7g %10s  %s", what, gt_triage_op_text(c->op),
             c->threshold, ev ? (isnan(ev->value) ? "-" : value) : "",
             !ev ? "not reached" : ev->met > 0 ? "holds" : ev->met == 0 ? "fails" : "no data");
}

static int draw_steps(struct tui *t, int y, int bottom)
{
    char buf[256];
    size_t i, k;
    int step = t->verdict ? t->verdict->step : -1;

    for (i = 0; i < t->l->nsteps && y < bottom; i++) {
        const struct gt_triage_step *st = &t->l->steps[i];
        snprintf(buf, sizeof(buf), " %s%2zu %s (%s)%s", (int)i == step ? ">" : " ", i + 1,
                 st->verdict, st->ref, st->nconds ? "" : ": when nothing above holds");
        tui_put_clipped(t, y++, 0, buf, COLS, (int)i == step ? ST_ALERT : ST_HEADING);
        for (k = 0; k < st->nconds && y < bottom; k++) {
            cond_line(t, buf, sizeof(buf), i, k);
            tui_put_clipped(t, y++, 0, buf, COLS, ST_PLAIN);
        }
    }
    return y;
}

static void draw_shares(struct tui *t, int y)
{
    char buf[512];
    struct gt_text s;
    size_t i;

    gt_text_init(&s, buf, sizeof(buf));
    gt_text_add(&s, " share of the run:");
    for (i = 0; i < t->ntally; i++) {
        gt_text_add(&s, i ? tui_sep(t) : " ");
        gt_text_add(&s, t->tally[i].verdict);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, 100.0 * (double)t->tally[i].n / (double)t->ntallied, 0, 0);
        gt_text_add(&s, "%");
    }
    tui_put_clipped(t, y, 0, buf, COLS, ST_PLAIN);
}

void tui_draw_triage_panel(struct tui *t)
{
    const struct gt_triage_result *r = t->verdict;
    int y, bottom = LINES - 1;
    char buf[512];

    for (y = 1; y < LINES; y++)
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
    snprintf(buf, sizeof(buf), " triage: %s%s%s%s", r ? r->verdict : GT_TRIAGE_NO_DATA,
             r && strcmp(r->raw, r->verdict) ? " (this interval: " : "",
             r && strcmp(r->raw, r->verdict) ? r->raw : "",
             r && strcmp(r->raw, r->verdict) ? ")" : "");
    tui_put_clipped(t, 1, 0, buf, COLS, ST_ALERT);
    y = 2;
    if (r && r->next) {
        snprintf(buf, sizeof(buf), " next (%s): %s", r->ref, r->next);
        tui_put_clipped(t, y++, 0, buf, COLS, ST_PLAIN);
    }
    if (t->ntallied && y < bottom)
        draw_shares(t, y++);
    y++;
    draw_steps(t, y, bottom);
}
