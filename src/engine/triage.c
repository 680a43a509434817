/* The triage engine: walks a layout's triage steps on each interval, keeps
 * the evidence, and holds a verdict until a new one has lasted 'triage hold'
 * intervals so that it does not flicker between samples. Also the export's
 * older busiest-unit verdict (gt_triage_verdict). */
#include "gputop/triage.h"
#include "gputop/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gt_triage {
    const struct gt_layout *l;
    const struct gt_engine *e;
    int *rule_metric;               /* per triage rule: its metric, -1 none */
    struct gt_triage_evidence *ev;  /* room for every condition */
    size_t nev_max;
    struct gt_triage_result r;
    const char *cand;               /* verdict being confirmed */
    int cand_step, cand_n;
    int held_step;
    const struct gt_snapshot *snap; /* of the interval being judged, or NULL */
};

struct gt_triage *gt_triage_new(const struct gt_layout *l, const struct gt_engine *e)
{
    struct gt_triage *t = calloc(1, sizeof(*t));
    size_t i;

    if (!t)
        return NULL;
    t->l = l;
    t->e = e;
    for (i = 0; i < l->nsteps; i++)
        t->nev_max += l->steps[i].nconds;
    t->ev = calloc(t->nev_max + 1, sizeof(*t->ev));
    t->rule_metric = calloc(l->ntriage + 1, sizeof(int));
    if (!t->ev || !t->rule_metric) {
        gt_triage_free(t);
        return NULL;
    }
    for (i = 0; i < l->ntriage; i++)
        t->rule_metric[i] = gt_layout_find_metric(l, l->triage[i].metric);
    t->r.verdict = t->r.raw = GT_TRIAGE_NO_DATA;
    t->r.step = t->held_step = t->cand_step = -1;
    t->r.unit = t->r.queue = NAN;
    t->r.ev = t->ev;
    return t;
}

void gt_triage_free(struct gt_triage *t)
{
    if (!t)
        return;
    free(t->ev);
    free(t->rule_metric);
    free(t);
}

const char *gt_triage_op_text(enum gt_triage_op op)
{
    static const char *const text[] = { "<", "<=", ">", ">=" };
    return text[op];
}

long gt_triage_best_rule(const struct gt_layout *l, const struct gt_engine *e,
                         const int *rule_metric, const double *vals, const char *kind,
                         double *value)
{
    double best = NAN;
    long win = -1;
    size_t i;

    for (i = 0; i < l->ntriage; i++) {
        int m = rule_metric[i];
        double v;
        if (m < 0 || strcmp(l->triage[i].kind, kind) != 0)
            continue;
        v = e && gt_engine_has_peak(e, (size_t)m) ? gt_engine_pop(e, (size_t)m) : vals[m];
        if (isnan(v) || (!isnan(best) && v <= best))
            continue;
        best = v;
        win = (long)i;
    }
    if (value)
        *value = best;
    return win;
}

static double best_of(const struct gt_triage *t, const double *vals, const char *kind,
                      const char **label, const char **verdict)
{
    double best;
    long r = gt_triage_best_rule(t->l, t->e, t->rule_metric, vals, kind, &best);

    *label = r >= 0 ? t->l->triage[r].label : NULL;
    *verdict = r >= 0 ? t->l->triage[r].verdict : NULL;
    return best;
}

/* A metric with one value per instance (CPU clusters) is judged by its
 * busiest instance: the guides' CPU-bound sign is ONE thread or cluster
 * running all the time, which a mean over clusters would hide. */
static double cond_value(const struct gt_triage *t, int m, const double *vals)
{
    double best = NAN, v;
    uint32_t i, n;

    if (!t->e || !t->snap || !gt_engine_instanced(t->e, (size_t)m))
        return vals[m];
    n = gt_engine_instances(t->e, (size_t)m);
    for (i = 0; i < n; i++) {
        v = gt_engine_eval_instance(t->e, t->snap, (size_t)m, i);
        if (!isnan(v) && (isnan(best) || v > best))
            best = v;
    }
    return isnan(best) ? vals[m] : best;
}

static int holds(const struct gt_triage_cond *c, double v)
{
    if (isnan(v))
        return -1;
    switch (c->op) {
    case GT_TRIAGE_LT: return v < c->threshold;
    case GT_TRIAGE_LE: return v <= c->threshold;
    case GT_TRIAGE_GT: return v > c->threshold;
    case GT_TRIAGE_GE: return v >= c->threshold;
    }
    return -1;
}

/* Evaluates one step: 1 holds, 0 fails, -1 no data for some condition
 * (a failing condition decides even when another has no data). */
