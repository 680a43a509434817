/* The simulated AMD gfx1151 (sim:amd-gfx1151): a workload model over the
 * shared catalogue (src/sources/amd/catalog_gfx1151.c) whose counters keep the
 * relations the speed-of-light page relies on, for demos and tests. */
#include "../sim/args.h"
#include "gputop/amd_gfx1151.h"
#include "gputop/sim.h"
#include "gputop/source.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AMD_SCENE_NS  8000000000ull     /* a scene's share of scene=cycle */
#define AMD_T0_NS     1000000000ull     /* virtual clock origin with step= */
#define AMD_MAX_STEP  3600000000000ull  /* an hour */
#define AMD_POLL_NS   1000000ull        /* one GRBM poll a millisecond */
/* The simulator's memory bus: 256-bit LPDDR5X at 8000 MT/s (Strix Halo's
 * published configuration; rdna35.md names the 256-bit, 8-channel bus),
 * 256 GB/s. Fabric traffic is kept below it. */
#define AMD_BUS_BYTES_PER_S 256e9
#define AMD_MAX_INST 64

enum scene { SC_IDLE, SC_COMPUTE, SC_MEMORY, SC_CACHE, NSCENES, SC_CYCLE = NSCENES };

static const char *const scene_names[NSCENES] = {
    "idle", "compute-bound", "memory-bound", "cache-friendly",
};

enum param {
    P_BUSY,      /* GUI active / clocks */
    P_DVFS,      /* clock / max_sclk */
    P_SQBUSY,    /* SQ busy / GUI active */
    P_OCC,       /* resident waves / the SE's wave slots */
    P_IPC,       /* instructions per SQ-busy cycle (the document's IPC, <= 5) */
    P_VALU,      /* VALU share of instructions */
    P_WAITDEP,   /* dependency wait / wave lifetime */
    P_WAITISS,   /* issue wait / wave lifetime */
    P_LDS,       /* LDS bank-conflict cycles / active cycle, per WGP */
    P_TCPRATE,   /* vector L0 requests per CU per active cycle */
    P_TCPHIT, P_GL1HIT, P_GL2HIT,
    P_WRITES,    /* GL2C writes / GL2C reads */
    P_SDRATE, P_SDHIT, P_SIRATE, P_SIHIT,   /* scalar data / instruction cache */
    P_CPUMBS,    /* CPU DRAM traffic, MB/s */
    P_TEMP,      /* degC */
    P_WATT,      /* socket power, W */
    NPARAMS
};

/* Each scene shows what its name says under the layout's tree: idle under
 * 15 % busy; compute-bound issuing at 90 % of IPC's peak; memory-bound at
 * the fabric's cap; cache-friendly issuing at 70 % with the data in the
 * caches, neither side at its mark (no single limiter).
 *                  idle    compute memory  cache */
#define R(a, b, c, d) { a, b, c, d }
static const double scene_table[NPARAMS][NSCENES] = {
    [P_BUSY]    = R(0.03,   0.97,   0.95,   0.93),
    [P_DVFS]    = R(0.25,   0.99,   0.85,   0.99),
    [P_SQBUSY]  = R(0.50,   0.98,   0.97,   0.96),
    [P_OCC]     = R(0.02,   0.45,   0.85,   0.50),
    [P_IPC]     = R(0.20,   4.50,   0.60,   3.50),
    [P_VALU]    = R(0.30,   0.80,   0.30,   0.50),
    [P_WAITDEP] = R(0.10,   0.15,   0.85,   0.30),
    [P_WAITISS] = R(0.20,   0.70,   0.05,   0.35),
    [P_LDS]     = R(0.001,  0.02,   0.005,  0.05),
    [P_TCPRATE] = R(0.01,   0.05,   0.60,   0.50),
    [P_TCPHIT]  = R(0.60,   0.80,   0.10,   0.92),
    [P_GL1HIT]  = R(0.50,   0.60,   0.15,   0.90),
    [P_GL2HIT]  = R(0.50,   0.70,   0.05,   0.95),
    [P_WRITES]  = R(0.10,   0.10,   0.40,   0.10),
    [P_SDRATE]  = R(0.002,  0.02,   0.005,  0.02),
    [P_SDHIT]   = R(0.90,   0.97,   0.80,   0.99),
    [P_SIRATE]  = R(0.001,  0.01,   0.003,  0.01),
    [P_SIHIT]   = R(0.95,   0.99,   0.97,   0.995),
    [P_CPUMBS]  = R(1500,   3000,   5000,   2000),
    [P_TEMP]    = R(40,     75,     68,     72),
    [P_WATT]    = R(12,     110,    95,     100),
};

