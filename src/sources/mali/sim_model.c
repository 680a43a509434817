/* The simulated Mali GPU's workload model: scene parameters and one model
 * per family (from the shared steps, sim_steps.c), writing counters that
 * keep the guides' relations. */
#include "../sim/args.h"
#include "sim_model.h"

#include <stdlib.h>
#include <string.h>

/*                 idle   ui     game   compute rt    memory-bound */
#define ROW(a, b, c, d, e, f) { a, b, c, d, e, f }
static const double scene_table[NPARAMS][NSCENES] = {
    [P_BUSY]      = ROW(0.04, 0.35, 0.97, 0.96, 0.97, 0.98),
    [P_DVFS]      = ROW(0.35, 0.55, 1.00, 1.00, 1.00, 0.90),
    [P_FRAG]      = ROW(0.85, 0.92, 0.93, 0.12, 0.55, 0.65),
    [P_VERT]      = ROW(0.25, 0.20, 0.60, 0.04, 0.30, 0.35),
    [P_COMP]      = ROW(0.02, 0.03, 0.15, 0.96, 0.85, 0.60),
    [P_BLOCKED]   = ROW(0.01, 0.02, 0.04, 0.05, 0.04, 0.15),
    [P_CORE]      = ROW(0.80, 0.88, 0.96, 0.95, 0.96, 0.97),
    [P_EXEC]      = ROW(0.45, 0.55, 0.85, 0.92, 0.90, 0.75),
    [P_ARITH]     = ROW(0.25, 0.30, 0.55, 0.88, 0.40, 0.20),
    [P_TEX]       = ROW(0.15, 0.30, 0.80, 0.08, 0.30, 0.35),
    [P_LS]        = ROW(0.05, 0.08, 0.25, 0.45, 0.35, 0.88),
    [P_VARY]      = ROW(0.15, 0.30, 0.45, 0.01, 0.15, 0.25),
    [P_RT]        = ROW(0.00, 0.00, 0.02, 0.00, 0.85, 0.00),
    [P_EZS_KILL]  = ROW(0.05, 0.05, 0.30, 0.10, 0.20, 0.15),
    [P_LZS]       = ROW(0.02, 0.03, 0.06, 0.02, 0.05, 0.05),
    [P_COARSE]    = ROW(1.00, 1.00, 0.80, 1.00, 0.90, 1.00),
    [P_TE]        = ROW(0.50, 0.60, 0.05, 0.30, 0.05, 0.05),
    [P_OFFSCREEN] = ROW(0.10, 0.02, 0.20, 0.10, 0.15, 0.15),
    [P_SMALL]     = ROW(0.02, 0.01, 0.10, 0.02, 0.05, 0.05),
    [P_L2HIT]     = ROW(0.90, 0.85, 0.85, 0.80, 0.75, 0.20),
    [P_LAT]       = ROW(0.05, 0.10, 0.35, 0.30, 0.45, 0.95),
    [P_STALL]     = ROW(0.00, 0.005, 0.04, 0.03, 0.06, 0.35),
    [P_COHERENT]  = ROW(0.50, 0.50, 0.50, 0.50, 0.35, 0.50),
    [P_QUADS]     = ROW(0.05, 0.06, 0.02, 0.05, 0.03, 0.04),
    [P_NF_TPC]    = ROW(0.25, 0.25, 0.20, 0.15, 0.10, 0.08),
    [P_OVERDRAW]  = ROW(1.10, 1.60, 2.20, 1.00, 1.30, 1.40),
    [P_PRIMS]     = ROW(0.01, 0.02, 0.20, 0.01, 0.08, 0.10),
    [P_VPP]       = ROW(1.60, 2.00, 1.30, 1.50, 1.30, 1.40),
    [P_BYTES]     = ROW(4.0,  6.0,  6.0,  16.0, 12.0, 32.0),
};

/* ---- scene parameters ---- */

/* The FPK buffer is non-empty in 85 % of fragment-active cycles unless a
 * scene starves the front-end. */
