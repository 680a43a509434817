/* The engine: aggregation rules on per-instance counters, constants,
 * scales, ratio counters, unavailable metrics, per-instance views and
 * snapshot accumulation. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputop/engine.h"

static const char layout_text[] =
    "gputop-layout 1\nname t\ntitle T\nfamily t\n"
    "aggregate shadercore %s\n"
    "section S\n  key x\n  group G\n"
    "    metric Core cycles\n      expr $Cyc\n      show count\n"
    "    metric Core usage\n      expr max(min(($Cyc / $Cores) / $Active * 100, 100), 0)\n      show percent\n"
    "    metric Threads\n      expr $Thr\n      show count\n"
    "    metric Bytes\n      expr $Beats * ($Bus / 8)\n      show count\n"
    "    metric Missing\n      expr $Active + $Nope * 2 + $Nope2\n      show count\n"
    "    metric Idle ratio\n      expr $Active / $Zero\n      show value\n"
    "    metric CPU\n      expr $CPUActivityUser.Cluster[0..N]\n      show percent\n"
    "    metric Slice beats\n      expr $Beats\n      show count\n";

struct fixture {
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    int cyc, thr, active, beats, zero, ticks_user, ticks_total;
};

static void setup_fixture(struct fixture *f, const char *agg)
{
    char text[4096];
    struct gt_diag d;

    snprintf(text, sizeof(text), layout_text, agg);
    f->l = gt_layout_parse("t.layout", text, strlen(text), &d);
    cr_assert_not_null(f->l, "%d:%d %s", d.line, d.col, d.msg);
    gt_catalog_init(&f->c);
    f->active = gt_catalog_add(&f->c, "Active", "front-end", GT_COUNTER_DELTA, 1, 1);
    f->cyc = gt_catalog_add(&f->c, "Cyc", "shadercore", GT_COUNTER_DELTA, 4, 1);
    f->thr = gt_catalog_add(&f->c, "Thr", "shadercore", GT_COUNTER_DELTA, 4, 4);  /* x4 scale */
    f->beats = gt_catalog_add(&f->c, "Beats", "memsys", GT_COUNTER_DELTA, 2, 1);
    f->zero = gt_catalog_add(&f->c, "Zero", "front-end", GT_COUNTER_DELTA, 1, 1);
    cr_assert_geq(gt_catalog_add_constant(&f->c, "Cores", 4), 0);
    cr_assert_geq(gt_catalog_add_constant(&f->c, "Bus", 128), 0);
    cr_assert_eq(gt_catalog_add_cpu(&f->c, 2), 0);
    f->ticks_user = gt_catalog_find(&f->c, "CPUTicksUser");
    f->ticks_total = gt_catalog_find(&f->c, "CPUTicksTotal");
    f->e = gt_engine_new(f->l, &f->c);
    cr_assert_not_null(f->e);
    cr_assert_eq(gt_snapshot_init(&f->s, f->c.nslots), 0);
    f->s.t_start_ns = 1000000000ull;
    f->s.t_end_ns = 1100000000ull;
    f->s.nsamples = 1;
}

static void teardown_fixture(struct fixture *f)
{
    gt_snapshot_free(&f->s);
    gt_engine_free(f->e);
    gt_catalog_free(&f->c);
    gt_layout_free(f->l);
}

static void put(struct fixture *f, int counter, uint32_t inst, uint64_t v)
{
    f->s.deltas[f->c.counters[counter].slot + inst] = v;
}

/* Four cores that differ: 100, 200, 300, 400 cycles; GPU active 1000. */
static void fill(struct fixture *f)
{
    int i;

    put(f, f->active, 0, 1000);
    for (i = 0; i < 4; i++) {
        put(f, f->cyc, (uint32_t)i, 100u * (uint32_t)(i + 1));
        put(f, f->thr, (uint32_t)i, 10u * (uint32_t)(i + 1));
    }
    put(f, f->beats, 0, 5);
    put(f, f->beats, 1, 7);
    put(f, f->ticks_user, 0, 30);
    put(f, f->ticks_user, 1, 10);
    put(f, f->ticks_total, 0, 100);
    put(f, f->ticks_total, 1, 100);
}

