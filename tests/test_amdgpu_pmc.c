/* The amdgpu source's performance counters against a fake GC 11.5 that
 * follows AMD's own headers and tools (fake_amdgpu_regs.c): SQ events in
 * the SQ registers, SQ_PERFCOUNTER_CTRL/CTRL2, WGP banking from cu_bitmap,
 * four GL1C per array, CP_PERFMON_CNTL mode 0 and the sample latch, the
 * perfmon clock, 32-bit wrap, the GC bases from IP discovery, another
 * profiler, kernel lockdown and the SMU's activity scale. Expected values
 * are worked out by hand in the comments. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/amd_harness.h"

#define HAS AM_HAS
#define NEAR AM_NEAR

/* SQ_PERF_SEL numbers (soc21_enum.h, rocprofiler-compute gfx1151). */
enum { SQ_BUSY_CYCLES = 3, SQ_WAVES = 4, SQ_WAVE_CYCLES = 24, SQ_WAIT_INST_ANY = 26,
       SQ_WAIT_ANY = 35, SQ_INSTS_VALU = 62 };

/* Why a row has no value; it must have none. */
static const char *reason(struct am *t, const char *title)
{
    const char *why = am_unavailable(t, title);

    cr_assert_not_null(why, "%s has a value", title);
    return why;
}

/* A root user's view of the default part, with gpu_metrics 3.0. */
static struct fa_config root_cfg(void)
{
    struct fa_config c;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.metrics = FA_METRICS_V3_0;
    return c;
}

static struct fake_amdgpu *root_fake(void)
{
    return am_fake(1, FA_METRICS_V3_0);
}

/* Every WGP of the default 2 SE x 2 SA x 5 WGP part gets n of event. */
static void every_wgp(struct fake_amdgpu *fa, unsigned event, uint64_t n)
{
    for (unsigned se = 0; se < 2; se++)
        for (unsigned sa = 0; sa < 2; sa++)
            for (unsigned w = 0; w < 5; w++)
                fa_set_rate(fa, "SQ", event, FA_UNIT(se, sa, w), n);
}

static void samples(struct am *t, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_geq(am_sample(t), 0, "%s", t->d.msg);
}

/* Item 1: SQ_BUSY_CYCLES, SQ_WAVES, SQ_WAVE_CYCLES and the two WAIT
 * counters are SQ_PERF_SEL events, read through SQ_PERFCOUNTERn per WGP
 * (aqlprofile). In the SQG registers the same numbers are other events
 * (SQG_PERF_SEL 3 = EXP_REQ1_BUS_BUSY, 0x18 = ITEMS, 0x23 none). */
Test(amdgpu_pmc, sq_events_are_counted_in_the_sq_registers)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    every_wgp(t.fa, SQ_BUSY_CYCLES, 1000);
    every_wgp(t.fa, SQ_WAVE_CYCLES, 4000);
    every_wgp(t.fa, SQ_WAIT_ANY, 1000);
    every_wgp(t.fa, SQ_WAIT_INST_ANY, 400);
    for (unsigned se = 0; se < 2; se++) {      /* what the SQG list would give */
        fa_set_rate(t.fa, "SQG", 3, FA_UNIT(se, 0, 0), 7);
        fa_set_rate(t.fa, "SQG", 0x18, FA_UNIT(se, 0, 0), 7);
    }
    samples(&t, 3);
    /* One record a WGP: 1000 each. */
    cr_expect_eq(am_counter(&t, "SQ_BUSY_CYCLES", 0), 1000);
    cr_expect_eq(am_counter(&t, "SQ_BUSY_CYCLES", 19), 1000);
    /* 100 x 20 x 1000 / (20 x 4000) = 25 %; 100 x 20 x 400 / 80000 = 10 %. */
    NEAR(am_metric(&t, "Wave Dependency Wait"), 25.0);
    NEAR(am_metric(&t, "Wave Issue Wait"), 10.0);
    /* sum(SQ_WAVE_CYCLES) / mean over the 20 WGPs of SQ_BUSY_CYCLES =
     * 80000 / 1000 (rocprof's 80, not the 8 of a mean over SEs). */
    NEAR(am_metric(&t, "Wavefront Occupancy"), 80.0);
    am_stop(&t);
}

/* Item 2: SQ counts only with SQ_PERFCOUNTER_CTRL's stage enables and,
 * on gfx11, SQ_PERFCOUNTER_CTRL2 FORCE_EN | VMID_EN (aqlprofile gfx11
 * sq_control_enable_value / sq_control2_enable_value); am_stop checks both
 * are put back. */
Test(amdgpu_pmc, sq_ctrl_and_ctrl2_are_enabled_as_aqlprofile_does)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    /* PS_EN 0 | GS_EN 2 | HS_EN 4 | CS_EN 6 = 0x55. */
    cr_expect_eq(fa_reg_seg1(t.fa, 0x39e0), 0x55u, "SQ_PERFCOUNTER_CTRL %#x",
                 fa_reg_seg1(t.fa, 0x39e0));
    /* FORCE_EN bit 0 | VMID_EN 0xffff << 1 = 0x1ffff. */
    cr_expect_eq(fa_reg_seg1(t.fa, 0x39e2), 0x1ffffu, "SQ_PERFCOUNTER_CTRL2 %#x",
                 fa_reg_seg1(t.fa, 0x39e2));
    every_wgp(t.fa, SQ_INSTS_VALU, 3);
    samples(&t, 3);
    cr_expect_eq(am_counter(&t, "SQ_INSTS_VALU", 19), 3);
    am_stop(&t);
}

/* Item 3: a harvested part (the 32-CU Radeon 8050S shape, uneven): WGPs
 * come from DEV_INFO cu_bitmap, and WGP w of an array is INSTANCE_INDEX
 * w << 2 (aqlprofile grbm_se_sh_wgp_index_value). */
