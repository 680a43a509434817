/* libFuzzer target: the metric expression parser, evaluator and compiler. */
#include "fuzz_common.h"
#include "gputop/expr.h"

static double value_of(void *arg, size_t ref)
{
    (void)arg;
    return (double)ref - 1.0;   /* 0 among them: division by zero is reached */
}

/* Compiled with every other reference a constant, so folding is reached
 * too, and run once. */
static void compile_and_run(const struct gt_expr *e)
{
    size_t i, n = gt_expr_nrefs(e);
    struct gt_ref_binding *b = calloc(n ? n : 1, sizeof(*b));
    struct gt_program *p = gt_program_new(n);
    double *regs;
    int r;

    if (!b || !p) {
        free(b);
        gt_program_free(p);
        return;
    }
    for (i = 0; i < n; i++) {
        b[i].input = i % 2 ? (int)i : -1;
        b[i].constant = (double)i - 1.0;
    }
    r = gt_program_add(p, e, b);
    regs = r < 0 ? NULL : calloc(gt_program_nregs(p) + 1, sizeof(*regs));
    if (regs) {
        gt_program_init_regs(p, regs);
        gt_program_run(p, regs);
        free(regs);
    }
    gt_program_free(p);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gt_diag d;
    struct gt_expr *e;

    gt_diag_clear(&d);
    e = gt_expr_parse((const char *)data, size, &d);
    if (!e)
        return 0;
    for (size_t i = 0; i < gt_expr_nrefs(e); i++) {
        int line, col;
        (void)gt_expr_ref_name(e, i);
        (void)gt_expr_ref_instanced(e, i);
        gt_expr_ref_pos(e, i, &line, &col);
    }
    (void)gt_expr_eval(e, value_of, NULL);
    compile_and_run(e);
    gt_expr_free(e);
    return 0;
}
