/* The Mali layouts against hand-computed values: given per-core deltas,
 * each checked metric must equal what the guide's expression gives when
 * worked out by hand, with the layout's own aggregation rule. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gputop/engine.h"
#include "gputop/triage.h"

struct lt {
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    double out[512];
};

static void lt_open(struct lt *t, const char *layout, const char *gpu, uint32_t cores,
                    uint32_t slices)
{
    struct gt_device_desc dev = { gpu, cores, slices, 128, 0 };
    struct gt_diag d;

    memset(t, 0, sizeof(*t));
    t->l = gt_layout_load(layout, &d);
    cr_assert_not_null(t->l, "%s", d.msg);
    gt_catalog_init(&t->c);
    cr_assert_eq(gt_catalog_add_device(&t->c, &dev), 0);
    /* what a kbase source adds when the kernel sends clock cycles */
    cr_assert_geq(gt_catalog_add(&t->c, GT_MALI_GPU_CLOCK_CYCLES, "front-end",
                                 GT_COUNTER_DELTA, 1, 1.0), 0);
    cr_assert_geq(gt_catalog_add(&t->c, GT_MALI_SC_CLOCK_CYCLES, "front-end",
                                 GT_COUNTER_DELTA, 1, 1.0), 0);
    cr_assert_geq(gt_catalog_add_constant(&t->c, GT_MALI_MAX_CLOCK_HZ, 1e9), 0);
    cr_assert_eq(gt_catalog_add_cpu(&t->c, 2), 0);
    cr_assert_eq(gt_catalog_add_cpu_cores(&t->c, 4), 0);
    t->e = gt_engine_new(t->l, &t->c);
    cr_assert_not_null(t->e);
    cr_assert_eq(gt_engine_nunresolved(t->e), 0);
    cr_assert_leq(t->l->nmetrics, 512);
    gt_snapshot_init(&t->s, t->c.nslots);
    t->s.t_start_ns = 0;
    t->s.t_end_ns = 100000000;
    t->s.nsamples = 1;
}

static void lt_close(struct lt *t)
{
    gt_snapshot_free(&t->s);
    gt_engine_free(t->e);
    gt_catalog_free(&t->c);
    gt_layout_free(t->l);
}

/* Sets every instance of a counter: values[i] for instance i. */
static void set(struct lt *t, const char *name, const uint64_t *values)
{
    int k = gt_catalog_find(&t->c, name);
    uint32_t i;

    cr_assert_geq(k, 0, "no counter %s", name);
    for (i = 0; i < t->c.counters[k].instances; i++)
        t->s.deltas[t->c.counters[k].slot + i] = values[i];
}

static void set1(struct lt *t, const char *name, uint64_t v)
{
    uint64_t vals[64] = { 0 };

    vals[0] = v;
    set(t, name, vals);
}

static double val(struct lt *t, const char *ref)
{
    int m = gt_layout_find_metric(t->l, ref);

    cr_assert_geq(m, 0, "no metric %s", ref);
    gt_engine_eval(t->e, &t->s, t->out);
    return t->out[m];
}

#define EQ(t, ref, want) do { \
    double got_ = val(t, ref), want_ = (want); \
    cr_assert(fabs(got_ - want_) <= 1e-9 * fabs(want_) + 1e-12, \
              "%s: got %.17g, want %.17g", ref, got_, want_); \
} while (0)

static void count_metrics(const char *layout, size_t guide)
{
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load(layout, &d);
    size_t i, refs = 0, own = 0;

    cr_assert_not_null(l, "%s", d.msg);
    /* the guide's numbered definitions plus the two CPU rows (2.1, 2.2);
     * gputop's own metrics (the header's busy share and clock, the triage's
     * external bus utilization two ways, bandwidth and busiest CPU) are
     * apart */
    for (i = 0; i < l->nmetrics; i++) {
        if (l->groups[l->metrics[i].group].own) {
            own++;
            cr_assert_null(l->metrics[i].ref, "gputop's own metric with a guide number");
            continue;
        }
        refs += l->metrics[i].ref != NULL;
    }
    cr_assert_eq(l->nmetrics - own, guide + 2, "%s has %zu guide metrics", layout,
                 l->nmetrics - own);
    cr_assert_eq(refs, l->nmetrics - own, "every guide metric carries the guide's number");
    cr_assert_eq(own, 7, "busy share, clock, busy share of max-clock time, external bus "
                 "utilization (against the clock and the max clock) and bandwidth, CPU "
                 "activity per CPU");
    cr_assert_geq(l->header[GT_HEADER_BUSY], 0);
    cr_assert_geq(l->header[GT_HEADER_BUSY_MAX], 0);
    cr_assert_geq(l->header[GT_HEADER_CLOCK], 0);
    gt_layout_free(l);
}