/* The counters the model writes, resolved to catalogue slots at open. */
#define AMD_COUNTERS(X) \
    X(GRBM_COUNT) X(GRBM_GUI_ACTIVE) X(SQ_BUSY_CYCLES) X(SQ_WAVES) X(SQ_WAVE_CYCLES) \
    X(SQ_WAIT_INST_ANY) X(SQ_WAIT_ANY) X(SQ_INSTS_ALL) X(SQ_INSTS_VALU) \
    X(SQ_INSTS_INTERNAL) X(SQC_LDS_BANK_CONFLICT) X(SQC_ICACHE_HITS) X(SQC_ICACHE_MISSES) \
    X(SQC_TC_INST_REQ) X(SQC_TC_DATA_READ_REQ) X(SQC_DCACHE_HITS) X(SQC_DCACHE_MISSES) \
    X(TCP_REQ) X(TCP_REQ_MISS) X(GL1C_GL2_REQ_READ_128B) X(GL1C_GL2_REQ_READ_32B) \
    X(GL1C_GL2_REQ_READ_64B) X(GL1C_REQ) X(GL1C_REQ_MISS) X(GL2C_HIT) X(GL2C_MISS) \
    X(GL2C_READ_32_REQ) X(GL2C_READ_64_REQ) X(GL2C_READ_128_REQ) \
    X(GL2C_COMPRESSED_READ_96_REQ) X(GL2C_MC_WRREQ) X(GL2C_EA_WRREQ_64B) \
    X(GL2C_EA_RDREQ_32B) X(GL2C_EA_RDREQ_64B) X(GL2C_EA_RDREQ_96B) X(GL2C_EA_RDREQ_128B) \
    X(GRBM_POLLS) X(GRBM_STATUS_GUI_ACTIVE) X(GRBM_STATUS_CP_BUSY) X(GRBM_STATUS_SPI_BUSY) \
    X(GRBM_STATUS_TA_BUSY) X(GRBM_STATUS_SX_BUSY) X(GRBM_STATUS2_CPC_BUSY) \
    X(GRBM_STATUS2_CPF_BUSY) X(GRBM_STATUS2_TCP_BUSY) X(GRBM_STATUS2_EA_BUSY) \
    X(GRBM_STATUS2_UTCL2_BUSY) X(GRBM_STATUS2_RLC_BUSY) \
    X(GPU_METRICS_READS) X(GPU_METRICS_TEMP_GFX) X(GPU_METRICS_GFX_ACTIVITY) \
    X(GPU_METRICS_DRAM_READS) X(GPU_METRICS_DRAM_WRITES) X(GPU_METRICS_SOCKET_POWER) \
    X(GPU_METRICS_GFX_POWER) X(GPU_METRICS_GFXCLK) X(GPU_METRICS_FCLK) X(GPU_METRICS_UCLK)

#define AS_ENUM(n) C_##n,
#define AS_NAME(n) #n,
enum counter { AMD_COUNTERS(AS_ENUM) NCOUNTERS };
static const char *const counter_names[NCOUNTERS] = { AMD_COUNTERS(AS_NAME) };

