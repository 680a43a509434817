/* The simulated Mali GPU's workload model, shared by the source (sim/source.c)
 * and the model (sim_model.c, sim_steps.c, the family files): modelled
 * values, products and scenes. */
#ifndef GPUTOP_SIM_MODEL_H
#define GPUTOP_SIM_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "../sim/scenes.h"
#include "../sim/clocks.h"
#include "../sim/cpu.h"

#define SIM_MAX_INST   16                 /* shader cores or L2 slices */
#define SIM_SCENE_NS   8000000000ull      /* a scene's share of scene=cycle */
#define SIM_FADE_NS    1000000000ull      /* cross-fade into the next scene */

/* Modelled hardware counters. Every Streamline alias of a hardware counter
 * gets its value, so the model works in hardware names. */
enum value {
    V_GPU_ACTIVE, V_IRQ_ACTIVE, V_IRQ_COUNT, V_MCU_ACTIVE, V_ITER_ACTIVE,
    V_FRAG_QUEUE, V_FRAG_JOBS, V_FRAG_TASKS, V_FRAG_BLOCKED,
    V_NONFRAG_QUEUE, V_NONFRAG_JOBS, V_NONFRAG_TASKS,
    V_VERT_QUEUE, V_VERT_JOBS, V_VERT_TASKS, V_VERT_BLOCKED,
    V_COMP_QUEUE, V_COMP_JOBS, V_COMP_TASKS, V_COMP_BLOCKED,
    V_TILER_ACTIVE, V_TRIANGLES, V_FRONT_FACING, V_PRIM_VISIBLE,
    V_PRIM_CULLED, V_PRIM_CLIPPED, V_PRIM_FACE, V_PRIM_FRUSTUM, V_PRIM_SCISSOR,
    V_PRIM_SAMPLE, V_POS_REQ, V_VAR_REQ, V_TILER_READS,
    V_EXT_RD_BEATS, V_EXT_WR_BEATS, V_EXT_RD, V_EXT_WR, V_RD_STALL, V_WR_STALL,
    V_LAT0, V_LAT1, V_LAT2, V_LAT3, V_LAT4,
    V_L2_RD_LOOKUP, V_L2_WR_LOOKUP, V_L2_ANY_LOOKUP, V_L2_RD_HIT, V_L2_WR_HIT,
    V_CORE_ACTIVE, V_FRAG_ACTIVE, V_NONFRAG_ACTIVE, V_EXEC_ACTIVE, V_FPK_ACTIVE,
    V_FRAG_PRIMS, V_QUADS, V_PARTIAL_QUADS, V_COARSE_QUADS,
    V_EZS_TEST, V_EZS_UPDATE, V_EZS_KILL, V_LZS_TEST, V_LZS_KILL, V_FPK_KILLER,
    V_FRAG_THREADS, V_HELPER_THREADS, V_FRAG_WARPS, V_TILES, V_TILES_UNCHANGED,
    V_CORE_NF_TASKS, V_NONFRAG_THREADS, V_NONFRAG_WARPS, V_REG64_WARPS, V_FULL_WARPS,
    V_ARITH_WORDS, V_FMA, V_CVT, V_SFU, V_NARROW, V_DIVERGED, V_BLEND_CALLS,
    V_VARY_INSTR, V_VARY_SLOT32, V_VARY_SLOT16, V_ATTR_INSTR,
    V_TEX_FILT, V_TEX_REQ, V_TEX_FXR, V_TEX_FST, V_TEX_MSG, V_TEX_MSG_1Q,
    V_TEX_IN_BUS, V_TEX_OUT_BUS, V_TEX_DIRECT, V_TEX_L1_OUT, V_TEX_L1_LOOKUP,
    V_TEX_CACHE_LOOKUP, V_TEX_COMPLEX, V_TEX_INDEX, V_TEX_OUTPUT, V_TEX_CLK,
    V_LS_ISSUES, V_LS_WORDS, V_LSC_READ, V_LSC_READ_HITS, V_LSC_WRITE,
    V_LSC_WRITE_HITS, V_LSC_ATOMIC,
    V_LS_READ_FULL, V_LS_READ_SHORT, V_LS_WRITE_FULL, V_LS_WRITE_SHORT, V_LS_ATOMIC,
    V_RD_FTC, V_RD_FTC_EXT, V_RD_LSC, V_RD_LSC_EXT, V_RD_TEX, V_RD_TEX_EXT,
    V_RD_OTHER, V_WR_LSC_OTHER, V_WR_TIB, V_WR_LSC_WB,
    V_RT_TRI, V_RT_BOX, V_RT_TRI_BIN0, V_RT_TRI_BIN1, V_RT_TRI_BIN2, V_RT_TRI_BIN3,
    V_RT_BOX_BIN0, V_RT_BOX_BIN1, V_RT_BOX_BIN2, V_RT_BOX_BIN3,
    V_RT_OPAQUE, V_RT_NON_OPAQUE, V_RT_FIRST_HIT, V_RT_MISS, V_RT_RAYS,
    V_RT_BOX_ISSUED, V_RT_TRI_ISSUED,
    V_CLOCK_GPU, V_CLOCK_SC,  /* the clock-cycle items, not hardware counters */
    NVALUES,
};