/* ---- Mali-T820 / T830: shader-core counters summed over cores ---- */

Test(layout_t8xx, has_every_definition_of_the_guide)
{
    count_metrics("mali-t8xx", 46);
}

Test(layout_t8xx, metrics_match_hand_computed_values)
{
    static const uint64_t frag_active[4] = { 100, 200, 300, 400 };
    static const uint64_t frag_threads[4] = { 50, 50, 100, 200 };
    static const uint64_t exec_active[4] = { 400, 300, 200, 100 };
    static const uint64_t alu[4] = { 100, 100, 100, 100 };
    struct lt t;

    lt_open(&t, "mali-t8xx", "T830", 4, 1);
    set1(&t, "MaliGPUCyclesGPUActive", 1000);
    set1(&t, "MaliGPUCyclesFragmentQueueActive", 750);
    set1(&t, "MaliExternalBusBeatsReadBeats", 1000);
    set1(&t, "MaliExternalBusStallCyclesReadStall", 200);
    set1(&t, "MaliPrimitiveCullingFacingOrXYPlaneTestCulledPrimitives", 30);
    set1(&t, "MaliPrimitiveCullingZPlaneTestCulledPrimitives", 10);
    set1(&t, "MaliPrimitiveCullingVisiblePrimitives", 60);
    set1(&t, "MaliGPUTasksFragmentTasks", 2);
    set(&t, "MaliShaderCoreCyclesFragmentActive", frag_active);
    set(&t, "MaliShaderThreadsFragmentThreads", frag_threads);
    set(&t, "MaliShaderCoreCyclesExecutionCoreActive", exec_active);
    set(&t, "MaliALUInstructionsExecutedInstructions", alu);
    EQ(&t, "3.1.1", 1000);
    EQ(&t, "3.2.2", 75);
    EQ(&t, "3.3.1", 1000 * 16);                       /* 128-bit bus: 16 bytes a beat */
    EQ(&t, "3.4.1", 200.0 / 1 / 1000 * 100);          /* one L2 slice */
    EQ(&t, "4.1.1", 100);
    EQ(&t, "4.1.2", 40);
    EQ(&t, "4.2.1", 60);
    EQ(&t, "4.2.2", 30);
    EQ(&t, "4.2.3", 10.0 / (100 - 30) * 100);         /* of what reached the Z stage */
    EQ(&t, "4.3.1", 2 * 256);
    EQ(&t, "4.3.2", 1000.0 / 512);
    EQ(&t, "4.3.3", 400.0 / 512);                     /* threads summed over cores */
    EQ(&t, "5.2.2", 1000.0 / 400);
    EQ(&t, "5.3.2", 1000.0 / 4 / 1000 * 100);         /* sum / core count: 25 % */
    EQ(&t, "5.3.4", 1000.0 / 4 / 1000 * 100);
    EQ(&t, "6.1.1", 400.0 / 1000 * 100);
    EQ(&t, "9.1.1", 4);
    EQ(&t, "9.1.3", 16);
    lt_close(&t);
}

Test(layout_t8xx, zero_denominators_show_no_data)
{
    struct lt t;

    lt_open(&t, "mali-t8xx", "T820", 1, 1);
    cr_assert(isnan(val(&t, "3.2.1")), "idle GPU: queue utilisation is no data");
    cr_assert(isnan(val(&t, "6.2.2")), "no tiles: kill rate is no data");
    cr_assert(isnan(val(&t, "4.2.1")));
    cr_assert_eq(val(&t, "3.1.1"), 0);
    set1(&t, "MaliShaderThreadsFragmentThreads", 10);
    set1(&t, "MaliShaderThreadsFragmentHelperThreads", 2);
    EQ(&t, "6.2.1", 100);     /* the guide's inverted ratio, clamped (see the layout) */
    lt_close(&t);
}

