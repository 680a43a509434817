/* The simulated gfx1151: over many samples of every scene the raw deltas
 * keep the relations the speed-of-light page relies on (hits + misses =
 * requests, each cache level fed by the misses above it, busy <= elapsed,
 * fabric traffic under the 256 GB/s bus), and each scene has its character
 * on the layout's rows. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gputop/engine.h"
#include "gputop/source.h"

#define STEP_NS  100000000ull
#define NSAMPLES 400

static const char *const scenes[] = { "idle", "compute-bound", "memory-bound", "cache-friendly" };

struct fx {
    struct gt_source *s;
    struct gt_snapshot snap;
};

static void fx_open(struct fx *f, const char *spec)
{
    struct gt_diag d;

    f->s = gt_source_open(spec, NULL, &d);
    cr_assert_not_null(f->s, "%s: %s", spec, d.msg);
    cr_assert_eq(gt_snapshot_init(&f->snap, f->s->catalog.nslots), 0);
    cr_assert_eq(f->s->type->start(f->s, &d), 0);
}

static void fx_sample(struct fx *f)
{
    struct gt_diag d;

    cr_assert_eq(f->s->type->sample(f->s, &f->snap, &d), 0, "%s", d.msg);
}

static void fx_close(struct fx *f)
{
    gt_snapshot_free(&f->snap);
    gt_source_close(f->s);
}

static const struct gt_counter *ctr(const struct fx *f, const char *name)
{
    int k = gt_catalog_find(&f->s->catalog, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    return &f->s->catalog.counters[k];
}

static uint64_t at(const struct fx *f, const char *name, uint32_t i)
{
    const struct gt_counter *k = ctr(f, name);

    cr_assert_lt(i, k->instances);
    return f->snap.deltas[k->slot + i];
}

static uint64_t sum(const struct fx *f, const char *name)
{
    const struct gt_counter *k = ctr(f, name);
    uint64_t s = 0;
    uint32_t i;

    for (i = 0; i < k->instances; i++)
        s += f->snap.deltas[k->slot + i];
    return s;
}

static uint32_t n_of(const struct fx *f, const char *name)
{
    return ctr(f, name)->instances;
}

static void check_invariants(const struct fx *f, const char *scene, int n)
{
    double secs = (double)gt_snapshot_ns(&f->snap) / 1e9;
    uint64_t gui = sum(f, "GRBM_GUI_ACTIVE"), fabric = 0;
    uint32_t i;

    cr_assert_eq(gt_snapshot_ns(&f->snap), STEP_NS);
    /* busy <= elapsed: clocks at no more than max_sclk (2900 MHz) */
    cr_assert_leq(sum(f, "GRBM_COUNT"), 290000000ull, "%s #%d", scene, n);
    cr_assert_leq(gui, sum(f, "GRBM_COUNT"));
    for (i = 0; i < n_of(f, "SQ_BUSY_CYCLES"); i++) {
        cr_assert_leq(at(f, "SQ_BUSY_CYCLES", i), gui);
        cr_assert_leq(at(f, "SQ_WAIT_ANY", i), at(f, "SQ_WAVE_CYCLES", i));
        cr_assert_leq(at(f, "SQ_WAIT_INST_ANY", i), at(f, "SQ_WAVE_CYCLES", i));
    }
    for (i = 0; i < n_of(f, "SQC_LDS_BANK_CONFLICT"); i++) {
        cr_assert_leq(at(f, "SQC_LDS_BANK_CONFLICT", i), gui);
        cr_assert_leq(at(f, "SQ_INSTS_VALU", i) + at(f, "SQ_INSTS_INTERNAL", i),
                      at(f, "SQ_INSTS_ALL", i));
        cr_assert_eq(at(f, "SQC_TC_DATA_READ_REQ", i), at(f, "SQC_DCACHE_MISSES", i));
        cr_assert_eq(at(f, "SQC_TC_INST_REQ", i), at(f, "SQC_ICACHE_MISSES", i));
    }
    /* each level's requests are the misses of the level above */
    for (i = 0; i < n_of(f, "TCP_REQ"); i++)
        cr_assert_leq(at(f, "TCP_REQ_MISS", i), at(f, "TCP_REQ", i));
    cr_assert_leq(sum(f, "GL1C_REQ"), sum(f, "TCP_REQ_MISS"));
    cr_assert_geq(sum(f, "GL1C_REQ") + n_of(f, "GL1C_REQ"), sum(f, "TCP_REQ_MISS"));
    for (i = 0; i < n_of(f, "GL1C_REQ"); i++) {
        cr_assert_leq(at(f, "GL1C_REQ_MISS", i), at(f, "GL1C_REQ", i));
        cr_assert_eq(at(f, "GL1C_GL2_REQ_READ_32B", i) + at(f, "GL1C_GL2_REQ_READ_64B", i) +
                     at(f, "GL1C_GL2_REQ_READ_128B", i), at(f, "GL1C_REQ_MISS", i));
    }
    for (i = 0; i < n_of(f, "GL2C_HIT"); i++) {
        uint64_t reads = at(f, "GL2C_READ_32_REQ", i) + at(f, "GL2C_READ_64_REQ", i) +
                         at(f, "GL2C_READ_128_REQ", i) + at(f, "GL2C_COMPRESSED_READ_96_REQ", i);
        uint64_t ea = at(f, "GL2C_EA_RDREQ_32B", i) + at(f, "GL2C_EA_RDREQ_64B", i) +
                      at(f, "GL2C_EA_RDREQ_96B", i) + at(f, "GL2C_EA_RDREQ_128B", i);
        /* hits + misses = requests (reads and writes) */
        cr_assert_eq(at(f, "GL2C_HIT", i) + at(f, "GL2C_MISS", i),
                     reads + at(f, "GL2C_MC_WRREQ", i), "%s #%d channel %u", scene, n, i);
        cr_assert_leq(ea + at(f, "GL2C_MC_WRREQ", i), at(f, "GL2C_MISS", i));
        cr_assert_leq(at(f, "GL2C_EA_WRREQ_64B", i), at(f, "GL2C_MC_WRREQ", i));
        fabric += 32 * at(f, "GL2C_EA_RDREQ_32B", i) + 64 * at(f, "GL2C_EA_RDREQ_64B", i) +
                  96 * at(f, "GL2C_EA_RDREQ_96B", i) + 128 * at(f, "GL2C_EA_RDREQ_128B", i) +
                  32 * (at(f, "GL2C_MC_WRREQ", i) - at(f, "GL2C_EA_WRREQ_64B", i)) +
                  64 * at(f, "GL2C_EA_WRREQ_64B", i);
    }
    cr_assert_leq(sum(f, "GL2C_READ_32_REQ") + sum(f, "GL2C_READ_64_REQ") +
                  sum(f, "GL2C_READ_128_REQ") + sum(f, "GL2C_COMPRESSED_READ_96_REQ"),
                  sum(f, "GL1C_REQ_MISS"));
    /* bandwidth under the bus: 256-bit LPDDR5X-8000 = 256 GB/s */
    cr_assert_leq((double)fabric / secs, 256e9, "%s #%d: %g B/s", scene, n,
                  (double)fabric / secs);
    cr_assert_leq((sum(f, "GPU_METRICS_DRAM_READS") + sum(f, "GPU_METRICS_DRAM_WRITES")) * 1e6,
                  256e9);
    /* polls: no block busier than the GPU, GUI no more than the polls */
    cr_assert_leq(sum(f, "GRBM_STATUS_GUI_ACTIVE"), sum(f, "GRBM_POLLS"));
    cr_assert_leq(sum(f, "GRBM_STATUS2_EA_BUSY"), sum(f, "GRBM_STATUS_GUI_ACTIVE"));
    cr_assert_leq(sum(f, "GRBM_STATUS_SPI_BUSY"), sum(f, "GRBM_STATUS_GUI_ACTIVE"));
    cr_assert_eq(sum(f, "GPU_METRICS_READS"), 1);
    cr_assert_leq(sum(f, "GPU_METRICS_GFXCLK"), 2900);
}