struct sim_amd {
    struct gt_amd_device dev;
    int scene;
    uint64_t seed, step_ns, rng, last_ns, own_ns;
    uint32_t slot[NCOUNTERS];
    double skew[AMD_MAX_INST];   /* fixed per-instance speed differences */
    uint64_t *out;               /* the snapshot being written */
    double p[NPARAMS];
};

/* ---- arithmetic that keeps the invariants exact ---- */

/* 1 +- amp, uniformly. */
static double jitter(struct sim_amd *m, double amp)
{
    return 1.0 + amp * (2.0 * ((double)(gt_sim_xorshift(&m->rng) >> 11) * 0x1.0p-53) - 1.0);
}

static void put(struct sim_amd *m, enum counter c, uint32_t inst, uint64_t v)
{
    m->out[m->slot[c] + inst] = v;
}

/* The share of a total instance i of n gets: skewed, summing to 1. */
static double share(const struct sim_amd *m, uint32_t i, uint32_t n)
{
    double sum = 0;
    uint32_t k;

    for (k = 0; k < n; k++)
        sum += m->skew[k];
    return m->skew[i] / sum;
}

/* ---- the model ---- */

static void scene_params(struct sim_amd *m)
{
    int sc = m->scene == SC_CYCLE ? (int)(m->own_ns / AMD_SCENE_NS % NSCENES) : m->scene;
    int i;

    for (i = 0; i < NPARAMS; i++)
        m->p[i] = scene_table[i][sc] * jitter(m, 0.03);
    for (i = P_BUSY; i <= P_SQBUSY; i++)
        m->p[i] = m->p[i] > 0.99 ? 0.99 : m->p[i];
    m->p[P_IPC] = m->p[P_IPC] > 4.9 ? 4.9 : m->p[P_IPC];
    if (m->p[P_WAITDEP] + m->p[P_WAITISS] > 0.98)
        m->p[P_WAITISS] = 0.98 - m->p[P_WAITDEP];
}

/* Per WGP, as the hardware records them (one SQ record per WGP): busy
 * cycles, wave-cycles (resident waves summed each cycle, plain cycles on
 * gfx10/11), waits and waves. Returns the SQ-busy cycles summed over WGPs. */
static uint64_t sq_wgps(struct sim_amd *m, uint64_t active)
{
    uint32_t w, n = m->dev.cu / 2;
    double slots = (double)m->dev.max_waves_per_cu * 2.0;   /* a WGP is two CUs */
    uint64_t sum = 0;

    for (w = 0; w < n; w++) {
        double sk = m->skew[w % m->dev.se] / m->skew[0];
        uint64_t busy = gt_sim_part(active, m->p[P_SQBUSY] * (sk < 1.0 ? sk : 1.0) * 0.99);
        uint64_t cyc = (uint64_t)(m->p[P_OCC] * slots * (double)busy);
        put(m, C_SQ_BUSY_CYCLES, w, busy);
        put(m, C_SQ_WAVE_CYCLES, w, cyc);
        put(m, C_SQ_WAIT_ANY, w, gt_sim_part(cyc, m->p[P_WAITDEP]));
        put(m, C_SQ_WAIT_INST_ANY, w, gt_sim_part(cyc, m->p[P_WAITISS]));
        put(m, C_SQ_WAVES, w, cyc / 20000);   /* waves live ~20k cycles */
        sum += busy;
    }
    return sum;
}

/* Per WGP: instructions (IPC against the WGPs' busy cycles, as the
 * document divides: both summed over WGPs, so per WGP-busy cycle), LDS
 * conflicts and the scalar caches (hits + misses = lookups, one GL1
 * request per miss). */