Test(layout_t8xx, cpu_rows_per_cluster)
{
    static const uint64_t user[2] = { 30, 10 }, total[2] = { 100, 200 };
    struct lt t;
    int m;

    lt_open(&t, "mali-t8xx", "T830", 4, 1);
    set(&t, "CPUTicksUser", user);
    set(&t, "CPUTicksTotal", total);
    m = gt_layout_find_metric(t.l, "2.1");
    cr_assert_eq(gt_engine_instanced(t.e, (size_t)m), 1);
    cr_assert_eq(gt_engine_instances(t.e, (size_t)m), 2);
    cr_assert_float_eq(gt_engine_eval_instance(t.e, &t.s, (size_t)m, 0), 30.0, 1e-12);
    cr_assert_float_eq(gt_engine_eval_instance(t.e, &t.s, (size_t)m, 1), 5.0, 1e-12);
    lt_close(&t);
}

/* ---- Mali-G715 (shader cores averaged) and Mali-G720 (summed) ----
 * Both are fed the same 4-core workload in which every core differs. The
 * G715 guide's expressions expect the mean over cores (they multiply back
 * by the core count where a total is wanted); the G720 guide's expect the
 * sum (they divide by the core count where a per-core figure is wanted).
 * With the right rule each layout gives the same answers for ratios, and
 * the plain per-core counts differ by exactly the core count. */

static const uint64_t frag_threads4[4] = { 100, 200, 300, 400 };  /* x4 scale: 4000 */
static const uint64_t any_active4[4] = { 200, 400, 600, 800 };
static const uint64_t frag_active4[4] = { 1000, 2000, 3000, 6000 };
static const uint64_t frag_warps4[4] = { 30, 60, 90, 120 };
static const uint64_t rays4[4] = { 10, 20, 30, 40 };
static const uint64_t box_active4[4] = { 100, 100, 100, 100 };
static const uint64_t tri_active4[4] = { 0, 0, 0, 800 };
static const uint64_t exec_active4[4] = { 1000, 1000, 1000, 1000 };
static const uint64_t box_1316[4] = { 1, 2, 3, 4 };
static const uint64_t read_beats2[2] = { 600, 400 };
static const uint64_t read_stall2[2] = { 100, 300 };

/* The L2-slice (memsys) counters of both guides: summed over two slices. */
static void set_latency(struct lt *t, const char *beats, const char *stall)
{
    static const uint64_t b0[2] = { 100, 100 }, b1[2] = { 50, 50 }, b2[2] = { 25, 25 },
                          b3[2] = { 10, 10 }, b4[2] = { 5, 5 };

    set(t, beats, read_beats2);
    set(t, stall, read_stall2);
    set(t, "MaliExternalBusReadLatency0127Cycles", b0);
    set(t, "MaliExternalBusReadLatency128191Cycles", b1);
    set(t, "MaliExternalBusReadLatency192255Cycles", b2);
    set(t, "MaliExternalBusReadLatency256319Cycles", b3);
    set(t, "MaliExternalBusReadLatency320383Cycles", b4);
}

Test(layout_g715, has_every_definition_of_the_guide)
{
    count_metrics("mali-g715", 112);
}

