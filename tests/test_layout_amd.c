/* The gfx1151 layout against the document: given per-instance deltas over a
 * 100 ms interval, every speed-of-light row, its peak and its percent of
 * peak equal the document's formula worked out by hand (in the comments),
 * with "kernel time" = the interval. Plus the busy-cycle, Activity and
 * Power & clocks sections. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "gputop/amd_gfx1151.h"
#include "gputop/engine.h"

struct la {
    struct gt_layout *l;
    struct gt_catalog c;
    struct gt_engine *e;
    struct gt_snapshot s;
    double out[128];
};

/* 2 SEs x 2 SAs, 40 CUs (20 WGPs), 4 GL2C channels, 2900 MHz, 32 waves/CU. */
static void la_open(struct la *t)
{
    struct gt_amd_device dev = { 2, 2, 40, 4, 2900.0, 32 };
    struct gt_diag d;

    memset(t, 0, sizeof(*t));
    t->l = gt_layout_load("amd-gfx1151", &d);
    cr_assert_not_null(t->l, "%s", d.msg);
    gt_catalog_init(&t->c);
    cr_assert_eq(gt_amd_catalog_add(&t->c, &dev, GT_AMD_KINDS_ALL), 0);
    t->e = gt_engine_new(t->l, &t->c);
    cr_assert_not_null(t->e);
    cr_assert_eq(gt_engine_nunresolved(t->e), 0);
    cr_assert_leq(t->l->nmetrics, 128);
    gt_snapshot_init(&t->s, t->c.nslots);
    t->s.t_start_ns = 7000000000ull;
    t->s.t_end_ns = 7100000000ull;     /* 0.1 s = 1e8 ns */
    t->s.nsamples = 1;
}

static void la_close(struct la *t)
{
    gt_snapshot_free(&t->s);
    gt_engine_free(t->e);
    gt_catalog_free(&t->c);
    gt_layout_free(t->l);
}

/* Every instance of a counter gets v. */
static void all(struct la *t, const char *name, uint64_t v)
{
    int k = gt_catalog_find(&t->c, name);
    uint32_t i;

    cr_assert_geq(k, 0, "no counter %s", name);
    for (i = 0; i < t->c.counters[k].instances; i++)
        t->s.deltas[t->c.counters[k].slot + i] = v;
}