Test(amdgpu_pmc, wgps_and_cus_come_from_cu_bitmap)
{
    /* SE0: 10 + 8 CUs, SE1: 8 + 6 CUs = 32; WGPs 5 + 4 + 4 + 3 = 16. */
    static const uint32_t map[2][2] = { { 0x3ff, 0x0ff }, { 0x0ff, 0x03f } };
    static const unsigned nwgp[2][2] = { { 5, 4 }, { 4, 3 } };
    struct fa_config c;
    struct am t;
    unsigned k = 0;

    c = root_cfg();
    for (unsigned se = 0; se < 2; se++)
        for (unsigned sa = 0; sa < 2; sa++)
            c.cu_bitmap[se][sa] = map[se][sa];
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    cr_expect_eq(am_constant(&t, "cu_per_gpu"), 32.0);
    /* WGP k in (SE, SA, WGP) order counts k + 1; every WGP 100 busy cycles. */
    for (unsigned se = 0; se < 2; se++)
        for (unsigned sa = 0; sa < 2; sa++)
            for (unsigned w = 0; w < nwgp[se][sa]; w++, k++) {
                fa_set_rate(t.fa, "SQ", SQ_INSTS_VALU, FA_UNIT(se, sa, w), k + 1);
                fa_set_rate(t.fa, "SQ", SQ_BUSY_CYCLES, FA_UNIT(se, sa, w), 100);
            }
    /* CU 5 of SE1/SA1 is CU 10 + 8 + 8 + 5 = 31 of the GPU. */
    fa_set_rate(t.fa, "TCP", 9, FA_UNIT(1, 1, 5), 9);
    samples(&t, 3);
    for (k = 0; k < 16; k++)
        cr_expect_eq(am_counter(&t, "SQ_INSTS_VALU", k), k + 1, "WGP %u: %llu", k,
                     (unsigned long long)am_counter(&t, "SQ_INSTS_VALU", k));
    /* One busy-cycle record a WGP present: 16 of 100. */
    cr_expect_eq(am_counter(&t, "SQ_BUSY_CYCLES", 0), 100);
    cr_expect_eq(am_counter(&t, "SQ_BUSY_CYCLES", 15), 100);
    cr_expect_eq(am_counter(&t, "TCP_REQ", 31), 9);
    cr_expect_eq(am_counter(&t, "TCP_REQ", 30), 0);
    am_stop(&t);
}

/* Item 4: four GL1C per shader array (Mesa {&gfx11_GL1C, 83, 4}), all
 * read and summed into their array. */
Test(amdgpu_pmc, all_four_gl1c_of_an_array_are_summed)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    for (unsigned se = 0; se < 2; se++)
        for (unsigned sa = 0; sa < 2; sa++) {
            for (unsigned k = 0; k < 4; k++)
                fa_set_rate(t.fa, "GL1C", 14, FA_UNIT(se, sa, k), 100 * (k + 1));  /* REQ */
            fa_set_rate(t.fa, "GL1C", 18, FA_UNIT(se, sa, 3), 400);                 /* MISS */
        }
    samples(&t, 3);
    /* 100 + 200 + 300 + 400 per array. */
    cr_expect_eq(am_counter(&t, "GL1C_REQ", 2), 1000);
    cr_expect_eq(am_counter(&t, "GL1C_REQ_MISS", 2), 400);
    /* 100 x (4000 - 1600) / 4000 = 60 %. */
    NEAR(am_metric(&t, "GL1C Hit Rate"), 60.0);
    am_stop(&t);
}

/* Item 5: start with PERFMON_ENABLE_MODE 0 (1 is RESERVED_1; the fake
 * reports it), stop with PERFMON_SAMPLE_ENABLE so LO/HI hold the counts
 * (Mesa si_pc_emit_stop, radv_pc_stop_and_sample). */
Test(amdgpu_pmc, counters_start_in_mode_0_and_are_sampled_when_stopped)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    fa_set_rate(t.fa, "GRBM", 0, 0, 1000);     /* GRBM_COUNT */
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);      /* GRBM_GUI_ACTIVE */
    samples(&t, 1);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777);
    NEAR(am_metric(&t, "GPU busy"), 77.7);
    cr_expect_geq(fa_stats(t.fa)->samples_latched, 1);
    am_stop(&t);   /* no protocol error: mode 1 was never written */
}

/* Items 6, 7: keepon=pstate holds the PEAK profile, which ungates the
 * perfmon clock (soc21_update_umd_stable_pstate) and pins the shader
 * clock; it says so. */
Test(amdgpu_pmc, keepon_pstate_holds_peak_and_says_so)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:keepon=pstate,polls=1");
    cr_expect_eq(fa_stats(t.fa)->pstate, 4, "PEAK is 4 (amdgpu_drm.h)");
    HAS(t.s->info.detail, "pstate PEAK");
    HAS(t.s->info.detail, "2900 MHz");   /* PEAK_PSTATE_GFX_SCLK */
    am_stop(&t);
}

Test(amdgpu_pmc, keepon_pstate_asks_for_peak_not_standard)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:keepon=pstate,polls=1");
    cr_expect_eq(fa_stats(t.fa)->pstate, 4, "STANDARD (1) pins GFX at 700 MHz");
    am_stop(&t);
}

Test(amdgpu_pmc, clock_gated_counters_are_reported_not_shown_as_zero)
{
    const uint32_t busy[1] = { 1u << 31 }, busy2[1] = { 0 };
    struct am t;

    am_start(&t, root_fake(), "amdgpu:keepon=gfxoff,polls=4");
    fa_set_grbm(t.fa, busy, busy2, 1);
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    cr_expect_eq(am_sample(&t), -1, "a gated interval is no data");
    HAS(t.d.msg, "clock-gated");
    HAS(t.d.msg, "keepon=pstate");
    am_stop(&t);
}

