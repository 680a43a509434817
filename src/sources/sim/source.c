/* The built-in simulated GPU: a workload model per Mali family whose counters
 * keep the relations the vendor guides rely on, for demos, tests and benches. */
#include "args.h"
#include "../mali/sim_model.h"
#include "gputop/kbase.h"
#include "gputop/sim.h"
#include "gputop/text.h"
#include "gputop/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define SIM_T0_NS      1000000000ull      /* virtual clock origin with step= */
#define SIM_MAX_STEP   3600000000000ull   /* an hour: keeps cycle counts in range */
#define SIM_PERIOD_MIN_NS 1000000ull      /* as gputop's shortest interval */
#define SIM_RING       32                 /* samples a batch holds at most, as kbase's ring */

struct value_name {
    enum value v;
    const char *block, *hw;
};

/* Hardware names as the counter tables give them (Midgard and CSF GPUs). */
static const struct value_name value_names[] = {
    { V_GPU_ACTIVE, "front-end", "GPU_ACTIVE" },
    { V_IRQ_ACTIVE, "front-end", "IRQ_ACTIVE" },
    { V_IRQ_ACTIVE, "front-end", "GPU_IRQ_ACTIVE" },
    { V_IRQ_COUNT, "front-end", "GPU_IRQ_COUNT" },
    { V_MCU_ACTIVE, "front-end", "MCU_ACTIVE" },
    { V_ITER_ACTIVE, "front-end", "GPU_ITER_ACTIVE" },
    { V_FRAG_QUEUE, "front-end", "JS0_ACTIVE" },
    { V_FRAG_QUEUE, "front-end", "ITER_FRAG_ACTIVE" },
    { V_FRAG_JOBS, "front-end", "JS0_JOBS" },
    { V_FRAG_JOBS, "front-end", "ITER_FRAG_JOB_COMPLETED" },
    { V_FRAG_TASKS, "front-end", "JS0_TASKS" },
    { V_FRAG_TASKS, "front-end", "ITER_FRAG_TASK_COMPLETED" },
    { V_FRAG_BLOCKED, "front-end", "ITER_FRAG_READY_BLOCKED" },
    { V_NONFRAG_QUEUE, "front-end", "JS1_ACTIVE" },
    { V_NONFRAG_JOBS, "front-end", "JS1_JOBS" },
    { V_NONFRAG_TASKS, "front-end", "JS1_TASKS" },
    { V_VERT_QUEUE, "front-end", "ITER_TILER_ACTIVE" },
    { V_VERT_JOBS, "front-end", "ITER_TILER_JOB_COMPLETED" },
    { V_VERT_TASKS, "front-end", "ITER_TILER_IDVS_TASK_COMPLETED" },
    { V_VERT_BLOCKED, "front-end", "ITER_TILER_READY_BLOCKED" },
    { V_COMP_QUEUE, "front-end", "ITER_COMP_ACTIVE" },
    { V_COMP_JOBS, "front-end", "ITER_COMP_JOB_COMPLETED" },
    { V_COMP_TASKS, "front-end", "ITER_COMP_TASK_COMPLETED" },
    { V_COMP_BLOCKED, "front-end", "ITER_COMP_READY_BLOCKED" },
    { V_TILER_ACTIVE, "tiler", "TILER_ACTIVE" },
    { V_TRIANGLES, "tiler", "TRIANGLES" },
    { V_FRONT_FACING, "tiler", "FRONT_FACING" },
    { V_PRIM_VISIBLE, "tiler", "PRIM_VISIBLE" },
    { V_PRIM_CULLED, "tiler", "PRIM_CULLED" },
    { V_PRIM_CLIPPED, "tiler", "PRIM_CLIPPED" },
    { V_PRIM_FACE, "tiler", "PRIM_FACE_CULLED" },
    { V_PRIM_FRUSTUM, "tiler", "PRIM_FRUSTUM_CULLED" },
    { V_PRIM_SCISSOR, "tiler", "PRIM_SCISSOR_CULLED" },
    { V_PRIM_SAMPLE, "tiler", "PRIM_SAMPLE_CULLED" },
    { V_POS_REQ, "tiler", "IDVS_POS_SHAD_REQ" },
    { V_VAR_REQ, "tiler", "IDVS_VAR_SHAD_REQ" },
    { V_POS_REQ, "tiler", "POS_SHADER_WARPS" },               /* G725's names */
    { V_VAR_REQ, "tiler", "VAR_SHADER_WARPS" },
    { V_TILER_READS, "tiler", "BUS_READ" },
    { V_EXT_RD_BEATS, "memsys", "L2_EXT_READ_BEATS" },
    { V_EXT_WR_BEATS, "memsys", "L2_EXT_WRITE_BEATS" },
    { V_EXT_RD, "memsys", "L2_EXT_READ" },
    { V_EXT_WR, "memsys", "L2_EXT_WRITE" },
    { V_RD_STALL, "memsys", "L2_EXT_AR_STALL" },
    { V_WR_STALL, "memsys", "L2_EXT_W_STALL" },
    { V_LAT0, "memsys", "L2_EXT_RRESP_0_127" },
    { V_LAT1, "memsys", "L2_EXT_RRESP_128_191" },
    { V_LAT2, "memsys", "L2_EXT_RRESP_192_255" },
    { V_LAT3, "memsys", "L2_EXT_RRESP_256_319" },
    { V_LAT4, "memsys", "L2_EXT_RRESP_320_383" },
    { V_L2_RD_LOOKUP, "memsys", "L2_READ_LOOKUP" },
    { V_L2_WR_LOOKUP, "memsys", "L2_WRITE_LOOKUP" },
    { V_L2_ANY_LOOKUP, "memsys", "L2_ANY_LOOKUP" },
    { V_L2_RD_HIT, "memsys", "L2_READ_HIT" },
    { V_L2_WR_HIT, "memsys", "L2_WRITE_HIT" },
    { V_CORE_ACTIVE, "shadercore", "SHADER_CORE_ACTIVE" },
    { V_FRAG_ACTIVE, "shadercore", "FRAG_ACTIVE" },
    { V_NONFRAG_ACTIVE, "shadercore", "COMPUTE_ACTIVE" },
    { V_EXEC_ACTIVE, "shadercore", "TRIPIPE_ACTIVE" },
    { V_EXEC_ACTIVE, "shadercore", "EXEC_CORE_ACTIVE" },
    { V_FPK_ACTIVE, "shadercore", "FRAG_FPK_ACTIVE" },
    { V_FRAG_PRIMS, "shadercore", "FRAG_PRIMITIVES" },
    { V_FRAG_PRIMS, "shadercore", "FRAG_PRIM_RAST" },
    { V_QUADS, "shadercore", "FRAG_QUADS_RAST" },
    { V_PARTIAL_QUADS, "shadercore", "FRAG_PARTIAL_QUADS_RAST" },
    { V_COARSE_QUADS, "shadercore", "FRAG_QUADS_COARSE" },
    { V_EZS_TEST, "shadercore", "FRAG_QUADS_EZS_TEST" },
    { V_EZS_UPDATE, "shadercore", "FRAG_QUADS_EZS_UPDATE" },
    { V_EZS_KILL, "shadercore", "FRAG_QUADS_EZS_KILL" },
    { V_LZS_TEST, "shadercore", "FRAG_LZS_TEST" },
    { V_LZS_TEST, "shadercore", "FRAG_THREADS_LZS_TEST" },
    { V_LZS_KILL, "shadercore", "FRAG_LZS_KILL" },
    { V_LZS_KILL, "shadercore", "FRAG_THREADS_LZS_KILL" },
    { V_FPK_KILLER, "shadercore", "QUAD_FPK_KILLER" },
    { V_FRAG_THREADS, "shadercore", "FRAG_THREADS" },
    { V_FRAG_THREADS, "shadercore", "FRAG_SHADER_THREADS" },
    { V_HELPER_THREADS, "shadercore", "FRAG_DUMMY_THREADS" },
    { V_FRAG_WARPS, "shadercore", "FRAG_WARPS" },
    { V_TILES, "shadercore", "FRAG_PTILES" },
    { V_TILES_UNCHANGED, "shadercore", "FRAG_TRANS_ELIM" },
    { V_CORE_NF_TASKS, "shadercore", "COMPUTE_TASKS" },
    { V_NONFRAG_THREADS, "shadercore", "COMPUTE_THREADS" },
    { V_NONFRAG_WARPS, "shadercore", "COMPUTE_WARPS" },
    { V_REG64_WARPS, "shadercore", "WARP_REG_SIZE_64" },
    { V_FULL_WARPS, "shadercore", "FULL_QUAD_WARPS" },
    { V_ARITH_WORDS, "shadercore", "ARITH_WORDS" },
    { V_ARITH_WORDS, "shadercore", "EXEC_INSTR_COUNT" },      /* Bifrost */
    { V_FMA, "shadercore", "EXEC_INSTR_FMA" },
    { V_CVT, "shadercore", "EXEC_INSTR_CVT" },
    { V_SFU, "shadercore", "EXEC_INSTR_SFU" },
    { V_NARROW, "shadercore", "EXEC_INSTR_NARROW" },
    { V_DIVERGED, "shadercore", "EXEC_INSTR_DIVERGED" },
    { V_BLEND_CALLS, "shadercore", "CALL_BLEND_SHADER" },
    { V_VARY_INSTR, "shadercore", "VARY_INSTR" },
    { V_VARY_SLOT32, "shadercore", "VARY_SLOT_32" },
    { V_VARY_SLOT16, "shadercore", "VARY_SLOT_16" },
    { V_ATTR_INSTR, "shadercore", "ATTR_INSTR" },
    { V_TEX_FILT, "shadercore", "TEX_ISSUES" },
    { V_TEX_FILT, "shadercore", "TEX_FILT_NUM_OPERATIONS" },
    { V_TEX_REQ, "shadercore", "TEX_WORDS" },
    { V_TEX_REQ, "shadercore", "TEX_MSGI_NUM_QUADS" },        /* Bifrost: quads */
    { V_TEX_FXR, "shadercore", "TEX_FILT_NUM_FXR_OPERATIONS" },
    { V_TEX_FST, "shadercore", "TEX_FILT_NUM_FST_OPERATIONS" },
    { V_TEX_MSG, "shadercore", "TEX_MSGO_NUM_MSG" },
    { V_TEX_MSG_1Q, "shadercore", "TEX_MSGO_NUM_SINGLE_QUAD_MSG" },
    { V_TEX_IN_BUS, "shadercore", "TEX_MSGI_NUM_FLITS" },
    { V_TEX_OUT_BUS, "shadercore", "TEX_MSGO_NUM_FLITS" },
    { V_TEX_OUT_BUS, "shadercore", "TEX_RSPS_NUM_OPERATIONS" },
    { V_TEX_DIRECT, "shadercore", "TEX_CFCH_NUM_DIRECT_PATH_OPERATIONS" },
    { V_TEX_L1_OUT, "shadercore", "TEX_CFCH_NUM_L1_CL_OPERATIONS" },
    { V_TEX_L1_LOOKUP, "shadercore", "TEX_CFCH_NUM_L1_CT_OPERATIONS" },
    { V_TEX_CACHE_LOOKUP, "shadercore", "TEX_TFCH_NUM_TCL_OPERATIONS" },
    { V_TEX_COMPLEX, "shadercore", "TEX_CFCH_NUM_RP_OPERATIONS" },
    { V_TEX_INDEX, "shadercore", "TEX_TIDX_NUM_OPERATIONS" },
    { V_TEX_OUTPUT, "shadercore", "TEX_CFCH_NUM_OUTPUT_OPERATIONS" },
    { V_TEX_CLK, "shadercore", "TEX_TEXP_CLK_ACTIVE" },
    { V_LS_ISSUES, "shadercore", "LS_ISSUES" },
    { V_LS_WORDS, "shadercore", "LS_WORDS" },
    { V_LSC_READ, "shadercore", "LSC_READ_OP" },
    { V_LSC_READ_HITS, "shadercore", "LSC_READ_HITS" },
    { V_LSC_WRITE, "shadercore", "LSC_WRITE_OP" },
    { V_LSC_WRITE_HITS, "shadercore", "LSC_WRITE_HITS" },
    { V_LSC_ATOMIC, "shadercore", "LSC_ATOMIC_OP" },
    { V_LS_READ_FULL, "shadercore", "LS_MEM_READ_FULL" },
    { V_LS_READ_SHORT, "shadercore", "LS_MEM_READ_SHORT" },
    { V_LS_WRITE_FULL, "shadercore", "LS_MEM_WRITE_FULL" },
    { V_LS_WRITE_SHORT, "shadercore", "LS_MEM_WRITE_SHORT" },
    { V_LS_ATOMIC, "shadercore", "LS_MEM_ATOMIC" },
    { V_RD_FTC, "shadercore", "BEATS_RD_FTC" },
    { V_RD_FTC_EXT, "shadercore", "BEATS_RD_FTC_EXT" },
    { V_RD_LSC, "shadercore", "BEATS_RD_LSC" },
    { V_RD_LSC_EXT, "shadercore", "BEATS_RD_LSC_EXT" },
    { V_RD_TEX, "shadercore", "BEATS_RD_TEX" },
    { V_RD_TEX_EXT, "shadercore", "BEATS_RD_TEX_EXT" },
    { V_RD_OTHER, "shadercore", "BEATS_RD_OTHER" },
    { V_WR_LSC_OTHER, "shadercore", "BEATS_WR_LSC_OTHER" },
    { V_WR_TIB, "shadercore", "BEATS_WR_TIB" },
    { V_WR_LSC_WB, "shadercore", "BEATS_WR_LSC_WB" },
    { V_RT_TRI, "shadercore", "RT_RAY_TRI" },
    { V_RT_BOX, "shadercore", "RT_RAY_BOX" },
    { V_RT_TRI_BIN0, "shadercore", "RT_RAY_TRI_BIN_1_4" },
    { V_RT_TRI_BIN1, "shadercore", "RT_RAY_TRI_BIN_5_8" },
    { V_RT_TRI_BIN2, "shadercore", "RT_RAY_TRI_BIN_9_12" },
    { V_RT_TRI_BIN3, "shadercore", "RT_RAY_TRI_BIN_13_16" },
    { V_RT_BOX_BIN0, "shadercore", "RT_RAY_BOX_BIN_1_4" },
    { V_RT_BOX_BIN1, "shadercore", "RT_RAY_BOX_BIN_5_8" },
    { V_RT_BOX_BIN2, "shadercore", "RT_RAY_BOX_BIN_9_12" },
    { V_RT_BOX_BIN3, "shadercore", "RT_RAY_BOX_BIN_13_16" },
    { V_RT_OPAQUE, "shadercore", "RT_OPAQUE_HIT" },
    { V_RT_NON_OPAQUE, "shadercore", "RT_NON_OPAQUE_HIT" },
    { V_RT_FIRST_HIT, "shadercore", "RT_TERM_FIRST_HIT" },
    { V_RT_MISS, "shadercore", "RT_MISS" },
    { V_RT_RAYS, "shadercore", "RT_RAYS_STARTED" },
    { V_RT_BOX_ISSUED, "shadercore", "RT_RAY_BOX_ISSUED" },
    { V_RT_TRI_ISSUED, "shadercore", "RT_RAY_TRI_ISSUED" },
};