static double fpk_share(const struct sim *m)
{
    const struct sim_variant *v = sim_variant(m->scene);
    return v && v->fpk > 0 ? v->fpk : 0.85;
}

/* A scene's name, base or variant. */
const char *sim_scene_name(int scene)
{
    const struct sim_variant *v = sim_variant(scene);
    return v ? v->name : scene_names[scene];
}

int sim_scene_column(const struct sim *m, int scene)
{
    /* A GPU without a ray tracing unit runs the ray tracing slot as a game. */
    const struct sim_variant *v = sim_variant(scene);

    if (v)
        scene = v->base;
    return scene == SCENE_RT && !m->fam->has_rt ? SCENE_GAME : scene;
}

/* The scene running after own_ns of the source's time. */
int sim_scene_at(const struct sim *m, uint64_t own_ns)
{
    return m->scene == SCENE_CYCLE ? (int)(own_ns / SIM_SCENE_NS % NSCENES) : m->scene;
}

/* A variant's parameter in place of its base scene's (v NULL: a base
 * scene's own). */
static double variant_param(const struct sim_variant *v, int param, double base)
{
    int i;

    for (i = 0; v && i < v->nset; i++)
        if (v->param[i] == param)
            return v->value[i];
    return base;
}

/* The current scene's parameters, faded from the previous scene during the
 * first second of each scene=cycle period, with a few percent of noise. */
static void scene_params(struct sim *m, double *p)
{
    const struct sim_variant *v = sim_variant(m->scene);
    int cur = m->scene, prev = m->scene, i;
    double w = 1.0;

    if (m->scene == SCENE_CYCLE) {
        uint64_t slot = m->own_ns / SIM_SCENE_NS, into = m->own_ns % SIM_SCENE_NS;
        cur = sim_scene_at(m, m->own_ns);
        prev = (cur + NSCENES - 1) % NSCENES;
        if (slot > 0 && into < SIM_FADE_NS)
            w = (double)into / (double)SIM_FADE_NS;
    }
    cur = sim_scene_column(m, cur);
    prev = sim_scene_column(m, prev);
    for (i = 0; i < NPARAMS; i++) {
        p[i] = w * scene_table[i][cur] + (1.0 - w) * scene_table[i][prev];
        p[i] = variant_param(v, i, p[i]);
        p[i] *= sim_jitter(m, 0.04);
        if (i < P_NFRACTIONS)
            p[i] = sim_clamp01(p[i]);
    }
    /* Headroom under GPU active, so per-core speed differences still show. */
    if (p[P_CORE] > 0.97)
        p[P_CORE] = 0.97;
}

/* ---- one model per family ---- */

/* A Midgard core: late ZS counts threads, helper threads are counted, one
 * texture sample per cycle, load/store split into read and write cycles. */
