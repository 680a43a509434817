/* Metric expressions in the vendor guides' syntax: parsed once into a tree,
 * then compiled into a shared register program that is evaluated per
 * snapshot without allocation. "No data" is NaN and propagates everywhere. */
#ifndef GPUTOP_EXPR_H
#define GPUTOP_EXPR_H

#include <math.h>
#include <stddef.h>
#include "gputop/diag.h"

struct gt_expr;

/* Parses text (len bytes, may span lines). On error returns NULL and sets
 * d->msg, d->line and d->col relative to the text (1-based). */
struct gt_expr *gt_expr_parse(const char *text, size_t len, struct gt_diag *d);
void gt_expr_free(struct gt_expr *e);

/* Counter references, in order of appearance (repeats included). */
size_t      gt_expr_nrefs(const struct gt_expr *e);
const char *gt_expr_ref_name(const struct gt_expr *e, size_t i);   /* without '$' */
/* 1 when written with an instance range suffix such as ".Cluster[0..N]". */
int         gt_expr_ref_instanced(const struct gt_expr *e, size_t i);
void        gt_expr_ref_pos(const struct gt_expr *e, size_t i, int *line, int *col);

/* Tree walk without folding or sharing: the reference semantics the
 * compiled program must match bit for bit. value_of returns the value of
 * reference i. */
double gt_expr_eval(const struct gt_expr *e,
                    double (*value_of)(void *arg, size_t ref), void *arg);

/* The arithmetic every evaluator shares: division by zero and any NaN
 * operand give NaN ("no data"); min and max propagate NaN (unlike fmin). */
static inline double gt_op_div(double a, double b) { return b == 0.0 ? NAN : a / b; }
static inline double gt_op_min(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    return a < b ? a : b;
}
static inline double gt_op_max(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    return a > b ? a : b;
}

/* A program evaluates many expressions at once. Registers [0, ninputs) are
 * inputs the caller fills (reduced counter values); the program computes
 * the rest. Identical subexpressions across all added expressions are
 * computed once; subtrees whose inputs are all constants are folded. */
struct gt_program;

/* How a reference resolves: an input register, or a constant value. */
struct gt_ref_binding {
    int    input;      /* input register, or -1 for a constant */
    double constant;   /* used when input < 0 */
};

struct gt_program *gt_program_new(size_t ninputs);
void gt_program_free(struct gt_program *p);
/* Adds e with bindings[i] for reference i; returns the register holding
 * the result, or -1 when out of memory. */
int    gt_program_add(struct gt_program *p, const struct gt_expr *e,
                      const struct gt_ref_binding *bindings);
size_t gt_program_nregs(const struct gt_program *p);
size_t gt_program_ninstr(const struct gt_program *p);
/* Writes constant registers; call once per register file. */
void   gt_program_init_regs(const struct gt_program *p, double *regs);
/* Computes every non-input, non-constant register in order. */
void   gt_program_run(const struct gt_program *p, double *regs);

#endif