Test(engine, sum_rule_adds_instances)
{
    struct fixture f;
    double out[8];

    setup_fixture(&f, "sum");
    fill(&f);
    gt_engine_eval(f.e, &f.s, out);
    cr_assert_eq(out[0], 1000);                       /* 100+200+300+400 */
    cr_assert_eq(out[1], 1000.0 / 4 / 1000 * 100);    /* 25 % */
    cr_assert_eq(out[2], (10 + 20 + 30 + 40) * 4);    /* scale x4 */
    cr_assert_eq(out[3], 12 * 16);                    /* slices summed, bus 128 bits = 16 bytes */
    cr_assert(isnan(out[4]));                          /* unavailable */
    cr_assert(isnan(out[5]));                          /* divides by zero */
    cr_assert_eq(out[6], 40.0 / 200 * 100);           /* CPU ticks ratio over both clusters */
    teardown_fixture(&f);
}

Test(engine, mean_rule_averages_instances)
{
    struct fixture f;
    double out[8];

    setup_fixture(&f, "mean");
    fill(&f);
    gt_engine_eval(f.e, &f.s, out);
    cr_assert_eq(out[0], 250);                        /* (100+200+300+400)/4 */
    cr_assert_eq(out[1], 250.0 / 4 / 1000 * 100);
    cr_assert_eq(out[2], 25 * 4);
    cr_assert_eq(out[3], 12 * 16);                    /* memsys still summed */
    teardown_fixture(&f);
}

Test(engine, unavailable_metrics_say_why_and_the_rest_work)
{
    struct fixture f;
    const struct gt_unresolved *u;

    setup_fixture(&f, "sum");
    cr_assert_null(gt_engine_unavailable(f.e, 0));
    cr_assert_str_eq(gt_engine_unavailable(f.e, 4), "this source lacks $Nope and 1 more counters");
    cr_assert_eq(gt_engine_nunresolved(f.e), 2);
    u = gt_engine_unresolved(f.e, 0);
    cr_assert_str_eq(u->name, "Nope");
    cr_assert_eq(u->metric, 4);
    cr_assert_eq(u->line, 22);
    cr_assert_eq(u->col, 22);
    teardown_fixture(&f);
}

Test(engine, per_instance_views)
{
    struct fixture f;

    setup_fixture(&f, "sum");
    fill(&f);
    cr_assert_eq(gt_engine_instances(f.e, 0), 4);
    cr_assert_eq(gt_engine_instances(f.e, 3), 2);
    cr_assert_eq(gt_engine_instances(f.e, 5), 1);
    /* Core 2 ran 300 cycles: a count shows its own 300 (the four rows add
     * up to the total 1000); a percentage reads it as if every core ran
     * like it, 4 x 300 of 4 cores x 1000 cycles = 30 % */
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 0, 2), 300);
    cr_assert_eq(gt_engine_instance_mode(f.e, 0), GT_INSTANCE_OWN);
    cr_assert_eq(gt_engine_instance_mode(f.e, 1), GT_INSTANCE_SCALED);
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 1, 2), 1200.0 / 4 / 1000 * 100);
    cr_assert_eq(gt_engine_eval_instance_as(f.e, &f.s, 0, 2, GT_INSTANCE_SCALED), 1200);
    cr_assert_eq(gt_engine_eval_instance_as(f.e, &f.s, 1, 2, GT_INSTANCE_OWN), 300.0 / 4 / 1000 * 100);
    cr_assert(isnan(gt_engine_eval_instance(f.e, &f.s, 0, 4)));
    /* Instanced reference: each cluster's own activity */
    cr_assert_eq(gt_engine_instanced(f.e, 6), 1);
    cr_assert_eq(gt_engine_instanced(f.e, 0), 0);
    cr_assert_eq(gt_engine_instances(f.e, 6), 2);
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 6, 0), 30);
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 6, 1), 10);
    teardown_fixture(&f);

    setup_fixture(&f, "mean");
    fill(&f);
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 0, 2), 300);
    cr_assert_eq(gt_engine_eval_instance(f.e, &f.s, 1, 2), 300.0 / 4 / 1000 * 100);
    teardown_fixture(&f);
}