static int eval_step(struct gt_triage *t, size_t si, const double *vals, const char *uverdict)
{
    const struct gt_triage_step *st = &t->l->steps[si];
    int all = 1, unknown = 0;
    size_t k;

    for (k = 0; k < st->nconds; k++) {
        const struct gt_triage_cond *c = &st->conds[k];
        struct gt_triage_evidence *ev = &t->ev[t->r.nev++];
        ev->step = si;
        ev->cond = k;
        if (c->metric == GT_TRIAGE_UNIT) {
            ev->value = t->r.unit;
            ev->what = t->r.unit_label ? t->r.unit_label : "most loaded unit";
        } else if (c->metric == GT_TRIAGE_QUEUE) {
            ev->value = t->r.queue;
            ev->what = t->r.queue_label ? t->r.queue_label : "busiest queue";
        } else {
            ev->value = cond_value(t, c->metric, vals);
            ev->what = t->l->metrics[c->metric].title;
        }
        ev->met = holds(c, ev->value);
        if (ev->met == 0)
            all = 0;
        if (ev->met < 0)
            unknown = 1;
    }
    if (strcmp(st->verdict, "unit-bound") == 0 && !uverdict)
        unknown = 1;
    return !all ? 0 : unknown ? -1 : 1;
}

/* This interval's own verdict: the first step that holds. The first step
 * is the sample's validity check: without its data there is no verdict.
 * A later step without data is passed over (its evidence says so), but
 * then the unconditional last step ("nothing above holds") cannot be
 * given either. */
static const char *judge(struct gt_triage *t, const double *vals, int *step)
{
    const char *uverdict;
    size_t i;
    int res, unknown = 0;

    t->r.nev = 0;
    t->r.unit = best_of(t, vals, "unit", &t->r.unit_label, &uverdict);
    t->r.queue = best_of(t, vals, "queue", &t->r.queue_label, &(const char *){ NULL });
    *step = -1;
    for (i = 0; i < t->l->nsteps; i++) {
        if (t->l->steps[i].nconds == 0 && unknown)
            return GT_TRIAGE_NO_DATA; /* "nothing above holds" is not known */
        res = eval_step(t, i, vals, uverdict);
        if (res < 0 && i == 0)
            return GT_TRIAGE_NO_DATA;
        unknown |= res < 0;
        if (res <= 0)
            continue;
        *step = (int)i;
        if (strcmp(t->l->steps[i].verdict, "unit-bound") == 0)
            return uverdict;
        return t->l->steps[i].verdict;
    }
    return t->l->nsteps ? GT_TRIAGE_NO_LIMITER : GT_TRIAGE_NO_DATA;
}

static void set_held(struct gt_triage *t, const char *v, int step)
{
    const struct gt_triage_step *st = step >= 0 ? &t->l->steps[step] : NULL;

    t->r.verdict = v;
    t->held_step = step;
    t->r.step = step;
    t->r.ref = st ? st->ref : NULL;
    t->r.next = st ? st->next : NULL;
}

const struct gt_triage_result *gt_triage_update(struct gt_triage *t, const struct gt_snapshot *s,
                                                const double *vals)
{
    int step, hold = t->l->triage_hold > 1 ? t->l->triage_hold : 1;
    const char *v;

    t->snap = s;
    v = judge(t, vals, &step);
    t->snap = NULL;

    t->r.raw = v;
    if (t->cand && strcmp(t->cand, v) == 0) {
        t->cand_n++;
    } else {
        t->cand = v;
        t->cand_n = 1;
    }
    t->cand_step = step;
    /* Leaving "not enough data" needs no confirmation: there was nothing to
     * flicker from. Any other change must last 'hold' intervals. */
    if (strcmp(t->r.verdict, v) == 0 || t->cand_n >= hold ||
        strcmp(t->r.verdict, GT_TRIAGE_NO_DATA) == 0)
        set_held(t, v, step);
    return &t->r;
}

const char *gt_triage_current(const struct gt_triage *t)
{
    return t->r.verdict;
}

/* The export's (Prometheus label, trace event) verdict until it follows the
 * tree above: the unit rule whose metric is highest, whatever its load and
 * whether the GPU is busy at all (issue 16's complaint). Kept as the
 * export branch wrote it. */
const char *gt_triage_verdict(const struct gt_layout *l, const struct gt_engine *e,
                              const int *rule_metric, const double *vals, long *unit_rule)
{
    long win = gt_triage_best_rule(l, e, rule_metric, vals, "unit", NULL);

    if (unit_rule)
        *unit_rule = win;
    return win >= 0 ? l->triage[win].verdict : NULL;
}