struct sim;
struct work;

/* A simulated product. Core and slice counts follow common configurations:
 * T830 MP4 with one L2 slice, G715 MC7 and Immortalis-G720 MC12 with 2 and
 * 4 slices; all with a 128-bit external bus. The G715's core mask has gaps
 * (0x177: cores 0-2, 4-6, 8), as fused-off cores leave on real parts. */
struct family {
    const char *name, *table, *gpu;
    uint64_t gpu_id;
    uint32_t cores, slices, bus_bits;
    double top_mhz;
    double perf;              /* per-core throughput relative to a G715 core */
    double geom;              /* primitive rate relative to a G715 */
    uint32_t task_px;         /* pixels per fragment task, as the guide counts them */
    uint32_t tile_px;         /* pixels per physical tile */
    int warps;                /* 0: no warps (Midgard); 1 or 16: 16-wide warps
                                 (Valhall); 8: 8-wide (Bifrost's G52, G76) */
    int scissor;              /* 1: a scissor culling stage with its counter */
    int has_rt;
    void (*model)(struct sim *m, struct work *w);
    uint64_t core_mask;       /* which physical cores the product has */
};

struct sim {
    const struct family *fam;
    struct family named;      /* sim:G57: a family's model with that GPU's table */
    char named_gpu[48];       /* and its name, "Mali-G57 MP10" */
    int scene;                /* a scene, or SCENE_CYCLE */
    uint64_t seed, step_ns;   /* step_ns 0: real time */
    uint64_t rng;
    uint64_t last_ns;         /* end of the previous interval */
    uint64_t period_ns;       /* 0, or kernel-timed like kbase: a sample
                                 dated every period, handed over in batches */
    uint64_t own_ns;          /* time this source has run, for scene=cycle */
    uint64_t start_ns;        /* the clock when it started (own_ns 0) */
    double core_skew[SIM_MAX_INST], slice_skew[SIM_MAX_INST];
    int *bind;                /* catalogue counter -> enum value, or -1 */
    struct sim_put *sel;      /* after select(): the counters written, else NULL */
    size_t nsel;
    uint64_t v[NVALUES][SIM_MAX_INST];
    struct sim_cpu cpu;       /* the simulated phone's CPUs (sim/cpu.c) */
    struct sim_clocks clk;    /* its GPU clock, temperature, power (sim/clocks.c) */
    double cap_mhz;           /* the clock's cap this interval; 0 none */
};

/* A selected counter: where its deltas go and which value they are. */
struct sim_put {
    uint32_t slot, instances;
    int v;                    /* enum value, or -1: always zero */
};

