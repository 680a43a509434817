/* The triage engine on a hand-made tree (every value and expected verdict
 * worked out from the tree below, not from the code), its layout errors,
 * and each simulated scene getting the verdict it was built for. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gputop/layout.h"
#include "gputop/triage.h"

#define HEADER "gputop-layout 1\nname test\ntitle Test GPU\nfamily test\n"
#define METRIC(t, r) "    metric " t "\n      ref " r "\n      expr $X\n      unit %\n      show percent\n"

/* Metric indices in the order of the tree's section below. */
enum { M_BUSY, M_CPU, M_Q1, M_Q2, M_STALL, M_EXEC, M_A, M_T, NM };

static const char tree[] =
    HEADER
    "triage queue 3.2.1 | queue one\n"
    "triage queue 3.2.2 | queue two\n"
    "triage unit 6.1.1 | arithmetic unit | arithmetic-bound\n"
    "triage unit 6.1.3 | texture unit | texture-bound\n"
    "triage hold 3\n"
    "triage step idle | busy < 15 | 3.2 | nothing to do\n"
    "triage step CPU-bound | busy < 80 & cpu >= 95 | 2.1 | profile the CPU thread\n"
    "triage step GPU not saturated | busy < 80 | 3.2 | look at the CPU\n"
    "triage step serial queues | queue < 70 | 3.2.1 | overlap the queues\n"
    "triage step memory-stall-bound | 3.4.1 >= 10 | 3.4.1 | read less\n"
    "triage step unit-bound | 5.3.5 >= 70 & unit >= 80 | 6.1 | relieve the unit\n"
    "triage step no single limiter | | 3.2 | look at the content\n"
    "section S\n  key 1\n  group G\n"
    METRIC("busy", "9.1") METRIC("cpu", "2.1") METRIC("q1", "3.2.1") METRIC("q2", "3.2.2")
    METRIC("stall", "3.4.1") METRIC("exec", "5.3.5") METRIC("arith", "6.1.1")
    METRIC("tex", "6.1.3");

static struct gt_layout *parse(const char *text, struct gt_diag *d)
{
    return gt_layout_parse("t.layout", text, strlen(text), d);
}

static struct gt_layout *tree_layout(void)
{
    struct gt_diag d;
    struct gt_layout *l = parse(tree, &d);

    cr_assert_not_null(l, "%d:%d: %s", d.line, d.col, d.msg);
    return l;
}

/* A GPU-bound interval with nothing wrong: busy 95, queue one at 90, no
 * stalls, core 85 % busy, units below 80. */
static void busy_gpu(double *v)
{
    v[M_BUSY] = 95; v[M_CPU] = NAN; v[M_Q1] = 90; v[M_Q2] = 20;
    v[M_STALL] = 1; v[M_EXEC] = 85; v[M_A] = 50; v[M_T] = 60;
}

static const char *judge_once(const double *v)
{
    struct gt_layout *l = tree_layout();
    struct gt_triage *t = gt_triage_new(l, NULL);
    static char out[64];

    snprintf(out, sizeof(out), "%s", gt_triage_update(t, NULL, v)->verdict);
    gt_triage_free(t);
    gt_layout_free(l);
    return out;
}

Test(triage, layout_reads_the_tree)
{
    struct gt_layout *l = tree_layout();

    cr_assert_eq(l->nsteps, 7);
    cr_assert_eq(l->triage_hold, 3);
    cr_assert_str_eq(l->steps[1].verdict, "CPU-bound");
    cr_assert_eq(l->steps[1].nconds, 2);
    cr_assert_eq(l->steps[1].conds[0].metric, M_BUSY);
    cr_assert_eq(l->steps[1].conds[0].op, GT_TRIAGE_LT);
    cr_assert_eq(l->steps[1].conds[1].metric, M_CPU);
    cr_assert_eq(l->steps[1].conds[1].op, GT_TRIAGE_GE);
    cr_assert_eq(l->steps[1].conds[1].threshold, 95);
    cr_assert_eq(l->steps[3].conds[0].metric, GT_TRIAGE_QUEUE);
    cr_assert_eq(l->steps[5].conds[1].metric, GT_TRIAGE_UNIT);
    cr_assert_str_eq(l->steps[4].ref, "3.4.1");
    cr_assert_str_eq(l->steps[4].next, "read less");
    cr_assert_eq(l->steps[6].nconds, 0);
    gt_layout_free(l);
}

Test(triage, first_step_that_holds_decides)
{
    double v[NM];

    busy_gpu(v);
    v[M_BUSY] = 4;                       /* idle even though units look loaded */
    v[M_A] = 95;
    cr_assert_str_eq(judge_once(v), "idle");
    busy_gpu(v);
    v[M_BUSY] = 50;
    v[M_CPU] = 99;
    cr_assert_str_eq(judge_once(v), "CPU-bound");
    v[M_CPU] = 60;                       /* neither CPU nor GPU saturated */
    cr_assert_str_eq(judge_once(v), "GPU not saturated");
    busy_gpu(v);
    v[M_Q1] = 60;                        /* no queue near 100 % */
    cr_assert_str_eq(judge_once(v), "serial queues");
    busy_gpu(v);
    v[M_STALL] = 12;
    cr_assert_str_eq(judge_once(v), "memory-stall-bound");
    busy_gpu(v);
    cr_assert_str_eq(judge_once(v), "no single limiter");
}