/* ---- the source ---- */


static void scatter(const struct gt_source *s, struct sim *m, struct gt_snapshot *out)
{
    const struct sim_put *sel = m->sel;
    uint64_t *d = out->deltas;
    size_t i, n = m->nsel;

    /* Selected: only the counters a layout reads, without walking (and
     * pulling into cache) the whole catalogue and snapshot. The values
     * are copied, not cleared: the model writes the same ones every
     * interval (sim_model_interval). In locals: a copy could alias m. */
    if (sel) {
        for (i = 0; i < n; i++) {
            if (sel[i].v >= 0)
                memcpy(d + sel[i].slot, m->v[sel[i].v], sel[i].instances * sizeof(uint64_t));
            else
                memset(d + sel[i].slot, 0, sel[i].instances * sizeof(uint64_t));
        }
        return;
    }
    memset(out->deltas, 0, (size_t)out->nslots * sizeof(uint64_t));
    for (i = 0; i < s->catalog.ncounters; i++) {
        const struct gt_counter *k = &s->catalog.counters[i];
        if (m->bind[i] >= 0)
            memcpy(out->deltas + k->slot, m->v[m->bind[i]], k->instances * sizeof(uint64_t));
    }
}

static int by_hw_block(const void *a, const void *b)
{
    const struct value_name *x = *(const struct value_name *const *)a;
    const struct value_name *y = *(const struct value_name *const *)b;
    int r = strcmp(x->hw, y->hw);

    return r ? r : strcmp(x->block, y->block);
}

