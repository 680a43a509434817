/* The amdgpu source against the fake amdgpu kernel: the real source code
 * through the real engine and the amd-gfx1151 layout, with register and
 * counter values injected at hardware positions; every error a user can
 * hit; registers restored; a sleeping GPU left asleep. Expected values are
 * worked out by hand from the document's definitions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/amd_harness.h"
#include "../src/sources/amd/amd.h"
#include "gputop/amdgpu.h"
#include "gputop/engine.h"
#include "gputop/layout.h"
#include "gputop/source.h"

#define HAS AM_HAS
#define NEAR AM_NEAR

/* ---- discovery and DEV_INFO ---- */

Test(amdgpu, finds_the_amd_gpu_among_others_and_reads_dev_info)
{
    struct am t;

    am_start(&t, am_fake(0, FA_METRICS_V3_0), "amdgpu");
    cr_expect_str_eq(t.s->info.device, "/dev/dri/renderD128");
    cr_expect_str_eq(t.s->info.gpu, "Strix Halo (gfx1151)");
    cr_expect_str_eq(t.s->info.layout, "amd-gfx1151");
    cr_expect_eq(t.s->info.gpu_id, 0x1586);
    /* DEV_INFO: max_engine_clock 2900000 kHz, 40 active CUs; gfx11 wave slots 16 x 2. */
    cr_expect_eq(am_constant(&t, "max_sclk"), 2900.0);
    cr_expect_eq(am_constant(&t, "cu_per_gpu"), 40.0);
    cr_expect_eq(am_constant(&t, "max_waves_per_cu"), 32.0);
    am_stop(&t);
}

Test(amdgpu, a_named_node_that_is_not_amd_is_refused)
{
    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);
    struct gt_diag d;

    HAS(am_open_error(fa, "amdgpu:/dev/dri/renderD129", &d), "/dev/dri/renderD129 is not an AMD");
    fa_free(fa);
}

Test(amdgpu, no_device)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct gt_diag d;

    memset(&c, 0, sizeof(c));
    c.no_gpu = 1;
    fa = am_fake_with(c);
    HAS(am_open_error(fa, "amdgpu", &d), "no AMD GPU found");
    fa_free(fa);
}

Test(amdgpu, radeon_driver_is_named)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct gt_diag d;

    memset(&c, 0, sizeof(c));
    c.driver_radeon = 1;
    fa = am_fake_with(c);
    HAS(am_open_error(fa, "amdgpu", &d), "driven by 'radeon', not amdgpu");
    cr_expect_eq(fa_stats(fa)->open_fds, 0);
    fa_free(fa);
}

Test(amdgpu, bad_arguments)
{
    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);
    struct gt_diag d;

    HAS(am_open_error(fa, "amdgpu:poll=0", &d), "poll must be reads per second");
    HAS(am_open_error(fa, "amdgpu:mode=turbo", &d), "mode must be full or metrics");
    HAS(am_open_error(fa, "amdgpu:pmc=maybe", &d), "pmc must be auto, on or off");
    HAS(am_open_error(fa, "amdgpu:mode=metrics,pmc=on", &d), "never touches GFX");
    fa_free(fa);
}

/* ---- Activity: GRBM polls ---- */

Test(amdgpu, grbm_busy_bits_are_percent_of_polls)
{
    /* Four polls: GUI_ACTIVE (bit 31) in 3, TA (14) in 1, SPI (22) in 2;
     * GRBM_STATUS2 EA (16) in 2, TCP (27) in 4. */
    const uint32_t st[4] = { 1u << 31 | 1u << 22, 1u << 31 | 1u << 14, 1u << 31 | 1u << 22, 0 };
    const uint32_t st2[4] = { 1u << 16 | 1u << 27, 1u << 27, 1u << 16 | 1u << 27, 1u << 27 };
    struct am t;

    am_start(&t, am_fake(0, FA_METRICS_V3_0), "amdgpu:polls=8");
    fa_set_grbm(t.fa, st, st2, 4);
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(am_counter(&t, "GRBM_POLLS", 0), 8);
    cr_expect_eq(am_counter(&t, "GRBM_STATUS_GUI_ACTIVE", 0), 6);
    NEAR(am_metric(&t, "GUI active"), 75.0);
    NEAR(am_metric(&t, "TA busy"), 25.0);
    NEAR(am_metric(&t, "SPI busy"), 50.0);
    cr_expect_eq(am_counter(&t, "GRBM_STATUS2_EA_BUSY", 0), 4);
    cr_expect_eq(am_counter(&t, "GRBM_STATUS2_TCP_BUSY", 0), 8);
    /* Two READ_MMR_REG calls a poll (the registers are not adjacent). */
    cr_expect_eq(fa_stats(t.fa)->mmr_reads, 16);
    am_stop(&t);
}

