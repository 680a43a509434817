/* The simulated GPU: for every family and scene the raw deltas keep the
 * relations the vendor guides rely on; seeds reproduce; arguments fail with
 * messages that name the fault; scene=cycle changes what dominates. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gputop/source.h"

extern const struct gt_source_type gt_source_sim;

#define STEP_NS   100000000ull
#define NSAMPLES  10000
#define MAX_TERMS 12

static const char *const scenes[] = {
    "idle", "ui", "game", "compute", "raytracing", "memory-bound",
};
#define NSCENES (sizeof(scenes) / sizeof(scenes[0]))

/* ---- a source opened the way gt_source_open does it ---- */

struct fixture {
    struct gt_source src;
    struct gt_snapshot snap;
};

static int try_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    memset(s, 0, sizeof(*s));
    s->type = &gt_source_sim;
    s->sys = gt_sys_real();
    gt_catalog_init(&s->catalog);
    gt_diag_clear(d);
    if (gt_source_sim.open(s, args, d) < 0) {
        gt_catalog_free(&s->catalog);
        return -1;
    }
    return 0;
}

static void fx_open(struct fixture *f, const char *args)
{
    struct gt_diag d;

    cr_assert_eq(try_open(&f->src, args, &d), 0, "open '%s': %s", args, d.msg);
    cr_assert_eq(gt_snapshot_init(&f->snap, f->src.catalog.nslots), 0);
    cr_assert_eq(gt_source_sim.start(&f->src, &d), 0);
}

static void fx_sample(struct fixture *f)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    cr_assert_eq(gt_source_sim.sample(&f->src, &f->snap, &d), 0, "sample: %s", d.msg);
}

static void fx_close(struct fixture *f)
{
    gt_source_sim.close(&f->src);
    gt_catalog_free(&f->src.catalog);
    gt_snapshot_free(&f->snap);
}

static const struct gt_counter *counter(const struct fixture *f, const char *name)
{
    int i = gt_catalog_find(&f->src.catalog, name);

    cr_assert(i >= 0, "counter %s missing from the catalogue", name);
    return &f->src.catalog.counters[i];
}

static const uint64_t *deltas(const struct fixture *f, const char *name)
{
    return f->snap.deltas + counter(f, name)->slot;
}

static uint64_t total(const struct fixture *f, const char *name)
{
    const struct gt_counter *k = counter(f, name);
    uint64_t sum = 0;
    uint32_t i;

    for (i = 0; i < k->instances; i++)
        sum += f->snap.deltas[k->slot + i];
    return sum;
}

/* ---- linear expressions over counters: "100*A - 4*B + C*cores" ---- */

struct lin {
    int n;
    struct {
        const uint64_t *d;
        uint32_t instances;
        double k;
    } t[MAX_TERMS];
};

static void compile_term(const struct fixture *f, char *term, double sign, struct lin *l)
{
    const struct gt_counter *k = NULL;
    double coef = sign;
    char *save = NULL, *factor;

    for (factor = strtok_r(term, "*", &save); factor; factor = strtok_r(NULL, "*", &save)) {
        if (strcmp(factor, "cores") == 0)
            coef *= f->src.info.shader_cores;
        else if (strcmp(factor, "slices") == 0)
            coef *= f->src.info.l2_slices;
        else if (factor[0] >= '0' && factor[0] <= '9')
            coef *= strtod(factor, NULL);
        else
            k = counter(f, factor);
    }
    cr_assert(k != NULL && l->n < MAX_TERMS, "bad term in rule");
    l->t[l->n].d = f->snap.deltas + k->slot;
    l->t[l->n].instances = k->instances;
    l->t[l->n].k = coef;
    l->n++;
}

static void compile(const struct fixture *f, const char *text, struct lin *l)
{
    char buf[1024], *save = NULL, *tok;
    double sign = 1.0;

    memset(l, 0, sizeof(*l));
    snprintf(buf, sizeof(buf), "%s", text);
    for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (strcmp(tok, "+") == 0 || strcmp(tok, "-") == 0) {
            sign = tok[0] == '-' ? -1.0 : 1.0;
            continue;
        }
        compile_term(f, tok, sign, l);
        sign = 1.0;
    }
}

/* GPU-wide value: each counter summed over its instances. */
static double lin_total(const struct lin *l)
{
    double v = 0.0;
    int i;
    uint32_t j;

    for (i = 0; i < l->n; i++)
        for (j = 0; j < l->t[i].instances; j++)
            v += l->t[i].k * (double)l->t[i].d[j];
    return v;
}

/* Value at one instance; single-instance counters apply to every instance. */
static double lin_at(const struct lin *l, uint32_t inst)
{
    double v = 0.0;
    int i;

    for (i = 0; i < l->n; i++)
        v += l->t[i].k * (double)l->t[i].d[l->t[i].instances == 1 ? 0 : inst];
    return v;
}

static uint32_t lin_instances(const struct lin *a, const struct lin *b)
{
    uint32_t n = 1;
    int i;

    for (i = 0; i < a->n; i++)
        n = a->t[i].instances > n ? a->t[i].instances : n;
    for (i = 0; i < b->n; i++)
        n = b->t[i].instances > n ? b->t[i].instances : n;
    return n;
}

/* ---- the rules each family's guide implies ---- */

/* A guide expression num / den computed GPU-wide: it must land in lo..hi
 * before any clamp (percentages carry their factor 100 in num). */
struct ratio {
    const char *title, *num, *den;
    double lo, hi;
};

/* Per instance (core, slice): lhs <= rhs, or lhs == rhs when eq. */
struct order {
    const char *lhs, *rhs;
    int eq;
};

#define PCT(title, num, den) { title, num, den, 0.0, 100.0 }

#define T8_TOTAL "MaliPrimitiveCullingFacingOrXYPlaneTestCulledPrimitives + " \
    "MaliPrimitiveCullingZPlaneTestCulledPrimitives + MaliPrimitiveCullingVisiblePrimitives"
#define T8_EXEC "MaliShaderCoreCyclesExecutionCoreActive"
#define T8_QUADS "MaliFragmentQuadsRasterizedFineQuads"