Test(amdgpu_pmc, keepon_gfxoff_counts_where_the_clock_runs)
{
    struct fa_config c;
    struct am t;

    c = root_cfg();
    c.perfclk_ungated = 1;
    am_start(&t, am_fake_with(c), "amdgpu:keepon=gfxoff,polls=1");
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    samples(&t, 1);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777);
    cr_expect_eq(fa_stats(t.fa)->pstate, 0);
    am_stop(&t);
}

/* Item 8 and point 6: per-WGP SQ counters have 32 bits (no HI register).
 * On gfx10/11 SQ_WAVE_CYCLES counts plain clocks (rocprofiler-sdk's gfx11
 * OccupancyPercent has no x4, gfx9's has), so a WGP's wave-cycle counter
 * adds up to its 64 wave slots (2 CUs x 32) a clock and wraps after
 * 2^32 / (2.9e9 x 64) s = 23.14 ms; the sampler is kept to three
 * quarters of that, 17355740 ns. */
Test(amdgpu_pmc, sq_counters_set_a_maximum_interval)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    cr_expect_eq(t.s->info.max_interval_ns, 17355740ull, "%llu",
                 (unsigned long long)t.s->info.max_interval_ns);
    am_stop(&t);
}

/* Point 6: a wrap is told from the time counted, counter by counter.
 * Every WGP full (64 waves resident each of 2.9e6 clocks a ms): its
 * SQ_WAVE_CYCLES counts 1.856e8 a ms and wraps in a 30 ms interval
 * (5.568e9 > 2^32); occupancy is 20 x 1.856e8 / 2.9e6 = 1280 in every
 * interval, and a wrapped count must not be shown. */
Test(amdgpu_pmc, a_wrapped_counter_is_not_shown)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    every_wgp(t.fa, SQ_BUSY_CYCLES, 2900000);
    every_wgp(t.fa, SQ_WAVE_CYCLES, 185600000);
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    samples(&t, 2);
    NEAR(am_metric(&t, "Wavefront Occupancy"), 1280.0);
    cr_expect_eq(am_sample_after(&t, 30000000), 2, "a warning, not an error the sampler "
                 "backs off from");
    HAS(t.d.msg, "wrap");
    NEAR(am_metric(&t, "Wavefront Occupancy"), 1280.0);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777 * 30, "64-bit counters still read");
    am_stop(&t);
}

/* Point 6: a late wake-up past the cap drops only the counters that can
 * have wrapped. Busy cycles count at most 1 a clock (2^32 clocks = 1.48 s)
 * and instructions a few (ASSUMPTION: at most 8 a clock a WGP, 185 ms),
 * so a 100 ms interval still reads IPC. Busy cycles follow a load that
 * changes at each latch (100, 50, 150, 80 %), instructions do not: IPC is
 * (1500 - 300) / (1000 x load) in each interval, and a stale reading
 * would show another interval's load. */
Test(amdgpu_pmc, a_late_interval_keeps_the_counters_that_cannot_wrap)
{
    static const unsigned load[4] = { 100, 50, 150, 80 };
    struct am t;
    unsigned e;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    every_wgp(t.fa, SQ_BUSY_CYCLES, 1000);
    every_wgp(t.fa, 48, 1500);       /* SQ_INSTS_ALL */
    every_wgp(t.fa, 69, 300);        /* SQ_INSTS_INTERNAL */
    fa_set_load(t.fa, "SQ", SQ_BUSY_CYCLES, load, 4);
    samples(&t, 2);
    /* The third interval counts the pass the first did (two SQ passes). */
    cr_assert_geq(am_sample_after(&t, 100000000), 0, "%s", t.d.msg);
    e = (unsigned)fa_stats(t.fa)->samples_latched - 1;   /* the load it counted under */
    NEAR(am_metric(&t, "IPC"), 1.2 * 100 / load[e % 4]);
    am_stop(&t);
}

/* Item 9: the GC bases come from IP discovery; a part whose segment 1 is
 * not where gputop knows the registers gets no register written. */
Test(amdgpu_pmc, gc_bases_that_disagree_refuse_the_counters)
{
    struct fa_config c;
    struct am t;

    c = root_cfg();
    c.gc_base[0] = 0x1260;
    c.gc_base[1] = 0xA400;
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    HAS(reason(&t, "IPC"), "ip_discovery/die/0/11/0/base_addr");
    HAS(reason(&t, "IPC"), "0xA400");
    samples(&t, 1);
    cr_expect_eq(fa_stats(t.fa)->regs_written, 0);
    am_stop(&t);
}

/* Item 10: RGP or rocprof counting (CP_PERFMON_CNTL not idle) or an SPM
 * trace: refused, naming it, unless force. */
static struct fake_amdgpu *profiled(int who)
{
    struct fa_config c;

    c = root_cfg();
    c.other_profiler = who;
    return am_fake_with(c);
}

Test(amdgpu_pmc, another_profiler_is_not_disturbed)
{
    struct gt_diag d;
    struct fake_amdgpu *fa;
    struct am t;

    am_start(&t, profiled(1), "amdgpu:polls=1");
    HAS(reason(&t, "IPC"), "another profiler");
    HAS(reason(&t, "IPC"), "CP_PERFMON_CNTL");
    HAS(reason(&t, "IPC"), "force");
    cr_expect_eq(fa_stats(t.fa)->regs_written, 0);
    am_stop(&t);
    am_start(&t, profiled(2), "amdgpu:polls=1");
    HAS(reason(&t, "IPC"), "SPM");
    am_stop(&t);
    fa = profiled(1);
    HAS(am_open_error(fa, "amdgpu:pmc=on", &d), "another profiler");
    fa_free(fa);
}