static void wgps(struct sim_amd *m, uint64_t active, uint64_t sq_busy)
{
    uint32_t w, n = m->dev.cu / 2;
    uint64_t all = (uint64_t)(m->p[P_IPC] * (double)sq_busy);

    for (w = 0; w < n; w++) {
        double s = share(m, w, n);
        uint64_t a = (uint64_t)((double)all * s), internal = gt_sim_part(a, 0.02);
        uint64_t dl = (uint64_t)(m->p[P_SDRATE] * (double)active * s * n);
        uint64_t il = (uint64_t)(m->p[P_SIRATE] * (double)active * s * n);
        uint64_t dm = dl - gt_sim_part(dl, m->p[P_SDHIT]), im = il - gt_sim_part(il, m->p[P_SIHIT]);
        put(m, C_SQ_INSTS_ALL, w, a);
        put(m, C_SQ_INSTS_INTERNAL, w, internal);
        put(m, C_SQ_INSTS_VALU, w, gt_sim_part(a - internal, m->p[P_VALU]));
        put(m, C_SQC_LDS_BANK_CONFLICT, w, gt_sim_part(active, m->p[P_LDS]));
        put(m, C_SQC_DCACHE_HITS, w, dl - dm);
        put(m, C_SQC_DCACHE_MISSES, w, dm);
        put(m, C_SQC_TC_DATA_READ_REQ, w, dm);
        put(m, C_SQC_ICACHE_HITS, w, il - im);
        put(m, C_SQC_ICACHE_MISSES, w, im);
        put(m, C_SQC_TC_INST_REQ, w, im);
    }
}

/* Fabric bytes one vector L0 request causes on average, for the bus cap. */
static double fabric_bytes_per_request(const struct sim_amd *m)
{
    double l2_in = (1 - m->p[P_TCPHIT]) * (1 - m->p[P_GL1HIT]);

    return l2_in * ((1 - m->p[P_GL2HIT]) * 124.0 + m->p[P_WRITES] * 60.0);
}

/* The vector memory hierarchy, each level fed by the misses of the one
 * above: TCP per CU -> GL1C per SA -> GL2C per channel -> fabric. */
static void memory(struct sim_amd *m, uint64_t active, uint64_t dt_ns, uint64_t *rd,
                   uint64_t *wr)
{
    uint32_t i, ncu = m->dev.cu, nsa = m->dev.se * m->dev.sa_per_se, nch = m->dev.gl2c;
    double want = m->p[P_TCPRATE] * (double)active * ncu;
    double cap = AMD_BUS_BYTES_PER_S * 0.97 * (double)dt_ns / 1e9 / fabric_bytes_per_request(m);
    uint64_t total = (uint64_t)(want < cap ? want : cap), gl1_in = 0, gl2_in = 0;

    for (i = 0; i < ncu; i++) {
        uint64_t req = (uint64_t)((double)total * share(m, i, ncu));
        uint64_t miss = req - gt_sim_part(req, m->p[P_TCPHIT]);
        put(m, C_TCP_REQ, i, req);
        put(m, C_TCP_REQ_MISS, i, miss);
        gl1_in += miss;
    }
    for (i = 0; i < nsa; i++) {
        uint64_t req = (uint64_t)((double)gl1_in * share(m, i, nsa));
        uint64_t miss = req - gt_sim_part(req, m->p[P_GL1HIT]);
        uint64_t r32 = gt_sim_part(miss, 0.05), r64 = gt_sim_part(miss, 0.10);
        put(m, C_GL1C_REQ, i, req);
        put(m, C_GL1C_REQ_MISS, i, miss);
        put(m, C_GL1C_GL2_REQ_READ_32B, i, r32);
        put(m, C_GL1C_GL2_REQ_READ_64B, i, r64);
        put(m, C_GL1C_GL2_REQ_READ_128B, i, miss - r32 - r64);
        gl2_in += miss;
    }
    *rd = *wr = 0;
    for (i = 0; i < nch; i++) {
        uint64_t reads = (uint64_t)((double)gl2_in * share(m, i, nch));
        uint64_t writes = gt_sim_part(reads, m->p[P_WRITES]), req = reads + writes;
        uint64_t rmiss = reads - gt_sim_part(reads, m->p[P_GL2HIT]);
        uint64_t c96 = gt_sim_part(reads, 0.02), r32 = gt_sim_part(reads, 0.05), r64 = gt_sim_part(reads, 0.10);
        uint64_t e32 = gt_sim_part(rmiss, 0.04), e64 = gt_sim_part(rmiss, 0.10), e96 = gt_sim_part(rmiss, 0.01);
        uint64_t w64 = gt_sim_part(writes, 0.70);
        put(m, C_GL2C_MISS, i, rmiss + writes);    /* writes go on to the fabric */
        put(m, C_GL2C_HIT, i, req - rmiss - writes);
        put(m, C_GL2C_READ_32_REQ, i, r32);
        put(m, C_GL2C_READ_64_REQ, i, r64);
        put(m, C_GL2C_COMPRESSED_READ_96_REQ, i, c96);
        put(m, C_GL2C_READ_128_REQ, i, reads - r32 - r64 - c96);
        put(m, C_GL2C_EA_RDREQ_32B, i, e32);
        put(m, C_GL2C_EA_RDREQ_64B, i, e64);
        put(m, C_GL2C_EA_RDREQ_96B, i, e96);
        put(m, C_GL2C_EA_RDREQ_128B, i, rmiss - e32 - e64 - e96);
        put(m, C_GL2C_MC_WRREQ, i, writes);
        put(m, C_GL2C_EA_WRREQ_64B, i, w64);
        *rd += 32 * e32 + 64 * e64 + 96 * e96 + 128 * (rmiss - e32 - e64 - e96);
        *wr += 32 * (writes - w64) + 64 * w64;
    }
}