Test(layout_g715, shader_core_counters_are_averaged_over_cores)
{
    struct lt t;

    lt_open(&t, "mali-g715", "G715", 4, 2);
    set1(&t, "MaliGPUCyclesGPUActive", 1000);
    set1(&t, "MaliGPUTasksFragmentTasks", 2);
    set(&t, "MaliCoreThreadsFragmentThreads", frag_threads4);
    set(&t, "MaliCoreCyclesAnyActive", any_active4);
    set(&t, "MaliCoreCyclesFragmentActive", frag_active4);
    set(&t, "MaliCoreWarpsFragmentWarps", frag_warps4);
    set(&t, "MaliRayTracingRaysStarted", rays4);
    set(&t, "MaliRayTracingCyclesBoxTesterActive", box_active4);
    set(&t, "MaliRayTracingCyclesTriangleTesterActive", tri_active4);
    set(&t, "MaliCoreCyclesExecutionCoreActive", exec_active4);
    set(&t, "MaliRayTracingBoxTestUsageBoxNodesWith1316Rays", box_1316);
    set_latency(&t, "MaliExternalBusBeatsReadBeat", "MaliExternalBusStallsReadStallCycles");
    set1(&t, "MaliPrimitiveCullingFacingTestCulledPrimitives", 30);
    set1(&t, "MaliPrimitiveCullingFrustumPlaneTestCulledPrimitives", 20);
    set1(&t, "MaliPrimitiveCullingSampleTestCulledPrimitives", 10);
    set1(&t, "MaliPrimitiveCullingVisiblePrimitives", 40);

    EQ(&t, "4.4.1", 2 * 1024);
    /* mean thread count 1000 (raw x4), times 4 cores, over 2048 pixels */
    EQ(&t, "4.4.3", 1000.0 * 4 / 2048);
    /* mean 500 active cycles of 1000: 50 %; a sum would clamp at 100 % */
    EQ(&t, "5.3.1", 50);
    EQ(&t, "5.2.2", 3000.0 / 1000);
    EQ(&t, "6.3.2", 1000.0 / (75 * 16) * 100);
    EQ(&t, "10.2.1", 25);                             /* rays: per-core mean */
    EQ(&t, "6.1.5", 200.0 / 1000 * 100);              /* max(box, triangle) of the means */
    EQ(&t, "10.3.1", 2.5);
    EQ(&t, "3.3.1", 1000 * 16);                       /* read beats summed over slices */
    EQ(&t, "3.4.1", 400.0 / (2 * 1000) * 100);
    EQ(&t, "3.5.1", 200);
    EQ(&t, "3.5.6", 1000 - 200 - 100 - 50 - 20 - 10); /* the derived 384+ bucket */
    EQ(&t, "4.1.1", 100);
    EQ(&t, "4.2.1", 40);
    EQ(&t, "12.1.1", 4);
    EQ(&t, "12.1.3", 16);
    lt_close(&t);
}

Test(layout_g715, zero_denominators_show_no_data)
{
    struct lt t;

    lt_open(&t, "mali-g715", "G715", 4, 2);
    cr_assert(isnan(val(&t, "4.4.3")), "no fragment tasks: fragments per pixel is no data");
    cr_assert(isnan(val(&t, "5.2.2")), "no fragment threads: cycles per thread is no data");
    cr_assert(isnan(val(&t, "5.3.1")), "idle GPU: shader core usage is no data, not 0 %%");
    cr_assert(isnan(val(&t, "6.1.5")));
    cr_assert_eq(val(&t, "10.2.1"), 0);
    lt_close(&t);
}

Test(layout_g720, has_every_definition_of_the_guide)
{
    count_metrics("mali-g720", 110);
}