Test(amdgpu_pmc, force_takes_the_counters_and_gives_them_back)
{
    struct am t;

    am_start(&t, profiled(1), "amdgpu:force,polls=1");
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    samples(&t, 1);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777);
    am_stop(&t);   /* CP_PERFMON_CNTL back at what the other profiler had */
}

/* Item 11: EPERM on debugfs as root is kernel lockdown, not permissions. */
Test(amdgpu_pmc, lockdown_is_named)
{
    struct fa_config c;
    struct am t;

    memset(&c, 0, sizeof(c));
    c.root = 1;
    c.lockdown = 1;
    c.metrics = FA_METRICS_V3_0;
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    HAS(reason(&t, "IPC"), "lockdown");
    HAS(reason(&t, "IPC"), "integrity");
    HAS(reason(&t, "IPC"), "GRBM busy bits and gpu_metrics still work");
    cr_expect(!strstr(reason(&t, "IPC"), "needs root"));
    am_stop(&t);
}

/* Item 13: older PMFW reports GfxActivity x100 in gpu_metrics. */
Test(amdgpu_pmc, smu_activity_in_hundredths_is_scaled)
{
    struct fake_amdgpu *fa = am_fake(0, FA_METRICS_V3_0);
    struct am t;

    fa_set_metric(fa, 42, 2, 4500);   /* average_gfx_activity: 45.00 % */
    am_start(&t, fa, "amdgpu:polls=1");
    samples(&t, 1);
    NEAR(am_metric(&t, "GFX activity (SMU)"), 45.0);
    am_stop(&t);
}

/* Item 12: every READ_MMR_REG takes GFX out of GFXOFF and the kernel
 * waits 100 ms before powering it down again (amdgpu_gfx.c), so 200 polls
 * a second keep an idle APU awake: over eight 200 ms intervals it would
 * never power down (0 entries). Backed off to one poll a sample once the
 * polls read idle, it powers down between samples: at least 4 of the 7
 * gaps of ~200 ms. */
Test(amdgpu_pmc, an_idle_gpu_is_let_power_down, .timeout = 60)
{
    const char *bin = getenv("GPUTOP_AMDFAKE_BIN");
    char cmd[512], line[512];
    int entries = -1;
    const char *at;
    FILE *p;

    snprintf(cmd, sizeof(cmd), "%s -- -b -i 200 -n 8 --no-cpu --source amdgpu 2>&1 >/dev/null",
             bin ? bin : "build/native/tests/gputop-amdfake");
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    while (fgets(line, sizeof(line), p))
        if ((at = strstr(line, " GFXOFF entries")))
            for (entries = 0; at > line && at[-1] >= '0' && at[-1] <= '9';)
                entries = atoi(--at);
    pclose(p);
    cr_expect_geq(entries, 4, "GFX powered down %d times", entries);
}

/* The header says what keeps GFX on: the pstate gputop set and its clock,
 * or the polls; and when they backed off. */
static const char *header_activity(struct am *t, char *buf, size_t len)
{
    cr_assert_not_null(t->s->type->activity);
    t->s->type->activity(t->s, &t->snap, buf, len);
    return buf;
}

Test(amdgpu_pmc, header_says_what_keeps_gfx_on)
{
    const uint32_t busy[1] = { 1u << 31 }, busy2[1] = { 0 };
    char buf[128];
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=4");
    samples(&t, 1);
    cr_expect_str_eq(header_activity(&t, buf, sizeof(buf)), "perfmon clock ungated, clocks free");
    am_stop(&t);
    am_start(&t, root_fake(), "amdgpu:keepon=pstate,polls=4");
    samples(&t, 1);
    cr_expect_str_eq(header_activity(&t, buf, sizeof(buf)), "PEAK pstate, GFX pinned at 2900 MHz");
    am_stop(&t);
    am_start(&t, am_fake(0, FA_METRICS_V3_0), "amdgpu:polls=4");
    fa_set_grbm(t.fa, busy, busy2, 1);
    samples(&t, 1);
    cr_expect_str_eq(header_activity(&t, buf, sizeof(buf)), "GRBM polls keep GFX on");
    fa_set_grbm(t.fa, busy2, busy2, 1);
    samples(&t, 2);   /* the first reads idle, the second backs off */
    cr_expect_str_eq(header_activity(&t, buf, sizeof(buf)), "GFX idle, polls backed off");
    fa_set_grbm(t.fa, busy, busy2, 1);
    samples(&t, 2);   /* one poll sees work, the next polls at full rate */
    cr_expect_eq(am_counter(&t, "GRBM_POLLS", 0), 4);
    am_stop(&t);
}

/* ---- issue 41: every speed-of-light row checked against time ---- */

/* The harvested part (fake_amdgpu.h harvested: WGP masks 1f, 07, 0f, 03),
 * 14 WGPs: (se, sa, wgp) of WGP k in the GPU's order. */
static const unsigned hv_wgps[4] = { 5, 3, 4, 2 };

static struct fake_amdgpu *harvested_fake(void)
{
    struct fa_config c;

    c = root_cfg();
    c.harvested = 1;
    return am_fake_with(c);
}

/* Every WGP of the harvested part: rate(k) per ms of event, k = 0..13. */
static void hv_every_wgp(struct fake_amdgpu *fa, unsigned event, uint64_t (*rate)(unsigned k))
{
    unsigned k = 0;

    for (unsigned a = 0; a < 4; a++)
        for (unsigned w = 0; w < hv_wgps[a]; w++, k++)
            fa_set_rate(fa, "SQ", event, FA_UNIT(a / 2, a % 2, w), rate(k));
}

static uint64_t busy_1000(unsigned k)
{
    (void)k;
    return 1000;
}

static uint64_t waves_k(unsigned k)
{
    return 1000 * (k + 1);
}