/* The complaint: a unit at 22 % was called the bottleneck. */
Test(triage, unit_bound_only_above_the_threshold_and_with_a_busy_core)
{
    double v[NM];

    busy_gpu(v);
    v[M_A] = 22; v[M_T] = 10;
    cr_assert_str_eq(judge_once(v), "no single limiter");
    v[M_T] = 85;
    cr_assert_str_eq(judge_once(v), "texture-bound");
    v[M_A] = 90;
    cr_assert_str_eq(judge_once(v), "arithmetic-bound");
    v[M_EXEC] = 50;                      /* core mostly empty: units do not decide */
    cr_assert_str_eq(judge_once(v), "no single limiter");
}

Test(triage, no_data_for_the_first_step_gives_no_verdict)
{
    double v[NM];

    busy_gpu(v);
    v[M_BUSY] = NAN;
    cr_assert_str_eq(judge_once(v), GT_TRIAGE_NO_DATA);
}

Test(triage, a_later_step_without_data_is_passed_over_and_says_so)
{
    struct gt_layout *l = tree_layout();
    struct gt_triage *t = gt_triage_new(l, NULL);
    const struct gt_triage_result *r;
    double v[NM];
    size_t i;
    int seen = 0;

    busy_gpu(v);
    v[M_BUSY] = 50;                      /* CPU-bound step: cpu has no data */
    r = gt_triage_update(t, NULL, v);
    cr_assert_str_eq(r->verdict, "GPU not saturated");
    cr_assert_str_eq(r->next, "look at the CPU");
    cr_assert_str_eq(r->ref, "3.2");
    for (i = 0; i < r->nev; i++) {
        if (r->ev[i].step == 1 && r->ev[i].cond == 1) {
            cr_assert_eq(r->ev[i].met, -1);
            cr_assert(isnan(r->ev[i].value));
            seen = 1;
        }
    }
    cr_assert(seen, "the CPU condition is in the evidence");
    /* Evidence stops at the deciding step: steps 0, 1 (2 conds), 2. */
    cr_assert_eq(r->nev, 4);
    cr_assert_str_eq(r->ev[3].what, "busy");
    cr_assert_eq(r->ev[3].value, 50);
    cr_assert_eq(r->ev[3].met, 1);
    gt_triage_free(t);
    gt_layout_free(l);
}

Test(triage, a_new_verdict_must_last_hold_intervals)
{
    struct gt_layout *l = tree_layout();
    struct gt_triage *t = gt_triage_new(l, NULL);
    double v[NM], s[NM];

    busy_gpu(v);
    memcpy(s, v, sizeof(s));
    s[M_STALL] = 30;
    /* The first verdict needs no confirmation (nothing to flicker from). */
    cr_assert_str_eq(gt_triage_update(t, NULL, v)->verdict, "no single limiter");
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->verdict, "no single limiter");
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->raw, "memory-stall-bound");
    cr_assert_str_eq(gt_triage_verdict(t), "no single limiter");
    /* One interval back, then three stalled ones: only the third switches. */
    gt_triage_update(t, NULL, v);
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->verdict, "no single limiter");
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->verdict, "no single limiter");
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->verdict, "memory-stall-bound");
    cr_assert_str_eq(gt_triage_verdict(t), "memory-stall-bound");
    cr_assert_str_eq(gt_triage_update(t, NULL, s)->next, "read less");
    gt_triage_free(t);
    gt_layout_free(l);
}

static void expect_error(const char *lines, int line, const char *part)
{
    char text[2048];
    struct gt_diag d;
    struct gt_layout *l;

    snprintf(text, sizeof(text), "%s%s%s", HEADER, lines,
             "section S\n  key 1\n  group G\n" METRIC("busy", "9.1"));
    l = parse(text, &d);
    cr_assert_null(l, "accepted: %s", lines);
    cr_assert_eq(d.line, line, "line %d, not %d: %s", d.line, line, d.msg);
    cr_assert(strstr(d.msg, part), "'%s' lacks '%s'", d.msg, part);
}

Test(triage, layout_errors_name_the_line_and_fault)
{
    expect_error("triage step idle | busy < 15 | 3.2\n", 5, "VERDICT | CONDITIONS | REF | NEXT");
    expect_error("triage step idle | busy = 15 | 3.2 | x\n", 5, "METRIC < NUMBER");
    expect_error("triage step idle | busy < lots | 3.2 | x\n", 5, "'lots' is not a number");
    expect_error("triage step idle | busy < 15 |  | x\n", 5, "needs a verdict, a guide reference");
    expect_error("triage step idle | < 15 | 3.2 | x\n", 5, "names no metric");
    expect_error("triage step idle | clock < 15 | 3.2 | x\n", 5, "no ref or title 'clock'");
    expect_error("triage step x | unit > 80 | 6.1 | x\n", 5, "no 'triage unit' line");
    expect_error("triage step unit-bound | busy > 80 | 6.1 | x\n", 5, "no 'triage unit' line");
    expect_error("triage step a | | 3.2 | x\ntriage step b | busy > 1 | 3.2 | x\n", 5,
                 "must come last");
    expect_error("triage hold 0\n", 5, "1..100");
    expect_error("triage hold\n", 5, "1..100");
    expect_error("triage sometimes\n", 5, "'step' or 'hold'");
}