Test(amdgpu, metrics_mode_never_touches_gfx)
{
    struct am t;
    struct fake_amdgpu *fa = am_fake(1, FA_METRICS_V3_0);

    fa_set_metric(fa, 174, 2, 2100);
    am_start(&t, fa, "amdgpu:mode=metrics");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(fa_stats(t.fa)->mmr_reads, 0);
    cr_expect_eq(fa_stats(t.fa)->regs_written, 0);
    NEAR(am_metric(&t, "Shader clock"), 2100.0);    /* MHz, as sysfs and amdgpu_top */
    cr_expect_not_null(am_unavailable(&t, "GUI active"));
    HAS(am_unavailable(&t, "IPC"), "mode=metrics");
    am_stop(&t);
}

/* ---- Power & clocks ---- */

Test(amdgpu, gpu_metrics_v3_0_fields)
{
    struct am t;

    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);

    fa_set_metric(fa, 174, 2, 2800);       /* average_gfxclk_frequency MHz */
    fa_set_metric(fa, 186, 2, 1000);       /* average_uclk_frequency */
    fa_set_metric(fa, 4, 2, 6150);         /* temperature_gfx centi-degC */
    fa_set_metric(fa, 112, 4, 95500);      /* average_socket_power mW */
    fa_set_metric(fa, 94, 2, 12000);       /* average_dram_reads MB/s */
    fa_set_metric(fa, 96, 2, 3000);
    am_start(&t, fa, "amdgpu:polls=1");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    NEAR(am_metric(&t, "Shader clock"), 2800.0);    /* MHz */
    NEAR(am_metric(&t, "Memory clock"), 1000.0);
    NEAR(am_metric(&t, "GFX temperature"), 61.5);
    NEAR(am_metric(&t, "Socket power"), 95.5);
    NEAR(am_metric(&t, "DRAM read bandwidth"), 12000e6);
    NEAR(am_metric(&t, "DRAM write bandwidth"), 3000e6);
    am_stop(&t);
}

Test(amdgpu, gpu_metrics_v2_1_has_no_dram_fields)
{
    struct am t;

    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V2_1);

    fa_set_metric(fa, 174, 2, 1800);       /* lands at v2.1 offset 64 */
    fa_set_metric(fa, 4, 2, 4500);         /* offset 4 in both */
    am_start(&t, fa, "amdgpu:polls=1");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    NEAR(am_metric(&t, "Shader clock"), 1800.0);   /* MHz */
    NEAR(am_metric(&t, "GFX temperature"), 45.0);
    cr_expect_not_null(am_unavailable(&t, "DRAM read bandwidth"));
    am_stop(&t);
}

Test(amdgpu, sensors_stand_in_without_gpu_metrics)
{
    struct am t;

    am_start(&t, am_fake(0, FA_METRICS_V9_9), "amdgpu:polls=1");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    /* Fake sensors: sclk 2900 MHz, temperature 55000 milli-degC, power 42 W. */
    NEAR(am_metric(&t, "Shader clock"), 2900.0);   /* MHz */
    NEAR(am_metric(&t, "GFX temperature"), 55.0);
    NEAR(am_metric(&t, "Socket power"), 42.0);
    cr_expect_not_null(am_unavailable(&t, "DRAM read bandwidth"));
    am_stop(&t);
}

