/* Layout additions for speed-of-light pages: a metric's peak and percent
 * of peak, the built-in $interval_ns, and the _sum / _avr suffixes that
 * reduce one counter two ways in one layout. Expected values are worked
 * out by hand in each test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gputop/engine.h"

static const char text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "aggregate SQ mean\n"
    "section S\n  key x\n  group G\n"
    "    metric Rate\n      expr $Ops * 64 / $interval_ns\n      show value\n"
    "      peak $clk * $cus * 128 / 1000\n"
    "    metric Busy ratio\n      expr $Busy_sum / $Busy_avr\n      show value\n"
    "    metric Rule\n      expr $Busy\n      show count\n"
    "    metric IPC\n      expr ($Ops - 10) / $Busy_sum\n      show value\n"
    "      peak 5\n      pop 100 * $Ops / $Busy_sum / 5\n"
    "    metric Plain\n      expr $Ops\n      show count\n"
    "    metric Missing peak\n      expr $Ops\n      show count\n      peak $nope\n";

struct fx {
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    double v[8];
};

static void open_fx(struct fx *f)
{
    struct gt_diag d;
    int ops, busy;

    f->l = gt_layout_parse("t.layout", text, strlen(text), &d);
    cr_assert_not_null(f->l, "%d:%d %s", d.line, d.col, d.msg);
    gt_catalog_init(&f->c);
    ops = gt_catalog_add(&f->c, "Ops", "SQ", GT_COUNTER_DELTA, 1, 1);
    busy = gt_catalog_add(&f->c, "Busy", "SQ", GT_COUNTER_DELTA, 2, 1);
    cr_assert_geq(gt_catalog_add_constant(&f->c, "clk", 2900), 0);
    cr_assert_geq(gt_catalog_add_constant(&f->c, "cus", 40), 0);
    f->e = gt_engine_new(f->l, &f->c);
    cr_assert_not_null(f->e);
    cr_assert_eq(gt_snapshot_init(&f->s, f->c.nslots), 0);
    /* A 1 ms interval: 1e6 ns. */
    f->s.t_start_ns = 5000000;
    f->s.t_end_ns = 6000000;
    f->s.nsamples = 1;
    f->s.deltas[f->c.counters[ops].slot] = 100000000;      /* 1e8 VALU ops */
    f->s.deltas[f->c.counters[busy].slot] = 300;
    f->s.deltas[f->c.counters[busy].slot + 1] = 500;
    gt_engine_eval(f->e, &f->s, f->v);
}

static void close_fx(struct fx *f)
{
    gt_snapshot_free(&f->s);
    gt_engine_free(f->e);
    gt_catalog_free(&f->c);
    gt_layout_free(f->l);
}

Test(engine_peak, interval_and_default_percent_of_peak)
{
    struct fx f;

    open_fx(&f);
    /* 1e8 * 64 / 1e6 ns = 6400 per ns (GFLOP/s); peak 2900*40*128/1000 =
     * 14848; 100 * 6400 / 14848 = 43.1034...% */
    cr_expect_float_eq(f.v[0], 6400.0, 1e-9);
    cr_expect(gt_engine_has_peak(f.e, 0));
    cr_expect_float_eq(gt_engine_peak(f.e, 0), 14848.0, 1e-9);
    cr_expect_float_eq(gt_engine_pop(f.e, 0), 640000.0 / 14848.0, 1e-9);
    close_fx(&f);
}

Test(engine_peak, sum_and_avr_suffixes_override_the_rule)
{
    struct fx f;

    open_fx(&f);
    /* sum 800, mean 400 -> 2; the bare name follows 'aggregate SQ mean'. */
    cr_expect_float_eq(f.v[1], 2.0, 1e-12);
    cr_expect_float_eq(f.v[2], 400.0, 1e-12);
    close_fx(&f);
}

Test(engine_peak, explicit_pop_expression)
{
    struct fx f;

    open_fx(&f);
    /* (1e8 - 10) / 800 = 124999.9875; pop = 100 * 1e8 / 800 / 5 = 2500000 */
    cr_expect_float_eq(f.v[3], 124999.9875, 1e-6);
    cr_expect_float_eq(gt_engine_peak(f.e, 3), 5.0, 1e-12);
    cr_expect_float_eq(gt_engine_pop(f.e, 3), 2500000.0, 1e-6);
    close_fx(&f);
}

Test(engine_peak, no_peak_and_missing_peak)
{
    struct fx f;
    size_t i;
    int found = 0;

    open_fx(&f);
    cr_expect(!gt_engine_has_peak(f.e, 4));
    cr_expect(isnan(gt_engine_pop(f.e, 4)));
    /* A peak naming an unknown counter: the value still works, the peak
     * is no data, and --check-layout hears of the name. */
    cr_expect_null(gt_engine_unavailable(f.e, 5));
    cr_expect_float_eq(f.v[5], 1e8, 1e-6);
    cr_expect(isnan(gt_engine_peak(f.e, 5)));
    cr_expect(isnan(gt_engine_pop(f.e, 5)));
    for (i = 0; i < gt_engine_nunresolved(f.e); i++)
        found |= strcmp(gt_engine_unresolved(f.e, i)->name, "nope") == 0 &&
                 gt_engine_unresolved(f.e, i)->line == 30;
    cr_expect(found, "the unknown peak counter is reported at its line");
    close_fx(&f);
}

Test(engine_peak, per_instance_view_of_a_suffixed_counter)
{
    struct fx f;

    open_fx(&f);
    /* Instance 1 of $Busy_sum / $Busy_avr: 500 * 2 / 500 = 2. */
    cr_expect_float_eq(gt_engine_eval_instance(f.e, &f.s, 1, 1), 2.0, 1e-12);
    close_fx(&f);
}

static void expect_error(const char *body, const char *msg, int line)
{
    char t[1024];
    struct gt_diag d;
    struct gt_layout *l;

    snprintf(t, sizeof(t), "gputop-layout 1\nname t\ntitle T\nfamily t\n"
             "section S\n  key x\n  group G\n    metric M\n      expr $A\n"
             "      show value\n%s", body);
    l = gt_layout_parse("t.layout", t, strlen(t), &d);
    cr_assert_null(l, "accepted: %s", body);
    cr_expect(strstr(d.msg, msg) != NULL, "message '%s' lacks '%s'", d.msg, msg);
    cr_expect_eq(d.line, line, "line %d, expected %d", d.line, line);
}

Test(engine_peak, layout_errors)
{
    expect_error("      pop 100\n", "has a pop but no peak", 11);
    expect_error("      peak 1\n      peak 2\n", "already has a peak (line 11)", 12);
    expect_error("      peak\n", "'peak' needs an expression", 11);
    expect_error("      peak 1 +\n", "", 11);
}
