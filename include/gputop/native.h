/* The built-in layouts as native code (tools/gen-native.c writes one C
 * function per layout at build time): the engine runs it instead of its
 * register program when a loaded layout's metrics are exactly those it
 * was generated from, so built-in dashboards cost what hand-written C
 * costs, while user layouts keep the interpreter. */
#ifndef GPUTOP_NATIVE_H
#define GPUTOP_NATIVE_H

#include <stddef.h>
#include <stdint.h>

struct gt_layout;

/* Evaluates every metric of the layout: reference k's value is r[k], and
 * r[nrefs + k] is 1 / r[k] when that is exact (a constant that is a power
 * of two: a division by it is then a multiplication), else 0; writes
 * out[i] for each metric, and peak[i] and pop[i] for those with a peak
 * (pop: the layout's expression, else 100 * value / peak). */
typedef void gt_native_fn(const double *restrict r, double *restrict out,
                          double *restrict peak, double *restrict pop);

struct gt_native_layout {
    const char *name;       /* the layout's 'name' */
    size_t nmetrics;
    /* gt_native_signature of the layout the code was generated from: its
     * texts would cost the phone binary ~55 KiB, their hash 8 bytes. */
    uint64_t signature;
    size_t nrefs;           /* gt_native_refs of that layout */
    gt_native_fn *eval;
};

/* Generated (build/<arch>/gen/native_layouts.c). */
extern const struct gt_native_layout gt_native_layouts[];
extern const size_t gt_native_layouts_count;

/* Writes the canonical text of an expression into buf (references as
 * $name, numbers with every digit, full parentheses): equal texts are
 * equal computations. Returns its length, or -1 if buf is too small. */
struct gt_expr;
int gt_native_text(const struct gt_expr *e, char *buf, size_t len);

/* A 64-bit FNV-1a hash of the canonical texts of every metric's value,
 * peak and pop expressions, in order (0 out of memory or an expression
 * too long to print, which then never matches). */
uint64_t gt_native_signature(const struct gt_layout *l);

/* The distinct references of l's metrics (value, peak, pop, in order of
 * first appearance), by name as written: what reference k of the native
 * function is. *names is malloc'ed; returns 0, or -1 out of memory. */
int gt_native_refs(const struct gt_layout *l, const char ***names, size_t *n);

/* The entry of table (n entries) generated from exactly l's metrics, or
 * NULL (a user layout, a merged or edited one): same name, same number
 * of metrics, same signature. */
const struct gt_native_layout *gt_native_find(const struct gt_native_layout *table, size_t n,
                                              const struct gt_layout *l);

#endif