Test(sim_amd, invariants_hold_over_many_samples_of_every_scene)
{
    char spec[128];
    size_t sc;
    int n, seed;

    for (sc = 0; sc < sizeof(scenes) / sizeof(scenes[0]); sc++)
        for (seed = 1; seed <= 3; seed++) {
            struct fx f;
            snprintf(spec, sizeof(spec), "sim:amd-gfx1151,scene=%s,seed=%d,step=%llu",
                     scenes[sc], seed, STEP_NS);
            fx_open(&f, spec);
            for (n = 0; n < NSAMPLES; n++) {
                fx_sample(&f);
                check_invariants(&f, scenes[sc], n);
            }
            fx_close(&f);
        }
}

Test(sim_amd, describes_itself_and_names_its_layout)
{
    struct fx f;

    fx_open(&f, "sim:amd-gfx1151,scene=idle,step=1000");
    cr_expect_str_eq(f.s->info.layout, "amd-gfx1151");
    cr_expect_str_eq(f.s->info.family, "amd-gfx1151");
    cr_expect_str_eq(f.s->type->name, "sim");
    cr_expect_eq(f.s->info.gpu_id, 0x1586);
    cr_expect(strstr(f.s->info.detail, "scene idle") != NULL);
    fx_close(&f);
}

Test(sim_amd, unknown_scene_names_the_known_ones)
{
    struct gt_diag d;

    cr_assert_null(gt_source_open("sim:amd-gfx1151,scene=game", NULL, &d));
    cr_expect(strstr(d.msg, "unknown scene 'game'") != NULL, "%s", d.msg);
    cr_expect(strstr(d.msg, "compute-bound, memory-bound, cache-friendly") != NULL, "%s", d.msg);
    cr_assert_null(gt_source_open("sim:amd-gfx9999", NULL, &d));
    cr_expect(strstr(d.msg, "amd-gfx1151") != NULL, "%s", d.msg);
}