/* A Mali layout on a device with two shader cores and two L2 slices:
 * instance rows of count metrics against sums worked out by hand. */
struct mali {
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
};

static void mali_setup_cores(struct mali *x, const char *layout, const char *gpu, uint32_t cores)
{
    struct gt_device_desc dev = { gpu, cores, 2, 128, 0 };
    struct gt_diag d;

    x->l = gt_layout_load(layout, &d);
    cr_assert_not_null(x->l, "%s", d.msg);
    gt_catalog_init(&x->c);
    cr_assert_eq(gt_catalog_add_device(&x->c, &dev), 0);
    x->e = gt_engine_new(x->l, &x->c);
    cr_assert_not_null(x->e);
    cr_assert_eq(gt_snapshot_init(&x->s, x->c.nslots), 0);
    x->s.t_start_ns = 0;
    x->s.t_end_ns = 100000000ull;
    x->s.nsamples = 1;
}

static void mali_setup(struct mali *x, const char *layout, const char *gpu)
{
    mali_setup_cores(x, layout, gpu, 2);
}

static void mali_teardown(struct mali *x)
{
    gt_snapshot_free(&x->s);
    gt_engine_free(x->e);
    gt_catalog_free(&x->c);
    gt_layout_free(x->l);
}

/* Instance 0 reads a, instance 1 reads b. */
static void mali_put(struct mali *x, const char *counter, uint64_t a, uint64_t b)
{
    int k = gt_catalog_find(&x->c, counter);

    cr_assert_geq(k, 0, "%s", counter);
    x->s.deltas[x->c.counters[k].slot] = a;
    x->s.deltas[x->c.counters[k].slot + 1] = b;
}

static size_t mali_metric(const struct mali *x, const char *title)
{
    int m = gt_layout_find_metric(x->l, title);

    cr_assert_geq(m, 0, "%s", title);
    return (size_t)m;
}

/* Two L2 slices reading 100 and 300 beats on a 128-bit (16-byte) bus:
 * 1600 and 4800 bytes, together the total 6400. */
static void check_l2_bytes(struct mali *x, const char *beats)
{
    size_t m = mali_metric(x, "Output external read bytes");
    double out[2048];

    cr_assert_lt(gt_engine_nmetrics(x->e), 2048);
    mali_put(x, beats, 100, 300);
    gt_engine_eval(x->e, &x->s, out);
    cr_assert_eq(out[m], 6400);
    cr_assert_eq(gt_engine_instances(x->e, m), 2);
    cr_assert_eq(gt_engine_eval_instance(x->e, &x->s, m, 0), 1600);
    cr_assert_eq(gt_engine_eval_instance(x->e, &x->s, m, 1), 4800);
}

Test(engine, per_instance_counts_add_up_under_a_sum_rule)
{
    struct mali x;
    double out[2048];
    size_t m;

    mali_setup(&x, "mali-g720", "G720");
    check_l2_bytes(&x, "MaliExternalBusBeatsReadBeats");
    /* Shader cores summed: 100 + 300 fragment warps = 400; rows 100, 300 */
    m = mali_metric(&x, "Fragment warps");
    mali_put(&x, "MaliShaderWarpsFragmentWarps", 100, 300);
    gt_engine_eval(x.e, &x.s, out);
    cr_assert_eq(out[m], 400);
    cr_assert_eq(gt_engine_eval_instance(x.e, &x.s, m, 0), 100);
    cr_assert_eq(gt_engine_eval_instance(x.e, &x.s, m, 1), 300);
    mali_teardown(&x);
}