Test(amdgpu, gpu_metrics_blobs_that_do_not_parse)
{
    unsigned char b[264];
    struct gt_amd_metrics m;
    char why[160];
    uint16_t size = 264;

    memset(b, 0, sizeof(b));
    cr_expect_eq(gt_amd_metrics_parse(b, 3, &m, why, sizeof(why)), -1);
    HAS(why, "shorter than its 4-byte header");
    memcpy(b, &size, 2);
    b[2] = 1;
    b[3] = 5;
    cr_expect_eq(gt_amd_metrics_parse(b, sizeof(b), &m, why, sizeof(why)), -1);
    HAS(why, "format 1.5, which gputop does not know");
    b[2] = 3;
    b[3] = 0;
    cr_expect_eq(gt_amd_metrics_parse(b, 200, &m, why, sizeof(why)), -1);
    HAS(why, "format 3.0 says 264 bytes and 200 arrived; the layout has 264");
    cr_expect_eq(gt_amd_metrics_parse(b, sizeof(b), &m, why, sizeof(why)), 0);
    /* All-zero fields are values (0 MHz), not "unfilled" (all ones). */
    cr_expect_eq(m.have[GT_GM_GFXCLK], 1);
}

/* ---- a sleeping GPU ---- */

Test(amdgpu, asleep_at_open_is_not_woken)
{
    struct fa_config c;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.metrics = FA_METRICS_V3_0;
    c.power = "suspended";
    am_start(&t, am_fake_with(c), "amdgpu");
    cr_expect_eq(am_sample(&t), -1);
    HAS(t.d.msg, "asleep");
    HAS(am_unavailable(&t, "IPC"), "asleep when gputop started");
    /* gfx1151's published shape stands in for DEV_INFO. */
    cr_expect_eq(am_constant(&t, "cu_per_gpu"), 40.0);
    cr_expect_eq(fa_stats(t.fa)->mmr_reads, 0);
    fa_set_power(t.fa, "active");
    cr_expect_eq(am_sample(&t), -1);
    HAS(t.d.msg, "restart gputop");
    am_stop(&t);
}

Test(amdgpu, falling_asleep_stops_the_polls)
{
    struct am t;
    int reads;

    am_start(&t, am_fake(0, FA_METRICS_V3_0), "amdgpu:polls=4");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    reads = fa_stats(t.fa)->mmr_reads;
    fa_set_power(t.fa, "suspended");
    cr_expect_eq(am_sample(&t), -1);
    HAS(t.d.msg, "asleep: /dev/dri/renderD128 is runtime-suspended (suspended)");
    cr_expect_eq(fa_stats(t.fa)->mmr_reads, reads);
    fa_set_power(t.fa, "active");
    cr_expect_geq(am_sample(&t), 0, "%s", t.d.msg);
    am_stop(&t);
}

/* ---- performance counters ---- */

Test(amdgpu, without_root_counter_rows_say_needs_root)
{
    struct am t;

    am_start(&t, am_fake(0, FA_METRICS_V3_0), "amdgpu:polls=1");
    HAS(am_unavailable(&t, "IPC"), "needs root: sudo gputop --source amdgpu");
    HAS(am_unavailable(&t, "L2 Cache Hit Rate"), "needs root");
    cr_expect_null(am_unavailable(&t, "GUI active"));
    cr_expect_null(am_unavailable(&t, "Shader clock"));
    am_stop(&t);
}

Test(amdgpu, pmc_on_without_root_fails_with_the_reason)
{
    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);
    struct gt_diag d;

    HAS(am_open_error(fa, "amdgpu:pmc=on", &d), "debugfs is root-only");
    cr_expect_eq(fa_stats(fa)->open_fds, 0);
    fa_free(fa);
}

Test(amdgpu, debugfs_missing)
{
    struct fa_config c;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.no_debugfs = 1;
    c.metrics = FA_METRICS_V3_0;
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    HAS(am_unavailable(&t, "IPC"), "debugfs is not mounted");
    am_stop(&t);
}

Test(amdgpu, stable_pstate_ebusy)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct gt_diag d;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.pstate_busy = 1;
    c.metrics = FA_METRICS_V3_0;
    fa = am_fake_with(c);
    HAS(am_open_error(fa, "amdgpu:keepon=pstate,pmc=on", &d),
        "another program holds the stable power state");
    HAS(d.msg, "EBUSY");
    cr_expect_eq(fa_stats(fa)->regs_not_restored, 0);
    fa_free(fa);
    am_start(&t, am_fake_with(c), "amdgpu:keepon=pstate,polls=1");
    HAS(am_unavailable(&t, "IPC"), "EBUSY");
    am_stop(&t);
}

