/* The engine's side of the generated native code (engine_native.c): what
 * each of the code's references reads, and a plan that reduces them
 * straight into the registers the code reads. Internal to the engine. */
#ifndef GPUTOP_ENGINE_NATIVE_H
#define GPUTOP_ENGINE_NATIVE_H

#include "gputop/native.h"
#include "gputop/snapshot.h"
#include "engine_reduce.h"

/* What a reference of the native code reads. */
enum { NREF_VALUE, NREF_INPUT, NREF_NS, NREF_SECONDS };

struct gt_nref {
    int what;          /* NREF_* */
    struct input in;   /* NREF_INPUT: the reduction, as the program's input */
    double value;      /* NREF_VALUE: a catalogue constant, or NaN */
};

struct gt_nplan;

/* A plan for code whose reference k reads refs[k] (code->nrefs of them);
 * NULL out of memory. */
struct gt_nplan *gt_nplan_new(const struct gt_native_layout *code, const struct gt_nref *refs);
void gt_nplan_free(struct gt_nplan *p);
/* Reduces the snapshot's counters and runs the code. */
void gt_nplan_eval(const struct gt_nplan *p, const struct gt_snapshot *s, double *out,
                   double *peak, double *pop);

#endif