/* SE0's ten WGPs count a in all, SE1's b (one SQ record a WGP). */
static void two(struct la *t, const char *name, uint64_t a, uint64_t b)
{
    int k = gt_catalog_find(&t->c, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    cr_assert_eq(t->c.counters[k].instances, 20, "%s is per WGP", name);
    for (uint32_t i = 0; i < 20; i++)
        t->s.deltas[t->c.counters[k].slot + i] = (i < 10 ? a : b) / 10;
}

static int metric(struct la *t, const char *title)
{
    int m = gt_layout_find_metric(t->l, title);

    cr_assert_geq(m, 0, "no metric %s", title);
    gt_engine_eval(t->e, &t->s, t->out);
    return m;
}

static void near(const char *what, double got, double want)
{
    cr_expect(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12, "%s: got %.17g, want %.17g",
              what, got, want);
}

static void row(struct la *t, const char *title, double value)
{
    near(title, t->out[metric(t, title)], value);
}

static void row_peak(struct la *t, const char *title, double value, double peak, double pop)
{
    int m = metric(t, title);

    near(title, t->out[m], value);
    near("peak", gt_engine_peak(t->e, (size_t)m), peak);
    near("% of peak", gt_engine_pop(t->e, (size_t)m), pop);
}

static void no_peak(struct la *t, const char *title, double value)
{
    int m = metric(t, title);

    near(title, t->out[m], value);
    cr_expect(!gt_engine_has_peak(t->e, (size_t)m), "%s has no peak in the document", title);
}

static void fill(struct la *t)
{
    all(t, "SQ_INSTS_VALU", 40000000);        /* x 20 WGPs = 8e8 */
    all(t, "SQ_INSTS_ALL", 50000000);         /* 1e9 */
    all(t, "SQ_INSTS_INTERNAL", 5000000);     /* 1e8 */
    two(t, "SQ_BUSY_CYCLES", 290000000, 250000000);   /* sum 5.4e8, mean 2.7e7 */
    two(t, "SQ_WAVE_CYCLES", 1000000000, 600000000);  /* sum 1.6e9 */
    two(t, "SQ_WAIT_ANY", 400000000, 200000000);      /* 6e8 */
    two(t, "SQ_WAIT_INST_ANY", 100000000, 100000000); /* 2e8 */
    all(t, "GL2C_HIT", 250);                  /* x 4 channels = 1000 */
    all(t, "GL2C_MISS", 50);                  /* 200 */
    all(t, "GL2C_EA_RDREQ_32B", 25);          /* 100 */
    all(t, "GL2C_EA_RDREQ_64B", 50);          /* 200 */
    all(t, "GL2C_EA_RDREQ_96B", 10);          /* 40 */
    all(t, "GL2C_EA_RDREQ_128B", 250);        /* 1000 */
    all(t, "GL2C_MC_WRREQ", 125);             /* 500 */
    all(t, "GL2C_EA_WRREQ_64B", 50);          /* 200 */
    all(t, "SQC_LDS_BANK_CONFLICT", 7);       /* x 20 = 140 */
    all(t, "TCP_REQ", 1000);                  /* x 40 CUs = 40000 */
    all(t, "TCP_REQ_MISS", 250);              /* 10000 */
    all(t, "GL1C_REQ", 500);                  /* x 4 SAs = 2000 */
    all(t, "GL1C_REQ_MISS", 100);             /* 400 */
    all(t, "GL1C_GL2_REQ_READ_32B", 10);      /* 40 */
    all(t, "GL1C_GL2_REQ_READ_64B", 20);      /* 80 */
    all(t, "GL1C_GL2_REQ_READ_128B", 30);     /* 120 */
    all(t, "GL2C_READ_32_REQ", 10);           /* 40 */
    all(t, "GL2C_READ_64_REQ", 20);           /* 80 */
    all(t, "GL2C_READ_128_REQ", 30);          /* 120 */
    all(t, "GL2C_COMPRESSED_READ_96_REQ", 5); /* 20 */
    all(t, "SQC_DCACHE_HITS", 9);             /* x 20 = 180 */
    all(t, "SQC_DCACHE_MISSES", 1);           /* 20 */
    all(t, "SQC_TC_DATA_READ_REQ", 2);        /* 40 */
    all(t, "SQC_ICACHE_HITS", 19);            /* 380 */
    all(t, "SQC_ICACHE_MISSES", 1);           /* 20 */
    all(t, "SQC_TC_INST_REQ", 3);             /* 60 */
    all(t, "GRBM_GUI_ACTIVE", 200000000);
    all(t, "GRBM_COUNT", 290000000);
}

Test(layout_amd, has_the_documents_19_rows_in_its_first_section)
{
    static const char *const rows[] = {
        "VALU FLOPs (FP16)", "VALU FLOPs (FP32)", "IPC", "Wavefront Occupancy",
        "L2 Cache Hit Rate", "L2-Fabric Read BW", "L2-Fabric Write BW", "LDS Bank Conflicts",
        "Wave Dependency Wait", "Wave Issue Wait", "TCP Cache Hit Rate", "TCP Cache BW",
        "GL1C Hit Rate", "GL1C Read BW", "GL2C Cache BW", "Scalar Data Cache Hit Rate",
        "Scalar Data Cache BW", "Instruction Cache Hit Rate", "Instruction Cache BW",
    };
    struct la t;
    size_t i;

    la_open(&t);
    cr_assert_eq(t.l->sections[0].count, 1);
    cr_assert_eq(t.l->groups[0].count, 19);
    for (i = 0; i < 19; i++)
        cr_expect_str_eq(t.l->metrics[t.l->groups[0].first + i].title, rows[i]);
    la_close(&t);
}

Test(layout_amd, speed_of_light_rows_match_the_document_by_hand)
{
    struct la t;

    la_open(&t);
    fill(&t);
    /* 8e8 VALU x 64 / 1e8 ns = 512 GFLOP/s; FP32 peak 2900*40*128/1000 =
     * 14848, FP16 peak 29696. */
    row_peak(&t, "VALU FLOPs (FP16)", 512, 29696, 100.0 * 512 / 29696);
    row_peak(&t, "VALU FLOPs (FP32)", 512, 14848, 100.0 * 512 / 14848);
    /* (1e9 - 1e8) / 5.4e8; pop 100 * 1e9 / 5.4e8 / 5 (INTERNAL not dropped) */
    row_peak(&t, "IPC", 9e8 / 5.4e8, 5, 100.0 * 1e9 / 5.4e8 / 5);
    /* 1.6e9 / (5.4e8 / 20 WGPs) = 1.6e9 / 2.7e7; peak 32 * 40 = 1280 */
    row_peak(&t, "Wavefront Occupancy", 1.6e9 / 2.7e7, 1280, 100.0 * (1.6e9 / 2.7e7) / 1280);
    row_peak(&t, "L2 Cache Hit Rate", 100.0 * 1000 / 1200, 100, 100.0 * 1000 / 1200);
    /* 32*100 + 64*200 + 96*40 + 128*1000 = 147840 bytes in 0.1 s */
    no_peak(&t, "L2-Fabric Read BW", 1478400);
    /* (500 - 200) * 32 + 200 * 64 = 22400 bytes in 0.1 s */
    no_peak(&t, "L2-Fabric Write BW", 224000);
    no_peak(&t, "LDS Bank Conflicts", 140);
    row_peak(&t, "Wave Dependency Wait", 37.5, 100, 37.5);
    row_peak(&t, "Wave Issue Wait", 12.5, 100, 12.5);
    row_peak(&t, "TCP Cache Hit Rate", 75, 100, 75);
    no_peak(&t, "TCP Cache BW", 40000.0 * 64 / 0.1);
    row_peak(&t, "GL1C Hit Rate", 80, 100, 80);
    /* 32*40 + 64*80 + 128*120 = 21760 */
    no_peak(&t, "GL1C Read BW", 217600);
    /* 32*40 + 64*80 + 128*120 + 96*20 = 23680 */
    no_peak(&t, "GL2C Cache BW", 236800);
    row_peak(&t, "Scalar Data Cache Hit Rate", 90, 100, 90);
    no_peak(&t, "Scalar Data Cache BW", 40.0 * 128 / 0.1);
    row_peak(&t, "Instruction Cache Hit Rate", 95, 100, 95);
    no_peak(&t, "Instruction Cache BW", 60.0 * 128 / 0.1);
    la_close(&t);
}

Test(layout_amd, busy_cycle_view_removes_idle_time)
{
    struct la t;

    la_open(&t);
    fill(&t);
    row(&t, "GPU busy", 100.0 * 2e8 / 2.9e8);
    /* 8e8 x 64 / 2e8 busy cycles = 256 FLOP/cycle of 40 x 128 = 5120 */
    row_peak(&t, "VALU FLOPs (FP32) per busy cycle", 256, 5120, 5);
    row_peak(&t, "VALU FLOPs (FP16) per busy cycle", 256, 10240, 2.5);
    row(&t, "L2-Fabric Read per busy cycle", 147840 / 2e8);
    row(&t, "TCP per busy cycle", 40000.0 * 64 / 2e8);
    la_close(&t);
}

Test(layout_amd, idle_gpu_gives_no_data_for_ratios)
{
    struct la t;

    la_open(&t);
    /* all zero: hit rates and IPC divide by zero -> no data, rates are 0 */
    cr_expect(isnan(t.out[metric(&t, "L2 Cache Hit Rate")]));
    cr_expect(isnan(t.out[metric(&t, "IPC")]));
    cr_expect(isnan(gt_engine_pop(t.e, (size_t)metric(&t, "IPC"))));
    row(&t, "VALU FLOPs (FP32)", 0);
    near("pop", gt_engine_pop(t.e, (size_t)metric(&t, "VALU FLOPs (FP32)")), 0);
    la_close(&t);
}

Test(layout_amd, activity_and_power)
{
    struct la t;

    la_open(&t);
    all(&t, "GRBM_POLLS", 1000);
    all(&t, "GRBM_STATUS_GUI_ACTIVE", 600);
    all(&t, "GRBM_STATUS2_EA_BUSY", 250);
    all(&t, "GPU_METRICS_READS", 10);
    all(&t, "GPU_METRICS_GFXCLK", 14500);          /* mean 1450 MHz */
    all(&t, "GPU_METRICS_TEMP_GFX", 65000);        /* 6500 centi-degC */
    all(&t, "GPU_METRICS_SOCKET_POWER", 1200000);  /* 120000 mW */
    all(&t, "GPU_METRICS_DRAM_READS", 1000000);    /* 100000 MB/s */
    row(&t, "GUI active", 60);
    row(&t, "EA busy", 25);
    /* Point 8: MHz, as the kernel's pp_dpm_sclk and amdgpu_top print clocks;
     * peak the 2900 MHz max_sclk. */
    row_peak(&t, "Shader clock", 1450, 2900, 50);
    row(&t, "GFX temperature", 65);
    row(&t, "Socket power", 120);
    row(&t, "DRAM read bandwidth", 1e11);
    la_close(&t);
}