/* Point 1: rocprofiler-sdk's _avr is the sum over the records over the
 * number of records (evaluate_ast.cpp), and SQ_BUSY_CYCLES is read once
 * per WGP on gfx11 (aqlprofile pmc_builder.h): its mean is over the 14
 * WGPs read. Every WGP busy 1000 cycles a ms, WGP k holding k + 1 waves:
 * SQ_WAVE_CYCLES_sum = 1000 x (1 + ... + 14) = 105000 a ms, and
 * SQ_BUSY_CYCLES_avr = 14000 / 14 = 1000, so 105 waves resident on average
 * (the mean over the 2 SEs, 7000, would give 15). */
Test(amdgpu_pmc, occupancy_divides_by_the_mean_over_wgps)
{
    struct am t;

    am_start(&t, harvested_fake(), "amdgpu:polls=1");
    cr_assert_eq(am_constant(&t, "cu_per_gpu"), 28.0);
    hv_every_wgp(t.fa, SQ_BUSY_CYCLES, busy_1000);
    hv_every_wgp(t.fa, SQ_WAVE_CYCLES, waves_k);
    samples(&t, 4);
    NEAR(am_metric(&t, "Wavefront Occupancy"), 105.0);
    am_stop(&t);
}

/* Every event the layout reads, at every unit of the default part, r a
 * ms (events: soc21_enum.h and rocprofiler-compute's gfx1151 lists). */
static void all_events(struct fake_amdgpu *fa, uint64_t r)
{
    static const unsigned sq[] = { 3, 24, 26, 35, 48, 62, 256, 270, 271, 283, 284, 294, 295 };
    static const unsigned gl1c[] = { 5, 6, 7, 14, 18 };
    static const unsigned gl2c[] = { 42, 43, 73, 74, 75, 81, 83, 85, 99, 100, 101, 102 };

    for (unsigned i = 0; i < sizeof(sq) / sizeof(sq[0]); i++)
        every_wgp(fa, sq[i], r);
    every_wgp(fa, 69, r / 10);      /* SQ_INSTS_INTERNAL: IPC (all - internal) not 0 */
    for (unsigned a = 0; a < 4; a++)
        for (unsigned k = 0; k < 10; k++) {
            fa_set_rate(fa, "TCP", 9, FA_UNIT(a / 2, a % 2, k), r);
            fa_set_rate(fa, "TCP", 17, FA_UNIT(a / 2, a % 2, k), r / 4);
            for (unsigned e = 0; e < 5 && k < 4; e++)       /* REQ_MISS (18) r / 5 */
                fa_set_rate(fa, "GL1C", gl1c[e], FA_UNIT(a / 2, a % 2, k),
                            gl1c[e] == 18 ? r / 5 : r);
        }
    for (unsigned c = 0; c < 4; c++)
        for (unsigned e = 0; e < 12; e++)
            fa_set_rate(fa, "GL2C", gl2c[e], FA_UNIT(0, 0, c), r);
    fa_set_rate(fa, "GRBM", 0, 0, 2900000);
    fa_set_rate(fa, "GRBM", 2, 0, 2000000);
}

/* Point 2: a counter whose pass has not come round yet has no reading;
 * shown as 0 it reads as an idle unit. With every counter counting, no
 * speed-of-light row of the very first interval may read 0. */
Test(amdgpu_pmc, no_row_reads_0_before_its_counters_were_read)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct am t;
    int first;

    c = root_cfg();
    c.call_ns = 1000;          /* each register access takes 1 us */
    fa = am_fake_with(c);
    all_events(fa, 1000000);
    am_start(&t, fa, "amdgpu:polls=1");
    HAS(t.s->info.detail, " passes");    /* more than one */
    cr_assert_geq(am_sample(&t), 0, "%s", t.d.msg);
    first = t.l->groups[0].first;
    for (int m = first; m < first + (int)t.l->groups[0].count; m++) {
        double v = am_metric(&t, t.l->metrics[m].title);
        cr_expect(v != 0.0, "%s reads 0 in the first interval", t.l->metrics[m].title);
    }
    am_stop(&t);
}

static uint64_t waves_20(unsigned k)    { (void)k; return 20000; }
static uint64_t wait_dep(unsigned k)    { (void)k; return 6000; }
static uint64_t wait_issue(unsigned k)  { (void)k; return 2000; }
static uint64_t insts_all(unsigned k)   { (void)k; return 1500; }
static uint64_t insts_int(unsigned k)   { (void)k; return 300; }

/* Point 4: a ratio whose two counters come from different passes is
 * wrong whenever the load changes. Every WGP of the harvested part runs a
 * load that changes at each latch (100, 50, 150, 80 %), the same for the
 * counters of each row, so each row's true value is the same in every
 * interval: dependency wait 100 x 6000 / 20000 = 30 %, issue wait
 * 100 x 2000 / 20000 = 10 %, IPC (1500 - 300) / 1000 = 1.2, occupancy
 * 14 x 20000 / (14 x 1000 / 14) = 280 waves. */
Test(amdgpu_pmc, each_rows_counters_count_in_one_pass)
{
    static const unsigned load[4] = { 100, 50, 150, 80 };
    static const unsigned ev[6] = { SQ_BUSY_CYCLES, SQ_WAVE_CYCLES, SQ_WAIT_ANY,
                                    SQ_WAIT_INST_ANY, 48, 69 };
    struct am t;

    am_start(&t, harvested_fake(), "amdgpu:polls=1");
    hv_every_wgp(t.fa, SQ_BUSY_CYCLES, busy_1000);
    hv_every_wgp(t.fa, SQ_WAVE_CYCLES, waves_20);
    hv_every_wgp(t.fa, SQ_WAIT_ANY, wait_dep);
    hv_every_wgp(t.fa, SQ_WAIT_INST_ANY, wait_issue);
    hv_every_wgp(t.fa, 48, insts_all);      /* SQ_INSTS_ALL */
    hv_every_wgp(t.fa, 69, insts_int);      /* SQ_INSTS_INTERNAL */
    for (unsigned i = 0; i < 6; i++)
        fa_set_load(t.fa, "SQ", ev[i], load, 4);
    samples(&t, 2);                         /* every pass read once */
    for (int i = 0; i < 8; i++) {
        samples(&t, 1);
        NEAR(am_metric(&t, "Wave Dependency Wait"), 30.0);
        NEAR(am_metric(&t, "Wave Issue Wait"), 10.0);
        NEAR(am_metric(&t, "IPC"), 1.2);
        NEAR(am_metric(&t, "Wavefront Occupancy"), 280.0);
    }
    am_stop(&t);
}