Test(amdgpu, unknown_family_gets_activity_and_power_only)
{
    struct fa_config c;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.gpu = FA_NAVI10;
    c.metrics = FA_METRICS_V2_1;
    am_start(&t, am_fake_with(c), "amdgpu:polls=2");
    cr_expect_str_eq(t.s->info.gpu, "AMD GPU");
    HAS(am_unavailable(&t, "IPC"), "GC 11.5");
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(am_counter(&t, "GRBM_POLLS", 0), 2);
    cr_expect_eq(fa_stats(t.fa)->regs_written, 0);
    am_stop(&t);
}

/* Runs passes until every counter has been counted once. */
static void sample_all_passes(struct am *t)
{
    int i;

    for (i = 0; i < 3; i++)
        cr_assert_geq(am_sample(t), 0, "%s", t->d.msg);
}

Test(amdgpu, injected_counts_give_the_speed_of_light_rows)
{
    struct am t;
    unsigned i;
    double ns;

    am_start(&t, am_fake(1, FA_METRICS_V3_0), "amdgpu:polls=1");
    for (i = 0; i < 4; i++) {                     /* four GL2C channels */
        fa_set_rate(t.fa, "GL2C", 42, i, 300);    /* GL2C_HIT */
        fa_set_rate(t.fa, "GL2C", 43, i, 100);    /* GL2C_MISS */
        fa_set_rate(t.fa, "GL2C", 100, i, 1000);  /* GL2C_EA_RDREQ_64B */
    }
    for (i = 0; i < 20; i++) {                    /* twenty WGPs, 5 per array */
        unsigned u = FA_UNIT(i / 10, i / 5 % 2, i % 5);
        fa_set_rate(t.fa, "SQ", 3, u, 100);       /* SQ_BUSY_CYCLES */
        fa_set_rate(t.fa, "SQ", 24, u, 400);      /* SQ_WAVE_CYCLES */
        fa_set_rate(t.fa, "SQ", 35, u, 100);      /* SQ_WAIT_ANY */
        fa_set_rate(t.fa, "SQ", 48, u, 150);      /* SQ_INSTS_ALL */
        fa_set_rate(t.fa, "SQ", 69, u, 50);       /* SQ_INSTS_INTERNAL */
        fa_set_rate(t.fa, "SQ", 62, u, 100);      /* SQ_INSTS_VALU */
    }
    fa_set_rate(t.fa, "TCP", 9, FA_UNIT(1, 1, 7), 5);   /* TCP_REQ on CU 7 of SE1 SA1 */
    sample_all_passes(&t);
    /* L2 hit rate = 100 * 4*300 / (4*300 + 4*100) = 75 %. */
    NEAR(am_metric(&t, "L2 Cache Hit Rate"), 75.0);
    /* IPC = (20*150 - 20*50) / (20*100) = 1.0 (busy cycles summed over
     * WGPs); its pop = 100 * 3000/2000/5 = 30 %. */
    NEAR(am_metric(&t, "IPC"), 1.0);
    /* Wave dependency wait = 100 * 20*100 / (20*400) = 25 %. */
    NEAR(am_metric(&t, "Wave Dependency Wait"), 25.0);
    /* Occupancy = sum(SQ_WAVE_CYCLES) / mean over WGPs(SQ_BUSY_CYCLES) = 8000 / 100 = 80. */
    NEAR(am_metric(&t, "Wavefront Occupancy"), 80.0);
    /* FP32: 20*100 VALU instructions x 64 lanes over the interval, in ns. */
    ns = (double)gt_snapshot_ns(&t.snap);
    cr_assert_gt(ns, 0);
    NEAR(am_metric(&t, "VALU FLOPs (FP32)"), 2000.0 * 64 / ns);
    /* Fabric read BW = 64 B x 4*1000 requests per second of interval. */
    NEAR(am_metric(&t, "L2-Fabric Read BW"), 64.0 * 4000 / (ns / 1e9));
    /* Instance banking: CU 7 of SE 1, SA 1 is CU 37 of the GPU. */
    cr_expect_eq(am_counter(&t, "TCP_REQ", 37), 5);
    cr_expect_eq(am_counter(&t, "TCP_REQ", 36), 0);
    cr_expect_eq(am_counter(&t, "SQ_BUSY_CYCLES", 19), 100);
    cr_expect_eq(fa_stats(t.fa)->pstate, 0, "a pstate pins the clocks");
    cr_expect_eq(fa_stats(t.fa)->gfxoff_refs, 1, "GFX not kept on while counting");
    am_stop(&t);
}

