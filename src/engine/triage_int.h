/* The triage engine's state, shared by triage.c (verdicts and their hold)
 * and triage_cond.c (conditions, units and queues, hysteresis in value). */
#ifndef GPUTOP_TRIAGE_INT_H
#define GPUTOP_TRIAGE_INT_H

#include "gputop/triage.h"

struct gt_triage {
    const struct gt_layout *l;
    const struct gt_engine *e;
    int *rule_metric;               /* per triage rule: its metric, -1 none */
    struct gt_triage_evidence *ev;  /* every condition of every step */
    size_t nev_max;
    size_t *ev_first;               /* per step: its first condition in ev */
    unsigned char *absent;          /* per step: a step-if-available whose metric this
                                       run can never compute, left out of the tree */
    signed char *latch;             /* per condition: -1 unknown, 0 fails, 1 holds */
    double *band;                   /* per condition: its band in its own unit */
    signed char *load_latch;        /* per condition x rule: the same for each unit / queue */
    struct gt_triage_load *units, *queues;
    size_t nunits, nqueues;
    size_t *unit_rule, *queue_rule; /* their rule indices */
    unsigned char *held_units;      /* units named by the held verdict */
    char **names; size_t nnames;    /* verdicts naming several units */
    struct gt_triage_result r;
    const char *cand;               /* verdict being confirmed */
    int cand_n;
    const struct gt_snapshot *snap; /* of the interval being judged, or NULL */
    /* Per metric: its busiest instance this interval, worked out once for
     * every condition that names it (valid where inst_gen == gen). */
    double *inst_best;
    unsigned *inst_gen, gen;
};

/* Works out each condition's band once (the layout's units do not change). */
void gt_triage_set_bands(struct gt_triage *t);
/* Judges every condition of every step on this interval (t->snap set). */
void gt_triage_eval_all(struct gt_triage *t, const double *vals);
/* A step's state from gt_triage_eval_all: 1 holds, 0 fails, -1 no data.
 * *missing: with -1 the first condition without data; with 1 a unit or
 * queue without data that a condition over several passed over; else NULL. */
int gt_triage_step_holds(const struct gt_triage *t, size_t step, const char **missing);

#endif
