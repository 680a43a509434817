/* The triage engine: a layout's triage steps evaluated on each interval into
 * a verdict with its evidence and the guide's next step (issue 16). */
#ifndef GPUTOP_TRIAGE_H
#define GPUTOP_TRIAGE_H

#include <stddef.h>
#include "gputop/engine.h"
#include "gputop/layout.h"

#define GT_TRIAGE_NO_DATA "not enough data"
#define GT_TRIAGE_NO_LIMITER "no single limiter"

#define GT_TRIAGE_MAX_NOTES 8

/* One condition as judged on an interval. Every condition of every step
 * is judged on every interval (a step past the deciding one too), so that
 * each keeps its hysteresis state and the panel can show its value. */
struct gt_triage_evidence {
    size_t step, cond;  /* indices into the layout's steps and the step's conds */
    double value;       /* NaN: no data */
    double limit;       /* the threshold in effect: the step's, or while the
                         * condition holds the band's ('triage band') */
    int met;            /* 1 holds, 0 fails, -1 no data */
    int of_peak;        /* value is the metric's percent of its peak */
    const char *what;   /* the metric's title, or the winning unit's / queue's label */
    int metric;         /* the metric value is of: the condition's, or its fallback's
                           ('METRIC else FALLBACK') where the metric had no data */
    const char *missing;/* holds although this unit or queue has no data */
};

/* A 'triage unit' or 'triage queue' rule's metric on this interval. */
struct gt_triage_load {
    const char *label, *verdict;  /* the rule's; verdict NULL for queues */
    double value;                 /* % of peak when it has one; NaN no data */
    int on;                       /* over the unit condition's threshold (hysteresis applied) */
    int held;                     /* named by the held verdict */
};

struct gt_triage_result {
    const char *verdict;  /* held verdict (hysteresis applied) */
    const char *raw;      /* this interval's own verdict */
    int step;             /* step that gave the held verdict, -1 none */
    int raw_step;         /* step that gave this interval's verdict, -1 none */
    const char *ref, *next; /* of the held verdict's step; NULL when none */
    int provisional;      /* the held verdict was reached past a step without data */
    const char *missing;  /* ... the first such condition's metric (or unit) */
    int raw_provisional;  /* the same for this interval's verdict */
    const char *raw_missing;
    const struct gt_triage_evidence *ev; size_t nev; /* this interval, in tree order */
    const struct gt_triage_load *units; size_t nunits;
    const struct gt_triage_load *queues; size_t nqueues;
    double unit, queue;   /* the most loaded unit's / busiest queue's value */
    const char *unit_label, *queue_label;
    int notes[GT_TRIAGE_MAX_NOTES]; size_t nnotes; /* 'triage note' steps that hold */
};

struct gt_triage;

/* NULL when out of memory. e may be NULL (no % of peak for units). The
 * layout and engine are borrowed. */
struct gt_triage *gt_triage_new(const struct gt_layout *l, const struct gt_engine *e);
void gt_triage_free(struct gt_triage *t);
/* 1 when step is a 'triage step-if-available' left out of the tree here
 * (a metric it reads cannot be computed in this run). */
int gt_triage_step_absent(const struct gt_triage *t, size_t step);
/* Judges one interval: s (may be NULL) and its metric values
 * (vals[nmetrics], NaN no data; the engine's last gt_engine_eval must be on
 * s). A per-instance metric (CPU clusters) is judged by its busiest
 * instance when s is given. */
const struct gt_triage_result *gt_triage_update(struct gt_triage *t, const struct gt_snapshot *s,
                                                const double *vals);
/* The verdict name for the current interval (after hysteresis): what an
 * export should label with. */
const char *gt_triage_current(const struct gt_triage *t);
/* The layout's 'triage queue|unit' rule of that kind whose metric is
 * highest in vals (a metric with a theoretical peak by its % of peak of
 * the engine's last evaluation, when e is given); -1 when none has data.
 * rule_metric[ntriage] maps rules to metrics (-1: none); *value, if not
 * NULL, gets the winning value (NaN when none). */
long gt_triage_best_rule(const struct gt_layout *l, const struct gt_engine *e,
                         const int *rule_metric, const double *vals, const char *kind,
                         double *value);
const char *gt_triage_op_text(enum gt_triage_op op);
/* The unit's triage verdict for these values ("texture-bound"), NULL when
 * no unit rule has data or the winning rule has none; *unit_rule, if not
 * NULL, gets the winning rule's index or -1. rule_metric[ntriage] maps the
 * layout's rules to metric indices (-1: none); with e, a metric that has a
 * peak competes by its % of peak, as on the dashboard's triage line. */
const char *gt_triage_verdict(const struct gt_layout *l, const struct gt_engine *e,
                              const int *rule_metric, const double *vals, long *unit_rule);

/* Layout internals (layout_triage.c): the 'triage step' and 'triage hold'
 * lines. Return 0, or -1 with a message in err and the byte offset into
 * val (parse) or the line (resolve) at fault. */
int  gt_layout_triage_parse(struct gt_layout *l, int line, const char *val, size_t len,
                            char *err, size_t errlen, size_t *off);
int  gt_layout_triage_resolve(struct gt_layout *l, char *err, size_t errlen, int *line);
void gt_layout_triage_free(struct gt_layout *l);
/* Frees what one step owns (not the step itself). */
void gt_triage_step_free(struct gt_triage_step *st);

#endif