static void put_core_jm(struct sim *m, const struct work *w, uint32_t c, const struct core *k)
{
    const double *p = w->p;
    uint64_t lzs = gt_sim_part(k->threads, p[P_LZS]);
    uint64_t read = gt_sim_part(k->ls, 0.6), write = gt_sim_part(k->ls - read, 0.85);

    sim_put(m, V_FRAG_ACTIVE, c, k->frag);
    sim_put(m, V_NONFRAG_ACTIVE, c, k->nf);
    sim_put(m, V_EXEC_ACTIVE, c, k->exec);
    sim_put(m, V_FPK_ACTIVE, c, gt_sim_part(k->frag, w->fpk * sim_jitter(m, 0.05)));
    sim_put(m, V_FRAG_PRIMS, c, sim_scale(w->visible, 1.5 / m->fam->cores));
    sim_put(m, V_QUADS, c, k->quads);
    sim_put(m, V_EZS_TEST, c, k->ezs_test);
    sim_put(m, V_EZS_KILL, c, k->ezs_kill);
    sim_put(m, V_FRAG_THREADS, c, k->threads);
    sim_put(m, V_HELPER_THREADS, c, gt_sim_part(k->threads, 0.04 + 2.0 * p[P_SMALL]));
    sim_put(m, V_LZS_TEST, c, lzs);
    sim_put(m, V_LZS_KILL, c, gt_sim_part(lzs, 0.3));
    sim_put(m, V_TILES, c, k->tiles);
    sim_put(m, V_TILES_UNCHANGED, c, gt_sim_part(k->tiles, p[P_TE]));
    sim_put(m, V_NONFRAG_THREADS, c, k->nf_threads);
    sim_put(m, V_CORE_NF_TASKS, c, k->nf_threads / 256);
    sim_put(m, V_ARITH_WORDS, c, k->arith);
    sim_put(m, V_TEX_FILT, c, k->tex);
    /* Trilinear and 3D samples take 2-4 cycles: CPI above 1. */
    sim_put(m, V_TEX_REQ, c, sim_scale(k->tex, 1.0 / (1.4 * sim_jitter(m, 0.05))));
    sim_put(m, V_LS_ISSUES, c, k->ls);
    sim_put(m, V_LS_WORDS, c, gt_sim_part(k->ls, 0.9));
    sim_put(m, V_LSC_READ, c, read);
    sim_put(m, V_LSC_READ_HITS, c, gt_sim_part(read, 0.85));
    sim_put(m, V_LSC_WRITE, c, write);
    sim_put(m, V_LSC_WRITE_HITS, c, gt_sim_part(write, 0.9));
    sim_put(m, V_LSC_ATOMIC, c, k->ls - read - write);
}

/* Midgard T8xx: job manager queues, no ray tracing. */
static void model_t8xx(struct sim *m, struct work *w)
{
    struct core k[SIM_MAX_INST];
    uint32_t c;

    sim_frontend_jm(m, w);
    sim_geometry(m, w);
    sim_cores(m, w, k);
    sim_memory(m, w, k);
    sim_fragment_tasks(m, k);
    sim_compute_tasks(m, k);
    for (c = 0; c < m->fam->cores; c++)
        put_core_jm(m, w, c, &k[c]);
}

/* Valhall G715: three iterators, 8x bilinear filtering, ray tracing. */
static void put_core_g715(struct sim *m, const struct work *w, uint32_t c, const struct core *k)
{
    uint64_t fxr = gt_sim_part(k->tex, 0.55);

    sim_put_core_rt(m, w, c, k);
    sim_put(m, V_TEX_FXR, c, fxr);
    sim_put(m, V_TEX_FST, c, gt_sim_part(k->tex - fxr, 0.5));
    sim_put(m, V_TEX_OUT_BUS, c, sim_scale(k->tex, 1.2));
}

static void model_g715(struct sim *m, struct work *w)
{
    sim_model_steps(m, w, sim_frontend_csf, 0.0, put_core_g715);
}

/* The Valhall CSF parts before it (G710, G610, G510, G310): the same
 * front end and texture unit, no ray tracing. */
static void put_core_valhall_csf(struct sim *m, const struct work *w, uint32_t c,
                                 const struct core *k)
{
    (void)w;
    sim_put(m, V_TEX_OUT_BUS, c, sim_scale(k->tex, 1.2));
}

static void model_valhall_csf(struct sim *m, struct work *w)
{
    sim_model_steps(m, w, sim_frontend_csf, 0.0, put_core_valhall_csf);
}

/* 5th generation G720: binning / main phase / compute queues, deferred
 * varying shading, a texture unit described by nine activity counters. */
static void put_core_g720(struct sim *m, const struct work *w, uint32_t c, const struct core *k)
{
    /* Shares of texture load each texture pipeline stage carries. */
    static const struct { enum value v; double share; } stages[] = {
        { V_TEX_OUT_BUS, 0.60 }, { V_TEX_DIRECT, 0.30 }, { V_TEX_L1_OUT, 0.75 },
        { V_TEX_L1_LOOKUP, 0.80 }, { V_TEX_CACHE_LOOKUP, 0.85 },
        { V_TEX_COMPLEX, 0.25 }, { V_TEX_INDEX, 0.65 }, { V_TEX_OUTPUT, 0.70 },
        { V_TEX_CLK, 1.10 },
    };
    size_t i;

    sim_put_core_rt(m, w, c, k);
    for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
        sim_put(m, stages[i].v, c, gt_sim_part(k->exec, stages[i].share * w->p[P_TEX]));
    sim_put(m, V_TEX_MSG_1Q, c, gt_sim_part(sim_scale(k->tex, 0.9), 0.15));
}