/* Point 3: counting runs from START to the latch, not over the whole
 * interval (the reads and the next pass's programming are dead time), and
 * intervals differ in length (late wake-ups). Each register access takes
 * 2 us here; every WGP issues 100000 VALU instructions a ms and every GL2C
 * channel 100000 64-byte fabric reads a ms, steadily. So in every interval
 * VALU FLOPs (FP32) = 20 x 100000 x 64 / 1e6 ns = 128 GFLOP/s and L2-Fabric
 * Read BW = 64 B x 4 x 100000 / 1e-3 s = 2.56e10 B/s, within 0.5 %. */
Test(amdgpu_pmc, rates_are_scaled_by_the_time_counted)
{
    static const unsigned ms[] = { 10, 25, 7, 40, 10, 12, 30, 8, 20, 9 };
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct am t;

    c = root_cfg();
    c.call_ns = 2000;
    fa = am_fake_with(c);
    every_wgp(fa, SQ_INSTS_VALU, 100000);
    for (unsigned ch = 0; ch < 4; ch++)
        fa_set_rate(fa, "GL2C", 100, FA_UNIT(0, 0, ch), 100000);   /* EA_RDREQ_64B */
    am_start(&t, fa, "amdgpu:polls=1");
    for (unsigned i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
        cr_assert_geq(am_sample_after(&t, ms[i] * 1000000ull), 0, "%s", t.d.msg);
        if (i < 3)
            continue;          /* every pass read over a whole interval */
        double fp32 = am_metric(&t, "VALU FLOPs (FP32)");
        double rd = am_metric(&t, "L2-Fabric Read BW");
        cr_expect(fabs(fp32 / 128.0 - 1) <= 0.005, "interval %u (%u ms): FP32 %.4g, not 128",
                  i, ms[i], fp32);
        cr_expect(fabs(rd / 2.56e10 - 1) <= 0.005, "interval %u (%u ms): read BW %.5g, not "
                  "2.56e10", i, ms[i], rd);
    }
    am_stop(&t);
}

/* Point 5: TCP has four counters per instance on gfx11 (Mesa
 * ac_perfcounter_gfx11.c gfx11_TCP .num_counters = 4), so TCP_REQ and
 * TCP_REQ_MISS count in one pass. Every CU of the harvested part requests
 * 1000 lines a ms and misses 360, under a load that changes at each latch
 * (100, 50, 150, 80 %) for both: the hit rate is 100 x (1000 - 360) / 1000
 * = 64 % in every interval. */
Test(amdgpu_pmc, tcp_hit_rate_comes_from_one_pass)
{
    static const unsigned load[4] = { 100, 50, 150, 80 };
    static const uint32_t map[4] = { 0x3ff, 0x03f, 0x0ff, 0x00f };
    struct am t;

    am_start(&t, harvested_fake(), "amdgpu:polls=1");
    for (unsigned a = 0; a < 4; a++)
        for (unsigned cu = 0; cu < 10; cu++)
            if (map[a] >> cu & 1u) {
                fa_set_rate(t.fa, "TCP", 9, FA_UNIT(a / 2, a % 2, cu), 1000);
                fa_set_rate(t.fa, "TCP", 17, FA_UNIT(a / 2, a % 2, cu), 360);
            }
    fa_set_load(t.fa, "TCP", 9, load, 4);
    fa_set_load(t.fa, "TCP", 17, load, 4);
    samples(&t, 2);
    for (int i = 0; i < 6; i++) {
        samples(&t, 1);
        NEAR(am_metric(&t, "TCP Cache Hit Rate"), 64.0);
    }
    am_stop(&t);
}

/* Point 5: TCP instances are numbered over the CUs present in an array
 * (Mesa ac_perfcounter.c: max_good_cu_per_sa instances, instance k is
 * INSTANCE_INDEX k). SE0/SA0 lost WGP 2 (cu_bitmap 0x3cf: CUs 0-3 and
 * 6-9): its CU 8 is the array's 7th CU, TCP instance 6, and the GPU's
 * CU 6 in gputop's order (the arrays' present CUs one after another). */
Test(amdgpu_pmc, tcp_instances_skip_harvested_cus)
{
    struct fa_config c;
    struct am t;

    c = root_cfg();
    c.cu_bitmap[0][0] = 0x3cf;
    c.cu_bitmap[0][1] = c.cu_bitmap[1][0] = c.cu_bitmap[1][1] = 0x3ff;
    am_start(&t, am_fake_with(c), "amdgpu:polls=1");
    cr_assert_eq(am_constant(&t, "cu_per_gpu"), 38.0);
    fa_set_rate(t.fa, "TCP", 9, FA_UNIT(0, 0, 8), 9);
    samples(&t, 4);
    cr_expect_eq(am_counter(&t, "TCP_REQ", 6), 9, "%llu",
                 (unsigned long long)am_counter(&t, "TCP_REQ", 6));
    cr_expect_eq(am_counter(&t, "TCP_REQ", 8), 0);
    am_stop(&t);
}