Test(layout_g720, shader_core_counters_are_summed_over_cores)
{
    struct lt t;

    lt_open(&t, "mali-g720", "G720", 4, 2);
    set1(&t, "MaliGPUCyclesGPUActive", 1000);
    set1(&t, "MaliGPUTasksMainPhaseTasks", 1);
    set(&t, "MaliShaderThreadsFragmentThreads", frag_threads4);
    set(&t, "MaliShaderCoreCyclesAnyWorkloadActive", any_active4);
    set(&t, "MaliShaderCoreCyclesMainPhaseActive", frag_active4);
    set(&t, "MaliShaderWarpsFragmentWarps", frag_warps4);
    set(&t, "MaliRayTracingUnitRaysStartedRays", rays4);
    set(&t, "MaliRayTracingUnitCyclesBoxTesterActive", box_active4);
    set(&t, "MaliRayTracingUnitCyclesTriangleTesterActive", tri_active4);
    set(&t, "MaliShaderCoreCyclesExecutionCoreActive", exec_active4);
    set(&t, "MaliRayTracingUnitBoxTestBoxNodesWith1316Rays", box_1316);
    set_latency(&t, "MaliExternalBusBeatsReadBeats", "MaliExternalBusStallCyclesReadStall");
    set1(&t, "MaliPrimitiveCullingFacingTestCulledPrimitives", 30);
    set1(&t, "MaliPrimitiveCullingFrustumTestCulledPrimitives", 20);
    set1(&t, "MaliPrimitiveCullingSampleTestCulledPrimitives", 10);
    set1(&t, "MaliPrimitiveCullingScissorTestCulledPrimitives", 5);
    set1(&t, "MaliPrimitiveCullingVisiblePrimitives", 35);

    EQ(&t, "4.5.1", 4096);
    EQ(&t, "4.5.3", 4000.0 / 4096);                   /* summed threads (raw x4) */
    /* summed 2000 active cycles over 4 cores, of 1000: 50 % */
    EQ(&t, "5.3.1", 50);
    EQ(&t, "5.2.2", 12000.0 / 4000);
    EQ(&t, "6.3.2", 4000.0 / (300 * 16) * 100);
    EQ(&t, "10.2.1", 100);                            /* rays: summed over cores */
    EQ(&t, "6.1.5", 800.0 / 4000 * 100);
    EQ(&t, "10.3.1", 10);
    EQ(&t, "3.3.1", 1000 * 16);
    EQ(&t, "3.4.1", 400.0 / 2 / 1000 * 100);
    EQ(&t, "3.5.1", 200);
    EQ(&t, "3.5.6", 1000 - 200 - 100 - 50 - 20 - 10);
    EQ(&t, "4.1.1", 100);
    EQ(&t, "4.2.1", 35);
    EQ(&t, "12.1.1", 4);
    EQ(&t, "12.1.3", 16);
    lt_close(&t);
}

Test(layout_g720, zero_denominators_show_no_data)
{
    struct lt t;

    lt_open(&t, "mali-g720", "G720", 4, 2);
    cr_assert(isnan(val(&t, "4.5.3")), "no main-phase tasks: fragments per pixel is no data");
    cr_assert(isnan(val(&t, "5.2.2")));
    cr_assert(isnan(val(&t, "5.3.1")), "idle GPU: shader core usage is no data, not 0 %%");
    cr_assert(isnan(val(&t, "3.4.1")));
    cr_assert_eq(val(&t, "3.5.6"), 0);
    lt_close(&t);
}

/* ---- the header's figures, the same in every layout ---- */

/* 0.1 s at 850 MHz is 85,000,000 GPU clock cycles; 51,000,000 active is
 * 60 % busy; a 1 GHz max clock holds 100,000,000 cycles, so 51 % of the
 * max-clock time. No clock cycles at all (a powered-down GPU): no data. */
static void header_figures(const char *layout, const char *gpu)
{
    struct lt t;

    lt_open(&t, layout, gpu, 4, 2);
    set1(&t, "MaliGPUCyclesGPUActive", 51000000);
    set1(&t, GT_MALI_GPU_CLOCK_CYCLES, 85000000);
    gt_engine_eval(t.e, &t.s, t.out);
    cr_assert_float_eq(t.out[t.l->header[GT_HEADER_BUSY]], 60.0, 1e-9);
    cr_assert_float_eq(t.out[t.l->header[GT_HEADER_CLOCK]], 850.0, 1e-6);
    cr_assert_float_eq(t.out[t.l->header[GT_HEADER_BUSY_MAX]], 51.0, 1e-9);
    cr_assert_str_eq(t.l->metrics[t.l->header[GT_HEADER_CLOCK]].unit, "MHz");
    set1(&t, "MaliGPUCyclesGPUActive", 0);
    set1(&t, GT_MALI_GPU_CLOCK_CYCLES, 0);
    gt_engine_eval(t.e, &t.s, t.out);
    cr_assert(isnan(t.out[t.l->header[GT_HEADER_BUSY]]));
    cr_assert_eq(t.out[t.l->header[GT_HEADER_CLOCK]], 0);
    cr_assert_eq(t.out[t.l->header[GT_HEADER_BUSY_MAX]], 0);
    lt_close(&t);
}

Test(layout_header, busy_share_and_clock_by_hand)
{
    header_figures("mali-t8xx", "T830");
    header_figures("mali-g715", "G715");
    header_figures("mali-g720", "G720");
}

