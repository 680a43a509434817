/* The triage tree's conditions judged on one interval: a metric (a
 * per-instance one by its busiest instance), the units and queues of the
 * 'triage unit|queue' rules, and the queues added up; each with hysteresis
 * in value ('triage band'): a condition that holds keeps holding until its
 * value passes the threshold by the band the other way. */
#include "triage_int.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static int is_percent(const char *unit)
{
    return strcmp(unit, "%") == 0 || strcasecmp(unit, "percent") == 0;
}

/* The band in the condition's own unit: points of a percentage, at most
 * half its threshold (5 points past '> 2' would hold it for good), else
 * the same share of the threshold (a band of 5 leaves 6 GB/s at 5.7). */
static double band_of(const struct gt_triage *t, const struct gt_triage_cond *c)
{
    double b = t->l->triage_band;

    if (c->metric < 0)
        return b;
    if (is_percent(t->l->metrics[c->metric].unit))
        return b < fabs(c->threshold) / 2 ? b : fabs(c->threshold) / 2;
    return fabs(c->threshold) * b / 100.0;
}

void gt_triage_set_bands(struct gt_triage *t)
{
    size_t i, k;

    for (i = 0; i < t->l->nsteps; i++)
        for (k = 0; k < t->l->steps[i].nconds; k++)
            t->band[t->ev_first[i] + k] = band_of(t, &t->l->steps[i].conds[k]);
}

static int below(enum gt_triage_op op)
{
    return op == GT_TRIAGE_LT || op == GT_TRIAGE_LE;
}

static int compare(enum gt_triage_op op, double v, double lim)
{
    switch (op) {
    case GT_TRIAGE_LT: return v < lim;
    case GT_TRIAGE_LE: return v <= lim;
    case GT_TRIAGE_GT: return v > lim;
    case GT_TRIAGE_GE: return v >= lim;
    }
    return 0;
}

/* One hysteresis state: the threshold while it does not hold, the band's
 * edge while it does. No data forgets the state. */
static int latch(signed char *state, const struct gt_triage_cond *c, double band, double v,
                 double *limit)
{
    double lim = c->threshold;

    if (*state == 1)
        lim += below(c->op) ? band : -band;
    *limit = lim;
    if (isnan(v)) {
        *state = -1;
        return -1;
    }
    *state = (signed char)compare(c->op, v, lim);
    return *state;
}

/* A metric with one value per instance (CPUs, clusters) is judged by its
 * busiest instance: the guides' CPU-bound sign is ONE thread running all
 * the time, which a mean over a cluster's CPUs would hide. A metric with a
 * peak is judged by its percent of peak (a speed-of-light row). */
static double cond_value(struct gt_triage *t, int m, const double *vals)
{
    double best = NAN, v;
    uint32_t i, n;

    if (t->e && gt_engine_has_peak(t->e, (size_t)m))
        return gt_engine_pop(t->e, (size_t)m);
    if (!t->e || !t->snap || !gt_engine_instanced(t->e, (size_t)m))
        return vals[m];
    if (t->inst_gen[m] == t->gen)
        return t->inst_best[m];
    n = gt_engine_instances(t->e, (size_t)m);
    for (i = 0; i < n; i++) {
        v = gt_engine_eval_instance(t->e, t->snap, (size_t)m, i);
        if (!isnan(v) && (isnan(best) || v > best))
            best = v;
    }
    t->inst_gen[m] = t->gen;
    t->inst_best[m] = isnan(best) ? vals[m] : best;
    return t->inst_best[m];
}

static void fill_loads(struct gt_triage *t, struct gt_triage_load *ld, const size_t *rule,
                       size_t n, const double *vals, double *best, const char **label)
{
    size_t i;

    *best = NAN;
    *label = NULL;
    for (i = 0; i < n; i++) {
        int m = t->rule_metric[rule[i]];
        ld[i].on = 0;
        ld[i].value = m < 0 ? NAN
                    : t->e && gt_engine_has_peak(t->e, (size_t)m) ? gt_engine_pop(t->e, (size_t)m)
                    : vals[m];
        if (!isnan(ld[i].value) && (isnan(*best) || ld[i].value > *best)) {
            *best = ld[i].value;
            *label = ld[i].label;
        }
    }
}

/* 'unit >= T': each unit keeps its own hysteresis state and the condition
 * holds when any unit does; a unit without data is named (provisional),
 * and without any unit over, the condition is not known. */
static void eval_any(struct gt_triage *t, size_t ci, const struct gt_triage_cond *c,
                     struct gt_triage_load *ld, size_t n, struct gt_triage_evidence *ev,
                     int set_on)
{
    signed char *st = &t->load_latch[ci * (t->l->ntriage + 1)];
    double band = t->band[ci], lim;
    const char *missing = NULL;
    size_t i;
    int any = 0, m;

    ev->value = NAN;
    ev->limit = c->threshold;
    for (i = 0; i < n; i++) {
        m = latch(&st[i], c, band, ld[i].value, &lim);
        if (set_on)
            ld[i].on = m > 0;
        if (m < 0 && !missing)
            missing = ld[i].label;
        if (m > 0 && (!any || ld[i].value > ev->value)) {
            ev->value = ld[i].value;
            ev->what = ld[i].label;
            ev->limit = lim;
            any = 1;
        }
        if (!any && !isnan(ld[i].value) && (isnan(ev->value) || ld[i].value > ev->value)) {
            ev->value = ld[i].value;
            ev->what = ld[i].label;
        }
    }
    ev->met = any ? 1 : missing ? -1 : 0;
    ev->missing = missing;
}

