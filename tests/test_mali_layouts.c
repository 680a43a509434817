/* The Bifrost and Valhall layouts on their GPUs' tables: values worked out
 * by hand from the references' expressions with the layouts' summing rule,
 * and, per GPU, exactly which metrics are unavailable (inputs the GPU's
 * counters lack), never read as zero. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gputop/engine.h"

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
    cr_assert_eq(gt_catalog_add_device(&t->c, &dev), 0, "%s", gpu);
    cr_assert_geq(gt_catalog_add(&t->c, GT_MALI_GPU_CLOCK_CYCLES, "front-end",
                                 GT_COUNTER_DELTA, 1, 1.0), 0);
    cr_assert_geq(gt_catalog_add(&t->c, GT_MALI_SC_CLOCK_CYCLES, "front-end",
                                 GT_COUNTER_DELTA, 1, 1.0), 0);
    cr_assert_geq(gt_catalog_add_constant(&t->c, GT_MALI_MAX_CLOCK_HZ, 1e9), 0);
    cr_assert_eq(gt_catalog_add_cpu(&t->c, 2), 0);
    cr_assert_eq(gt_catalog_add_cpu_cores(&t->c, 4), 0);  /* the triage's busiest CPU */
    t->e = gt_engine_new(t->l, &t->c);
    cr_assert_not_null(t->e);
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

/* Instance i of the counter gets v[i]. */
static void set(struct lt *t, const char *name, uint64_t v0, uint64_t v1)
{
    int k = gt_catalog_find(&t->c, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    t->s.deltas[t->c.counters[k].slot] = v0;
    if (t->c.counters[k].instances > 1)
        t->s.deltas[t->c.counters[k].slot + 1] = v1;
}

static double val(struct lt *t, const char *title)
{
    int m = gt_layout_find_metric(t->l, title);

    cr_assert_geq(m, 0, "no metric %s", title);
    gt_engine_eval(t->e, &t->s, t->out);
    return t->out[m];
}

#define EQ(t, title, want) do { \
    double got_ = val(t, title), want_ = (want); \
    cr_assert(fabs(got_ - want_) <= 1e-9 * fabs(want_) + 1e-12, \
              "%s: got %.17g, want %.17g", title, got_, want_); \
} while (0)

/* The titles of the metrics unavailable on gpu, joined by '|'. */
static void unavailable(const char *layout, const char *gpu, char *out, size_t len)
{
    struct lt t;
    size_t i;

    lt_open(&t, layout, gpu, 2, 1);
    out[0] = '\0';
    for (i = 0; i < gt_engine_nmetrics(t.e); i++)
        if (gt_engine_unavailable(t.e, i)) {
            strncat(out, t.l->metrics[i].title, len - strlen(out) - 1);
            strncat(out, "|", len - strlen(out) - 1);
        }
    lt_close(&t);
}

Test(mali_layouts, bifrost_g52_by_hand)
{
    struct lt t;

    lt_open(&t, "mali-bifrost", "G52", 2, 1);
    set(&t, "MaliGPUCyclesGPUActive", 1000, 0);
    set(&t, "MaliGPUCyclesFragmentQueueActive", 800, 0);
    set(&t, "MaliShaderCoreCyclesFragmentActive", 600, 400);
    set(&t, "MaliShaderCoreCyclesExecutionCoreActive", 500, 300);
    set(&t, "MaliALUInstructionsExecutedInstructions", 200, 200);
    set(&t, "MaliExternalBusStallCyclesReadStalls", 100, 0);
    set(&t, "MaliExternalBusBeatsReadBeats", 10, 0);
    set(&t, "MaliShaderWarpsFragmentWarps", 300, 100);
    set(&t, "MaliGPUTasksFragmentTasks", 2, 0);
    EQ(&t, "Fragment queue utilization", 80.0);              /* 800 / 1000 */
    EQ(&t, "Fragment utilization", 50.0);                    /* (600 + 400) / 2 / 1000 */
    EQ(&t, "Execution core utilization", 40.0);              /* 800 / 2 / 1000 */
    EQ(&t, "Arithmetic unit utilization", 50.0);             /* 400 / 800 */
    EQ(&t, "Read stall rate", 10.0);                         /* 100 / 1 slice / 1000 */
    EQ(&t, "Read bytes", 160.0);                             /* 10 beats * 128 / 8 */
    EQ(&t, "Fragments/pixel", 400.0 * 8 / (2 * 1024));       /* 8-wide warps on G52 */
    lt_close(&t);
}