static const struct ratio t8_ratios[] = {
    PCT("non-fragment queue utilization", "100*MaliGPUCyclesNonFragmentQueueActive",
        "MaliGPUCyclesGPUActive"),
    PCT("fragment queue utilization", "100*MaliGPUCyclesFragmentQueueActive",
        "MaliGPUCyclesGPUActive"),
    PCT("tiler utilization", "100*MaliGPUCyclesTilerActive", "MaliGPUCyclesGPUActive"),
    PCT("external read stall rate", "100*MaliExternalBusStallCyclesReadStall",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("external write stall rate", "100*MaliExternalBusStallCyclesWriteStall",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("visible primitives rate", "100*MaliPrimitiveCullingVisiblePrimitives", T8_TOTAL),
    PCT("facing or XY plane test cull rate",
        "100*MaliPrimitiveCullingFacingOrXYPlaneTestCulledPrimitives", T8_TOTAL),
    /* The guide gives no expression for the Z plane rate: its stage input. */
    PCT("Z plane test cull rate", "100*MaliPrimitiveCullingZPlaneTestCulledPrimitives",
        "MaliPrimitiveCullingZPlaneTestCulledPrimitives + MaliPrimitiveCullingVisiblePrimitives"),
    PCT("early ZS tested quads", "100*MaliFragmentZSQuadsEarlyZSTestedQuads", T8_QUADS),
    PCT("early ZS killed quads", "100*MaliFragmentZSQuadsEarlyZSKilledQuads", T8_QUADS),
    PCT("late ZS tested threads", "100*MaliShaderThreadsLateZSTestedThreads", "4*" T8_QUADS),
    PCT("late ZS killed threads", "100*MaliShaderThreadsLateZSKilledThreads", "4*" T8_QUADS),
    PCT("non-fragment utilization", "100*MaliShaderCoreCyclesNonFragmentActive",
        "cores*MaliGPUCyclesGPUActive"),
    PCT("fragment utilization", "100*MaliShaderCoreCyclesFragmentActive",
        "cores*MaliGPUCyclesGPUActive"),
    PCT("fragment FPK buffer utilization", "100*MaliShaderCoreCyclesFragmentFPKBufferActive",
        "MaliShaderCoreCyclesFragmentActive"),
    PCT("execution core utilization", "100*" T8_EXEC, "cores*MaliGPUCyclesGPUActive"),
    PCT("arithmetic unit utilization", "100*MaliALUInstructionsExecutedInstructions", T8_EXEC),
    PCT("texture unit utilization", "100*MaliTextureUnitCyclesFilteringActive", T8_EXEC),
    PCT("load/store unit utilization", "100*MaliLoadStoreUnitCyclesLoadStoreUnitIssue",
        T8_EXEC),
    PCT("unchanged tile kill rate", "100*MaliShaderCoreTilesKilledUnchangedTiles",
        "MaliShaderCoreTilesTiles"),
    /* Not checked: "helper thread rate" divides fragment threads by helper
     * threads, so the guide's own definition exceeds 100. */
    { "fragments per pixel", "MaliShaderThreadsFragmentThreads",
      "256*MaliGPUTasksFragmentTasks", 0.3, 5.0 },
    { "texture filtering cycles per instruction", "MaliTextureUnitCyclesFilteringActive",
      "MaliTextureUnitRequestsTextureRequests", 1.0, 4.0 },
    { "cycles per fragment thread", "MaliShaderCoreCyclesFragmentActive",
      "MaliShaderThreadsFragmentThreads", 0.5, 200.0 },
};

static const struct order t8_orders[] = {
    /* The clock-cycle items kbase sends: the GPU is active within its clock. */
    { "MaliGPUCyclesGPUActive", "MaliGPUClockCycles", 0 },
    { "MaliShaderCoreClockCycles", "MaliGPUClockCycles", 1 },
    { "MaliGPUCyclesFragmentQueueActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesNonFragmentQueueActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesTilerActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesGPUInterruptActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliShaderCoreCyclesFragmentActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliShaderCoreCyclesNonFragmentActive", "MaliGPUCyclesGPUActive", 0 },
    { T8_EXEC, "MaliGPUCyclesGPUActive", 0 },
    { "MaliShaderCoreCyclesFragmentFPKBufferActive", "MaliShaderCoreCyclesFragmentActive", 0 },
    { "MaliALUInstructionsExecutedInstructions", T8_EXEC, 0 },
    { "MaliTextureUnitCyclesFilteringActive", T8_EXEC, 0 },
    { "MaliLoadStoreUnitCyclesLoadStoreUnitIssue", T8_EXEC, 0 },
    { "MaliLoadStoreUnitCyclesRead + MaliLoadStoreUnitCyclesWrite",
      "MaliLoadStoreUnitCyclesLoadStoreUnitIssue", 0 },
    { "MaliTextureUnitRequestsTextureRequests", "MaliTextureUnitCyclesFilteringActive", 0 },
    { "MaliFragmentZSQuadsEarlyZSKilledQuads", "MaliFragmentZSQuadsEarlyZSTestedQuads", 0 },
    { "MaliFragmentZSQuadsEarlyZSTestedQuads", T8_QUADS, 0 },
    { "MaliShaderThreadsFragmentHelperThreads", "MaliShaderThreadsFragmentThreads", 0 },
    { "MaliShaderThreadsLateZSKilledThreads", "MaliShaderThreadsLateZSTestedThreads", 0 },
    { "MaliShaderThreadsLateZSTestedThreads", "MaliShaderThreadsFragmentThreads", 0 },
    { "MaliShaderCoreTilesKilledUnchangedTiles", "MaliShaderCoreTilesTiles", 0 },
    { "MaliExternalBusStallCyclesReadStall", "MaliGPUCyclesGPUActive", 0 },
    { "MaliExternalBusStallCyclesWriteStall", "MaliGPUCyclesGPUActive", 0 },
    { "MaliInputPrimitivesTrianglePrimitives", T8_TOTAL, 1 },
    { "MaliJobManagerCyclesGPUCycles", "MaliGPUCyclesGPUActive", 1 },
    { "MaliCoreCyclesFragmentActive", "MaliShaderCoreCyclesFragmentActive", 1 },
};

#define G715_TOTAL "MaliPrimitiveCullingFacingTestCulledPrimitives + " \
    "MaliPrimitiveCullingFrustumPlaneTestCulledPrimitives + " \
    "MaliPrimitiveCullingSampleTestCulledPrimitives + MaliPrimitiveCullingVisiblePrimitives"
#define G715_EXEC "MaliCoreCyclesExecutionCoreActive"
#define G715_ANY "MaliCoreCyclesAnyActive"
#define G715_QUADS "MaliCoreQuadsRasterizedFineQuads"
#define G715_INSTR "MaliCoreInstructionsFMAInstructions + " \
    "MaliCoreInstructionsCVTInstructions + MaliCoreInstructionsSFUInstructions"
#define G715_WARPS "MaliCoreWarpsNonFragmentWarps + MaliCoreWarpsFragmentWarps"
#define LATENCY_BUCKETS(x) "100*MaliExternalBusReadLatency0127Cycles + " \
    "100*MaliExternalBusReadLatency128191Cycles + 100*MaliExternalBusReadLatency192255Cycles + " \
    "100*MaliExternalBusReadLatency256319Cycles + 100*MaliExternalBusReadLatency320383Cycles"

/* G715 averages shader-core counters: avg / GPU active = sum / (cores * GPU active). */
static const struct ratio g715_ratios[] = {
    PCT("microcontroller utilization", "100*MaliGPUCyclesMCUActive", "MaliGPUCyclesGPUActive"),
    PCT("vertex iterator utilization", "100*MaliGPUCyclesVertexActive",
        "MaliGPUCyclesGPUActive"),
    PCT("fragment iterator utilization", "100*MaliGPUCyclesFragmentActive",
        "MaliGPUCyclesGPUActive"),
    PCT("compute iterator utilization", "100*MaliGPUCyclesComputeActive",
        "MaliGPUCyclesGPUActive"),
    PCT("tiler utilization", "100*MaliGPUCyclesTilerActive", "MaliGPUCyclesGPUActive"),
    PCT("interrupt pending utilization", "100*MaliGPUCyclesGPUInterruptActive",
        "MaliGPUCyclesGPUActive"),
    PCT("external read stall rate", "100*MaliExternalBusStallsReadStallCycles",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("external write stall rate", "100*MaliExternalBusStallsWriteStallCycles",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("read latency buckets within read beats", LATENCY_BUCKETS(),
        "MaliExternalBusBeatsReadBeat"),
    PCT("visible primitives rate", "100*MaliPrimitiveCullingVisiblePrimitives", G715_TOTAL),
    PCT("facing plane test cull rate", "100*MaliPrimitiveCullingFacingTestCulledPrimitives",
        G715_TOTAL),
    PCT("frustum plane test cull rate",
        "100*MaliPrimitiveCullingFrustumPlaneTestCulledPrimitives", G715_TOTAL),
    PCT("sample test cull rate", "100*MaliPrimitiveCullingSampleTestCulledPrimitives",
        G715_TOTAL " - MaliPrimitiveCullingFacingTestCulledPrimitives - "
        "MaliPrimitiveCullingFrustumPlaneTestCulledPrimitives"),
    { "position threads per input primitive",
      "4*MaliTilerShadingRequestsPositionShadingRequests", G715_TOTAL, 0.5, 4.0 },
    { "varying threads per visible primitive",
      "4*MaliTilerShadingRequestsVaryingShadingRequests",
      "MaliPrimitiveCullingVisiblePrimitives", 0.1, 4.0 },
    PCT("early ZS tested quads", "100*MaliCoreQuadsEarlyZSTestedQuads", G715_QUADS),
    PCT("early ZS updated quads", "100*MaliCoreQuadsEarlyZSUpdatedQuads", G715_QUADS),
    PCT("early ZS killed quads", "100*MaliCoreQuadsEarlyZSKilledQuads", G715_QUADS),
    PCT("FPK killed quads", "100*" G715_QUADS " - 100*MaliCoreQuadsEarlyZSKilledQuads - "
        "400*MaliCoreWarpsFragmentWarps", G715_QUADS),
    PCT("late ZS killed quads", "100*MaliCoreQuadsLateZSKilledQuads", G715_QUADS),
    { "fragment shading rate", "MaliCoreQuadsRasterizedCoarseQuads", G715_QUADS, 0.5, 1.0 },
    PCT("shader core usage", "100*" G715_ANY, "cores*MaliGPUCyclesGPUActive"),
    PCT("non-fragment utilization", "100*MaliCoreCyclesNonFragmentActive", G715_ANY),
    PCT("fragment utilization", "100*MaliCoreCyclesFragmentActive", G715_ANY),
    PCT("execution core utilization", "100*" G715_EXEC, G715_ANY),
    /* max(CVT + SFU + max(FMA, CVT + SFU) / 2, 4 * SFU), term by term. */
    PCT("arithmetic unit utilization (FMA term)", "100*MaliCoreInstructionsCVTInstructions + "
        "100*MaliCoreInstructionsSFUInstructions + 50*MaliCoreInstructionsFMAInstructions",
        G715_EXEC),
    PCT("arithmetic unit utilization (CVT+SFU term)", "150*MaliCoreInstructionsCVTInstructions"
        " + 150*MaliCoreInstructionsSFUInstructions", G715_EXEC),
    PCT("arithmetic unit utilization (SFU term)", "400*MaliCoreInstructionsSFUInstructions",
        G715_EXEC),
    PCT("varying unit utilization", "25*MaliCoreVaryingIssues32BitInterpolationSlots + "
        "25*MaliCoreVaryingIssues16BitInterpolationSlots", G715_EXEC),
    PCT("texture unit utilization", "100*MaliCoreTextureCyclesTexturingActive", G715_EXEC),
    PCT("load/store unit utilization", "100*MaliCoreLoadStoreCyclesFullReadCycles + "
        "100*MaliCoreLoadStoreCyclesPartialReadCycles + 100*MaliCoreLoadStoreCyclesFullWriteCycles"
        " + 100*MaliCoreLoadStoreCyclesPartialWriteCycles + "
        "100*MaliCoreLoadStoreCyclesAtomicAccessCycles", G715_EXEC),
    PCT("ray tracing unit utilization (box)", "100*MaliRayTracingCyclesBoxTesterActive",
        G715_EXEC),
    PCT("ray tracing unit utilization (triangle)", "100*MaliRayTracingCyclesTriangleTesterActive",
        G715_EXEC),
    PCT("narrow arithmetic percentage", "100*MaliCoreInstructionsNarrowInstructions",
        G715_INSTR),
    PCT("warp divergence percentage", "100*MaliCoreInstructionsDivergedInstructions",
        G715_INSTR),
    PCT("all registers warp rate", "100*MaliCoreWarpsAllRegisterWarps", G715_WARPS),
    PCT("partial coverage rate", "100*MaliCoreQuadsPartialRasterizedFineQuads", G715_QUADS),
    PCT("fragment warp occupancy", "100*MaliCoreThreadsFragmentThreads",
        "16*MaliCoreWarpsFragmentWarps"),
    PCT("full quad warp rate", "100*MaliCoreWarpsFullQuadWarps", G715_WARPS),
    PCT("unchanged tile kill rate", "100*MaliCoreTilesUnchangedTilesKilled",
        "4*MaliCoreTilesTiles"),
    PCT("shader blend path percentage", "400*MaliCoreInstructionsBlendShaderCalls",
        "MaliCoreWarpsFragmentWarps"),
    /* Averaged threads times the core count: the sum over cores. */
    { "fragments per pixel", "MaliCoreThreadsFragmentThreads",
      "1024*MaliGPUTasksFragmentTasks", 0.3, 5.0 },
};

static const struct order g715_orders[] = {
    /* The clock-cycle items kbase sends: the GPU is active within its clock. */
    { "MaliGPUCyclesGPUActive", "MaliGPUClockCycles", 0 },
    { "MaliShaderCoreClockCycles", "MaliGPUClockCycles", 1 },
    { "MaliGPUCyclesVertexActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesComputeActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesFragmentActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesMCUActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesGPUInterruptActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesTilerActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesAnyIteratorActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesVertexEndpointStall", "MaliGPUCyclesVertexActive", 0 },
    { "MaliGPUCyclesComputeEndpointStall", "MaliGPUCyclesComputeActive", 0 },
    { "MaliGPUCyclesFragmentEndpointStall", "MaliGPUCyclesFragmentActive", 0 },
    { G715_ANY, "MaliGPUCyclesGPUActive", 0 },
    { "MaliCoreCyclesFragmentActive", G715_ANY, 0 },
    { "MaliCoreCyclesNonFragmentActive", G715_ANY, 0 },
    { G715_EXEC, G715_ANY, 0 },
    { "MaliCoreQuadsEarlyZSKilledQuads", "MaliCoreQuadsEarlyZSTestedQuads", 0 },
    { "MaliCoreQuadsEarlyZSUpdatedQuads", "MaliCoreQuadsEarlyZSTestedQuads", 0 },
    { "MaliCoreQuadsEarlyZSTestedQuads", G715_QUADS, 0 },
    { "MaliCoreThreadsFragmentThreads", "16*MaliCoreWarpsFragmentWarps", 0 },
    { "MaliCoreTextureCycles8xBilinearFilteringActive + "
      "MaliCoreTextureCycles4xTrilinearFilteringActive", "MaliCoreTextureCyclesTexturingActive", 0 },
    { "MaliRayTracingBoxNodesTested", "MaliRayTracingBoxTestUsageBoxNodesWith14Rays + "
      "MaliRayTracingBoxTestUsageBoxNodesWith58Rays + MaliRayTracingBoxTestUsageBoxNodesWith912Rays"
      " + MaliRayTracingBoxTestUsageBoxNodesWith1316Rays", 1 },
    { "MaliRayTracingTriangleBatchesTested",
      "MaliRayTracingTriangleTestUsageTriangleBatchesWith14Rays + "
      "MaliRayTracingTriangleTestUsageTriangleBatchesWith58Rays + "
      "MaliRayTracingTriangleTestUsageTriangleBatchesWith912Rays + "
      "MaliRayTracingTriangleTestUsageTriangleBatchesWith1316Rays", 1 },
    { LATENCY_BUCKETS(), "100*MaliExternalBusBeatsReadBeat", 0 },
    { "MaliExternalBusStallsReadStallCycles", "MaliGPUCyclesGPUActive", 0 },
    { "MaliExternalBusStallsWriteStallCycles", "MaliGPUCyclesGPUActive", 0 },
    { "MaliCoreExternalReadsFragmentExternalReadBeats", "MaliCoreL2ReadsFragmentL2ReadBeats", 0 },
    { "MaliCoreExternalReadsLoadStoreExternalReadBeats", "MaliCoreL2ReadsLoadStoreL2ReadBeats", 0 },
    { "MaliCoreExternalReadsTextureExternalReadBeats", "MaliCoreL2ReadsTextureL2ReadBeats", 0 },
    { "MaliInputPrimitivesTrianglePrimitives", G715_TOTAL, 1 },
    { "MaliTilerShadingRequestsVaryingShadingRequests",
      "MaliTilerShadingRequestsPositionShadingRequests", 0 },
    { "MaliGPUCyclesGPUActive2", "MaliGPUCyclesGPUActive", 1 },
    { "MaliShaderCoreCyclesExecutionCoreActive", G715_EXEC, 1 },
};

#define G720_TOTAL "MaliPrimitiveCullingFacingTestCulledPrimitives + " \
    "MaliPrimitiveCullingFrustumTestCulledPrimitives + " \
    "MaliPrimitiveCullingSampleTestCulledPrimitives + " \
    "MaliPrimitiveCullingScissorTestCulledPrimitives + MaliPrimitiveCullingVisiblePrimitives"
#define G720_EXEC "MaliShaderCoreCyclesExecutionCoreActive"
#define G720_ANY "MaliShaderCoreCyclesAnyWorkloadActive"
#define G720_QUADS "MaliFragmentQuadsRasterizedFineQuads"
#define G720_INSTR "MaliALUInstructionsFMAPipeInstructions + " \
    "MaliALUInstructionsCVTPipeInstructions + MaliALUInstructionsSFUPipeInstructions"
#define G720_WARPS "MaliShaderWarpsNonFragmentWarps + MaliShaderWarpsFragmentWarps"
#define G720_TEX(name) PCT("texture unit utilization (" name ")", "100*MaliTextureUnit" name, \
                           G720_EXEC)

static const struct ratio g720_ratios[] = {
    PCT("binning phase queue utilization", "100*MaliGPUQueuedCyclesBinningPhaseQueued - "
        "100*MaliGPUWaitCyclesBinningPhaseQueueEndpointStall", "MaliGPUCyclesGPUActive"),
    PCT("main phase queue utilization", "100*MaliGPUQueuedCyclesMainPhaseQueued - "
        "100*MaliGPUWaitCyclesMainPhaseQueueEndpointStall", "MaliGPUCyclesGPUActive"),
    PCT("compute queue utilization", "100*MaliGPUQueuedCyclesComputeQueued - "
        "100*MaliGPUWaitCyclesComputeQueueEndpointStall", "MaliGPUCyclesGPUActive"),
    PCT("microcontroller utilization", "100*MaliCSFCyclesMCUActive", "MaliGPUCyclesGPUActive"),
    PCT("interrupt pending utilization", "100*MaliGPUCyclesGPUInterruptActive",
        "MaliGPUCyclesGPUActive"),
    PCT("external read stall percentage", "100*MaliExternalBusStallCyclesReadStall",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("external write stall percentage", "100*MaliExternalBusStallCyclesWriteStall",
        "slices*MaliGPUCyclesGPUActive"),
    PCT("read latency buckets within read beats", LATENCY_BUCKETS(),
        "MaliExternalBusBeatsReadBeats"),
    PCT("visible primitive percentage", "100*MaliPrimitiveCullingVisiblePrimitives", G720_TOTAL),
    PCT("frustum test cull percentage", "100*MaliPrimitiveCullingFrustumTestCulledPrimitives",
        G720_TOTAL),
    PCT("scissor test cull percentage", "100*MaliPrimitiveCullingScissorTestCulledPrimitives",
        G720_TOTAL " - MaliPrimitiveCullingFrustumTestCulledPrimitives"),
    PCT("facing plane test cull percentage", "100*MaliPrimitiveCullingFacingTestCulledPrimitives",
        G720_TOTAL " - MaliPrimitiveCullingFrustumTestCulledPrimitives - "
        "MaliPrimitiveCullingScissorTestCulledPrimitives"),
    PCT("sample test cull percentage", "100*MaliPrimitiveCullingSampleTestCulledPrimitives",
        G720_TOTAL " - MaliPrimitiveCullingFrustumTestCulledPrimitives - "
        "MaliPrimitiveCullingScissorTestCulledPrimitives - "
        "MaliPrimitiveCullingFacingTestCulledPrimitives"),
    { "position threads per input primitive",
      "4*MaliTilerShadingRequestsPositionShadingRequests", G720_TOTAL, 0.5, 4.0 },
    PCT("early ZS tested quads", "100*MaliFragmentZSQuadsEarlyZSTestedQuads", G720_QUADS),
    PCT("early ZS updated quads", "100*MaliFragmentZSQuadsEarlyZSUpdatedQuads", G720_QUADS),
    PCT("early ZS killed quads", "100*MaliFragmentZSQuadsEarlyZSKilledQuads", G720_QUADS),
    PCT("FPK killed quads", "100*" G720_QUADS " - 100*MaliFragmentZSQuadsEarlyZSKilledQuads - "
        "400*MaliShaderWarpsFragmentWarps", G720_QUADS),
    PCT("late ZS tested quads", "100*MaliFragmentZSQuadsLateZSTestedQuads", G720_QUADS),
    PCT("late ZS killed quads", "100*MaliFragmentZSQuadsLateZSKilledQuads", G720_QUADS),
    PCT("fragment shading rate", "100*MaliFragmentQuadsRasterizedCoarseQuads", G720_QUADS),
    PCT("shader core usage", "100*" G720_ANY, "cores*MaliGPUCyclesGPUActive"),
    PCT("compute or binning phase utilization",
        "100*MaliShaderCoreCyclesComputeOrBinningPhaseActive", G720_ANY),
    PCT("main phase utilization", "100*MaliShaderCoreCyclesMainPhaseActive", G720_ANY),
    PCT("fragment FPK buffer utilization", "100*MaliShaderCoreCyclesFragmentFPKBufferActive",
        "MaliShaderCoreCyclesMainPhaseActive"),
    PCT("execution core utilization", "100*" G720_EXEC, G720_ANY),
    /* max(CVT + SFU + (FMA - min(FMA, CVT + SFU)) / 2, 4 * SFU), term by term. */
    PCT("arithmetic unit utilization (FMA term)", "50*MaliALUInstructionsCVTPipeInstructions + "
        "50*MaliALUInstructionsSFUPipeInstructions + 50*MaliALUInstructionsFMAPipeInstructions",
        G720_EXEC),
    PCT("arithmetic unit utilization (CVT+SFU term)", "100*MaliALUInstructionsCVTPipeInstructions"
        " + 100*MaliALUInstructionsSFUPipeInstructions", G720_EXEC),
    PCT("arithmetic unit utilization (SFU term)", "400*MaliALUInstructionsSFUPipeInstructions",
        G720_EXEC),
    PCT("varying unit utilization", "25*MaliVaryingUnitIssues32BitInterpolationIssues + "
        "25*MaliVaryingUnitIssues16BitInterpolationIssues", G720_EXEC),
    G720_TEX("CyclesTextureFilteringActive"),
    G720_TEX("CacheCyclesCacheLookupActive"),
    G720_TEX("CacheCyclesSimpleLoadActive"),
    G720_TEX("CacheCyclesComplexLoadActive"),
    G720_TEX("BusInputBeats"),
    G720_TEX("BusOutputBeats"),
    G720_TEX("CacheCyclesL1OutputActive"),
    G720_TEX("CacheCyclesL1LookupActive"),
    G720_TEX("CyclesIndexCalculationActive"),
    PCT("load/store unit utilization", "100*MaliLoadStoreUnitCyclesFullRead + "
        "100*MaliLoadStoreUnitCyclesPartialRead + 100*MaliLoadStoreUnitCyclesFullWrite + "
        "100*MaliLoadStoreUnitCyclesPartialWrite + 100*MaliLoadStoreUnitCyclesAtomicAccess",
        G720_EXEC),
    PCT("ray tracing unit utilization (box)", "100*MaliRayTracingUnitCyclesBoxTesterActive",
        G720_EXEC),
    PCT("ray tracing unit utilization (triangle)",
        "100*MaliRayTracingUnitCyclesTriangleTesterActive", G720_EXEC),
    PCT("narrow arithmetic percentage", "100*MaliALUInstructionsNarrowInstructions", G720_INSTR),
    PCT("warp divergence percentage", "100*MaliALUInstructionsDivergedInstructions", G720_INSTR),
    PCT("all registers warp percentage", "100*MaliShaderWarpsAllRegisterWarps", G720_WARPS),
    PCT("shader blend percentage", "400*MaliALUInstructionsBlendShaderCalls",
        "MaliShaderWarpsFragmentWarps"),
    PCT("partial coverage percentage", "100*MaliFragmentQuadsPartialRasterizedFineQuads",
        G720_QUADS),
    PCT("fragment warp occupancy", "100*MaliShaderThreadsFragmentThreads",
        "16*MaliShaderWarpsFragmentWarps"),
    PCT("full warp percentage", "100*MaliShaderWarpsFullWarps", G720_WARPS),
    PCT("unchanged tile kill percentage", "100*MaliShaderCoreTilesKilledUnchangedTiles",
        "4*MaliShaderCoreTilesTiles"),
    { "fragments per pixel", "MaliShaderThreadsFragmentThreads",
      "4096*MaliGPUTasksMainPhaseTasks", 0.3, 5.0 },
    { "tile unit bytes written per pixel", "16*MaliShaderCoreWritesTileUnitWriteBeats",
      "4096*MaliGPUTasksMainPhaseTasks", 0.0, 8.0 },
};

static const struct order g720_orders[] = {
    /* The clock-cycle items kbase sends: the GPU is active within its clock. */
    { "MaliGPUCyclesGPUActive", "MaliGPUClockCycles", 0 },
    { "MaliShaderCoreClockCycles", "MaliGPUClockCycles", 1 },
    { "MaliGPUQueuedCyclesBinningPhaseQueued", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUQueuedCyclesMainPhaseQueued", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUQueuedCyclesComputeQueued", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUWaitCyclesBinningPhaseQueueEndpointStall",
      "MaliGPUQueuedCyclesBinningPhaseQueued", 0 },
    { "MaliGPUWaitCyclesMainPhaseQueueEndpointStall", "MaliGPUQueuedCyclesMainPhaseQueued", 0 },
    { "MaliGPUWaitCyclesComputeQueueEndpointStall", "MaliGPUQueuedCyclesComputeQueued", 0 },
    { "MaliCSFCyclesMCUActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesGPUInterruptActive", "MaliGPUCyclesGPUActive", 0 },
    { "MaliGPUCyclesTilerActive", "MaliGPUCyclesGPUActive", 0 },
    { G720_ANY, "MaliGPUCyclesGPUActive", 0 },
    { "MaliShaderCoreCyclesMainPhaseActive", G720_ANY, 0 },
    { "MaliShaderCoreCyclesComputeOrBinningPhaseActive", G720_ANY, 0 },
    { G720_EXEC, G720_ANY, 0 },
    { "MaliShaderCoreCyclesFragmentFPKBufferActive", "MaliShaderCoreCyclesMainPhaseActive", 0 },
    { "MaliFragmentZSQuadsEarlyZSKilledQuads", "MaliFragmentZSQuadsEarlyZSTestedQuads", 0 },
    { "MaliFragmentZSQuadsEarlyZSUpdatedQuads", "MaliFragmentZSQuadsEarlyZSTestedQuads", 0 },
    { "MaliFragmentZSQuadsEarlyZSTestedQuads", G720_QUADS, 0 },
    { "MaliFragmentZSQuadsLateZSKilledQuads", "MaliFragmentZSQuadsLateZSTestedQuads", 0 },
    { "MaliShaderThreadsFragmentThreads", "16*MaliShaderWarpsFragmentWarps", 0 },
    { "MaliTextureUnitQuadsTextureMessagesWithSingleQuad", "MaliTextureUnitQuadsTextureMessages",
      0 },
    { "MaliRayTracingBoxNodesTested", "MaliRayTracingUnitBoxTestBoxNodesWith14Rays + "
      "MaliRayTracingUnitBoxTestBoxNodesWith58Rays + MaliRayTracingUnitBoxTestBoxNodesWith912Rays"
      " + MaliRayTracingUnitBoxTestBoxNodesWith1316Rays", 1 },
    { "MaliRayTracingTriangleBatchesTested",
      "MaliRayTracingUnitTriangleTestTriangleBatchesWith14Rays + "
      "MaliRayTracingUnitTriangleTestTriangleBatchesWith58Rays + "
      "MaliRayTracingUnitTriangleTestTriangleBatchesWith912Rays + "
      "MaliRayTracingUnitTriangleTestTriangleBatchesWith1316Rays", 1 },
    { LATENCY_BUCKETS(), "100*MaliExternalBusBeatsReadBeats", 0 },
    { "MaliExternalBusStallCyclesReadStall", "MaliGPUCyclesGPUActive", 0 },
    { "MaliExternalBusStallCyclesWriteStall", "MaliGPUCyclesGPUActive", 0 },
    { "MaliShaderCoreExternalReadsFragmentExternalReadBeats",
      "MaliShaderCoreL2ReadsFragmentL2ReadBeats", 0 },
    { "MaliShaderCoreExternalReadsLoadStoreExternalReadBeats",
      "MaliShaderCoreL2ReadsLoadStoreL2ReadBeats", 0 },
    { "MaliShaderCoreExternalReadsTextureExternalReadBeats",
      "MaliShaderCoreL2ReadsTextureL2ReadBeats", 0 },
    { "MaliInputPrimitivesTrianglePrimitives", G720_TOTAL, 1 },
    { "MaliTilerShadingRequestsVaryingShadingRequests",
      "MaliTilerShadingRequestsPositionShadingRequests", 0 },
    { "MaliGPUCyclesBinningPhaseQueued", "MaliGPUQueuedCyclesBinningPhaseQueued", 1 },
    { "MaliCoreCyclesAnyActive", G720_ANY, 1 },
};

struct family {
    const char *name, *table;
    double top_mhz;              /* the model's top clock, for cycles <= clock */
    const struct ratio *ratios;
    size_t nratios;
    const struct order *orders;
    size_t norders;
    const char *exec, *read_beats; /* per core / per slice, expected to differ */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct family families[] = {
    { "mali-t8xx", "T830", 650.0, t8_ratios, N(t8_ratios), t8_orders, N(t8_orders),
      T8_EXEC, "MaliExternalBusBeatsReadBeats" },
    { "mali-g715", "G715", 850.0, g715_ratios, N(g715_ratios), g715_orders, N(g715_orders),
      G715_EXEC, "MaliExternalBusBeatsReadBeat" },
    { "mali-g720", "G720", 1000.0, g720_ratios, N(g720_ratios), g720_orders, N(g720_orders),
      G720_EXEC, "MaliExternalBusBeatsReadBeats" },
};

/* ---- checking a run ---- */

struct compiled {
    const struct family *fam;
    struct lin *num, *den, *lhs, *rhs;
    const uint64_t *gpu;
    const struct gt_counter *exec, *beats;
};

static void compile_rules(const struct fixture *f, const struct family *fam, struct compiled *c)
{
    size_t i;

    c->fam = fam;
    c->num = calloc(fam->nratios, sizeof(struct lin));
    c->den = calloc(fam->nratios, sizeof(struct lin));
    c->lhs = calloc(fam->norders, sizeof(struct lin));
    c->rhs = calloc(fam->norders, sizeof(struct lin));
    cr_assert(c->num && c->den && c->lhs && c->rhs);
    for (i = 0; i < fam->nratios; i++) {
        compile(f, fam->ratios[i].num, &c->num[i]);
        compile(f, fam->ratios[i].den, &c->den[i]);
    }
    for (i = 0; i < fam->norders; i++) {
        compile(f, fam->orders[i].lhs, &c->lhs[i]);
        compile(f, fam->orders[i].rhs, &c->rhs[i]);
    }
    c->gpu = deltas(f, "MaliGPUCyclesGPUActive");
    c->exec = counter(f, fam->exec);
    c->beats = counter(f, fam->read_beats);
}

static void free_rules(struct compiled *c)
{
    free(c->num);
    free(c->den);
    free(c->lhs);
    free(c->rhs);
}

static void check_ratios(const struct compiled *c, const char *scene, long n)
{
    size_t i;

    for (i = 0; i < c->fam->nratios; i++) {
        const struct ratio *r = &c->fam->ratios[i];
        double den = lin_total(&c->den[i]), v;
        if (den <= 0.0)
            continue;   /* the guide's "no data" */
        v = lin_total(&c->num[i]) / den;
        cr_assert(v >= r->lo - 1e-9 && v <= r->hi + 1e-9,
                  "%s %s sample %ld: %s = %g, outside %g..%g", c->fam->name, scene, n,
                  r->title, v, r->lo, r->hi);
    }
}

static void check_orders(const struct compiled *c, const char *scene, long n)
{
    size_t i;
    uint32_t j, inst;

    for (i = 0; i < c->fam->norders; i++) {
        const struct order *o = &c->fam->orders[i];
        inst = lin_instances(&c->lhs[i], &c->rhs[i]);
        for (j = 0; j < inst; j++) {
            double a = lin_at(&c->lhs[i], j), b = lin_at(&c->rhs[i], j);
            cr_assert(o->eq ? a == b : a <= b, "%s %s sample %ld instance %u: %s (%.0f) %s %s (%.0f)",
                      c->fam->name, scene, n, j, o->lhs, a, o->eq ? "!=" : ">", o->rhs, b);
        }
    }
}

static int all_equal(const struct fixture *f, const struct gt_counter *k)
{
    uint32_t i;

    for (i = 1; i < k->instances; i++)
        if (f->snap.deltas[k->slot + i] != f->snap.deltas[k->slot])
            return 0;
    return 1;
}

static void check_sample(const struct fixture *f, const struct compiled *c, const char *scene,
                         long n)
{
    double clock = (double)STEP_NS * c->fam->top_mhz / 1000.0;

    cr_assert_eq(f->snap.t_end_ns - f->snap.t_start_ns, STEP_NS);
    cr_assert_eq(f->snap.nsamples, 1);
    cr_assert((double)c->gpu[0] <= clock, "%s %s sample %ld: GPU active %llu above %.0f cycles",
              c->fam->name, scene, n, (unsigned long long)c->gpu[0], clock);
    cr_assert(c->gpu[0] > 0, "%s %s sample %ld: GPU never active", c->fam->name, scene, n);
    check_ratios(c, scene, n);
    check_orders(c, scene, n);
    cr_assert(!all_equal(f, c->exec), "%s %s sample %ld: every core reports the same %s",
              c->fam->name, scene, n, c->fam->exec);
    if (c->beats->instances > 1)
        cr_assert(!all_equal(f, c->beats), "%s %s sample %ld: every slice reports the same %s",
                  c->fam->name, scene, n, c->fam->read_beats);
}

static int busy_scene(const char *scene)
{
    return strcmp(scene, "idle") != 0 && strcmp(scene, "ui") != 0;
}

/* Every counter the guide uses must show activity in some busy scene. */
static void check_guide_coverage(const struct family *fam, const struct gt_catalog *cat,
                                 const uint64_t *busy_totals)
{
    const struct gt_counter_table *t = gt_counter_table_find(fam->table);
    size_t i;
    uint32_t j;

    cr_assert(t != NULL);
    for (i = 0; i < t->ndefs; i++) {
        const struct gt_counter_def row = gt_counter_table_def(t, i), *def = &row;
        const struct gt_counter *k;
        uint64_t sum = 0;
        int idx;
        if (!def->in_guide || strcmp(def->block, "constant") == 0)
            continue;
        idx = gt_catalog_find(cat, def->name);
        cr_assert(idx >= 0, "%s: %s not in the catalogue", fam->name, def->name);
        k = &cat->counters[idx];
        for (j = 0; j < k->instances; j++)
            sum += busy_totals[k->slot + j];
        cr_expect(sum > 0, "%s: guide counter %s stays 0 in every busy scene", fam->name,
                  def->name);
    }
}

static void run_family(const struct family *fam)
{
    uint64_t *busy_totals = NULL;
    struct gt_catalog cat;
    size_t s;
    long n;
    uint32_t i;

    gt_catalog_init(&cat);
    for (s = 0; s < NSCENES; s++) {
        struct fixture f;
        struct compiled c;
        char args[128];
        snprintf(args, sizeof(args), "%s,scene=%s,seed=%zu,step=%llu", fam->name, scenes[s],
                 s + 11, (unsigned long long)STEP_NS);
        fx_open(&f, args);
        compile_rules(&f, fam, &c);
        if (!busy_totals) {
            busy_totals = calloc(f.src.catalog.nslots, sizeof(uint64_t));
            cr_assert(busy_totals && gt_catalog_merge(&cat, &f.src.catalog) == 0);
        }
        for (n = 0; n < NSAMPLES; n++) {
            fx_sample(&f);
            check_sample(&f, &c, scenes[s], n);
            if (busy_scene(scenes[s]))
                for (i = 0; i < f.snap.nslots; i++)
                    busy_totals[i] += f.snap.deltas[i];
        }
        free_rules(&c);
        fx_close(&f);
    }
    check_guide_coverage(fam, &cat, busy_totals);
    gt_catalog_free(&cat);
    free(busy_totals);
}

Test(sim, invariants_mali_t8xx)
{
    run_family(&families[0]);
}

Test(sim, invariants_mali_g715)
{
    run_family(&families[1]);
}

Test(sim, invariants_mali_g720)
{
    run_family(&families[2]);
}

/* ---- determinism ---- */

static int same_snapshot(const struct gt_snapshot *a, const struct gt_snapshot *b)
{
    return a->t_start_ns == b->t_start_ns && a->t_end_ns == b->t_end_ns &&
           a->nslots == b->nslots &&
           memcmp(a->deltas, b->deltas, a->nslots * sizeof(uint64_t)) == 0;
}

Test(sim, same_seed_same_counters)
{
    struct fixture a, b, c;
    int differs = 0, n;

    fx_open(&a, "mali-g720,seed=7,step=100000000");
    fx_open(&b, "mali-g720,seed=7,step=100000000");
    fx_open(&c, "mali-g720,seed=8,step=100000000");
    for (n = 0; n < 1000; n++) {
        fx_sample(&a);
        fx_sample(&b);
        fx_sample(&c);
        cr_assert(same_snapshot(&a.snap, &b.snap), "seed 7 diverged at sample %d", n);
        differs |= !same_snapshot(&a.snap, &c.snap);
    }
    cr_assert(differs, "seeds 7 and 8 gave the same 1000 snapshots");
    fx_close(&a);
    fx_close(&b);
    fx_close(&c);
}

/* ---- the GPU clock ---- */

/* The scene table by hand: idle runs at P_DVFS 0.35 of the top clock and
 * P_BUSY 0.04 busy, game at P_DVFS 1.00 and P_BUSY 0.97; each parameter
 * takes +-4 % noise (shares clamped to 1), the clock is capped at 0.99 of
 * the top and takes another +-1 %. So on a G720 (top 1000 MHz) idle is
 * 0.35 * 0.96 * 0.99 .. 0.35 * 1.04 * 1.01 = 332.6..367.7 MHz and
 * 3.84..4.16 % busy; game 0.96 * 0.99 .. 0.99 * 1.01 = 950.4..999.9 MHz and
 * 93.12..100 % busy. */
static void check_clock(const char *scene, double mhz_lo, double mhz_hi,
                        double busy_lo, double busy_hi)
{
    struct fixture f;
    char args[96];
    int n;

    snprintf(args, sizeof(args), "mali-g720,scene=%s,step=%llu", scene,
             (unsigned long long)STEP_NS);
    fx_open(&f, args);
    cr_assert_eq(counter(&f, "MaliConstantsGPUMaxClockHz")->value, 1e9);
    for (n = 0; n < 200; n++) {
        double clock, active, mhz;
        fx_sample(&f);
        clock = (double)total(&f, "MaliGPUClockCycles");
        active = (double)total(&f, "MaliGPUCyclesGPUActive");
        mhz = clock / (STEP_NS / 1e9) / 1e6;
        cr_assert(mhz >= mhz_lo && mhz <= mhz_hi, "%s: %.2f MHz", scene, mhz);
        cr_assert(active / clock * 100 >= busy_lo && active / clock * 100 <= busy_hi,
                  "%s: %.3f %% busy", scene, active / clock * 100);
    }
    fx_close(&f);
}

Test(sim, gpu_clock_follows_the_scene)
{
    check_clock("idle", 332.6, 367.7, 3.83, 4.17);
    check_clock("game", 950.4, 999.9, 93.1, 100.0);
}

/* ---- the scene for the header ---- */

static void expect_activity(const struct fixture *f, const char *want)
{
    char buf[64];

    gt_source_sim.activity(&f->src, &f->snap, buf, sizeof(buf));
    cr_assert_str_eq(buf, want);
}

/* scene=cycle: 8 s per scene (idle, ui, game, compute, raytracing,
 * memory-bound); with step=1 s the n-th sample ends n s in. */
Test(sim, activity_names_the_scene_at_the_end_of_the_interval)
{
    struct fixture f;
    int n;

    fx_open(&f, "mali-t8xx,step=1000000000");
    for (n = 1; n <= 7; n++)
        fx_sample(&f);
    expect_activity(&f, "scene cycle: idle");
    fx_sample(&f);
    expect_activity(&f, "scene cycle: ui");
    for (n = 9; n <= 32; n++)
        fx_sample(&f);
    /* the ray tracing slot on a GPU without ray tracing runs as a game */
    expect_activity(&f, "scene cycle: game");
    fx_close(&f);
    fx_open(&f, "mali-g720,scene=compute");
    fx_sample(&f);
    expect_activity(&f, "scene: compute");
    fx_close(&f);
}

/* ---- arguments ---- */

static void expect_error(const char *args, const char *const *parts)
{
    struct gt_source s;
    struct gt_diag d;

    cr_assert_eq(try_open(&s, args, &d), -1, "'%s' opened", args);
    cr_assert_null(s.priv, "'%s' left private state behind", args);
    for (; *parts; parts++)
        cr_expect(strstr(d.msg, *parts) != NULL, "'%s': message \"%s\" lacks \"%s\"", args,
                  d.msg, *parts);
}

Test(sim, unknown_family)
{
    static const char *const parts[] = { "mali-x99", "mali-t8xx", "mali-g715", "mali-g720", NULL };

    expect_error("mali-x99", parts);
}

Test(sim, unknown_scene)
{
    static const char *const parts[] = { "'doom'", "idle", "memory-bound", "cycle", NULL };

    expect_error("mali-g715,scene=doom", parts);
}

Test(sim, bad_seed)
{
    static const char *const abc[] = { "seed", "'abc'", NULL };
    static const char *const neg[] = { "seed", "'-1'", NULL };
    static const char *const big[] = { "seed", "'99999999999999999999999'", NULL };

    expect_error("seed=abc", abc);
    expect_error("seed=-1", neg);
    expect_error("seed=99999999999999999999999", big);
}

Test(sim, bad_step)
{
    static const char *const zero[] = { "step", "'0'", NULL };
    static const char *const unit[] = { "step", "'10ms'", NULL };
    static const char *const big[] = { "step", "'3600000000001'", NULL };

    expect_error("step=0", zero);
    expect_error("step=10ms", unit);
    expect_error("step=3600000000001", big);
}

Test(sim, unknown_key)
{
    static const char *const parts[] = { "'speed'", "sim", NULL };

    expect_error("mali-g720,speed=3", parts);
}

Test(sim, describes_itself)
{
    struct fixture f;

    fx_open(&f, "mali-g715,scene=game,seed=5");
    cr_expect_str_eq(f.src.info.device, "simulated");
    cr_expect_str_eq(f.src.info.gpu, "Mali-G715 MC7");
    /* its own layout, then the clocks it models as gpu-clocks gives them */
    cr_expect_str_eq(f.src.info.layout, "mali-g715 gpu-clocks");
    cr_expect_str_eq(f.src.info.family, "mali-g715");
    cr_expect_eq(f.src.info.gpu_id, 0xB002);
    cr_expect_eq(f.src.info.shader_cores, 7);
    cr_expect_eq(f.src.info.l2_slices, 2);
    cr_expect_eq(f.src.info.bus_width_bits, 128);
    cr_expect_str_eq(f.src.info.detail, "scene game, seed 5");
    cr_expect_eq(gt_source_sim.kind, GT_SOURCE_VIRTUAL);
    cr_expect_eq(gt_source_sim.available(gt_sys_real(), NULL, 0), 0);
    fx_close(&f);
}

Test(sim, default_is_g720_cycling)
{
    struct fixture f;

    fx_open(&f, "");
    cr_expect_str_eq(f.src.info.gpu, "Immortalis-G720 MC12");
    cr_expect_str_eq(f.src.info.detail, "scene cycle, seed 1");
    fx_close(&f);
}

/* Without step= the interval is real time since the previous sample. */
Test(sim, real_time_intervals)
{
    struct timespec nap = { 0, 20000000 };
    struct fixture f;
    uint64_t ns;

    fx_open(&f, "mali-t8xx,scene=game");
    nanosleep(&nap, NULL);
    fx_sample(&f);
    ns = gt_snapshot_ns(&f.snap);
    cr_expect(ns >= 20000000ull && ns < 2000000000ull, "interval %llu ns",
              (unsigned long long)ns);
    cr_expect(total(&f, "MaliGPUCyclesGPUActive") > 0);
    fx_close(&f);
}

/* ---- scene=cycle ---- */

struct period {
    double compute, rt, read_per_cycle, slow;   /* slow: beats >= 256 cycles late */
};

/* Averages over seconds [from, to) of the run (100 ms samples). */
static void measure(struct fixture *f, int from, int to, struct period *p)
{
    double gpu = 0, comp = 0, rt = 0, rd = 0, fast = 0;
    int n;

    for (n = from * 10; n < to * 10; n++) {
        fx_sample(f);
        gpu += (double)total(f, "MaliGPUCyclesGPUActive");
        comp += (double)total(f, "MaliGPUQueuedCyclesComputeQueued") -
                (double)total(f, "MaliGPUWaitCyclesComputeQueueEndpointStall");
        rt += (double)total(f, "MaliRayTracingUnitCyclesBoxTesterActive");
        rd += (double)total(f, "MaliExternalBusBeatsReadBeats");
        fast += (double)total(f, "MaliExternalBusReadLatency0127Cycles") +
                (double)total(f, "MaliExternalBusReadLatency128191Cycles") +
                (double)total(f, "MaliExternalBusReadLatency192255Cycles");
    }
    p->compute = comp / gpu;
    p->rt = rt / gpu;
    p->read_per_cycle = rd / gpu;
    p->slow = (rd - fast) / rd;
}

Test(sim, cycle_changes_what_dominates)
{
    struct period idle, ui, game, compute, rt, memory, skip;
    struct fixture f;

    fx_open(&f, "mali-g720,scene=cycle,step=100000000");
    /* Each scene holds 8 s; skip its first 2 s (fade-in). */
    measure(&f, 0, 2, &skip);
    measure(&f, 2, 8, &idle);
    measure(&f, 8, 10, &skip);
    measure(&f, 10, 16, &ui);
    measure(&f, 16, 18, &skip);
    measure(&f, 18, 24, &game);
    measure(&f, 24, 26, &skip);
    measure(&f, 26, 32, &compute);
    measure(&f, 32, 34, &skip);
    measure(&f, 34, 40, &rt);
    measure(&f, 40, 42, &skip);
    measure(&f, 42, 48, &memory);
    cr_expect(compute.compute > 0.8, "compute period: compute share %.2f", compute.compute);
    cr_expect(idle.compute < 0.2, "idle period: compute share %.2f", idle.compute);
    cr_expect(game.compute < 0.3, "game period: compute share %.2f", game.compute);
    cr_expect(rt.rt > 10 * (game.rt + 1e-9), "ray tracing period: box tester %.3f vs game %.3f",
              rt.rt, game.rt);
    cr_expect(memory.read_per_cycle > 2 * game.read_per_cycle &&
              memory.read_per_cycle > 2 * ui.read_per_cycle,
              "memory-bound period reads %.2f beats/cycle, game %.2f, ui %.2f",
              memory.read_per_cycle, game.read_per_cycle, ui.read_per_cycle);
    cr_expect(memory.slow > 2 * game.slow && memory.slow > 2 * idle.slow,
              "memory-bound period: %.2f of beats slower than 256 cycles, game %.2f, idle %.2f",
              memory.slow, game.slow, idle.slow);
    /* After the sixth scene the cycle starts again at idle. */
    measure(&f, 48, 50, &skip);
    measure(&f, 50, 56, &skip);
    cr_expect(skip.compute < 0.2, "second idle period: compute share %.2f", skip.compute);
    fx_close(&f);
}

/* ---- selected counters ---- */

/* With a layout's counters selected, the sim writes those alone and
 * they equal what it writes unselected; the rest of the snapshot is left
 * as the caller had it. */
Test(sim, selected_counters_match_the_full_model)
{
    struct fixture full, sel;
    unsigned char *used;
    struct gt_diag d;
    size_t k, nused = 0;
    int n;

    fx_open(&full, "mali-g720,seed=3,step=100000000,scene=cycle");
    fx_open(&sel, "mali-g720,seed=3,step=100000000,scene=cycle");
    used = calloc(sel.src.catalog.ncounters, 1);
    cr_assert_not_null(used);
    for (k = 0; k < sel.src.catalog.ncounters; k += 3) {
        used[k] = 1;
        nused++;
    }
    cr_assert_eq(gt_source_sim.select(&sel.src, used, &d), 0, "%s", d.msg);
    for (n = 0; n < 300; n++) {
        for (k = 0; k < sel.snap.nslots; k++)
            sel.snap.deltas[k] = 0x5555;
        fx_sample(&full);
        fx_sample(&sel);
        for (k = 0; k < sel.src.catalog.ncounters; k++) {
            const struct gt_counter *c = &sel.src.catalog.counters[k];
            size_t bytes = c->instances * sizeof(uint64_t);
            if (c->kind != GT_COUNTER_DELTA)
                continue;
            if (used[k])
                cr_assert(memcmp(sel.snap.deltas + c->slot, full.snap.deltas + c->slot, bytes) == 0,
                          "%s differs at sample %d", c->name, n);
            else
                cr_assert_eq(sel.snap.deltas[c->slot], 0x5555, "%s was written", c->name);
        }
    }
    cr_assert_gt(nused, 50);
    free(used);
    fx_close(&full);
    fx_close(&sel);
}