/* GRBM busy bits as polls that saw them set: no block busier than GUI. */
static void activity(struct sim_amd *m, uint64_t dt_ns)
{
    static const struct { enum counter c; double f; } blocks[] = {
        { C_GRBM_STATUS_CP_BUSY, 0.95 }, { C_GRBM_STATUS_SPI_BUSY, 0.90 },
        { C_GRBM_STATUS_TA_BUSY, -1 }, { C_GRBM_STATUS_SX_BUSY, 0.02 },
        { C_GRBM_STATUS2_CPC_BUSY, 0.97 }, { C_GRBM_STATUS2_CPF_BUSY, 0.30 },
        { C_GRBM_STATUS2_TCP_BUSY, -1 }, { C_GRBM_STATUS2_EA_BUSY, -2 },
        { C_GRBM_STATUS2_UTCL2_BUSY, 0.05 }, { C_GRBM_STATUS2_RLC_BUSY, 0.01 },
    };
    uint64_t polls = dt_ns / AMD_POLL_NS ? dt_ns / AMD_POLL_NS : 1;
    uint64_t gui = gt_sim_part(polls, m->p[P_BUSY]);
    double mem = m->p[P_TCPRATE] / 0.6;    /* memory pressure, 0..1 */
    size_t i;

    put(m, C_GRBM_POLLS, 0, polls);
    put(m, C_GRBM_STATUS_GUI_ACTIVE, 0, gui);
    for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
        double f = blocks[i].f == -1 ? 0.3 + 0.7 * mem : blocks[i].f == -2 ? mem : blocks[i].f;
        put(m, blocks[i].c, 0, gt_sim_part(gui, f));
    }
}

