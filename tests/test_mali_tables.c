/* The generated Mali counter tables against their source facts: a handful
 * of counters per GPU whose block and index were read by hand from the
 * upstream lists (not from the TSVs the tables are generated from), and the
 * sharing and packing rules of scripts/gen-mali-tables.py. */
#include <criterion/criterion.h>
#include <string.h>

#include "gputop/catalog.h"

struct fact {
    const char *gpu, *name, *block;
    int index;
    const char *hw;
    double scale;
};

/* Block/index: gator daemon/mali_userspace/MaliHwCntrNamesGenerated.h @
 * f0774012 (position within the GPU's array: 64 or 128 names a block, in the
 * order Job Manager/CSF, Tiler, Shader Core, Memory System), checked against
 * libGPUCounters hwcpipe/src/hwcpipe/all_gpu_counters.cpp @ 4ea7c012
 * ({offset, shift, block_type} of MaliGPUActiveCy, MaliFragQueueActiveCy,
 * MaliExtBusRdBt, MaliExtBusWrBt, MaliCoreActiveCy, MaliFragWarp,
 * MaliTexFiltIssueCy, MaliFragThread). Streamline names: the GPU's
 * libGPUCounters counter reference (docs/mali-<gpu>_counter_reference.html)
 * or, for Midgard, gator's events-Mali-<GPU>_hw.xml title + name. The
 * texture filtering counter moved from 43 (Bifrost) to 39 (Valhall); CSF
 * parts count GPU active at 4, job-manager parts at 6. */
static const struct fact facts[] = {
    { "T760", "MaliGPUCyclesGPUActive", "front-end", 6, "GPU_ACTIVE", 1 },
    { "T860", "MaliGPUCyclesFragmentQueueActive", "front-end", 10, "JS0_ACTIVE", 1 },
    { "T880", "MaliExternalBusBeatsReadBeats", "memsys", 31, "L2_EXT_READ_BEATS", 1 },
    { "T880", "MaliExternalBusBeatsWriteBeats", "memsys", 30, "L2_EXT_WRITE_BEATS", 1 },
    { "G52", "MaliGPUCyclesGPUActive", "front-end", 6, "GPU_ACTIVE", 1 },
    { "G52", "MaliExternalBusBeatsReadBeats", "memsys", 32, "L2_EXT_READ_BEATS", 1 },
    { "G52", "MaliExternalBusBeatsWriteBeats", "memsys", 47, "L2_EXT_WRITE_BEATS", 1 },
    { "G52", "MaliShaderWarpsFragmentWarps", "shadercore", 9, "FRAG_WARPS", 1 },
    { "G52", "MaliTextureUnitCyclesFilteringActive", "shadercore", 43, "TEX_FILT_NUM_OPERATIONS", 1 },
    { "G76", "MaliGPUCyclesFragmentQueueActive", "front-end", 10, "JS0_ACTIVE", 1 },
    { "G76", "MaliShaderCoreCyclesExecutionCoreActive", "shadercore", 26, "EXEC_CORE_ACTIVE", 1 },
    { "G76", "MaliTextureUnitCyclesFilteringActive", "shadercore", 43, "TEX_FILT_NUM_OPERATIONS", 1 },
    { "G57", "MaliTextureUnitCyclesFilteringActive", "shadercore", 39, "TEX_FILT_NUM_OPERATIONS", 1 },
    { "G77", "MaliGPUCyclesGPUActive", "front-end", 6, "GPU_ACTIVE", 1 },
    { "G77", "MaliTextureUnitCyclesFilteringActive", "shadercore", 39, "TEX_FILT_NUM_OPERATIONS", 1 },
    { "G68", "MaliExternalBusBeatsWriteBeats", "memsys", 47, "L2_EXT_WRITE_BEATS", 1 },
    { "G78", "MaliGPUCyclesGPUActive", "front-end", 6, "GPU_ACTIVE", 1 },
    { "G78", "MaliGPUCyclesFragmentQueueActive", "front-end", 10, "JS0_ACTIVE", 1 },
    { "G78", "MaliExternalBusBeatsReadBeats", "memsys", 32, "L2_EXT_READ_BEATS", 1 },
    { "G78", "MaliShaderCoreCyclesExecutionCoreActive", "shadercore", 26, "EXEC_CORE_ACTIVE", 1 },
    { "G78", "MaliShaderWarpsFragmentWarps", "shadercore", 9, "FRAG_WARPS", 1 },
    { "G310", "MaliGPUCyclesGPUActive", "front-end", 4, "GPU_ACTIVE", 1 },
    { "G510", "MaliExternalBusBeatsReadBeats", "memsys", 32, "L2_EXT_READ_BEATS", 1 },
    { "G610", "MaliShaderCoreCyclesExecutionCoreActive", "shadercore", 26, "EXEC_CORE_ACTIVE", 1 },
    { "G710", "MaliGPUCyclesGPUActive", "front-end", 4, "GPU_ACTIVE", 1 },
    { "G710", "MaliGPUQueuedCyclesFragmentQueued", "front-end", 32, "ITER_FRAG_ACTIVE", 1 },
    { "G710", "MaliTextureUnitCyclesFilteringActive", "shadercore", 39, "TEX_FILT_NUM_OPERATIONS", 1 },
    { "G625", "MaliGPUCyclesGPUActive", "front-end", 4, "GPU_ACTIVE", 1 },
    { "G725", "MaliGPUQueuedCyclesMainPhaseQueued", "front-end", 48, "ITER_FRAG_ACTIVE", 1 },
    /* shift 2 in libGPUCounters, multiplier 4 in gator's events XML */
    { "G725", "MaliShaderThreadsAllFragmentThreads", "shadercore", 69, "FRAG_SHADER_THREADS", 4 },
};