Test(engine, per_instance_counts_under_a_mean_rule_average_to_the_total)
{
    struct mali x;
    double out[2048];
    size_t m;

    mali_setup(&x, "mali-g715", "G715");
    check_l2_bytes(&x, "MaliExternalBusBeatsReadBeat");   /* memsys: summed */
    /* Shader cores averaged: the total is (100 + 300) / 2 = 200 warps per
     * core; each row is its core's own count, so the rows average to it */
    m = mali_metric(&x, "Fragment warps");
    mali_put(&x, "MaliCoreWarpsFragmentWarps", 100, 300);
    gt_engine_eval(x.e, &x.s, out);
    cr_assert_eq(out[m], 200);
    cr_assert_eq(gt_engine_eval_instance(x.e, &x.s, m, 0), 100);
    cr_assert_eq(gt_engine_eval_instance(x.e, &x.s, m, 1), 300);
    mali_teardown(&x);
}

Test(engine, sixty_four_bit_deltas)
{
    struct fixture f;
    double out[8];

    setup_fixture(&f, "sum");
    put(&f, f.cyc, 0, 5000000000ull);       /* > 2^32 */
    put(&f, f.cyc, 1, 5000000001ull);
    gt_engine_eval(f.e, &f.s, out);
    cr_assert_eq(out[0], 10000000001.0);
    teardown_fixture(&f);
}

Test(engine, seconds_and_accumulation)
{
    struct gt_snapshot a, b;

    cr_assert_eq(gt_snapshot_init(&a, 3), 0);
    cr_assert_eq(gt_snapshot_init(&b, 3), 0);
    a.t_start_ns = 100;
    a.t_end_ns = 200;
    a.nsamples = 1;
    a.deltas[0] = 5;
    b.t_start_ns = 200;
    b.t_end_ns = 350;
    b.nsamples = 1;
    b.deltas[0] = 7;
    b.deltas[2] = 1;
    gt_snapshot_accumulate(&a, &b);
    cr_assert_eq(a.deltas[0], 12);
    cr_assert_eq(a.deltas[2], 1);
    cr_assert_eq(a.t_start_ns, 100);
    cr_assert_eq(a.t_end_ns, 350);
    cr_assert_eq(a.nsamples, 2);
    cr_assert_float_eq(gt_engine_seconds(&a), 250e-9, 1e-18);
    gt_snapshot_zero(&a);
    cr_assert_eq(a.deltas[0], 0);
    cr_assert_eq(a.nsamples, 0);
    gt_snapshot_accumulate(&a, &b);
    cr_assert_eq(a.t_start_ns, 200);
    gt_snapshot_free(&a);
    gt_snapshot_free(&b);
}

Test(engine, catalog_rules)
{
    struct gt_catalog c, d;

    gt_catalog_init(&c);
    cr_assert_eq(gt_catalog_add(&c, "A", "b", GT_COUNTER_DELTA, 3, 1), 0);
    cr_assert_eq(gt_catalog_add(&c, "A", "b", GT_COUNTER_DELTA, 1, 1), -1);   /* duplicate */
    cr_assert_eq(gt_catalog_add(&c, "Z", "b", GT_COUNTER_DELTA, 0, 1), -1);   /* no instances */
    cr_assert_eq(c.nslots, 3);
    gt_catalog_init(&d);
    cr_assert_eq(gt_catalog_add(&d, "B", "b", GT_COUNTER_DELTA, 2, 1), 0);
    cr_assert_eq(gt_catalog_add_cpu(&d, 2), 0);
    cr_assert_eq(gt_catalog_merge(&c, &d), 0);
    cr_assert_eq(c.counters[gt_catalog_find(&c, "B")].slot, 3);
    cr_assert_eq(c.nslots, 3 + d.nslots);
    {
        int act = gt_catalog_find(&c, "CPUActivityUser");
        int tot = gt_catalog_find(&c, "CPUTicksTotal");
        cr_assert_eq(c.counters[act].denominator, tot);
        cr_assert_eq(c.counters[act].slot, c.counters[gt_catalog_find(&c, "CPUTicksUser")].slot);
    }
    cr_assert_eq(gt_catalog_merge(&c, &d), -1);                               /* names clash */
    gt_catalog_free(&c);
    gt_catalog_free(&d);
}