Test(amdgpu, counter_groups_rotate_and_are_marked_estimated)
{
    struct am t;
    unsigned passes;
    int r;

    am_start(&t, am_fake(1, FA_METRICS_V3_0), "amdgpu:polls=1");
    fa_set_rate(t.fa, "GL2C", 42, 0, 20);         /* GL2C_HIT */
    fa_set_rate(t.fa, "GL2C", 74, 0, 80);         /* GL2C_READ_64_REQ */
    /* GL2C's twelve counters need three passes of four: the hit/miss and
     * write pairs, the four client reads, the four fabric reads. */
    /* Counters the layout reads: GRBM 2, SQ (per WGP) 14, TCP 2, GL1C 5, GL2C 12. */
    HAS(t.s->info.detail, "35 counters rotated over 3 passes");
    r = am_sample(&t);
    cr_expect_eq(r, 2, "the first pass leaves counters estimated");
    HAS(t.d.msg, "estimated");
    HAS(t.d.msg, "3 passes");
    cr_expect_eq(am_counter(&t, "GL2C_HIT", 0), 20);
    /* Not read yet, and the rate was set after the pass before the first
     * interval saw none: an estimate of 0. */
    cr_expect_eq(am_counter(&t, "GL2C_READ_64_REQ", 0), 0);
    am_sample(&t);
    /* The second pass counts the client reads; the hits are their last
     * pass's rate over this interval (1 ms each: the same 20). */
    cr_expect_eq(am_counter(&t, "GL2C_READ_64_REQ", 0), 80);
    cr_expect_eq(am_counter(&t, "GL2C_HIT", 0), 20);
    /* Rows reading rotated counters are estimates; GRBM's two fit one
     * pass, and so do TCP's two (four counters). */
    cr_expect(gt_engine_estimated(t.e, (size_t)gt_layout_find_metric(t.l, "L2 Cache Hit Rate")));
    cr_expect(!gt_engine_estimated(t.e, (size_t)gt_layout_find_metric(t.l, "TCP Cache Hit Rate")));
    cr_expect(!gt_engine_estimated(t.e, (size_t)gt_layout_find_metric(t.l, "GPU busy")));
    cr_expect(!gt_engine_estimated(t.e, (size_t)gt_layout_find_metric(t.l, "GUI active")));
    passes = (unsigned)fa_stats(t.fa)->passes;
    cr_expect_eq(passes, 1 + 3 + 3, "the TCP check, each pass once before the first interval, "
                 "then one at start and after each sample");
    am_stop(&t);
}

Test(amdgpu, every_register_written_is_restored)
{
    struct am t;

    am_start(&t, am_fake(1, FA_METRICS_V3_0), "amdgpu:polls=1");
    sample_all_passes(&t);
    cr_expect_gt(fa_stats(t.fa)->regs_written, 10);
    cr_expect_gt(fa_stats(t.fa)->regs_not_restored, 0, "counting changes registers");
    am_stop(&t);   /* checks that all are back */
}

Test(amdgpu, regs2_v1_kernels)
{
    struct fa_config c;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.no_regs2_v2 = 1;
    c.metrics = FA_METRICS_V3_0;
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);         /* GRBM_GUI_ACTIVE */
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777);
    am_stop(&t);
}

Test(amdgpu, keepon_gfxoff_holds_a_gfxoff_request)
{
    struct am t;

    am_start(&t, am_fake(1, FA_METRICS_V3_0), "amdgpu:keepon=gfxoff,polls=1");
    cr_expect_eq(fa_stats(t.fa)->pstate, 0);
    cr_expect_eq(fa_stats(t.fa)->gfxoff_refs, 1);
    am_stop(&t);
}