/* One gpu_metrics read per sample: the fields as the SMU reports them. */
static void metrics(struct sim_amd *m, double mhz, uint64_t rd, uint64_t wr, uint64_t dt_ns)
{
    double s = dt_ns ? (double)dt_ns / 1e9 : 1;

    put(m, C_GPU_METRICS_READS, 0, 1);
    put(m, C_GPU_METRICS_GFXCLK, 0, (uint64_t)mhz);
    put(m, C_GPU_METRICS_UCLK, 0, 1000);
    put(m, C_GPU_METRICS_FCLK, 0, 2000);
    put(m, C_GPU_METRICS_TEMP_GFX, 0, (uint64_t)(m->p[P_TEMP] * 100));
    put(m, C_GPU_METRICS_GFX_ACTIVITY, 0, (uint64_t)(m->p[P_BUSY] * 100));
    put(m, C_GPU_METRICS_SOCKET_POWER, 0, (uint64_t)(m->p[P_WATT] * 1000));
    put(m, C_GPU_METRICS_GFX_POWER, 0, (uint64_t)(m->p[P_WATT] * 700));
    put(m, C_GPU_METRICS_DRAM_READS, 0, (uint64_t)((double)rd / s / 1e6 + m->p[P_CPUMBS] * 0.6));
    put(m, C_GPU_METRICS_DRAM_WRITES, 0, (uint64_t)((double)wr / s / 1e6 + m->p[P_CPUMBS] * 0.4));
}

static void model_interval(struct sim_amd *m, uint64_t dt_ns)
{
    double mhz;
    uint64_t clocks, active, rd, wr;

    scene_params(m);
    mhz = m->dev.max_sclk_mhz * m->p[P_DVFS];
    clocks = (uint64_t)((double)dt_ns * mhz / 1000.0);
    active = gt_sim_part(clocks, m->p[P_BUSY]);
    put(m, C_GRBM_COUNT, 0, clocks);
    put(m, C_GRBM_GUI_ACTIVE, 0, active);
    wgps(m, active, sq_wgps(m, active));
    memory(m, active, dt_ns, &rd, &wr);
    activity(m, dt_ns);
    metrics(m, mhz, rd, wr, dt_ns);
}

/* ---- the source ---- */

static int find_scene(const char *name)
{
    int i;

    if (strcmp(name, "cycle") == 0)
        return SC_CYCLE;
    for (i = 0; i < NSCENES; i++)
        if (strcmp(scene_names[i], name) == 0)
            return i;
    return -1;
}


const char *gt_sim_amd_scenes(void)
{
    return "idle, compute-bound, memory-bound, cache-friendly, cycle";
}

/* parse_args's arguments; the type lists them too, for --help's test. */
static const char *const sim_amd_keys[] = { "", "scene", "seed", "step", NULL };

static int parse_args(struct sim_amd *m, const char *args, struct gt_diag *d)
{
    char buf[64];

    if (gt_args_check(args, sim_amd_keys, "sim", d) < 0)
        return -1;
    m->scene = SC_CYCLE;
    if (gt_args_get(args, "scene", buf, sizeof(buf)) && (m->scene = find_scene(buf)) < 0) {
        gt_diag_set(d, "sim: unknown scene '%s' for amd-gfx1151 (known: %s)", buf,
                    gt_sim_amd_scenes());
        return -1;
    }
    return gt_sim_seed_step(args, AMD_MAX_STEP, &m->seed, &m->step_ns, d);
}

static void describe(struct gt_source *s, const struct sim_amd *m)
{
    const char *scene = m->scene == SC_CYCLE ? "cycle" : scene_names[m->scene];

    snprintf(s->info.device, sizeof(s->info.device), "simulated");
    snprintf(s->info.gpu, sizeof(s->info.gpu), "Radeon 8060S (gfx1151)");   /* the CUs follow */
    snprintf(s->info.layout, sizeof(s->info.layout), "amd-gfx1151");
    snprintf(s->info.family, sizeof(s->info.family), "amd-gfx1151");
    s->info.gpu_id = 0x1586;
    s->info.shader_cores = m->dev.cu;
    snprintf(s->info.core_noun, sizeof(s->info.core_noun), "CUs");   /* not cores */
    s->info.l2_slices = m->dev.gl2c;
    s->info.bus_width_bits = 256;
    snprintf(s->info.detail, sizeof(s->info.detail), "scene %s, seed %llu%s", scene,
             (unsigned long long)m->seed, m->step_ns ? ", virtual clock" : "");
}

