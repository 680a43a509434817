/* libFuzzer target: the metric expression parser, evaluator and compiler. */
#include "fuzz_common.h"
#include "gputop/expr.h"

static double value_of(void *arg, size_t ref)
{
    (void)arg;
    return (double)ref - 1.0;   /* 0 among them: division by zero is reached */
}

static const char *ref_name(void *arg, size_t ref)
{
    (void)arg;
    return ref % 2 ? "a" : "b";
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
    char buf[512];
    (void)gt_expr_eval(e, value_of, NULL);
    (void)gt_expr_to_c(e, buf, sizeof(buf), ref_name, NULL);
    gt_expr_free(e);
    return 0;
}