/* ---- --probe ---- */

Test(amdgpu, probe_describes_the_device)
{
    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    int r;

    cr_assert_not_null(out);
    r = gt_amd_probe(&(struct gt_probe){ fa_sys(fa), out, NULL }, NULL);
    fclose(out);
    cr_expect_eq(r, 0, "%s", buf);
    HAS(buf, "device:           /dev/dri/renderD128 (PCI 0000:c3:00.0, id 1002:1586");
    HAS(buf, "GC 11.5.1");
    HAS(buf, "2 SE x 2 SA, 40 CUs active, 4 GL2C channels, wave32");
    HAS(buf, "gpu_metrics format 3.0");
    HAS(buf, "needs root");
    HAS(buf, "first sample:     ok");
    free(buf);
    cr_expect_eq(fa_stats(fa)->open_fds, 0);
    fa_free(fa);
}

/* ---- the binary, as a user runs it ---- */

#include <signal.h>
#include <unistd.h>
#include "fakes/tmux.h"

static const char *amdfake_bin(void)
{
    const char *b = getenv("GPUTOP_AMDFAKE_BIN");

    return b ? b : "build/native/tests/gputop-amdfake";
}

static char *slurp(const char *path)
{
    char *buf = NULL;
    size_t len = 0, n;
    char chunk[4096];
    FILE *f = fopen(path, "r"), *m = open_memstream(&buf, &len);

    cr_assert_not_null(m);
    while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, m);
    if (f)
        fclose(f);
    fclose(m);
    return buf;
}