static void seed_model(struct sim_amd *m)
{
    uint64_t x = m->seed;
    size_t i;

    m->rng = gt_sim_splitmix64(&x) | 1;
    for (i = 0; i < AMD_MAX_INST; i++) {
        double spread = (double)i * 0.6180339887;
        spread -= floor(spread);
        m->skew[i] = 0.995 - 0.05 * spread;
    }
}

static void amd_close(struct gt_source *s)
{
    free(s->priv);
    s->priv = NULL;
}

static int amd_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    struct sim_amd *m = calloc(1, sizeof(*m));
    size_t i;

    if (!m) {
        gt_diag_fail(d, GT_ERR_NOMEM, "sim: out of memory");
        return -1;
    }
    s->priv = m;
    m->dev = gt_amd_gfx1151_default();
    if (parse_args(m, args, d) < 0 ||
        gt_amd_catalog_add(&s->catalog, &m->dev, GT_AMD_KINDS_ALL) < 0) {
        if (!d->msg[0])
            gt_diag_set(d, "sim: cannot build the gfx1151 counter catalogue");
        amd_close(s);
        return -1;
    }
    for (i = 0; i < NCOUNTERS; i++)
        m->slot[i] = s->catalog.counters[gt_catalog_find(&s->catalog, counter_names[i])].slot;
    seed_model(m);
    describe(s, m);
    m->last_ns = m->step_ns ? AMD_T0_NS : gt_now_ns();
    return 0;
}

static int amd_start(struct gt_source *s, struct gt_diag *d)
{
    struct sim_amd *m = s->priv;

    (void)d;
    m->last_ns = m->step_ns ? AMD_T0_NS : gt_now_ns();
    m->own_ns = 0;
    return 0;
}

static enum gt_sample_result amd_sample(struct gt_source *s, struct gt_snapshot *out,
                                        struct gt_diag *d)
{
    struct sim_amd *m = s->priv;
    uint64_t now;

    if (out->nslots < s->catalog.nslots) {
        gt_diag_set(d, "snapshot has %u slots, the catalogue needs %u", out->nslots,
                    s->catalog.nslots);
        return GT_SAMPLE_ERROR;
    }
    now = m->step_ns ? m->last_ns + m->step_ns : gt_now_ns();
    if (now < m->last_ns)
        now = m->last_ns;
    out->t_start_ns = m->last_ns;
    out->t_end_ns = now;
    out->nsamples = 1;
    m->own_ns += now - m->last_ns;
    m->last_ns = now;
    memset(out->deltas, 0, (size_t)out->nslots * sizeof(uint64_t));
    m->out = out->deltas;
    model_interval(m, out->t_end_ns - out->t_start_ns);
    m->out = NULL;
    return GT_SAMPLE_OK;
}

/* Every counter is modelled every interval; nothing to select. */
static int amd_select(struct gt_source *s, const unsigned char *used, struct gt_diag *d)
{
    (void)s;
    (void)used;
    (void)d;
    return 0;
}

static int amd_available(const struct gt_sys *sys, char *why, size_t len)
{
    (void)sys;
    (void)why;
    (void)len;
    return 0;
}

/* Reached through sim.c's family argument ("sim:amd-gfx1151"), so its name
 * is the sim's. */
const struct gt_source_type gt_source_sim_amd = {
    .name = "sim",
    .usage = "sim:amd-gfx1151[,scene=NAME][,seed=N][,step=NS]",
    .help = "simulated AMD gfx1151",
    .keys = sim_amd_keys,
    .kind = GT_SOURCE_VIRTUAL,
    .available = amd_available,
    .open = amd_open,
    .start = amd_start,
    .sample = amd_sample,
    .close = amd_close,
    .select = amd_select,
};