/* Resolves every catalogue counter to the value it reports, once, through
 * the value names sorted by hardware name and block. */
static int bind_counters(const struct gt_catalog *c, struct sim *m)
{
    enum { N = sizeof(value_names) / sizeof(value_names[0]) };
    const struct value_name *sorted[N], **hit;
    size_t i;

    m->bind = malloc((c->ncounters ? c->ncounters : 1) * sizeof(int));
    if (!m->bind)
        return -1;
    for (i = 0; i < N; i++)
        sorted[i] = &value_names[i];
    qsort(sorted, N, sizeof(sorted[0]), by_hw_block);
    for (i = 0; i < c->ncounters; i++) {
        const struct gt_counter *k = &c->counters[i];
        struct value_name key = { 0, k->block, k->hw_name };
        const struct value_name *kp = &key;
        m->bind[i] = -1;
        if (k->kind != GT_COUNTER_DELTA || !k->hw_name || k->instances > SIM_MAX_INST)
            continue;
        hit = bsearch(&kp, sorted, N, sizeof(sorted[0]), by_hw_block);
        if (hit)
            m->bind[i] = (int)(*hit)->v;
    }
    return 0;
}

/* The clock-cycle items and max clock a kbase source adds, so a layout's
 * busy share and clock work on the sim as on hardware. */