/* 'unit < T': every unit below, judged by the most loaded one; not known
 * when one has no data. */
static double max_of(const struct gt_triage_load *ld, size_t n, const char **what,
                     const char **missing)
{
    double best = NAN;
    size_t i;

    *missing = NULL;
    for (i = 0; i < n; i++) {
        if (isnan(ld[i].value)) {
            if (!*missing)
                *missing = ld[i].label;
            continue;
        }
        if (isnan(best) || ld[i].value > best) {
            best = ld[i].value;
            *what = ld[i].label;
        }
    }
    return *missing ? NAN : best;
}

static double sum_of(const struct gt_triage_load *ld, size_t n, const char **missing)
{
    double sum = 0;
    size_t i;

    *missing = NULL;
    for (i = 0; i < n; i++) {
        if (isnan(ld[i].value) && !*missing)
            *missing = ld[i].label;
        sum += ld[i].value;
    }
    return sum;
}

/* A fallback stands for its metric from below (a cluster's mean for its
 * busiest CPU, the bus's share of max-clock time for its share of the
 * time it ran): 'at least T' holding on it holds for the metric, and 'under
 * T' failing on it fails, but the other two outcomes say nothing. Those
 * leave the condition without data for the metric, the fallback's value
 * still shown. */
static void lower_bound_undecided(const struct gt_triage *t, const struct gt_triage_cond *c,
                                  struct gt_triage_evidence *ev)
{
    ev->met = -1;
    ev->missing = t->l->metrics[c->metric].title;
}

static void eval_cond(struct gt_triage *t, size_t ci, const struct gt_triage_cond *c,
                      const double *vals, int *set_units, int *set_queues)
{
    struct gt_triage_evidence *ev = &t->ev[ci];
    int units = c->metric == GT_TRIAGE_UNIT;
    double v;

    ev->missing = NULL;
    ev->of_peak = 0;
    ev->metric = c->metric;
    ev->what = units ? "most loaded unit" : "busiest queue";
    if ((units || c->metric == GT_TRIAGE_QUEUE) && !below(c->op)) {
        eval_any(t, ci, c, units ? t->units : t->queues, units ? t->nunits : t->nqueues, ev,
                 units ? *set_units : *set_queues);
        *(units ? set_units : set_queues) = 0;
        return;
    }
    if (units || c->metric == GT_TRIAGE_QUEUE) {
        v = max_of(units ? t->units : t->queues, units ? t->nunits : t->nqueues, &ev->what,
                   &ev->missing);
    } else if (c->metric == GT_TRIAGE_QUEUE_SUM) {
        ev->what = "queues added up";
        v = sum_of(t->queues, t->nqueues, &ev->missing);
    } else if (c->metric < 0) {
        ev->what = "GPU busy";   /* 'busy' in a layout without a busy figure */
        v = NAN;
    } else {
        ev->metric = c->metric;
        v = cond_value(t, c->metric, vals);
        if (isnan(v) && c->alt >= 0 && !isnan(cond_value(t, c->alt, vals))) {
            ev->metric = c->alt;
            v = cond_value(t, c->alt, vals);
        }
        ev->what = t->l->metrics[ev->metric].title;
        ev->of_peak = t->e && gt_engine_has_peak(t->e, (size_t)ev->metric);
    }
    ev->value = v;
    ev->met = latch(&t->latch[ci], c, t->band[ci], v, &ev->limit);
    if (ev->metric != c->metric && ev->met == below(c->op))
        lower_bound_undecided(t, c, ev);
}

void gt_triage_eval_all(struct gt_triage *t, const double *vals)
{
    int set_units = 1, set_queues = 1;
    size_t i, k;

    /* A new interval: every metric's busiest instance is to be found
     * again (0 is never a generation, so a fresh inst_gen is stale). */
    if (++t->gen == 0) {
        memset(t->inst_gen, 0, (t->l->nmetrics + 1) * sizeof(*t->inst_gen));
        t->gen = 1;
    }
    fill_loads(t, t->units, t->unit_rule, t->nunits, vals, &t->r.unit, &t->r.unit_label);
    fill_loads(t, t->queues, t->queue_rule, t->nqueues, vals, &t->r.queue, &t->r.queue_label);
    for (i = 0; i < t->l->nsteps; i++)
        for (k = 0; k < t->l->steps[i].nconds; k++) {
            size_t ci = t->ev_first[i] + k;
            t->ev[ci].step = i;
            t->ev[ci].cond = k;
            eval_cond(t, ci, &t->l->steps[i].conds[k], vals, &set_units, &set_queues);
        }
}

int gt_triage_step_holds(const struct gt_triage *t, size_t step, const char **missing)
{
    const char *partial = NULL, *nodata = NULL;
    int all = 1;
    size_t k;

    *missing = NULL;
    for (k = 0; k < t->l->steps[step].nconds; k++) {
        const struct gt_triage_evidence *ev = &t->ev[t->ev_first[step] + k];
        if (ev->met == 0)
            all = 0;
        else if (ev->met < 0 && !nodata)
            nodata = ev->missing ? ev->missing : ev->what;
        else if (ev->met > 0 && ev->missing && !partial)
            partial = ev->missing;
    }
    if (!all)
        return 0; /* a failing condition decides even when another has no data */
    *missing = nodata ? nodata : partial;
    return nodata ? -1 : 1;
}