Test(mali_layouts, valhall_jm_g78_by_hand)
{
    struct lt t;

    lt_open(&t, "mali-valhall-jm", "G78", 2, 2);
    set(&t, "MaliGPUCyclesGPUActive", 1000, 0);
    set(&t, "MaliShaderCoreCyclesFragmentActive", 600, 400);
    set(&t, "MaliShaderCoreCyclesAnyWorkloadActive", 900, 600);
    set(&t, "MaliShaderCoreCyclesExecutionCoreActive", 500, 300);
    set(&t, "MaliALUInstructionsFMAPipeInstructions", 100, 100);
    set(&t, "MaliALUInstructionsCVTPipeInstructions", 50, 50);
    set(&t, "MaliALUInstructionsSFUPipeInstructions", 40, 40);
    set(&t, "MaliExternalBusStallCyclesWriteStalls", 150, 50);
    EQ(&t, "Fragment utilization", 100.0 * 1000 / 1500);    /* against any-workload cycles */
    EQ(&t, "Fragment utilization of GPU active", 50.0);      /* the G57/G77 form */
    EQ(&t, "Shader core clock ratio", 75.0);                 /* 1500 / 2 / 1000 */
    EQ(&t, "Arithmetic unit utilization", 40.0);             /* max(200, 100, 80 * 4) / 800 */
    EQ(&t, "SFU pipe utilization", 40.0);
    EQ(&t, "Write stall rate", 10.0);                        /* 200 / 2 slices / 1000 */
    lt_close(&t);
}

Test(mali_layouts, valhall_csf_g710_by_hand)
{
    struct lt t;

    lt_open(&t, "mali-valhall-csf", "G710", 2, 2);
    set(&t, "MaliGPUCyclesGPUActive", 1000, 0);
    set(&t, "MaliGPUQueuedCyclesFragmentQueued", 900, 0);
    set(&t, "MaliGPUWaitCyclesFragmentQueueEndpointStalls", 100, 0);
    set(&t, "MaliALUInstructionsFMAPipeInstructions", 100, 100);
    set(&t, "MaliALUInstructionsCVTPipeInstructions", 50, 50);
    set(&t, "MaliALUInstructionsSFUPipeInstructions", 10, 10);
    set(&t, "MaliShaderCoreCyclesExecutionCoreActive", 500, 300);
    set(&t, "MaliVaryingUnitRequests32BitInterpolationSlots", 200, 200);
    set(&t, "MaliVaryingUnitRequests16BitInterpolationSlots", 100, 100);
    EQ(&t, "Fragment queue utilization", 80.0);              /* (900 - 100) / 1000 */
    EQ(&t, "Arithmetic unit utilization", 40.0);             /* max(200 + 100 + 20, 20 * 4) / 800 */
    EQ(&t, "Varying unit utilization", 37.5);                /* (400 / 2 + 200 / 2) / 800 */
    lt_close(&t);
}

/* Every metric computes on the GPUs the layout was written against; the
 * others lose exactly the metrics whose counters they lack. */
Test(mali_layouts, unavailable_metrics_per_gpu)
{
    static const struct { const char *layout, *gpu, *missing; } cases[] = {
        { "mali-bifrost", "G52", "" },
        { "mali-bifrost", "G76", "" },
        { "mali-valhall-jm", "G68", "" },
        { "mali-valhall-jm", "G78", "" },
        /* no AnyWorkloadActive counter on G57/G77 */
        { "mali-valhall-jm", "G57", "Non-fragment utilization|Fragment utilization|"
                                    "Execution core utilization|Shader core clock ratio|" },
        { "mali-valhall-jm", "G77", "Non-fragment utilization|Fragment utilization|"
                                    "Execution core utilization|Shader core clock ratio|" },
        { "mali-valhall-csf", "G310", "" },
        { "mali-valhall-csf", "G710", "" },
        { "mali-t8xx", "T760", "" },
        { "mali-t8xx", "T860", "" },
        { "mali-t8xx", "T880", "" },
        /* FRAG_SHADER_THREADS has another Streamline name on G625/G725 */
        { "mali-g720", "G725", "Fragments per pixel|Average cycles per fragment thread|"
                               "Fragment warp occupancy|" },
        { "mali-g720", "G625", "Fragments per pixel|Average cycles per fragment thread|"
                               "Fragment warp occupancy|" },
    };
    char got[1024];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unavailable(cases[i].layout, cases[i].gpu, got, sizeof(got));
        cr_expect_str_eq(got, cases[i].missing, "%s on %s", cases[i].layout, cases[i].gpu);
    }
}

/* Unavailable is not zero: the metric gives no value at all. */
Test(mali_layouts, missing_inputs_are_not_zero)
{
    struct lt t;
    int m;

    lt_open(&t, "mali-valhall-jm", "G77", 2, 1);
    set(&t, "MaliGPUCyclesGPUActive", 1000, 0);
    set(&t, "MaliShaderCoreCyclesFragmentActive", 600, 400);
    m = gt_layout_find_metric(t.l, "Fragment utilization");
    cr_assert_geq(m, 0);
    cr_assert_not_null(gt_engine_unavailable(t.e, (size_t)m));
    cr_assert(isnan(val(&t, "Fragment utilization")));
    EQ(&t, "Fragment utilization of GPU active", 50.0);
    lt_close(&t);
}