/* Point 5: on a part whose TCP counts one event a pass (one rocprofv3
 * observation on gfx1151), gputop tells it from its other counters
 * standing still while the first counts, says so, and takes turns. */
Test(amdgpu_pmc, tcp_one_counter_a_pass_is_detected)
{
    struct fa_config c;
    struct fake_amdgpu *fa;
    struct am t;

    c = root_cfg();
    c.call_ns = 1000;
    c.tcp_one_per_pass = 1;
    fa = am_fake_with(c);
    for (unsigned a = 0; a < 4; a++)
        for (unsigned cu = 0; cu < 10; cu++) {
            fa_set_rate(fa, "TCP", 9, FA_UNIT(a / 2, a % 2, cu), 100000);
            fa_set_rate(fa, "TCP", 17, FA_UNIT(a / 2, a % 2, cu), 25000);
        }
    am_start(&t, fa, "amdgpu:polls=1");
    samples(&t, 4);
    /* 100 x (100000 - 25000) / 100000 = 75 %: each counted in its own pass. */
    NEAR(am_metric(&t, "TCP Cache Hit Rate"), 75.0);
    HAS(t.s->info.detail, "TCP counts one event a pass");
    am_stop(&t);
}

/* Point 7: watching must not change what is watched. A PEAK pstate pins
 * the shader clock at its maximum for as long as gputop runs; GC 11.5 has
 * no RLC_PERFMON_CLK_CNTL, and the kernel ungates the perfmon clock by
 * setting RLC_CGTT_MGCG_OVERRIDE.PERFMON_CLOCK_STATE (bit 10;
 * gfx_v11_0.c gfx_v11_0_update_perf_clk). By default gputop sets that bit
 * itself (and keeps GFX out of GFXOFF), holds no pstate, and says so. */
Test(amdgpu_pmc, default_ungates_the_perfmon_clock_and_leaves_the_clocks_free)
{
    char buf[160];
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    cr_expect_eq(fa_stats(t.fa)->pstate, 0, "a pstate (%d) pins the clocks",
                 fa_stats(t.fa)->pstate);
    cr_expect(fa_reg_seg1(t.fa, 0x4c48) & (1u << 10), "PERFMON_CLOCK_STATE not set: %#x",
              fa_reg_seg1(t.fa, 0x4c48));
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    samples(&t, 1);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777, "the gated clock counted nothing");
    t.s->type->activity(t.s, &t.snap, buf, sizeof(buf));
    HAS(buf, "perfmon clock ungated");
    HAS(buf, "clocks free");
    am_stop(&t);   /* the register back at 0 */
}

/* Point 7: the driver owns the register and may clear the bit again (its
 * clock-gating updates, gfx_v11_0_update_perf_clk(true)): each sample
 * checks it, sets it again, and does not show the interval's stalled
 * counts as data. GUI active 777 a ms: 777 x 1.5 = 1165.5, so 1166, in the
 * 1.5 ms interval in which the clock was gated for 1 ms, as in the 1 ms
 * intervals (777) around it. */
Test(amdgpu_pmc, a_perfmon_clock_gated_again_is_noticed)
{
    struct am t;

    am_start(&t, root_fake(), "amdgpu:polls=1");
    fa_set_rate(t.fa, "GRBM", 2, 0, 777);
    samples(&t, 1);
    fa_advance(t.fa, 500000);
    fa_driver_write_seg1(t.fa, 0x4c48, fa_reg_seg1(t.fa, 0x4c48) & ~(1u << 10));
    cr_expect_eq(am_sample(&t), 2, "%s", t.d.msg);
    HAS(t.d.msg, "PERFMON_CLOCK_STATE");
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 1166, "%llu",
                 (unsigned long long)am_counter(&t, "GRBM_GUI_ACTIVE", 0));
    cr_expect(fa_reg_seg1(t.fa, 0x4c48) & (1u << 10), "not set again");
    samples(&t, 1);
    cr_expect_eq(am_counter(&t, "GRBM_GUI_ACTIVE", 0), 777);
    am_stop(&t);
}

/* Issue 41 as a whole: on the harvested part (14 WGPs, 28 CUs, 4 arrays
 * of four GL1C, 4 GL2C channels), every unit counting steadily at the
 * rates below (a ms), each register access taking 2 us and the intervals
 * 7 to 25 ms long, every one of the document's 19 rows is within 0.5 % of
 * what its definition gives from the rates:
 *   FP32 = FP16 = 14 x 150000 x 64 / 1e6 ns = 134.4 GFLOP/s
 *   IPC = (14 x 300000 - 14 x 60000) / (14 x 200000) = 1.2
 *   occupancy = 14 x 4000000 / (14 x 200000 / 14) = 280
 *   L2 hit = 100 x 4 x 30000 / (4 x 30000 + 4 x 10000) = 75
 *   fabric read = 4 x (32 x 2500 + 64 x 5000 + 96 x 1000 + 128 x 25000)
 *               = 14784000 B a ms = 1.4784e10 B/s
 *   fabric write = 4 x ((12500 - 5000) x 32 + 5000 x 64) = 2.24e9 B/s
 *   LDS conflicts = 14 x 7000 = 98000 a ms of the interval (a count)
 *   dependency wait = 100 x 1200000 / 4000000 = 30, issue wait 10
 *   TCP hit = 100 x (100000 - 36000) / 100000 = 64, TCP BW = 28 x 100000
 *     x 64 = 1.792e11 B/s
 *   GL1C hit = 100 x (50000 - 10000) / 50000 = 80, GL1C read = 16 x
 *     (32 x 1000 + 64 x 2000 + 128 x 3000) = 8.704e9 B/s
 *   GL2C BW = 4 x (32 x 1000 + 64 x 2000 + 128 x 3000 + 96 x 500)
 *           = 2.368e9 B/s
 *   scalar hit = 90, scalar BW = 14 x 10000 x 128 = 1.792e10 B/s
 *   instruction hit = 95, instruction BW = 14 x 5000 x 128 = 8.96e9 B/s */