Test(amdgpu, dashboard_says_needs_root_then_restores_on_sigterm, .timeout = 60)
{
    char cmd[768], err[64], *s;
    struct tmux t;
    int found, pid, i;

    /* As a normal user: the dashboard opens on Activity, which has values
     * (not on 19 rows of "needs root"); the header counts CUs, not cores. */
    snprintf(cmd, sizeof(cmd), "exec %s -- --no-cpu --source amdgpu:polls=4", amdfake_bin());
    cr_assert_eq(tmux_start(&t, 110, 40, "", cmd), 0);
    s = tmux_wait_for(&t, "GUI active", 10000, &found);
    cr_assert(found, "opens on Activity:\n%s", s);
    cr_assert(strstr(s, "Strix Halo (gfx1151) · 40 CUs"), "header:\n%s", s);
    cr_assert(!strstr(s, "cores"), "CUs are not cores:\n%s", s);
    cr_assert(!strstr(s, "needs root"), "first screen:\n%s", s);
    free(s);
    /* The counter rows say why. */
    tmux_literal(&t, "1");                      /* System Speed-of-Light */
    s = tmux_wait_for(&t, "needs root", 10000, &found);
    cr_assert(found, "counter rows say 'needs root':\n%s", s);
    cr_assert(strstr(s, "Strix Halo"), "header names the GPU:\n%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);

    /* As root, counting; SIGTERM puts every register back. */
    snprintf(err, sizeof(err), "/tmp/gputop-amd-%d.err", (int)getpid());
    snprintf(cmd, sizeof(cmd), "exec %s root GL2C:42:0=300 GL2C:43:0=100 -- --no-cpu "
             "--source amdgpu:polls=4 2>%s", amdfake_bin(), err);
    cr_assert_eq(tmux_start(&t, 110, 40, "", cmd), 0);
    s = tmux_wait_for(&t, "Strix Halo", 10000, &found);
    cr_assert(found, "%s", s);
    free(s);
    tmux_literal(&t, "1");
    s = tmux_wait_for(&t, "~75.0", 10000, &found);
    cr_assert(found, "L2 hit rate 300 / (300 + 100), marked as an estimate, on screen:\n%s", s);
    free(s);
    pid = tmux_pane_pid(&t);
    cr_assert_gt(pid, 0);
    kill(pid, SIGTERM);
    for (i = 0; i < 200 && tmux_alive(&t); i++)
        usleep(50000);
    tmux_stop(&t);
    s = slurp(err);
    unlink(err);
    cr_assert(strstr(s, "registers written, 0 not restored, 0 GFXOFF requests held, 0 fds "
                        "open, woken 0 times"), "after SIGTERM: %s", s);
    cr_assert(!strstr(s, " 0 registers written"), "nothing was counted: %s", s);
    free(s);
}

Test(amdgpu, batch_restores_on_sigint, .timeout = 60)
{
    char cmd[1024], *s;
    FILE *p;

    /* The shell waits for the first record, then interrupts gputop. */
    snprintf(cmd, sizeof(cmd),
             "out=/tmp/gputop-amd-int-$$; %s root SQG:3:0=1000 -- -b -i 50 --no-cpu "
             "--source amdgpu:polls=2 >$out.o 2>$out.e & pid=$!; "
             "for i in $(seq 200); do grep -q interval $out.o 2>/dev/null && break; "
             "sleep 0.05; done; kill -INT $pid; wait $pid; cat $out.e; rm -f $out.o $out.e",
             amdfake_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    {
        char *buf = NULL;
        size_t len = 0, n;
        char chunk[4096];
        FILE *m = open_memstream(&buf, &len);
        while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
            fwrite(chunk, 1, n, m);
        fclose(m);
        s = buf;
    }
    pclose(p);
    cr_assert(strstr(s, "0 not restored, 0 GFXOFF requests held"), "after SIGINT: %s", s);
    cr_assert(!strstr(s, " 0 registers written"), "nothing was counted: %s", s);
    free(s);
}

Test(amdgpu, without_source_the_amd_gpu_is_found, .timeout = 60)
{
    char cmd[512], chunk[4096], *buf = NULL;
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    /* No Mali node in the fake: discovery moves on to the AMD GPU. */
    snprintf(cmd, sizeof(cmd), "%s -- -b -f csv -n 1 -i 50 --no-cpu --metrics 'Shader clock' "
             "2>&1", amdfake_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    cr_expect_eq(pclose(p), 0);
    fclose(m);
    /* The fake's GFX_SCLK sensor (no gpu_metrics gfxclk filled): 2900 MHz. */
    HAS(buf, "Shader clock [MHz]");
    HAS(buf, ",2900,");  /* 2900 MHz, then its % of peak */
    free(buf);
}

/* A DEV_INFO no GPU could send (found by fuzz_amdgpu): 16777216 shader
 * engines and 10485760 CUs. The catalogue was sized from them, and the
 * first sample cleared gigabytes; the source must refuse the device. */
Test(amdgpu, impossible_dev_info_shape_is_refused, .timeout = 30)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct gt_diag d;

    memset(&c, 0, sizeof(c));
    c.dev_info_patch[0].off = 20;          /* num_shader_engines */
    c.dev_info_patch[0].value = 16777216;
    c.dev_info_patch[1].off = 24;          /* num_shader_arrays_per_engine */
    c.dev_info_patch[1].value = 0;
    c.dev_info_patch[2].off = 48;          /* cu_active_number */
    c.dev_info_patch[2].value = 10485760;
    fa = am_fake_with(c);
    HAS(am_open_error(fa, "amdgpu:polls=1", &d), "16777216 shader engines");
    fa_free(fa);
}


/* The CSV header says every percentage one way ("%", as the "% of peak"
 * columns do; the document's "Percent" rows included), clocks in MHz as
 * the kernel's sysfs and amdgpu_top print them. */
Test(amdgpu, csv_units_are_consistent, .timeout = 60)
{
    char cmd[512], chunk[4096], *buf = NULL, *nl;
    size_t len = 0, n;
    FILE *p, *m = open_memstream(&buf, &len);

    snprintf(cmd, sizeof(cmd), "%s -- -b -f csv -n 1 -i 50 --no-cpu --source amdgpu 2>/dev/null",
             amdfake_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    pclose(p);
    fclose(m);
    nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    HAS(buf, "GUI active [%]");
    HAS(buf, "L2 Cache Hit Rate [%]");
    HAS(buf, "Shader clock [MHz]");
    cr_expect(!strstr(buf, "[Percent]"), "a percentage in two spellings: %s", buf);
    free(buf);
}
