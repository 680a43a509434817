/* The triage line: the busiest queue and unit (a metric with a peak by
 * its percent of peak), and what that suggests. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <math.h>
#include <string.h>

static void triage_text(struct tui *t, char *buf, size_t len)
{
    double best_q = NAN, best_u = NAN;
    const struct gt_triage_rule *q = NULL, *u = NULL;
    struct gt_text s;
    size_t i;

    for (i = 0; i < t->l->ntriage; i++) {
        const struct gt_triage_rule *r = &t->l->triage[i];
        int m = t->triage_metric[i];
        double v = m >= 0 && t->have_data ? t->vals[m] : NAN;
        /* A metric with a theoretical peak competes by its % of peak. */
        if (m >= 0 && gt_engine_has_peak(t->cfg->engine, (size_t)m))
            v = t->have_data ? gt_engine_pop(t->cfg->engine, (size_t)m) : NAN;
        if (isnan(v))
            continue;
        if (strcmp(r->kind, "queue") == 0 && (isnan(best_q) || v > best_q)) {
            best_q = v;
            q = r;
        } else if (strcmp(r->kind, "unit") == 0 && (isnan(best_u) || v > best_u)) {
            best_u = v;
            u = r;
        }
    }
    gt_text_init(&s, buf, len);
    if (!q && !u) {
        gt_text_add(&s, " triage: no data yet");
        return;
    }
    if (q) {
        gt_text_add(&s, " ");
        gt_text_add(&s, q->label);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_q, 0, 0);
        gt_text_add(&s, "%");
    }
    if (u) {
        gt_text_add(&s, q ? tui_sep(t) : " ");
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

void tui_draw_triage(struct tui *t, int y)
{
    char buf[256];

    triage_text(t, buf, sizeof(buf));
    tui_put(t, y, 0, buf, -1, ST_ALERT);
}