/* ---- spans: the slots the engine reads ---- */

static int in_spans(const struct gt_span *sp, size_t n, uint32_t slot)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (slot >= sp[i].first && slot < sp[i].first + sp[i].count)
            return 1;
    return 0;
}

Test(engine, spans_cover_every_slot_read_and_give_the_same_results)
{
    struct fixture f;
    struct gt_span *sp;
    struct gt_snapshot part;
    double all[16], some[16];
    size_t n, i, m;
    uint32_t k;

    setup_fixture(&f, "sum");
    fill(&f);
    cr_assert_eq(gt_engine_spans(f.e, &sp, &n), 0);
    cr_assert_gt(n, 0);
    for (i = 1; i < n; i++)
        cr_assert_gt(sp[i].first, sp[i - 1].first + sp[i - 1].count, "sorted, apart");
    /* Read counters (and the ratio's denominator) are in; Zero feeds a
     * metric too, so it is in as well. */
    for (k = 0; k < 4; k++)
        cr_assert(in_spans(sp, n, f.c.counters[f.cyc].slot + k));
    cr_assert(in_spans(sp, n, f.c.counters[f.ticks_total].slot + 1));
    /* A copy of only the spans evaluates the same as the whole snapshot. */
    cr_assert_eq(gt_snapshot_init(&part, f.c.nslots), 0);
    for (k = 0; k < part.nslots; k++)
        part.deltas[k] = 0xdeadbeef;         /* what is outside must not matter */
    gt_snapshot_copy_spans(&part, &f.s, sp, n);
    for (k = 0; k < part.nslots; k++)
        if (!in_spans(sp, n, k))
            part.deltas[k] = 999999;
    gt_engine_eval(f.e, &f.s, all);
    gt_engine_eval(f.e, &part, some);
    m = gt_engine_nmetrics(f.e);
    for (i = 0; i < m; i++)
        cr_assert(memcmp(&all[i], &some[i], sizeof(double)) == 0, "metric %zu: %g vs %g", i,
                  all[i], some[i]);
    free(sp);
    gt_snapshot_free(&part);
    teardown_fixture(&f);
}

Test(engine, used_mask_matches_uses)
{
    struct fixture f;
    unsigned char used[64];
    size_t k;

    setup_fixture(&f, "mean");
    cr_assert_lt(f.c.ncounters, sizeof(used));
    gt_engine_used(f.e, used);
    for (k = 0; k < f.c.ncounters; k++)
        if (f.c.counters[k].kind != GT_COUNTER_CONSTANT)
            cr_assert_eq(used[k], gt_engine_uses(f.e, k), "counter %s", f.c.counters[k].name);
    cr_assert_eq(used[f.ticks_user], 1, "numerator of a ratio read");
    cr_assert_eq(used[f.ticks_total], 1, "denominator of a ratio read");
    teardown_fixture(&f);
}

Test(engine, spans_normalize_sorts_and_joins)
{
    struct gt_span sp[] = { { 40, 2 }, { 0, 4 }, { 6, 2 }, { 3, 2 }, { 20, 0 }, { 50, 1 } };
    size_t n = gt_spans_normalize(sp, 6, 2);

    /* [0,5) and [6,8) are 1 apart: joined; 20 stands alone (empty); [40,42) and
     * [50,51) are 8 apart: kept. */
    cr_assert_eq(n, 4);
    cr_assert(sp[0].first == 0 && sp[0].count == 8);
    cr_assert(sp[1].first == 20 && sp[1].count == 0);
    cr_assert(sp[2].first == 40 && sp[2].count == 2);
    cr_assert(sp[3].first == 50 && sp[3].count == 1);
    cr_assert_eq(gt_spans_normalize(sp, 0, 2), 0);
}