static int add_clock_counters(struct gt_catalog *c, const struct family *f)
{
    if (gt_catalog_add(c, GT_MALI_GPU_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0 ||
        gt_catalog_add(c, GT_MALI_SC_CLOCK_CYCLES, "front-end", GT_COUNTER_DELTA, 1, 1.0) < 0)
        return -1;
    return gt_catalog_add_constant(c, GT_MALI_MAX_CLOCK_HZ, f->top_mhz * 1e6) < 0 ? -1 : 0;
}

static void bind_clock_counters(const struct gt_catalog *c, struct sim *m)
{
    int k = gt_catalog_find(c, GT_MALI_GPU_CLOCK_CYCLES);

    if (k >= 0)
        m->bind[k] = V_CLOCK_GPU;
    k = gt_catalog_find(c, GT_MALI_SC_CLOCK_CYCLES);
    if (k >= 0)
        m->bind[k] = V_CLOCK_SC;
}


static int find_scene(const char *name)
{
    int i;

    if (strcmp(name, "cycle") == 0)
        return SCENE_CYCLE;
    for (i = 0; i < NSCENES; i++)
        if (strcmp(scene_names[i], name) == 0)
            return i;
    return sim_variant_find(name);
}


/* sim:NAME is a family ("mali-valhall-jm") or any Mali GPU the counter
 * tables know ("G57", "mali-g78", "Immortalis-G925"): then the model of
 * the family its layout serves, with that GPU's table and name. */
static int find_family(struct sim *m, const char *name, struct gt_diag *d)
{
    struct gt_mali_model g;
    const struct family *f = sim_family_find(name);
    char fams[160], gpus[200];
    size_t n;

    if (f) {
        m->fam = f;
        return 0;
    }
    gt_sim_family_list(fams, sizeof(fams));
    gt_sim_gpu_list(gpus, sizeof(gpus));
    if (gt_mali_model_find(name, 0, &g) < 0) {
        gt_diag_set(d, "sim: unknown GPU family '%s' (known: %s; or a GPU: %s)", name, fams,
                    gpus);
        return -1;
    }
    if (!g.layout || !(f = sim_family_find(g.layout))) {
        gt_diag_set(d, "sim: %s has no counter table in gputop, so nothing to simulate "
                    "(GPUs with one: %s)", g.name, gpus);
        return -1;
    }
    gt_mali_model_find(name, f->cores, &g);
    n = strlen(g.name);
    /* The family's own GPU keeps its own name and id. */
    if (strcmp(g.table, f->table) == 0 && strncmp(f->gpu, g.name, n) == 0 && f->gpu[n] == ' ') {
        m->fam = f;
        return 0;
    }
    m->named = *f;
    gt_mali_name_cores(m->named_gpu, sizeof(m->named_gpu), g.name, f->cores);
    m->named.gpu = m->named_gpu;
    m->named.table = g.table;
    m->named.gpu_id = g.key;
    m->fam = &m->named;
    return 0;
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const sim_keys[] = { "", "scene", "seed", "step", NULL };

static int parse_args(struct sim *m, const char *args, struct gt_diag *d)
{
    char buf[64], scenes[300];

    if (gt_args_check(args, sim_keys, "sim", d) < 0)
        return -1;
    m->fam = sim_family_default();
    if (gt_args_get(args, "", buf, sizeof(buf)) && find_family(m, buf, d) < 0)
        return -1;
    m->scene = SCENE_CYCLE;
    if (gt_args_get(args, "scene", buf, sizeof(buf)) && (m->scene = find_scene(buf)) < 0) {
        gt_sim_scene_list(scenes, sizeof(scenes));
        gt_diag_set(d, "sim: unknown scene '%s' (known: %s)", buf, scenes);
        return -1;
    }
    return gt_sim_seed_step(args, SIM_MAX_STEP, &m->seed, &m->step_ns, d);
}

static void describe(struct gt_source *s, const struct sim *m)
{
    const struct family *f = m->fam;
    const char *scene = m->scene == SCENE_CYCLE ? "cycle" : sim_scene_name(m->scene);

    snprintf(s->info.device, sizeof(s->info.device), "simulated");
    snprintf(s->info.gpu, sizeof(s->info.gpu), "%s", f->gpu);
    /* its clocks and temperature come as gpu-clocks gives them on a device */
    snprintf(s->info.layout, sizeof(s->info.layout), "%s " GT_CLK_LAYOUT, f->name);
    snprintf(s->info.family, sizeof(s->info.family), "%s", f->name);
    s->info.gpu_id = f->gpu_id;
    s->info.shader_cores = f->cores;
    s->info.core_mask = f->core_mask;
    s->info.l2_slices = f->slices;
    s->info.bus_width_bits = f->bus_bits;
    /* Simulated, it can date its samples as kbase's periodic modes do, and
     * hand them over in batches; a fixed step is sampled as asked. */
    if (!m->step_ns) {
        s->info.periodic_min_ns = SIM_PERIOD_MIN_NS;
        s->info.periodic_ring = SIM_RING;
        s->info.periodic_clock = CLOCK_MONOTONIC;
    }
    if (m->step_ns)
        snprintf(s->info.detail, sizeof(s->info.detail), "scene %s, seed %llu, step %llu ns",
                 scene, (unsigned long long)m->seed, (unsigned long long)m->step_ns);
    else
        snprintf(s->info.detail, sizeof(s->info.detail), "scene %s, seed %llu", scene,
                 (unsigned long long)m->seed);
}

/* Fixed per-core and per-slice speed differences of a few percent, spread
 * by golden-ratio steps so no two instances run at the same speed. */
static void seed_model(struct sim *m)
{
    uint64_t x = m->seed;
    size_t i;

    m->rng = gt_sim_splitmix64(&x);
    if (!m->rng)
        m->rng = 1;
    for (i = 0; i < SIM_MAX_INST; i++) {
        double spread = (double)i * 0.6180339887;
        spread -= (double)(uint64_t)spread;
        m->core_skew[i] = 0.995 - 0.05 * spread - 0.005 * gt_sim_unit(&m->rng);
        spread += 0.3;
        spread -= (double)(uint64_t)spread;
        m->slice_skew[i] = 0.995 - 0.04 * spread - 0.002 * gt_sim_unit(&m->rng);
    }
}

static void sim_close(struct gt_source *s)
{
    struct sim *m = s->priv;

    if (!m)
        return;
    sim_clocks_free(&m->clk);
    free(m->bind);
    free(m->sel);
    free(m);
    s->priv = NULL;
}

extern const struct gt_source_type gt_source_sim_amd;
extern const struct gt_source_type gt_source_sim_cm;

static int sim_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct gt_device_desc dev = { NULL, 0, 0, 0, 0 };
    struct sim *m;
    char fam[32] = "";

    /* Other vendors' families live in their own files (amd/sim_gfx1151.c, mips/sim_cm.c). */
    if (gt_args_get(args, "", fam, sizeof(fam)) &&
        (strcasecmp(fam, "amd-gfx1151") == 0 || strcasecmp(fam, "gfx1151") == 0)) {
        s->type = &gt_source_sim_amd;
        return gt_source_sim_amd.open(s, args, d);
    }
    /* Not a GPU: the coherency-manager model (src/sources/mips/sim_cm.c)
     * takes the source over. */
    if (fam[0] && strcmp(fam, "mips-cm") == 0) {
        s->type = &gt_source_sim_cm;
        return s->type->open(s, args, d);
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        gt_diag_fail(d, GT_ERR_NOMEM, "sim: out of memory");
        return -1;
    }
    s->priv = m;
    if (parse_args(m, args, d) < 0) {
        sim_close(s);
        return -1;
    }
    dev.gpu = m->fam->table;
    dev.shader_cores = m->fam->cores;
    dev.l2_slices = m->fam->slices;
    dev.bus_width_bits = m->fam->bus_bits;
    if (gt_catalog_add_device(&s->catalog, &dev) < 0 ||
        add_clock_counters(&s->catalog, m->fam) < 0 || sim_cpu_catalog(&m->cpu, &s->catalog) < 0 ||
        sim_clocks_catalog(&m->clk, &s->catalog, m->fam->top_mhz,
                           (unsigned)__builtin_popcountll(m->fam->core_mask)) < 0 ||
        bind_counters(&s->catalog, m) < 0) {
        gt_diag_set(d, "sim: cannot build the %s counter catalogue", dev.gpu);
        sim_close(s);
        return -1;
    }
    bind_clock_counters(&s->catalog, m);
    seed_model(m);
    describe(s, m);
    m->last_ns = m->step_ns ? SIM_T0_NS : gt_now_ns();
    m->start_ns = m->last_ns;
    return 0;
}

static int sim_start(struct gt_source *s, struct gt_diag *d)
{
    struct sim *m = s->priv;

    (void)d;
    m->last_ns = m->step_ns ? SIM_T0_NS : gt_now_ns();
    m->start_ns = m->last_ns;
    m->own_ns = 0;
    return 0;
}

/* The scene at the end of snap's interval, from the snapshot's own times:
 * own_ns is the sampler thread's, and the interval's end is start_ns plus
 * the time run (sample() moves both together). The scene named is the one
 * modelled: a GPU without ray tracing runs that slot as a game. */
static void sim_activity(const struct gt_source *s, const struct gt_snapshot *snap,
                         char *buf, size_t len)
{
    const struct sim *m = s->priv;
    uint64_t own = snap->t_end_ns > m->start_ns ? snap->t_end_ns - m->start_ns : 0;
    int scene = sim_variant(m->scene) ? m->scene : sim_scene_column(m, sim_scene_at(m, own));

    struct gt_text t;

    /* Asked every refresh: no printf. */
    gt_text_init(&t, buf, len);
    gt_text_add(&t, m->scene == SCENE_CYCLE ? "scene cycle: " : "scene: ");
    gt_text_add(&t, sim_scene_name(scene));
}

/* The CPU load of the scene playing (scene=cycle: the one at own_ns). */
static void sim_cpu_sample(const struct gt_source *s, struct sim *m, struct gt_snapshot *out,
                           uint64_t dt)
{
    int scene = m->scene == SCENE_CYCLE ? sim_scene_at(m, m->own_ns) : m->scene;
    double render, others;

    sim_scene_cpu(scene, &render, &others);
    sim_cpu_interval(&m->cpu, &s->catalog, render, others, dt, out->deltas);
}

/* The clock and load the model ran at this interval, as devfreq and the
 * thermal zone would show them. */
static void sim_clocks_sample(struct sim *m, struct gt_snapshot *out, uint64_t dt)
{
    double cycles = (double)m->v[V_CLOCK_GPU][0];
    double mhz = dt ? cycles * 1000.0 / (double)dt : 0;
    double busy = cycles > 0 ? (double)m->v[V_GPU_ACTIVE][0] / cycles : 0;

    sim_clocks_interval(&m->clk, mhz, busy, m->scene == sim_variant_find("thermal"), dt,
                        out->deltas);
}

static enum gt_sample_result sim_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    struct sim *m = s->priv;
    uint64_t now, dt;

    if (out->nslots < s->catalog.nslots) {
        gt_diag_set(d, "snapshot has %u slots, the catalogue needs %u", out->nslots,
                    s->catalog.nslots);
        return GT_SAMPLE_ERROR;
    }
    now = m->step_ns ? m->last_ns + m->step_ns : gt_now_ns();
    if (m->period_ns) {
        if (now < m->last_ns + m->period_ns)
            return GT_SAMPLE_EMPTY;
        now = m->last_ns + m->period_ns;
    }
    dt = now > m->last_ns ? now - m->last_ns : 0;
    out->t_start_ns = m->last_ns;
    out->t_end_ns = now > m->last_ns ? now : m->last_ns;
    m->last_ns = out->t_end_ns;
    m->own_ns += dt;
    m->cap_mhz = sim_clocks_cap(&m->clk);
    sim_model_interval(m, dt);
    scatter(s, m, out);
    sim_cpu_sample(s, m, out, dt);
    sim_clocks_sample(m, out, dt);
    out->nsamples = 1;
    return GT_SAMPLE_OK;
}

