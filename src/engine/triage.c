/* The triage engine: judges every condition of a layout's triage tree on
 * each interval (triage_cond.c), takes the first step that holds as the
 * interval's verdict, and holds a verdict until a new one has lasted
 * 'triage hold' intervals so that it does not flicker between samples.
 * Also the export's older busiest-unit verdict (gt_triage_verdict). */
#include "triage_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int alloc_loads(struct gt_triage *t)
{
    const struct gt_layout *l = t->l;
    size_t i;

    t->units = calloc(l->ntriage + 1, sizeof(*t->units));
    t->queues = calloc(l->ntriage + 1, sizeof(*t->queues));
    t->unit_rule = calloc(l->ntriage + 1, sizeof(*t->unit_rule));
    t->queue_rule = calloc(l->ntriage + 1, sizeof(*t->queue_rule));
    t->held_units = calloc(l->ntriage + 1, 1);
    if (!t->units || !t->queues || !t->unit_rule || !t->queue_rule || !t->held_units)
        return -1;
    for (i = 0; i < l->ntriage; i++) {
        int unit = strcmp(l->triage[i].kind, "unit") == 0;
        struct gt_triage_load *ld = unit ? &t->units[t->nunits] : &t->queues[t->nqueues];
        ld->label = l->triage[i].label;
        ld->verdict = unit ? l->triage[i].verdict : NULL;
        ld->value = NAN;
        if (unit)
            t->unit_rule[t->nunits++] = i;
        else
            t->queue_rule[t->nqueues++] = i;
    }
    return 0;
}

/* A step-if-available is left out where one of its metrics names a counter
 * this GPU does not have, rather than passed over as a step without data,
 * which would make every verdict after it provisional. A counter the GPU
 * has but this run cannot read (its source says why: not in a capture, no
 * permission) leaves the step in, without data. */
static int never_computed(const struct gt_engine *e, int m)
{
    return m >= 0 && gt_engine_unavailable(e, (size_t)m) &&
           !gt_engine_unavailable_by_source(e, (size_t)m);
}

static void mark_absent(struct gt_triage *t)
{
    size_t i, k;

    for (i = 0; t->e && i < t->l->nsteps; i++) {
        const struct gt_triage_step *st = &t->l->steps[i];
        for (k = 0; st->if_available && k < st->nconds; k++)
            if (never_computed(t->e, st->conds[k].metric) &&
                (st->conds[k].alt < 0 || never_computed(t->e, st->conds[k].alt)))
                t->absent[i] = 1;
    }
}

int gt_triage_step_absent(const struct gt_triage *t, size_t step)
{
    return t && step < t->l->nsteps && t->absent[step];
}

struct gt_triage *gt_triage_new(const struct gt_layout *l, const struct gt_engine *e)
{
    struct gt_triage *t = calloc(1, sizeof(*t));
    size_t i, n;

    if (!t)
        return NULL;
    t->l = l;
    t->e = e;
    t->ev_first = calloc(l->nsteps + 1, sizeof(*t->ev_first));
    for (i = 0; t->ev_first && i < l->nsteps; i++) {
        t->ev_first[i] = t->nev_max;
        t->nev_max += l->steps[i].nconds;
    }
    n = t->nev_max + 1;
    t->ev = calloc(n, sizeof(*t->ev));
    t->latch = malloc(n);
    t->band = calloc(n, sizeof(double));
    t->load_latch = malloc(n * (l->ntriage + 1));
    t->rule_metric = calloc(l->ntriage + 1, sizeof(int));
    t->absent = calloc(l->nsteps + 1, 1);
    t->inst_best = calloc(l->nmetrics + 1, sizeof(double));
    t->inst_gen = calloc(l->nmetrics + 1, sizeof(unsigned));
    if (!t->ev_first || !t->ev || !t->latch || !t->band || !t->load_latch || !t->rule_metric || !t->absent ||
        !t->inst_best || !t->inst_gen || alloc_loads(t) < 0) {
        gt_triage_free(t);
        return NULL;
    }
    memset(t->latch, -1, n);
    gt_triage_set_bands(t);
    memset(t->load_latch, -1, n * (l->ntriage + 1));
    for (i = 0; i < l->ntriage; i++)
        t->rule_metric[i] = gt_layout_find_metric(l, l->triage[i].metric);
    mark_absent(t);
    t->r.verdict = t->r.raw = GT_TRIAGE_NO_DATA;
    t->r.step = t->r.raw_step = -1;
    t->r.unit = t->r.queue = NAN;
    t->r.ev = t->ev;
    t->r.nev = t->nev_max;
    t->r.units = t->units;
    t->r.nunits = t->nunits;
    t->r.queues = t->queues;
    t->r.nqueues = t->nqueues;
    return t;
}