static int find_row(const struct gt_counter_table *t, const char *name, struct gt_counter_def *out)
{
    size_t i;

    for (i = 0; i < t->ndefs; i++) {
        *out = gt_counter_table_def(t, i);
        if (strcmp(out->name, name) == 0)
            return 1;
    }
    return 0;
}

Test(mali_tables, known_indices_per_gpu)
{
    size_t i;

    for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
        const struct fact *f = &facts[i];
        const struct gt_counter_table *t = gt_counter_table_find(f->gpu);
        struct gt_counter_def d;

        cr_assert(t != NULL, "no table for %s", f->gpu);
        cr_assert(find_row(t, f->name, &d), "%s: no %s", f->gpu, f->name);
        cr_expect_str_eq(d.block, f->block, "%s %s", f->gpu, f->name);
        cr_expect_eq(d.index, f->index, "%s %s: index %d, expected %d", f->gpu, f->name, d.index,
                     f->index);
        cr_expect_str_eq(d.hw_name, f->hw, "%s %s", f->gpu, f->name);
        cr_expect_eq(d.scale, f->scale, "%s %s: scale %g", f->gpu, f->name, d.scale);
    }
}

/* Every table has the three guide constants, with no index. */
Test(mali_tables, constants_in_every_table)
{
    static const char *const names[] = { "MaliConstantsShaderCoreCount",
                                         "MaliConstantsL2SliceCount",
                                         "MaliConstantsBusWidthBits" };
    const struct gt_counter_table *t;
    size_t i, j;

    for (i = 0; (t = gt_counter_table_at(i)) != NULL; i++)
        for (j = 0; j < 3; j++) {
            struct gt_counter_def d;
            cr_assert(find_row(t, names[j], &d), "%s lacks %s", t->gpu, names[j]);
            cr_expect_str_eq(d.block, "constant");
            cr_expect_eq(d.index, -1);
            cr_expect_str_eq(d.hw_name, "");
        }
}

/* Indices stay inside the GPU's block: 64 values up to G710, 128 from
 * G715 on (kbase.md section 4). */
Test(mali_tables, indices_fit_the_block)
{
    const struct gt_counter_table *t;
    size_t i, j;

    for (i = 0; (t = gt_counter_table_at(i)) != NULL; i++) {
        int wide = strcmp(t->gpu, "G715") == 0 || strcmp(t->gpu, "G720") == 0 ||
                   strcmp(t->gpu, "G625") == 0 || strcmp(t->gpu, "G725") == 0;
        for (j = 0; j < t->ndefs; j++) {
            struct gt_counter_def d = gt_counter_table_def(t, j);
            if (d.index < 0)
                continue;
            cr_expect(d.index >= 4 && d.index < (wide ? 128 : 64), "%s %s: index %d", t->gpu,
                      d.name, d.index);
        }
    }
}

/* GPUs with the same counters share one row array (compact tables);
 * GPUs that differ do not. */
Test(mali_tables, identical_gpus_share_rows)
{
    static const char *const same[][2] = {
        { "T820", "T830" }, { "T760", "T880" }, { "G57", "G77" }, { "G68", "G78" },
        { "G310", "G710" }, { "G610", "G710" }, { "G625", "G725" },
    };
    static const char *const differ[][2] = { { "G52", "G76" }, { "G77", "G78" }, { "G78", "G710" } };
    size_t i;

    for (i = 0; i < sizeof(same) / sizeof(same[0]); i++)
        cr_expect_eq(gt_counter_table_find(same[i][0])->packed,
                     gt_counter_table_find(same[i][1])->packed, "%s %s", same[i][0], same[i][1]);
    for (i = 0; i < sizeof(differ) / sizeof(differ[0]); i++)
        cr_expect_neq(gt_counter_table_find(differ[i][0])->packed,
                      gt_counter_table_find(differ[i][1])->packed, "%s %s", differ[i][0],
                      differ[i][1]);
}