Test(sim_amd, seeds_reproduce)
{
    struct fx a, b;
    int n;

    fx_open(&a, "sim:amd-gfx1151,seed=7,step=50000000");
    fx_open(&b, "sim:amd-gfx1151,seed=7,step=50000000");
    for (n = 0; n < 50; n++) {
        fx_sample(&a);
        fx_sample(&b);
        cr_assert_eq(memcmp(a.snap.deltas, b.snap.deltas, a.snap.nslots * sizeof(uint64_t)), 0);
    }
    fx_close(&a);
    fx_close(&b);
}

/* ---- each scene's character, read through the layout ---- */

struct rows {
    double v[128];
    struct gt_engine *e;
    struct gt_layout *l;
};

static double row(struct rows *r, const char *title)
{
    int m = gt_layout_find_metric(r->l, title);

    cr_assert_geq(m, 0, "no metric %s", title);
    return r->v[m];
}

static double pop(struct rows *r, const char *title)
{
    return gt_engine_pop(r->e, (size_t)gt_layout_find_metric(r->l, title));
}

/* The layout's rows for a scene, after 20 samples. */
static void scene_rows(const char *scene, struct rows *r, struct fx *f)
{
    char spec[128];
    struct gt_diag d;
    int n;

    snprintf(spec, sizeof(spec), "sim:amd-gfx1151,scene=%s,step=%llu", scene, STEP_NS);
    fx_open(f, spec);
    r->l = gt_layout_load("amd-gfx1151", &d);
    cr_assert_not_null(r->l, "%s", d.msg);
    r->e = gt_engine_new(r->l, &f->s->catalog);
    cr_assert_not_null(r->e);
    cr_assert_eq(gt_engine_nunresolved(r->e), 0);
    cr_assert_leq(r->l->nmetrics, 128);
    for (n = 0; n < 20; n++)
        fx_sample(f);
    gt_engine_eval(r->e, &f->snap, r->v);
}

static void scene_done(struct rows *r, struct fx *f)
{
    gt_engine_free(r->e);
    gt_layout_free(r->l);
    fx_close(f);
}

Test(sim_amd, idle_is_idle)
{
    struct rows r;
    struct fx f;

    scene_rows("idle", &r, &f);
    cr_expect_lt(row(&r, "GUI active"), 10);
    cr_expect_lt(row(&r, "GPU busy"), 10);
    cr_expect_lt(pop(&r, "VALU FLOPs (FP32)"), 1);
    cr_expect_lt(pop(&r, "Shader clock"), 50);
    scene_done(&r, &f);
}

Test(sim_amd, compute_bound_issues_near_peak)
{
    struct rows r;
    struct fx f;

    scene_rows("compute-bound", &r, &f);
    cr_expect_gt(row(&r, "GUI active"), 90);
    cr_expect_gt(pop(&r, "IPC"), 75);
    cr_expect_leq(row(&r, "IPC"), 5);
    cr_expect_leq(pop(&r, "VALU FLOPs (FP32)"), 100);
    cr_expect_lt(row(&r, "Wave Dependency Wait"), 30);
    cr_expect_lt(row(&r, "L2-Fabric Read BW"), 50e9);
    scene_done(&r, &f);
}

Test(sim_amd, memory_bound_waits_on_the_fabric)
{
    struct rows r;
    struct fx f;

    scene_rows("memory-bound", &r, &f);
    cr_expect_lt(row(&r, "L2 Cache Hit Rate"), 20);
    cr_expect_lt(row(&r, "TCP Cache Hit Rate"), 30);
    cr_expect_gt(row(&r, "L2-Fabric Read BW"), 150e9);
    cr_expect_leq(row(&r, "L2-Fabric Read BW") + row(&r, "L2-Fabric Write BW"), 256e9);
    cr_expect_gt(row(&r, "Wave Dependency Wait"), 60);
    cr_expect_gt(row(&r, "EA busy"), 70);
    cr_expect_lt(pop(&r, "IPC"), 30);
    scene_done(&r, &f);
}

Test(sim_amd, cache_friendly_hits)
{
    struct rows r;
    struct fx f;

    scene_rows("cache-friendly", &r, &f);
    cr_expect_gt(row(&r, "TCP Cache Hit Rate"), 85);
    cr_expect_gt(row(&r, "GL1C Hit Rate"), 80);
    cr_expect_gt(row(&r, "L2 Cache Hit Rate"), 80);
    cr_expect_gt(row(&r, "Scalar Data Cache Hit Rate"), 90);
    cr_expect_gt(row(&r, "Instruction Cache Hit Rate"), 90);
    cr_expect_lt(row(&r, "L2-Fabric Read BW"), 20e9);
    cr_expect_gt(row(&r, "TCP Cache BW"), 100e9);
    scene_done(&r, &f);
}