/* Issue 28: every section of every built-in layout names a short tab
 * label, and the direction that is good is given where the guide says
 * which way is better: a hit or early-test rate high, a stall rate low. */
Test(layouts_look, every_section_has_a_tab_label_and_rates_have_directions)
{
    static const struct { const char *layout, *metric; enum gt_good good; } dirs[] = {
        { "mali-g715", "Early ZS tested quad percentage", GT_GOOD_HIGH },
        { "mali-g715", "Output external read stall rate", GT_GOOD_LOW },
        { "mali-g715", "Fragment iterator utilization", GT_GOOD_NONE },
        { "mali-t8xx", "Late ZS tested thread percentage", GT_GOOD_LOW },
        { "mali-t8xx", "Output external write stall rate", GT_GOOD_LOW },
        { "amd-gfx1151", "Instruction Cache Hit Rate", GT_GOOD_HIGH },
    };
    struct gt_diag d;
    size_t i, s;

    for (i = 0; i < gt_embedded_layout_count(); i++) {
        struct gt_layout *l = gt_layout_load(gt_embedded_layout_name(i), &d);
        cr_assert_not_null(l, "%s", d.msg);
        for (s = 0; s < l->nsections; s++)
            cr_assert_not_null(l->sections[s].tab, "%s: section '%s' has no tab label",
                               l->name, l->sections[s].title);
        gt_layout_free(l);
    }
    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        struct gt_layout *l = gt_layout_load(dirs[i].layout, &d);
        int m;
        cr_assert_not_null(l, "%s", d.msg);
        m = gt_layout_find_metric(l, dirs[i].metric);
        cr_assert_geq(m, 0, "%s: no '%s'", dirs[i].layout, dirs[i].metric);
        cr_assert_eq(l->metrics[m].good, dirs[i].good, "%s: '%s'", dirs[i].layout,
                     dirs[i].metric);
        gt_layout_free(l);
    }
}

/* ---- the triage on the engine's values: the busiest CPU of each interval ----
 * G715 2.1: one thread running all the time while the GPU has idle time is
 * CPU-bound. GPU active 50 M cycles in 100 ms at a 1 GHz max clock is 50 %
 * of max-clock time. Interval A: CPU 2 at 99 % (user 90 + system 9 of 100
 * ticks), the others 10 %: CPU-bound. Interval B: every CPU at 30 %
 * (user 20 + system 10): "neither CPU nor GPU saturated" (busiest < 50 %).
 * Each interval is judged on its own busiest CPU, so B after A reads B. */
Test(layout_g715, triage_judges_each_intervals_busiest_cpu)
{
    static const uint64_t total[4] = { 100, 100, 100, 100 };
    static const uint64_t user_a[4] = { 10, 10, 90, 10 }, sys_a[4] = { 0, 0, 9, 0 };
    static const uint64_t user_b[4] = { 20, 20, 20, 20 }, sys_b[4] = { 10, 10, 10, 10 };
    struct lt t;
    struct gt_triage *tr;
    int round;

    lt_open(&t, "mali-g715", "G715", 4, 1);
    tr = gt_triage_new(t.l, t.e);
    cr_assert_not_null(tr);
    set1(&t, "MaliGPUCyclesGPUActive", 50000000);
    set(&t, "CPUCoreTicksTotal", total);
    for (round = 0; round < 3; round++) {
        set(&t, "CPUCoreTicksUser", user_a);
        set(&t, "CPUCoreTicksSystem", sys_a);
        gt_engine_eval(t.e, &t.s, t.out);
        cr_assert_str_eq(gt_triage_update(tr, &t.s, t.out)->raw, "CPU-bound", "round %d", round);
        set(&t, "CPUCoreTicksUser", user_b);
        set(&t, "CPUCoreTicksSystem", sys_b);
        gt_engine_eval(t.e, &t.s, t.out);
        cr_assert_str_eq(gt_triage_update(tr, &t.s, t.out)->raw, "neither CPU nor GPU saturated",
                         "round %d", round);
    }
    gt_triage_free(tr);
    lt_close(&t);
}
