/* The steps every simulated Mali family shares (queues, geometry, shader
 * cores, memory) and the arithmetic they keep exact; each family's model
 * strings them together. */
#include "../sim/args.h"
#include "sim_model.h"

#include <stdlib.h>
#include <string.h>

#define SIM_FRAME_HZ   60.0

/* ---- arithmetic that keeps the invariants exact ---- */

/* floor(x * f), saturating instead of overflowing. */
uint64_t sim_scale(uint64_t x, double f)
{
    double v = (double)x * f;

    if (!(v > 0.0))
        return 0;
    if (v < 0x1p63)           /* the same, by the cheaper signed conversion */
        return (uint64_t)(int64_t)v;
    return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

double sim_clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* The shares that split n parts (1 <= n <= SIM_MAX_INST) in proportion to
 * w: each part but the last takes its weight over the weight still left.
 * Apart from split_by, so that weights the same for every core are
 * divided once an interval. */
static void split_shares(const double *w, size_t n, double *f)
{
    double rest = 0.0;
    size_t i;

    for (i = 0; i < n; i++)
        rest += w[i];
    for (i = 0; i + 1 < n; i++) {
        f[i] = rest > 0.0 ? w[i] / rest : 0.0;
        rest -= w[i];
    }
    f[n - 1] = 1.0;           /* the last part takes what is left */
}

/* Splits total into n parts by shares from split_shares; the parts sum to
 * total. */
static void split_by(uint64_t total, const double *f, size_t n, uint64_t *out)
{
    size_t i;

    for (i = 0; i + 1 < n; i++) {
        out[i] = gt_sim_part(total, f[i]);
        total -= out[i];
    }
    out[n - 1] = total;
}

/* Splits total into n parts in proportion to w; the parts sum to total. */
static void split(uint64_t total, const double *w, size_t n, uint64_t *out)
{
    double f[SIM_MAX_INST];

    split_shares(w, n, f);
    split_by(total, f, n, out);
}

uint32_t sim_warp_width(const struct family *f)
{
    return f->warps > 1 ? (uint32_t)f->warps : 16;
}

/* ---- random numbers ---- */

/* 1 +- amp, uniformly. */
double sim_jitter(struct sim *m, double amp)
{
    return 1.0 + amp * (2.0 * gt_sim_unit(&m->rng) - 1.0);
}

void sim_put(struct sim *m, enum value v, uint32_t inst, uint64_t x)
{
    m->v[v][inst] = x;
}

/* ---- model steps shared by the families ---- */

/* Queue activity; vertex and compute share the non-fragment path of a core. */
static void queues(struct sim *m, struct work *w)
{
    const double *p = w->p;
    double nonfrag = p[P_VERT] > p[P_COMP] ? p[P_VERT] : p[P_COMP];
    double any = 1.0 - (1.0 - p[P_FRAG]) * (1.0 - nonfrag);

    w->frag_q = gt_sim_part(w->gpu, p[P_FRAG]);
    w->vert_q = gt_sim_part(w->gpu, p[P_VERT]);
    w->comp_q = gt_sim_part(w->gpu, p[P_COMP]);
    w->frag_sc = any > 1e-9 ? p[P_FRAG] / any : 0.0;
    w->nf_sc = any > 1e-9 ? 0.95 * nonfrag / any : 0.0;
    w->other_rd = sim_scale(w->vert_q, 0.05);
    w->other_wr = sim_scale(w->vert_q, 0.03);
    sim_put(m, V_GPU_ACTIVE, 0, w->gpu);
    sim_put(m, V_IRQ_ACTIVE, 0, gt_sim_part(w->gpu, 0.004 * sim_jitter(m, 0.3)));
}

static uint64_t jobs(const struct work *w, double per_frame)
{
    return (uint64_t)((double)w->dt_ns * 1e-9 * SIM_FRAME_HZ * per_frame + 0.5);
}

/* Job manager front-end (Midgard): fragment queue JS0, non-fragment JS1. */
void sim_frontend_jm(struct sim *m, struct work *w)
{
    const double *p = w->p;
    double nonfrag = p[P_VERT] > p[P_COMP] ? p[P_VERT] : p[P_COMP];
    uint64_t js1 = gt_sim_part(w->gpu, nonfrag);

    queues(m, w);
    sim_put(m, V_FRAG_QUEUE, 0, w->frag_q);
    sim_put(m, V_NONFRAG_QUEUE, 0, js1);
    sim_put(m, V_TILER_ACTIVE, 0, gt_sim_part(js1, nonfrag > 0 ? 0.9 * p[P_VERT] / nonfrag : 0));
    sim_put(m, V_FRAG_JOBS, 0, jobs(w, 3.0 * p[P_FRAG]));
    sim_put(m, V_NONFRAG_JOBS, 0, jobs(w, 3.0 * nonfrag));
}

/* Command stream front-end (G7xx): three iterators with endpoint stalls. */
void sim_frontend_csf(struct sim *m, struct work *w)
{
    const double *p = w->p;
    double any = 1.0 - (1.0 - p[P_FRAG]) * (1.0 - p[P_VERT]) * (1.0 - p[P_COMP]);
    uint64_t fj, vj, cj;

    queues(m, w);
    sim_put(m, V_MCU_ACTIVE, 0, gt_sim_part(w->gpu, 0.03 + 0.1 * p[P_BLOCKED]));
    sim_put(m, V_ITER_ACTIVE, 0, gt_sim_part(w->gpu, any));
    sim_put(m, V_FRAG_QUEUE, 0, w->frag_q);
    sim_put(m, V_VERT_QUEUE, 0, w->vert_q);
    sim_put(m, V_COMP_QUEUE, 0, w->comp_q);
    sim_put(m, V_FRAG_BLOCKED, 0, gt_sim_part(w->frag_q, p[P_BLOCKED] * sim_jitter(m, 0.2)));
    sim_put(m, V_VERT_BLOCKED, 0, gt_sim_part(w->vert_q, p[P_BLOCKED] * sim_jitter(m, 0.2)));
    sim_put(m, V_COMP_BLOCKED, 0, gt_sim_part(w->comp_q, p[P_BLOCKED] * sim_jitter(m, 0.2)));
    sim_put(m, V_TILER_ACTIVE, 0, gt_sim_part(w->vert_q, 0.9));
    fj = jobs(w, 3.0 * p[P_FRAG]);
    vj = jobs(w, 3.0 * p[P_VERT]);
    cj = jobs(w, 8.0 * p[P_COMP]);
    sim_put(m, V_FRAG_JOBS, 0, fj);
    sim_put(m, V_VERT_JOBS, 0, vj);
    sim_put(m, V_COMP_JOBS, 0, cj);
    sim_put(m, V_IRQ_COUNT, 0, fj + vj + cj);
}

/* Primitives through the culling stages in the order the guides draw them
 * (frustum, scissor, facing, sample): every primitive lands in exactly one
 * culling counter or in the visible counter. */
void sim_geometry(struct sim *m, struct work *w)
{
    const double *p = w->p;
    uint64_t rest, frustum, scissor, facing, sample;

    w->prims = sim_scale(w->vert_q, p[P_PRIMS] * m->fam->geom);
    frustum = gt_sim_part(w->prims, p[P_OFFSCREEN]);
    rest = w->prims - frustum;
    scissor = m->fam->scissor ? gt_sim_part(rest, 0.02) : 0;
    rest -= scissor;
    facing = gt_sim_part(rest, 0.47 * sim_jitter(m, 0.03));
    rest -= facing;
    sample = gt_sim_part(rest, p[P_SMALL]);
    w->visible = rest - sample;
    sim_put(m, V_TRIANGLES, 0, w->prims);
    sim_put(m, V_FRONT_FACING, 0, w->visible);
    sim_put(m, V_PRIM_VISIBLE, 0, w->visible);
    sim_put(m, V_PRIM_FRUSTUM, 0, frustum);
    sim_put(m, V_PRIM_SCISSOR, 0, scissor);
    sim_put(m, V_PRIM_FACE, 0, facing);
    sim_put(m, V_PRIM_SAMPLE, 0, sample);
    /* Midgard counts XY-plane and facing culls together, Z-plane apart. */
    sim_put(m, V_PRIM_CULLED, 0, gt_sim_part(frustum, 0.8) + scissor + facing + sample);
    sim_put(m, V_PRIM_CLIPPED, 0, frustum - gt_sim_part(frustum, 0.8));
}

/* IDVS: positions are shaded in groups of 4 indices for every input
 * primitive's vertices, varyings only for visible ones. deferred is the share
 * of varying shading moved out of the binning phase (G720). */
void sim_idvs(struct sim *m, const struct work *w, double deferred)
{
    uint64_t pos = sim_scale(w->prims, w->p[P_VPP] / 4.0) + (w->prims ? 1 : 0);
    uint64_t var = sim_scale(w->visible, 1.2 * (1.0 - deferred) / 4.0);

    sim_put(m, V_POS_REQ, 0, pos);
    sim_put(m, V_VAR_REQ, 0, min_u64(var, pos));
    sim_put(m, V_VERT_TASKS, 0, pos / 64);
    sim_put(m, V_TILER_READS, 0, w->other_rd);
}

/* A core's active cycles and fragment flow: rasterized quads, early ZS,
 * forward pixel kill, then warps of the family's width (16 threads, 4 quads,
 * on Valhall; 8 on Bifrost's G52). */
static void core_cycles(struct sim *m, const struct work *w, uint32_t c, struct core *k)
{
    const double *p = w->p;
    const struct family *f = m->fam;

    k->any = gt_sim_part(w->gpu, p[P_CORE] * m->core_skew[c] * sim_jitter(m, 0.01));
    k->frag = gt_sim_part(k->any, w->frag_sc);
    k->nf = gt_sim_part(k->any, w->nf_sc);
    k->exec = gt_sim_part(k->any, p[P_EXEC] * sim_jitter(m, 0.02));
    k->quads = sim_scale(k->frag, p[P_QUADS] * f->perf * sim_jitter(m, 0.03));
    k->ezs_test = gt_sim_part(k->quads, 0.93 * sim_jitter(m, 0.02));
    k->ezs_kill = gt_sim_part(k->ezs_test, p[P_EZS_KILL]);
    k->reach = k->quads - k->ezs_kill;
    k->shaded = gt_sim_part(k->reach, 0.94 * sim_jitter(m, 0.02));
    k->warps = k->shaded / (sim_warp_width(f) / 4);
    /* Midgard counts every thread of a shaded quad; warps run partly full. */
    k->threads = f->warps ? gt_sim_part(k->warps * sim_warp_width(f), 0.9 * sim_jitter(m, 0.03))
                          : 4 * k->shaded;
    k->nf_threads = sim_scale(k->nf, p[P_NF_TPC] * f->perf);
    k->pixels = sim_scale(k->threads, 1.0 / p[P_OVERDRAW]);
    k->tiles = (k->pixels + f->tile_px - 1) / f->tile_px;
}

/* Functional unit issue cycles, each a share of execution core cycles. */
static void core_units(struct sim *m, const struct work *w, struct core *k)
{
    const double *p = w->p;

    k->arith = gt_sim_part(k->exec, p[P_ARITH] * sim_jitter(m, 0.03));
    k->tex = gt_sim_part(k->exec, p[P_TEX] * sim_jitter(m, 0.03));
    k->ls = gt_sim_part(k->exec, p[P_LS] * sim_jitter(m, 0.03));
    k->vary = gt_sim_part(k->exec, p[P_VARY] * sim_jitter(m, 0.03));
    k->rt_box = gt_sim_part(k->exec, p[P_RT] * sim_jitter(m, 0.03));
    k->rt_tri = gt_sim_part(k->exec, 0.45 * p[P_RT]);
    split_by(k->ls, w->ls_share, 5, k->ls_part);
}

/* Bytes a core moves: 16-byte beats to and from the L2, and the share of
 * reads that miss in the L2 and go to external memory. */
static void core_traffic(const struct work *w, struct core *k)
{
    const double *p = w->p;
    double miss = 1.0 - p[P_L2HIT];
    uint64_t writes = k->ls_part[2] + k->ls_part[3];

    k->rd_tex = sim_scale(k->tex, 0.6 * p[P_BYTES] / 16.0);
    k->rd_ls = sim_scale(k->ls_part[0] + k->ls_part[1], p[P_BYTES] / 16.0);
    k->rd_ftc = sim_scale(k->frag, 0.01);
    k->rd_tex_ext = gt_sim_part(k->rd_tex, miss);
    k->rd_ls_ext = gt_sim_part(k->rd_ls, miss);
    k->rd_ftc_ext = gt_sim_part(k->rd_ftc, miss);
    k->wr_wb = sim_scale(writes, 0.25 * p[P_BYTES] / 16.0);
    k->wr_other = sim_scale(writes, 0.1 * p[P_BYTES] / 16.0);
    k->wr_tib = sim_scale(k->pixels, 4.0 * 0.5 * (1.0 - p[P_TE]) / 16.0);
}

void sim_cores(struct sim *m, const struct work *w, struct core *k)
{
    uint32_t c;

    for (c = 0; c < m->fam->cores; c++) {
        core_cycles(m, w, c, &k[c]);
        core_units(m, w, &k[c]);
        core_traffic(w, &k[c]);
    }
}

/* One L2 slice: read latency histogram and stalls follow its bus load. */
static void slice(struct sim *m, const struct work *w, uint32_t s, uint64_t rd, uint64_t wr)
{
    static const double fast[6] = { 0.80, 0.13, 0.04, 0.02, 0.007, 0.003 };
    static const double slow[6] = { 0.05, 0.15, 0.20, 0.20, 0.15, 0.25 };
    const double *p = w->p;
    double ru = w->gpu ? (double)rd / (double)w->gpu : 0.0;
    double wu = w->gpu ? (double)wr / (double)w->gpu : 0.0;
    double lat = sim_clamp01(0.75 * p[P_LAT] + 0.25 * ru), wt[6];
    uint64_t bucket[6], lookups;
    int i;

    for (i = 0; i < 6; i++)
        wt[i] = (1.0 - lat) * fast[i] + lat * slow[i];
    /* The sixth share is the guide's derived 384+ bucket: not a counter. */
    split(rd, wt, 6, bucket);
    for (i = 0; i < 5; i++)
        sim_put(m, (enum value)(V_LAT0 + i), s, bucket[i]);
    sim_put(m, V_EXT_RD_BEATS, s, rd);
    sim_put(m, V_EXT_WR_BEATS, s, wr);
    sim_put(m, V_EXT_RD, s, rd / 4);
    sim_put(m, V_EXT_WR, s, wr / 4);
    sim_put(m, V_RD_STALL, s, gt_sim_part(w->gpu, p[P_STALL] * (0.4 + 0.8 * ru) * m->slice_skew[s]));
    sim_put(m, V_WR_STALL, s, gt_sim_part(w->gpu, 0.5 * p[P_STALL] * (0.4 + 0.8 * wu) * m->slice_skew[s]));
    lookups = sim_scale(rd / 4, 1.0 / (1.0 - 0.9 * p[P_L2HIT]));
    sim_put(m, V_L2_RD_LOOKUP, s, lookups);
    sim_put(m, V_L2_RD_HIT, s, lookups - min_u64(lookups, rd / 4));
    sim_put(m, V_L2_WR_LOOKUP, s, sim_scale(wr / 4, 1.2));
    sim_put(m, V_L2_WR_HIT, s, gt_sim_part(sim_scale(wr / 4, 1.2), 0.8));
    sim_put(m, V_L2_ANY_LOOKUP, s, lookups + sim_scale(wr / 4, 1.2));
}

/* External traffic is what the cores miss plus the tiler's. The bus moves
 * at most about one beat per cycle per slice, so demand beyond that is cut
 * back at the cores (fewer misses served in the interval). */
void sim_memory(struct sim *m, const struct work *w, struct core *k)
{
    const struct family *f = m->fam;
    uint64_t demand = w->other_rd, cap = 0, wr = w->other_wr, rb[SIM_MAX_INST], wb[SIM_MAX_INST];
    double weight[SIM_MAX_INST], share[SIM_MAX_INST], cut = 1.0;
    uint32_t c, s;

    for (s = 0; s < f->slices; s++) {
        weight[s] = m->slice_skew[s] * sim_jitter(m, 0.004);
        cap += gt_sim_part(w->gpu, 0.92 * m->slice_skew[s]);
    }
    for (c = 0; c < f->cores; c++)
        demand += k[c].rd_ftc_ext + k[c].rd_ls_ext + k[c].rd_tex_ext;
    if (demand > cap)
        cut = (double)cap / (double)demand;
    demand = gt_sim_part(w->other_rd, cut);
    for (c = 0; c < f->cores; c++) {
        k[c].rd_ftc_ext = gt_sim_part(k[c].rd_ftc_ext, cut);
        k[c].rd_ls_ext = gt_sim_part(k[c].rd_ls_ext, cut);
        k[c].rd_tex_ext = gt_sim_part(k[c].rd_tex_ext, cut);
        demand += k[c].rd_ftc_ext + k[c].rd_ls_ext + k[c].rd_tex_ext;
        wr += gt_sim_part(k[c].wr_wb + k[c].wr_other + k[c].wr_tib, 0.8);
    }
    split_shares(weight, f->slices, share);
    split_by(demand, share, f->slices, rb);
    split_by(wr, share, f->slices, wb);
    for (s = 0; s < f->slices; s++)
        slice(m, w, s, min_u64(rb[s], w->gpu), min_u64(wb[s], gt_sim_part(w->gpu, 0.92)));
}

/* Fragment tasks cover task_px pixels each (T8xx 16x16, G715 32x32,
 * G720 64x64), which is how the guides count pixels. */
void sim_fragment_tasks(struct sim *m, const struct core *k)
{
    uint64_t pixels = 0;
    uint32_t c;

    for (c = 0; c < m->fam->cores; c++)
        pixels += k[c].pixels;
    sim_put(m, V_FRAG_TASKS, 0, (pixels + m->fam->task_px - 1) / m->fam->task_px);
}

/* A CSF core's fragment path and warps (G715 and G720 alike). */
void sim_put_core_frag_csf(struct sim *m, const struct work *w, uint32_t c,
                              const struct core *k)
{
    const double *p = w->p;
    uint32_t qpw = sim_warp_width(m->fam) / 4;   /* quads a warp holds */
    uint64_t nf_warps = k->nf_threads / sim_warp_width(m->fam), warps = k->warps + nf_warps;
    uint64_t lzs = gt_sim_part(qpw * k->warps, p[P_LZS]);

    sim_put(m, V_CORE_ACTIVE, c, k->any);
    sim_put(m, V_FRAG_ACTIVE, c, k->frag);
    sim_put(m, V_NONFRAG_ACTIVE, c, k->nf);
    sim_put(m, V_EXEC_ACTIVE, c, k->exec);
    sim_put(m, V_FPK_ACTIVE, c, gt_sim_part(k->frag, w->fpk * sim_jitter(m, 0.05)));
    sim_put(m, V_FRAG_PRIMS, c, sim_scale(w->visible, 1.5 / m->fam->cores));
    sim_put(m, V_QUADS, c, k->quads);
    sim_put(m, V_PARTIAL_QUADS, c, gt_sim_part(k->quads, 0.08 + 2.0 * p[P_SMALL]));
    sim_put(m, V_COARSE_QUADS, c, gt_sim_part(k->quads, p[P_COARSE]));
    sim_put(m, V_EZS_TEST, c, k->ezs_test);
    sim_put(m, V_EZS_UPDATE, c, gt_sim_part(k->ezs_test, 0.5 * sim_jitter(m, 0.05)));
    sim_put(m, V_EZS_KILL, c, k->ezs_kill);
    /* FPK kills what passed early ZS but never reached a warp. */
    sim_put(m, V_FPK_KILLER, c, gt_sim_part(k->reach - qpw * k->warps, 0.8));
    sim_put(m, V_LZS_TEST, c, lzs);
    sim_put(m, V_LZS_KILL, c, gt_sim_part(lzs, 0.3));
    sim_put(m, V_FRAG_WARPS, c, k->warps);
    sim_put(m, V_FRAG_THREADS, c, k->threads);
    sim_put(m, V_NONFRAG_WARPS, c, nf_warps);
    sim_put(m, V_CORE_NF_TASKS, c, nf_warps / 16);
    sim_put(m, V_REG64_WARPS, c, gt_sim_part(warps, 0.1 + 0.3 * p[P_COMP]));
    sim_put(m, V_FULL_WARPS, c, gt_sim_part(warps, 0.8));
    sim_put(m, V_TILES, c, k->tiles);
    /* The guides divide unchanged tiles by 4 x tiles: 4 blocks per tile. */
    sim_put(m, V_TILES_UNCHANGED, c, gt_sim_part(4 * k->tiles, p[P_TE]));
}

/* A CSF core's execution units (G715 and G720 alike). */
void sim_put_core_exec_csf(struct sim *m, const struct work *w, uint32_t c,
                              const struct core *k)
{
    const double *p = w->p;
    uint64_t fma, cvt, sfu;

    /* Mix chosen so the guides' arithmetic estimate equals k->arith on
     * G715 and 7/8 of it on G720: FMA issues two per cycle. */
    fma = sim_scale(k->arith, 1.5);
    cvt = gt_sim_part(k->arith, 0.17);
    sfu = gt_sim_part(k->arith, 0.08);
    sim_put(m, V_FMA, c, fma);
    sim_put(m, V_CVT, c, cvt);
    sim_put(m, V_SFU, c, sfu);
    sim_put(m, V_NARROW, c, gt_sim_part(fma + cvt + sfu, 0.3));
    sim_put(m, V_DIVERGED, c, gt_sim_part(fma + cvt + sfu, 0.03 + 0.05 * p[P_COMP]));
    sim_put(m, V_BLEND_CALLS, c, gt_sim_part(k->warps / 4, 0.03));
    sim_put(m, V_VARY_SLOT16, c, 4 * gt_sim_part(k->vary, 0.6));
    sim_put(m, V_VARY_SLOT32, c, 4 * (k->vary - gt_sim_part(k->vary, 0.6)));
    sim_put(m, V_VARY_INSTR, c, k->vary / 2);
    sim_put(m, V_ATTR_INSTR, c, sim_scale(k->nf, 0.05));
    sim_put(m, V_TEX_FILT, c, k->tex);
    sim_put(m, V_TEX_MSG, c, sim_scale(k->tex, 0.9));
    sim_put(m, V_TEX_IN_BUS, c, gt_sim_part(k->exec, 0.7 * p[P_TEX]));
    sim_put(m, V_LS_READ_FULL, c, k->ls_part[0]);
    sim_put(m, V_LS_READ_SHORT, c, k->ls_part[1]);
    sim_put(m, V_LS_WRITE_FULL, c, k->ls_part[2]);
    sim_put(m, V_LS_WRITE_SHORT, c, k->ls_part[3]);
    sim_put(m, V_LS_ATOMIC, c, k->ls_part[4]);
}

void sim_put_core_beats(struct sim *m, uint32_t c, const struct core *k)
{
    sim_put(m, V_RD_FTC, c, k->rd_ftc);
    sim_put(m, V_RD_FTC_EXT, c, k->rd_ftc_ext);
    sim_put(m, V_RD_LSC, c, k->rd_ls);
    sim_put(m, V_RD_LSC_EXT, c, k->rd_ls_ext);
    sim_put(m, V_RD_TEX, c, k->rd_tex);
    sim_put(m, V_RD_TEX_EXT, c, k->rd_tex_ext);
    sim_put(m, V_RD_OTHER, c, sim_scale(k->nf, 0.005));
    sim_put(m, V_WR_LSC_WB, c, k->wr_wb);
    sim_put(m, V_WR_LSC_OTHER, c, k->wr_other);
    sim_put(m, V_WR_TIB, c, k->wr_tib);
}

/* Ray tracing: box and triangle tests of a warp against a node; the
 * coherency histograms split exactly those totals by active rays. */
void sim_put_core_rt(struct sim *m, const struct work *w, uint32_t c, const struct core *k)
{
    uint64_t box = sim_scale(k->rt_box, 0.7), tri = sim_scale(k->rt_tri, 0.6), rays, opaque;
    uint64_t bins[4];
    int i;

    sim_put(m, V_RT_BOX_ISSUED, c, k->rt_box);
    sim_put(m, V_RT_TRI_ISSUED, c, k->rt_tri);
    sim_put(m, V_RT_BOX, c, box);
    sim_put(m, V_RT_TRI, c, tri);
    split_by(box, w->box_share, 4, bins);
    for (i = 0; i < 4; i++)
        sim_put(m, (enum value)(V_RT_BOX_BIN0 + i), c, bins[i]);
    split_by(tri, w->tri_share, 4, bins);
    for (i = 0; i < 4; i++)
        sim_put(m, (enum value)(V_RT_TRI_BIN0 + i), c, bins[i]);
    rays = sim_scale(box, 0.35);
    opaque = gt_sim_part(rays, 0.45);
    sim_put(m, V_RT_RAYS, c, rays);
    sim_put(m, V_RT_OPAQUE, c, opaque);
    sim_put(m, V_RT_NON_OPAQUE, c, gt_sim_part(rays, 0.12));
    sim_put(m, V_RT_MISS, c, gt_sim_part(rays, 0.3));
    sim_put(m, V_RT_FIRST_HIT, c, gt_sim_part(opaque, 0.5));
}

void sim_compute_tasks(struct sim *m, const struct core *k)
{
    uint64_t threads = 0;
    uint32_t c;

    for (c = 0; c < m->fam->cores; c++)
        threads += k[c].nf_threads;
    sim_put(m, V_COMP_TASKS, 0, threads / 256);
    sim_put(m, V_NONFRAG_TASKS, 0, threads / 256);
}

/* ---- whole intervals ---- */

void sim_model_steps(struct sim *m, struct work *w, void (*frontend)(struct sim *, struct work *),
                     double deferred, sim_core_fn put_core)
{
    struct core k[SIM_MAX_INST];
    uint32_t c;

    frontend(m, w);
    sim_geometry(m, w);
    sim_idvs(m, w, deferred);
    sim_cores(m, w, k);
    sim_memory(m, w, k);
    sim_fragment_tasks(m, k);
    sim_compute_tasks(m, k);
    for (c = 0; c < m->fam->cores; c++) {
        sim_put_core_frag_csf(m, w, c, &k[c]);
        sim_put_core_exec_csf(m, w, c, &k[c]);
        sim_put_core_beats(m, c, &k[c]);
        put_core(m, w, c, &k[c]);
    }
}

/* A job-manager family's interval: the JM front end, no deferred varying
 * shading, then each core's family-specific values (put_core). */
void sim_model_jm(struct sim *m, struct work *w, sim_core_fn put_core)
{
    sim_model_steps(m, w, sim_frontend_jm, 0.0, put_core);
}

/* The splits every core makes the same way this interval: its load/store
 * cycles by kind, and its ray tests by active rays (the histograms weigh
 * coherent batches by the scene's share of them). */
void sim_core_shares(struct work *w)
{
    static const double ls_mix[5] = { 0.45, 0.15, 0.25, 0.10, 0.05 };
    double coh = w->p[P_COHERENT];
    double box_w[4] = { 0.25 * (1 - coh), 0.35 * (1 - coh), 0.40 * (1 - coh), coh };
    double tri_w[4] = { 0.35 * (1 - coh), 0.35 * (1 - coh), 0.30 * (1 - coh), 0.7 * coh };

    split_shares(ls_mix, 5, w->ls_share);
    split_shares(box_w, 4, w->box_share);
    split_shares(tri_w, 4, w->tri_share);
}