struct rate_of { const char *block; unsigned event; uint64_t per_ms; };

static uint64_t hv_rate;
static uint64_t hv_rate_fn(unsigned k) { (void)k; return hv_rate; }

static void hv_steady(struct fake_amdgpu *fa)
{
    static const struct rate_of sq[] = {
        { "SQ", 3, 200000 }, { "SQ", 24, 4000000 }, { "SQ", 35, 1200000 },
        { "SQ", 26, 400000 }, { "SQ", 48, 300000 }, { "SQ", 69, 60000 },
        { "SQ", 62, 150000 }, { "SQ", 256, 7000 }, { "SQ", 270, 95000 },
        { "SQ", 271, 5000 }, { "SQ", 283, 5000 }, { "SQ", 294, 90000 },
        { "SQ", 295, 10000 }, { "SQ", 284, 10000 },
    };
    static const struct rate_of gl1c[] = {
        { "GL1C", 14, 50000 }, { "GL1C", 18, 10000 }, { "GL1C", 6, 1000 },
        { "GL1C", 7, 2000 }, { "GL1C", 5, 3000 },
    };
    static const struct rate_of gl2c[] = {
        { "GL2C", 42, 30000 }, { "GL2C", 43, 10000 }, { "GL2C", 73, 1000 },
        { "GL2C", 74, 2000 }, { "GL2C", 75, 3000 }, { "GL2C", 81, 500 },
        { "GL2C", 83, 12500 }, { "GL2C", 85, 5000 }, { "GL2C", 99, 2500 },
        { "GL2C", 100, 5000 }, { "GL2C", 101, 1000 }, { "GL2C", 102, 25000 },
    };
    static const uint32_t map[4] = { 0x3ff, 0x03f, 0x0ff, 0x00f };

    for (unsigned i = 0; i < sizeof(sq) / sizeof(sq[0]); i++) {
        hv_rate = sq[i].per_ms;
        hv_every_wgp(fa, sq[i].event, hv_rate_fn);
    }
    for (unsigned a = 0; a < 4; a++) {
        for (unsigned cu = 0; cu < 10; cu++)
            if (map[a] >> cu & 1u) {
                fa_set_rate(fa, "TCP", 9, FA_UNIT(a / 2, a % 2, cu), 100000);
                fa_set_rate(fa, "TCP", 17, FA_UNIT(a / 2, a % 2, cu), 36000);
            }
        for (unsigned k = 0; k < 4; k++)
            for (unsigned i = 0; i < sizeof(gl1c) / sizeof(gl1c[0]); i++)
                fa_set_rate(fa, "GL1C", gl1c[i].event, FA_UNIT(a / 2, a % 2, k),
                            gl1c[i].per_ms);
    }
    for (unsigned ch = 0; ch < 4; ch++)
        for (unsigned i = 0; i < sizeof(gl2c) / sizeof(gl2c[0]); i++)
            fa_set_rate(fa, "GL2C", gl2c[i].event, FA_UNIT(0, 0, ch), gl2c[i].per_ms);
    fa_set_rate(fa, "GRBM", 0, 0, 2900000);
    fa_set_rate(fa, "GRBM", 2, 0, 2000000);
}

Test(amdgpu_pmc, every_speed_of_light_row_matches_its_definition)
{
    static const struct { const char *title; double truth; } rows[] = {
        { "VALU FLOPs (FP16)", 134.4 }, { "VALU FLOPs (FP32)", 134.4 }, { "IPC", 1.2 },
        { "Wavefront Occupancy", 280 }, { "L2 Cache Hit Rate", 75 },
        { "L2-Fabric Read BW", 1.4784e10 }, { "L2-Fabric Write BW", 2.24e9 },
        { "Wave Dependency Wait", 30 }, { "Wave Issue Wait", 10 },
        { "TCP Cache Hit Rate", 64 }, { "TCP Cache BW", 1.792e11 },
        { "GL1C Hit Rate", 80 }, { "GL1C Read BW", 8.704e9 }, { "GL2C Cache BW", 2.368e9 },
        { "Scalar Data Cache Hit Rate", 90 }, { "Scalar Data Cache BW", 1.792e10 },
        { "Instruction Cache Hit Rate", 95 }, { "Instruction Cache BW", 8.96e9 },
    };
    static const unsigned ms[] = { 10, 25, 7, 16, 10, 12, 15, 8, 17, 9 };
    struct fa_config c = root_cfg();
    struct fake_amdgpu *fa;
    struct am t;

    c.harvested = 1;
    c.call_ns = 2000;
    fa = am_fake_with(c);
    hv_steady(fa);
    am_start(&t, fa, "amdgpu:polls=1");
    for (unsigned i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
        cr_assert_geq(am_sample_after(&t, ms[i] * 1000000ull), 0, "%s", t.d.msg);
        if (i < 3)
            continue;          /* every pass read over a whole interval */
        for (unsigned r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
            double v = am_metric(&t, rows[r].title);
            cr_expect(fabs(v / rows[r].truth - 1) <= 0.005, "interval %u (%u ms): %s %.6g, "
                      "not %.6g", i, ms[i], rows[r].title, v, rows[r].truth);
        }
        /* A count: the interval's own length (the sleep and the accesses
         * of the sample, 2 us each). */
        double lds = am_metric(&t, "LDS Bank Conflicts");
        double want = 98000.0 * (double)gt_snapshot_ns(&t.snap) / 1e6;
        cr_expect(fabs(lds / want - 1) <= 0.005, "interval %u: LDS conflicts %.6g, not %.6g",
                  i, lds, want);
    }
    am_stop(&t);
}