Test(engine, spans_subtract_leaves_the_slots_of_a_outside_b)
{
    /* a: [0,10) [20,30) [40,45); b: [2,4) [8,22) [25,26) [44,50). */
    const struct gt_span a[] = { { 0, 10 }, { 20, 10 }, { 40, 5 } };
    const struct gt_span b[] = { { 2, 2 }, { 8, 14 }, { 25, 1 }, { 44, 6 } };
    const struct gt_span whole[] = { { 0, 100 } };
    struct gt_span out[8];
    size_t n = gt_spans_subtract(a, 3, b, 4, out);

    /* Left: [0,2) [4,8) from the first; [22,25) [26,30) from the second
     * (b's [8,22) reaches into it); [40,44) from the third. */
    cr_assert_eq(n, 5);
    cr_assert(out[0].first == 0 && out[0].count == 2);
    cr_assert(out[1].first == 4 && out[1].count == 4);
    cr_assert(out[2].first == 22 && out[2].count == 3);
    cr_assert(out[3].first == 26 && out[3].count == 4);
    cr_assert(out[4].first == 40 && out[4].count == 4);
    /* Nothing taken away; everything taken away. */
    cr_assert_eq(gt_spans_subtract(a, 3, b, 0, out), 3);
    cr_assert(out[1].first == 20 && out[1].count == 10);
    cr_assert_eq(gt_spans_subtract(a, 3, whole, 1, out), 0);
}

Test(engine, span_accumulate_and_zero_touch_only_their_slots)
{
    struct gt_snapshot a, b;
    struct gt_span sp[] = { { 1, 2 } };
    uint32_t i;

    cr_assert_eq(gt_snapshot_init(&a, 4), 0);
    cr_assert_eq(gt_snapshot_init(&b, 4), 0);
    for (i = 0; i < 4; i++) {
        a.deltas[i] = 10 + i;
        b.deltas[i] = 100;
    }
    a.nsamples = b.nsamples = 1;
    a.t_start_ns = 1;
    a.t_end_ns = 2;
    b.t_start_ns = 2;
    b.t_end_ns = 3;
    gt_snapshot_accumulate_spans(&a, &b, sp, 1);
    cr_assert(a.deltas[0] == 10 && a.deltas[1] == 111 && a.deltas[2] == 112 && a.deltas[3] == 13);
    cr_assert(a.t_start_ns == 1 && a.t_end_ns == 3 && a.nsamples == 2);
    gt_snapshot_zero_spans(&a, sp, 1);
    cr_assert(a.deltas[0] == 10 && a.deltas[1] == 0 && a.deltas[2] == 0 && a.deltas[3] == 13);
    cr_assert_eq(a.nsamples, 0);
    gt_snapshot_free(&a);
    gt_snapshot_free(&b);
}

static const char *name_of(const struct gt_engine *e, size_t m, uint32_t inst, int brief)
{
    static char buf[64];

    return gt_catalog_instance_name(gt_engine_instance_block(e, m),
                                    gt_engine_instance_number(e, m, inst), brief, buf, sizeof(buf));
}