/* One interval's GPU-wide quantities, shared by the steps of a model. */
struct work {
    double p[NPARAMS];
    uint64_t dt_ns, gpu;
    uint64_t frag_q, vert_q, comp_q;
    double frag_sc, nf_sc;    /* shares of shader-core active time */
    uint64_t prims, visible;
    uint64_t other_rd, other_wr;  /* tiler and front-end external traffic */
    /* Shares of the splits every core makes (sim_steps.c sim_core_shares). */
    double ls_share[5], box_share[4], tri_share[4];
    double fpk;               /* FPK buffer non-empty share of fragment-active cycles */
};

/* One shader core's interval. */
struct core {
    uint64_t any, frag, nf, exec;
    uint64_t quads, ezs_test, ezs_kill, reach, shaded;
    uint64_t warps, threads, nf_threads, pixels, tiles;
    uint64_t arith, tex, ls, vary, rt_box, rt_tri;
    uint64_t ls_part[5];      /* full read, short read, full write, short write, atomic */
    uint64_t rd_ftc, rd_ftc_ext, rd_ls, rd_ls_ext, rd_tex, rd_tex_ext;
    uint64_t wr_wb, wr_other, wr_tib;
};

/* The products modelled; sim_family_default() is the newest. */
const struct family *sim_family_find(const char *name);
const struct family *sim_family_default(void);
size_t sim_family_count(void);
const struct family *sim_family_at(size_t i);

/* Steps shared by the families' models (sim_steps.c); each family's model
 * strings them together (model_t8xx and the CSF ones in sim_model.c,
 * Bifrost in sim_bifrost.c, Valhall job manager in sim_valhall_jm.c). */
uint64_t sim_scale(uint64_t x, double f);
double sim_clamp01(double x);
double sim_jitter(struct sim *m, double amp);
void sim_put(struct sim *m, enum value v, uint32_t inst, uint64_t x);
uint32_t sim_warp_width(const struct family *f);
void sim_frontend_jm(struct sim *m, struct work *w);
void sim_frontend_csf(struct sim *m, struct work *w);
void sim_geometry(struct sim *m, struct work *w);
void sim_idvs(struct sim *m, const struct work *w, double deferred);
void sim_cores(struct sim *m, const struct work *w, struct core *k);
void sim_memory(struct sim *m, const struct work *w, struct core *k);
void sim_fragment_tasks(struct sim *m, const struct core *k);
void sim_compute_tasks(struct sim *m, const struct core *k);
void sim_put_core_frag_csf(struct sim *m, const struct work *w, uint32_t c, const struct core *k);
void sim_put_core_exec_csf(struct sim *m, const struct work *w, uint32_t c, const struct core *k);
void sim_put_core_beats(struct sim *m, uint32_t c, const struct core *k);
void sim_put_core_rt(struct sim *m, const struct work *w, uint32_t c, const struct core *k);
typedef void (*sim_core_fn)(struct sim *m, const struct work *w, uint32_t c,
                            const struct core *k);
/* The splits every core makes the same way this interval (w's shares). */
void sim_core_shares(struct work *w);
/* The interval of every family but Midgard: a front end, the shared steps
 * (deferred: the share of varying shading IDVS defers), then each core's
 * values, the family's own last (put_core). */
void sim_model_steps(struct sim *m, struct work *w, void (*frontend)(struct sim *, struct work *),
                     double deferred, sim_core_fn put_core);
void sim_model_jm(struct sim *m, struct work *w, sim_core_fn put_core);
void sim_model_bifrost(struct sim *m, struct work *w);
void sim_model_valhall_jm(struct sim *m, struct work *w);

/* One interval of dt_ns: every modelled value into m->v. */
void sim_model_interval(struct sim *m, uint64_t dt_ns);

/* Scenes: a scene's name (base scenes and triage variants), its column in
 * the parameter table, and the scene playing after own_ns of scene=cycle. */
const char *sim_scene_name(int scene);
int sim_scene_column(const struct sim *m, int scene);
int sim_scene_at(const struct sim *m, uint64_t own_ns);

#endif