static void model_g720(struct sim *m, struct work *w)
{
    sim_model_steps(m, w, sim_frontend_csf, 0.4, put_core_g720);
}

/* G52 MC2 with one L2 slice (as the small Bifrost parts in phones); a
 * G78 MC10 with two slices and core 3 fused off (0x7F7); a G710 MC10 with
 * two slices, as in the first phones that had it. Bifrost and
 * Valhall references count fragment tasks of 32x32 pixels (Pixels =
 * tasks x 1024) on 16x16 tiles; G52 warps are 8 wide, G78's 16. */
static const struct family families[] = {
    { "mali-t8xx", "T830", "Mali-T830 MP4", 0x0830, 4, 1, 128, 650.0, 0.7, 0.3,
      256, 256, 0, 0, 0, model_t8xx, 0xF },
    { "mali-bifrost", "G52", "Mali-G52 MC2", 0x7212, 2, 1, 128, 850.0, 0.5, 0.3,
      1024, 256, 8, 0, 0, sim_model_bifrost, 0x3 },
    { "mali-valhall-jm", "G78", "Mali-G78 MC10", 0x9202, 10, 2, 128, 850.0, 0.8, 0.8,
      1024, 256, 16, 0, 0, sim_model_valhall_jm, 0x7F7 },
    { "mali-valhall-csf", "G710", "Mali-G710 MC10", 0xA002, 10, 2, 128, 850.0, 0.9, 0.9,
      1024, 256, 1, 0, 0, model_valhall_csf, 0x3FF },
    { "mali-g715", "G715", "Mali-G715 MC7", 0xB002, 7, 2, 128, 850.0, 1.0, 1.0,
      1024, 256, 1, 0, 1, model_g715, 0x177 },
    { "mali-g720", "G720", "Immortalis-G720 MC12", 0xC000, 12, 4, 128, 1000.0, 1.3, 1.3,
      4096, 1024, 1, 1, 1, model_g720, 0xFFF },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

const struct family *sim_family_find(const char *name)
{
    size_t i;

    for (i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

const struct family *sim_family_default(void)
{
    return &families[NFAMILIES - 1];
}

size_t sim_family_count(void)
{
    return NFAMILIES;
}

const struct family *sim_family_at(size_t i)
{
    return i < NFAMILIES ? &families[i] : NULL;
}

void sim_model_interval(struct sim *m, uint64_t dt_ns)
{
    struct work w;
    uint64_t clock;
    double mhz;

    memset(&w, 0, sizeof(w));
    scene_params(m, w.p);
    sim_core_shares(&w);
    w.fpk = fpk_share(m);
    w.dt_ns = dt_ns;
    /* DVFS with a little wander; never above the family's top clock. */
    mhz = m->fam->top_mhz * (w.p[P_DVFS] < 0.99 ? w.p[P_DVFS] : 0.99) * sim_jitter(m, 0.01);
    /* a cooling device's cap (the thermal scene) holds it lower */
    if (m->cap_mhz > 0 && mhz > m->cap_mhz)
        mhz = m->cap_mhz;
    clock = sim_scale(dt_ns, mhz / 1000.0);
    w.gpu = gt_sim_part(clock, w.p[P_BUSY]);
    /* Not cleared between intervals: every interval of a family's model
     * writes the same entries (tests/test_sim_model.c), and the ones it
     * never writes read 0 from open. */
    /* One clock domain: the shader cores run at the top-level clock. */
    sim_put(m, V_CLOCK_GPU, 0, clock);
    sim_put(m, V_CLOCK_SC, 0, clock);
    m->fam->model(m, &w);
}