Test(engine, instances_are_named_by_block_with_physical_core_numbers)
{
    static const unsigned want[7] = { 0, 1, 2, 4, 5, 6, 8 };
    struct fixture f;
    struct mali x;
    size_t m;
    uint32_t i;
    char buf[32];

    setup_fixture(&f, "sum");
    cr_assert_str_eq(name_of(f.e, 0, 3, 0), "shader core 3");   /* mask unknown */
    cr_assert_str_eq(name_of(f.e, 3, 1, 0), "L2 slice 1");
    cr_assert_str_eq(name_of(f.e, 3, 1, 1), "slice 1");
    cr_assert_str_eq(name_of(f.e, 6, 0, 0), "CPU cluster 0");
    cr_assert_str_eq(name_of(f.e, 6, 0, 1), "cluster 0");
    teardown_fixture(&f);

    /* A G715 MC7 with core mask 0x177: cores 0, 1, 2, 4, 5, 6, 8 */
    mali_setup_cores(&x, "mali-g715", "G715", 7);
    gt_engine_set_core_mask(x.e, 0x177);
    m = mali_metric(&x, "Fragment warps");
    cr_assert_eq(gt_engine_instances(x.e, m), 7);
    for (i = 0; i < 7; i++) {
        snprintf(buf, sizeof(buf), "shader core %u", want[i]);
        cr_assert_str_eq(name_of(x.e, m, i, 0), buf);
        cr_assert_eq(gt_engine_instance_number(x.e, m, i), want[i]);
    }
    cr_assert_str_eq(name_of(x.e, m, 3, 1), "core 4");
    /* Slices are not cores: the mask leaves them alone */
    cr_assert_str_eq(name_of(x.e, mali_metric(&x, "Output external read bytes"), 1, 0), "L2 slice 1");
    mali_teardown(&x);
}

/* $GputopIntervalSeconds: the interval's length, supplied by the engine, so
 * a layout can write rates. By hand: 0.1 s at 850 MHz is 85,000,000 clock
 * cycles; 51,000,000 of them active is 60 % busy; against a 1 GHz max clock
 * the same active cycles are 51 % of the 100,000,000 the interval allowed. */
Test(engine, interval_seconds_builtin_gives_rates)
{
    static const char text[] =
        "gputop-layout 1\nname t\ntitle T\nfamily t\n"
        "section S\n  key x\n  group G\n"
        "    metric Busy\n      expr max(min($Active / $Clock * 100, 100), 0)\n      show percent\n"
        "    metric Clock\n      expr $Clock / $GputopIntervalSeconds / 1000000\n      show value\n"
        "    metric Busy of max\n      expr $Active / ($MaxHz * $GputopIntervalSeconds) * 100\n"
        "      show percent\n"
        "    metric Seconds\n      expr $GputopIntervalSeconds\n      show value\n";
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    struct gt_diag d;
    double out[4];
    int active, clock;

    l = gt_layout_parse("t.layout", text, strlen(text), &d);
    cr_assert_not_null(l, "%d:%d %s", d.line, d.col, d.msg);
    gt_catalog_init(&c);
    active = gt_catalog_add(&c, "Active", "front-end", GT_COUNTER_DELTA, 1, 1);
    clock = gt_catalog_add(&c, "Clock", "front-end", GT_COUNTER_DELTA, 1, 1);
    cr_assert_geq(gt_catalog_add_constant(&c, "MaxHz", 1e9), 0);
    e = gt_engine_new(l, &c);
    cr_assert_not_null(e);
    cr_assert_eq(gt_engine_nunresolved(e), 0);
    cr_assert_null(gt_engine_unavailable(e, 1));
    cr_assert_eq(gt_snapshot_init(&s, c.nslots), 0);
    s.t_start_ns = 5000000000ull;
    s.t_end_ns = 5100000000ull;
    s.nsamples = 1;
    s.deltas[c.counters[active].slot] = 51000000;
    s.deltas[c.counters[clock].slot] = 85000000;
    gt_engine_eval(e, &s, out);
    cr_assert_float_eq(out[0], 60.0, 1e-9);
    cr_assert_float_eq(out[1], 850.0, 1e-6);
    cr_assert_float_eq(out[2], 51.0, 1e-9);
    cr_assert_float_eq(out[3], 0.1, 1e-12);
    cr_assert_float_eq(gt_engine_eval_instance(e, &s, 1, 0), 850.0, 1e-6);
    /* An interval of no length has no rate: no data, not infinity. */
    s.t_end_ns = s.t_start_ns;
    gt_engine_eval(e, &s, out);
    cr_assert(isnan(out[1]));
    cr_assert(isnan(out[2]));
    gt_snapshot_free(&s);
    gt_engine_free(e);
    gt_catalog_free(&c);
    gt_layout_free(l);
}