void gt_triage_free(struct gt_triage *t)
{
    size_t i;

    if (!t)
        return;
    for (i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->ev);
    free(t->ev_first);
    free(t->absent);
    free(t->latch);
    free(t->band);
    free(t->load_latch);
    free(t->rule_metric);
    free(t->units);
    free(t->queues);
    free(t->unit_rule);
    free(t->queue_rule);
    free(t->held_units);
    free(t->inst_best);
    free(t->inst_gen);
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

/* A verdict made of several units' ("arithmetic-bound + texture-bound"),
 * kept for the triage's life so that results can point at it. */
static const char *intern(struct gt_triage *t, const char *s)
{
    char **p;
    size_t i;

    for (i = 0; i < t->nnames; i++)
        if (strcmp(t->names[i], s) == 0)
            return t->names[i];
    p = realloc(t->names, (t->nnames + 1) * sizeof(*p));
    if (!p)
        return NULL;
    t->names = p;
    if (!(p[t->nnames] = strdup(s)))
        return NULL;
    return p[t->nnames++];
}

/* Every unit over its threshold is named, in the layout's order: two
 * limiters are both limiters, and a tie is not settled silently. */
static const char *unit_verdict(struct gt_triage *t)
{
    char buf[512];
    size_t i, n = 0, len = 0;
    const char *one = NULL;

    buf[0] = '\0';
    for (i = 0; i < t->nunits; i++) {
        if (!t->units[i].on || !t->units[i].verdict)
            continue;
        one = t->units[i].verdict;
        len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0, "%s%s",
                                n++ ? " + " : "", one);
    }
    if (n <= 1)
        return one;
    return len < sizeof(buf) ? intern(t, buf) : one;
}

/* The verdict a step gives: its own, or the units' for "unit-bound". */
static const char *step_verdict(struct gt_triage *t, size_t si)
{
    const char *v = t->l->steps[si].verdict;

    return strcmp(v, "unit-bound") == 0 ? unit_verdict(t) : v;
}

/* This interval's own verdict: the first step that holds. A step without
 * data for a condition is passed over, and a verdict reached past it is
 * provisional and names what was missing; the unconditional last step
 * ("nothing above holds") is then not known at all. */
static const char *judge(struct gt_triage *t, int *step)
{
    const char *missing = NULL, *v;
    size_t i;
    int blocked = 0;  /* a step without data that is not a side test */

    t->r.raw_provisional = 0;
    t->r.raw_missing = NULL;
    *step = -1;
    for (i = 0; i < t->l->nsteps; i++) {
        const struct gt_triage_step *st = &t->l->steps[i];
        const char *partial = NULL;
        int res;
        if (st->note || t->absent[i])
            continue;
        res = gt_triage_step_holds(t, i, &partial);
        if (res < 0 && !missing)
            missing = partial;
        if (res < 0 && !st->side)
            blocked = 1;
        if (res <= 0)
            continue;
        /* "nothing above holds" is not known past a step of the tree
         * without data; past a side test (interrupts, microcontroller) it
         * is, provisional like any verdict reached past one. */
        if (st->nconds == 0 && blocked)
            break;
        v = step_verdict(t, i);
        if (!v)
            continue;
        *step = (int)i;
        t->r.raw_missing = missing ? missing : partial;
        t->r.raw_provisional = t->r.raw_missing != NULL;
        return v;
    }
    t->r.raw_missing = missing;
    return t->l->nsteps ? (missing || i < t->l->nsteps ? GT_TRIAGE_NO_DATA : GT_TRIAGE_NO_LIMITER)
                        : GT_TRIAGE_NO_DATA;
}