static int sim_periodic(struct gt_source *s, uint64_t *period_ns, struct gt_diag *d)
{
    struct sim *m = s->priv;

    if (m->step_ns) {
        gt_diag_set(d, "step=%llu fixes the intervals", (unsigned long long)m->step_ns);
        return -1;
    }
    if (*period_ns && *period_ns < SIM_PERIOD_MIN_NS)
        *period_ns = SIM_PERIOD_MIN_NS;
    m->period_ns = *period_ns;
    return 0;
}

static int sim_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    struct sim *m = s->priv;
    size_t k, n = 0;
    struct sim_put *sel = malloc((s->catalog.ncounters + 1) * sizeof(*sel));

    if (!sel) {
        gt_diag_fail(d, GT_ERR_NOMEM, "sim: out of memory");
        return -1;
    }
    for (k = 0; k < s->catalog.ncounters; k++) {
        const struct gt_counter *c = &s->catalog.counters[k];
        if (!used[k] || c->kind != GT_COUNTER_DELTA)
            continue;
        sel[n].slot = c->slot;
        sel[n].instances = c->instances;
        sel[n].v = m->bind[k];
        n++;
    }
    free(m->sel);
    m->sel = sel;
    m->nsel = n;
    sim_cpu_select(&m->cpu, used);
    sim_clocks_select(&m->clk, &s->catalog, used);
    return 0;
}

static int sim_available(const struct gt_sys *sys, char *why, size_t len)
{
    (void)sys;
    (void)why;
    (void)len;
    return 0;
}

const struct gt_source_type gt_source_sim = {
    .name = "sim",
    .usage = "sim[:FAMILY|GPU][,scene=NAME][,seed=N][,step=NS]",
    .help = "simulated GPU, the header names the scene; FAMILY or any Mali GPU with a "
            "counter table (listed below), or mips-cm: a coherency manager beside sim's GPU",
    .keys = sim_keys,
    .kind = GT_SOURCE_VIRTUAL,
    .available = sim_available,
    .open = sim_open,
    .start = sim_start,
    .sample = sim_sample,
    .periodic = sim_periodic,
    .close = sim_close,
    .select = sim_select,
    .activity = sim_activity,
};