static void judge_notes(struct gt_triage *t)
{
    const char *partial;
    size_t i;

    t->r.nnotes = 0;
    for (i = 0; i < t->l->nsteps && t->r.nnotes < GT_TRIAGE_MAX_NOTES; i++)
        if (t->l->steps[i].note && gt_triage_step_holds(t, i, &partial) > 0)
            t->r.notes[t->r.nnotes++] = (int)i;
}

static int is_unit_step(const struct gt_triage *t, int step)
{
    return step >= 0 && strcmp(t->l->steps[step].verdict, "unit-bound") == 0;
}

/* A unit verdict's guide sections and advice are its units' own, joined
 * when several units are named; fallback when none gives any. */
static const char *units_text(struct gt_triage *t, int want_next, const char *fallback)
{
    char buf[1024];
    const char *s;
    size_t i, len = 0;
    int n = 0;

    buf[0] = '\0';
    for (i = 0; i < t->nunits; i++) {
        const struct gt_triage_rule *r = &t->l->triage[t->unit_rule[i]];
        int m = t->rule_metric[t->unit_rule[i]];
        s = want_next ? r->next : m >= 0 ? t->l->metrics[m].ref : NULL;
        if (!t->units[i].on || !s)
            continue;
        len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0, "%s%s",
                                n++ ? (want_next ? " " : ", ") : "", s);
    }
    if (!n || len >= sizeof(buf))
        return fallback;
    s = intern(t, buf);
    return s ? s : fallback;
}

static void set_held(struct gt_triage *t, const char *v, int step)
{
    const struct gt_triage_step *st = step >= 0 ? &t->l->steps[step] : NULL;
    size_t i;

    t->r.verdict = v;
    t->r.step = step;
    t->r.ref = st ? st->ref : NULL;
    t->r.next = st ? st->next : NULL;
    if (is_unit_step(t, step)) {
        t->r.ref = units_text(t, 0, t->r.ref);
        t->r.next = units_text(t, 1, t->r.next);
    }
    t->r.provisional = t->r.raw_provisional;
    t->r.missing = t->r.raw_missing;
    for (i = 0; i < t->nunits; i++)
        t->held_units[i] = is_unit_step(t, step) && t->units[i].on;
}

const struct gt_triage_result *gt_triage_update(struct gt_triage *t, const struct gt_snapshot *s,
                                                const double *vals)
{
    int step, hold = t->l->triage_hold > 1 ? t->l->triage_hold : 1;
    const char *v;
    size_t i;

    t->snap = s;
    gt_triage_eval_all(t, vals);
    v = judge(t, &step);
    judge_notes(t);
    t->snap = NULL;

    t->r.raw = v;
    t->r.raw_step = step;
    if (t->cand && strcmp(t->cand, v) == 0) {
        t->cand_n++;
    } else {
        t->cand = v;
        t->cand_n = 1;
    }
    /* Every change of verdict, the first of the run included, must last
     * 'hold' intervals: the first interval is as noisy as any other. */
    if (strcmp(t->r.verdict, v) == 0 || t->cand_n >= hold)
        set_held(t, v, step);
    for (i = 0; i < t->nunits; i++)
        t->units[i].held = t->held_units[i];
    return &t->r;
}

const char *gt_triage_current(const struct gt_triage *t)
{
    return t->r.verdict;
}

/* The export's (Prometheus label, trace event) verdict for a layout
 * without a tree: the unit rule whose metric is highest. */
const char *gt_triage_verdict(const struct gt_layout *l, const struct gt_engine *e,
                              const int *rule_metric, const double *vals, long *unit_rule)
{
    long win = gt_triage_best_rule(l, e, rule_metric, vals, "unit", NULL);

    if (unit_rule)
        *unit_rule = win;
    return win >= 0 ? l->triage[win].verdict : NULL;
}
