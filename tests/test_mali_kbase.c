/* The Mali kbase source against the fake kernel: the real source code,
 * through the real engine and layouts, with counter values injected at
 * hardware block and index positions; every error a user can hit; the
 * --probe report; and the binary itself, in batch mode and on screen. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/mali_harness.h"
#include "fakes/source_rig.h"
#include "fakes/tmux.h"
#include "gputop/cli.h"
#include "gputop/engine.h"
#include "gputop/kbase_uapi.h"
#include "gputop/layout.h"
#include "gputop/source.h"


/* ---- the right reader for each kernel, values where they belong ---- */

Test(mali_kbase, t830_legacy_reader_values_reach_the_metrics)
{
    struct kb t;
    uint32_t c;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    HAS(t.s->info.gpu, "Mali-T830");
    cr_assert_str_eq(t.s->info.layout, "mali-t8xx");
    HAS(t.s->info.detail, "legacy");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);     /* GPU_ACTIVE */
    fk_set_counter(t.fk, FK_FE, 0, 10, 750);     /* JS0_ACTIVE */
    for (c = 0; c < 4; c++)
        fk_set_counter(t.fk, FK_SHADER, c, 4, 100 * (c + 1));   /* FRAG_ACTIVE */
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 1000, 1e-9);
    cr_assert_float_eq(kb_metric(&t, "3.2.2"), 75, 1e-9);
    for (c = 0; c < 4; c++)
        cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesFragmentActive", c), 100 * (c + 1));
    cr_assert_eq(gt_snapshot_ns(&t.snap), 100000000ull, "interval from the kernel's timestamps");
    kb_stop(&t);
}

Test(mali_kbase, t830_pre_r21_kernel_uses_the_uk_encoding)
{
    struct kb t;

    kb_start(&t, fake(FK_T830, FK_PRE_R21, 10, 6), "mali:/dev/mali0");
    HAS(t.s->info.detail, "pre-r21");
    fk_set_counter(t.fk, FK_FE, 0, 6, 4242);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 4242, 1e-9);
    kb_stop(&t);
}

Test(mali_kbase, g715_kinstr_averages_sparse_cores)
{
    static const unsigned active[7] = { 100, 200, 300, 400, 500, 600, 700 };
    struct kb t;
    unsigned c;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    HAS(t.s->info.gpu, "Mali-G715");
    cr_assert_eq(t.s->info.shader_cores, 7);
    HAS(t.s->info.detail, "kinstr_prfcnt");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);                  /* GPU_ACTIVE */
    fk_set_counter(t.fk, FK_FE, 0, 34, 2);                    /* fragment tasks */
    for (c = 0; c < 7; c++) {
        fk_set_counter(t.fk, FK_SHADER, c, 53, active[c]);    /* SHADER_CORE_ACTIVE */
        fk_set_counter(t.fk, FK_SHADER, c, 69, 250);          /* FRAG_SHADER_THREADS, x4 */
    }
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    for (c = 0; c < 7; c++)
        cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", c), active[c],
                     "core %u (logical) got another core's value", c);
    cr_assert_float_eq(kb_metric(&t, "5.3.1"), 400.0 / 1000 * 100, 1e-9);  /* mean 400 */
    cr_assert_float_eq(kb_metric(&t, "4.4.3"), 1000.0 * 7 / 2048, 1e-9);   /* counter 69 */
    kb_stop(&t);
}

Test(mali_kbase, g720_kinstr_sums_twelve_cores)
{
    struct kb t;
    unsigned c;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    HAS(t.s->info.gpu, "Immortalis-G720");
    cr_assert_eq(t.s->info.shader_cores, 12);
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    for (c = 0; c < 12; c++)
        fk_set_counter(t.fk, FK_SHADER, c, 53, 100 * (c % 3));   /* 0, 100, 200, ... */
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    /* sum 1200 over 12 cores, of 1000 cycles: 10 % */
    cr_assert_float_eq(kb_metric(&t, "5.3.1"), 1200.0 / 12 / 1000 * 100, 1e-9);
    kb_stop(&t);
}

Test(mali_kbase, buggy_kinstr_kernel_block_gaps_are_remapped)
{
    struct kb t;
    unsigned c;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 12), "mali");
    HAS(t.s->info.detail, "kinstr_prfcnt");
    for (c = 0; c < 7; c++)
        fk_set_counter(t.fk, FK_SHADER, c, 53, 10 + c);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    for (c = 0; c < 7; c++)
        cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", c), 10 + c, "core %u", c);
    kb_stop(&t);
}

Test(mali_kbase, legacy_reader_on_g715_leaves_out_counters_past_63)
{
    struct kb t;
    int m;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 9), "mali");
    HAS(t.s->info.detail, "legacy");
    cr_assert_lt(gt_catalog_find(&t.s->catalog, "MaliCoreThreadsFragmentThreads"), 0);
    m = gt_layout_find_metric(t.l, "4.4.3");
    cr_assert_not_null(gt_engine_unavailable(t.e, (size_t)m), "fragments per pixel needs counter 69");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    fk_set_counter(t.fk, FK_SHADER, 6, 53, 700);     /* the last core, physical position 7 */
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliCoreCyclesAnyActive", 6), 700);
    cr_assert_float_eq(kb_metric(&t, "5.3.1"), 100.0 / 1000 * 100, 1e-9);
    kb_stop(&t);
}

Test(mali_kbase, t830_on_a_kernel_without_the_legacy_reader_uses_kinstr)
{
    struct kb t;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 40), "mali");
    HAS(t.s->info.detail, "kinstr_prfcnt");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_set_counter(t.fk, FK_FE, 0, 10, 250);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.2.2"), 25, 1e-9);
    kb_stop(&t);
}

Test(mali_kbase, interface_can_be_forced)
{
    struct kb t;
    struct gt_diag d;
    struct fake_kbase *fk = fake(FK_G715, FK_CSF, 1, 15);

    kb_start(&t, fk, "mali:/dev/mali0,interface=legacy");
    HAS(t.s->info.detail, "legacy");
    kb_stop(&t);
    fk = fake(FK_G715, FK_CSF, 1, 21);
    HAS(open_error(fk, "mali:interface=legacy", &d), "no legacy counter reader");
    fk_free(fk);
    fk = fake(FK_T830, FK_JM, 11, 20);
    HAS(open_error(fk, "mali:interface=kinstr", &d), "no kinstr_prfcnt");
    HAS(open_error(fk, "mali:interface=fast", &d), "auto, legacy or kinstr");
    fk_free(fk);
}

/* ---- enabling only what the layout reads ---- */

Test(mali_kbase, only_the_layouts_counter_groups_are_enabled)
{
    struct kb t;
    const struct fk_stats *st;
    unsigned n = 0;
    int b;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    st = fk_stats(t.fk);
    cr_assert_eq(st->kinstr_setups, 2, "set up with everything, then with the layout's set");
    cr_assert(st->kinstr_mask[FK_FE][0] & (1ull << 4), "GPU_ACTIVE enabled");
    cr_assert(st->kinstr_mask[FK_SHADER][1] & (1ull << (69 - 64)), "FRAG_SHADER_THREADS enabled");
    for (b = 0; b < 4; b++)
        n += (unsigned)(__builtin_popcountll(st->kinstr_mask[b][0]) +
                        __builtin_popcountll(st->kinstr_mask[b][1]));
    cr_assert_lt(n, 4 * 128, "not everything");
    cr_assert_gt(n, 20);
    kb_stop(&t);

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    st = fk_stats(t.fk);
    cr_assert(st->legacy_bm[FK_FE] & (1u << (6 / 4)), "GPU_ACTIVE's group");
    cr_assert(st->legacy_bm[FK_FE] & (1u << (10 / 4)), "JS0_ACTIVE's group");
    cr_assert_neq(st->legacy_bm[FK_SHADER], 0xFFFFu);
    kb_stop(&t);
}

/* Opens "mali" on fk, asks for MaliGPUCyclesGPUActive alone (front-end value 4)
 * with capturing as given, takes one sample, and returns the three
 * front-end counters' values: GPU_ACTIVE, and MCU_ACTIVE under both of its
 * names (value 5, in GPU_ACTIVE's group of four, so counted too). */
static void one_counter_asked(struct fake_kbase *fk, int capturing, uint64_t v[3])
{
    static const char *const names[3] = { "MaliGPUCyclesGPUActive", "MaliCSFCyclesMCUActive",
                                          "MaliGPUCyclesMCUActive" };
    unsigned char used[4096];
    struct gt_snapshot snap;
    struct gt_diag d;
    struct gt_source *s = gt_source_open("mali", fk_sys(fk), &d);
    int i;

    cr_assert_not_null(s, "%s", d.msg);
    cr_assert_lt(s->catalog.ncounters, sizeof(used));
    memset(used, 0, sizeof(used));
    used[gt_catalog_find(&s->catalog, names[0])] = 1;
    s->capturing = capturing;
    cr_assert_eq(s->type->select(s, used, &d), 0, "%s", d.msg);
    cr_assert_eq(s->type->start(s, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&snap, s->catalog.nslots), 0);
    cr_assert_eq(rig_sample(s, &snap, &d), GT_SAMPLE_OK, "%s", d.msg);
    for (i = 0; i < 3; i++)
        v[i] = rig_counter(s, &snap, names[i], 0);
    gt_snapshot_free(&snap);
    gt_source_close(s);
    fk_free(fk);
}

Test(mali_kbase, a_sample_writes_what_select_asked_for_or_for_a_capture_all_counted)
{
    struct fake_kbase *fk = fake(FK_G720, FK_CSF, 1, 24);
    uint64_t v[3];

    fk_set_counter(fk, FK_FE, 0, 4, 700);
    fk_set_counter(fk, FK_FE, 0, 5, 55);
    one_counter_asked(fk, 0, v);
    cr_assert_eq(v[0], 700);
    cr_assert_eq(v[1], 0, "MCU_ACTIVE copied though nothing reads it");
    cr_assert_eq(v[2], 0);

    /* a capture keeps what the kernel counted: the whole enabled group */
    fk = fake(FK_G720, FK_CSF, 1, 24);
    fk_set_counter(fk, FK_FE, 0, 4, 700);
    fk_set_counter(fk, FK_FE, 0, 5, 55);
    one_counter_asked(fk, 1, v);
    cr_assert_eq(v[0], 700);
    cr_assert_eq(v[1], 55);
    cr_assert_eq(v[2], 55);
}

/* ---- clocks, timestamps, ring, saturation, device loss ---- */

Test(mali_kbase, clock_cycles_and_kernel_timestamps)
{
    struct kb t;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    fk_set_cycles(t.fk, 5000, 4000);
    fk_set_time_step(t.fk, 50000000ull);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUClockCycles", 0), 5000);
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreClockCycles", 0), 4000);
    cr_assert_eq(gt_snapshot_ns(&t.snap), 50000000ull);
    kb_stop(&t);
}

/* The header's figures: with the kernel's clock cycles, 25,000,000 cycles in
 * 50 ms is 500 MHz and 15,000,000 active of them 60 % busy; against the
 * 850 MHz max clock the kernel reports (GPU_FREQ_KHZ_MAX 850000), the same
 * active cycles are 15e6 / (850e6 * 0.05) = 35.29 % of max-clock time. */
static double kb_header(struct kb *t, enum gt_header_fig fig)
{
    cr_assert_geq(t->l->header[fig], 0);
    gt_engine_eval(t->e, &t->snap, t->out);
    return t->out[t->l->header[fig]];
}

Test(mali_kbase, busy_share_and_clock_from_the_kernels_cycles)
{
    struct kb t;
    int max;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    max = gt_catalog_find(&t.s->catalog, GT_MALI_MAX_CLOCK_HZ);
    cr_assert_geq(max, 0, "no max clock constant");
    cr_assert_eq(t.s->catalog.counters[max].value, 850e6);
    fk_set_cycles(t.fk, 25000000, 25000000);
    fk_set_time_step(t.fk, 50000000ull);
    fk_set_counter(t.fk, FK_FE, 0, 4, 15000000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_header(&t, GT_HEADER_BUSY), 60.0, 1e-9);
    cr_assert_float_eq(kb_header(&t, GT_HEADER_CLOCK), 500.0, 1e-6);
    cr_assert_float_eq(kb_header(&t, GT_HEADER_BUSY_MAX), 15e6 / 42.5e6 * 100, 1e-9);
    kb_stop(&t);
}

/* A legacy reader without the _WITH_CYCLES forms: no clock, and the busy
 * share only relative to the max clock: 42,500,000 active cycles in the
 * default 100 ms at 850 MHz max is 50 %. */
Test(mali_kbase, without_cycles_busy_is_relative_to_the_max_clock)
{
    struct fk_config c;
    struct kb t;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_T830;
    c.api = FK_JM;
    c.major = 11;
    c.minor = 10;
    c.no_cycles = 1;
    kb_start(&t, fk_new(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 42500000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_header(&t, GT_HEADER_BUSY_MAX), 50.0, 1e-9);
    cr_assert_str_eq(gt_engine_unavailable(t.e, (size_t)t.l->header[GT_HEADER_BUSY]),
                     "this source has no counter $MaliGPUClockCycles");
    cr_assert_not_null(gt_engine_unavailable(t.e, (size_t)t.l->header[GT_HEADER_CLOCK]));
    kb_stop(&t);
}

Test(mali_kbase, full_ring_is_drained_and_no_count_is_lost)
{
    struct kb t;
    uint64_t v;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    fk_fill_ring(t.fk);
    cr_assert_eq(kb_sample(&t), 2, "a warning, with the data");
    HAS(t.d.msg, "ring was full");
    v = kb_counter(&t, "MaliGPUCyclesGPUActive", 0);
    cr_assert_eq(v, 1000ull * 32, "31 waiting samples and the new one: got %llu",
                 (unsigned long long)v);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    kb_stop(&t);

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 1000);
    fk_fill_ring(t.fk);
    cr_assert_eq(kb_sample(&t), 2, "%s", t.d.msg);
    v = kb_counter(&t, "MaliGPUCyclesGPUActive", 0);
    cr_assert(v > 1000 && v % 1000 == 0, "every drained dump added: %llu", (unsigned long long)v);
    kb_stop(&t);
}

Test(mali_kbase, legacy_saturation_is_reported)
{
    struct kb t;

    kb_start(&t, fake(FK_T830, FK_JM, 11, 20), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 0x100000000ull);
    cr_assert_eq(kb_sample(&t), 2);
    HAS(t.d.msg, "saturated");
    HAS(t.d.msg, "--interval");
    kb_stop(&t);
}

Test(mali_kbase, device_lost_mid_run_is_retried_until_it_returns)
{
    struct kb t;

    kb_start(&t, fake(FK_G715, FK_CSF, 1, 21), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 4, 1000);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    fk_lose_device(t.fk);
    cr_assert_eq(kb_sample(&t), -1);
    HAS(t.d.msg, "lost");
    cr_assert_eq(kb_sample(&t), -1, "still gone: reopening fails, without crashing");
    HAS(t.d.msg, "reopening failed");
    fk_restore_device(t.fk);
    cr_assert_eq(kb_sample(&t), -1, "reopened: counting restarts, this interval has no data");
    HAS(t.d.msg, "reopened");
    cr_assert_eq(kb_sample(&t), 0, "the device is back: %s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliGPUCyclesGPUActive", 0), 1000);
    cr_assert(fk_stats(t.fk)->kinstr_mask[FK_FE][0] & (1ull << 4),
              "the layout's counters enabled again");
    kb_stop(&t);
}

/* ---- errors at open, each saying what to do ---- */

Test(mali_kbase, open_errors_say_what_to_do)
{
    struct fk_config c;
    struct fake_kbase *fk;
    struct gt_diag d;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_T830;
    c.api = FK_JM;
    c.major = 11;
    c.minor = 20;
    c.new_gate = 1;

    c.open_errno = ENOENT;
    fk = fk_new(&c);
    HAS(open_error(fk, "mali", &d), "/dev/mali0");
    HAS(d.msg, "--source sim");
    fk_free(fk);

    c.open_errno = EACCES;
    fk = fk_new(&c);
    HAS(open_error(fk, "mali", &d), "SELinux");
    HAS(d.msg, "adb root");
    fk_free(fk);

    c.open_errno = 0;
    c.deny_request = GT_KBASE_IOCTL_HWCNT_READER_SETUP;
    c.deny_errno = EACCES;
    fk = fk_new(&c);
    HAS(open_error(fk, "mali", &d), "HWCNT_READER_SETUP");
    HAS(d.msg, "adb root");
    fk_free(fk);

    c.gpu = FK_G715;
    c.api = FK_CSF;
    c.major = 1;
    c.minor = 21;
    c.deny_request = GT_KBASE_IOCTL_KINSTR_PRFCNT_SETUP;
    c.deny_errno = EPERM;
    fk = fk_new(&c);
    open_error(fk, "mali", &d);
    HAS(d.msg, "SETUP");
    HAS(d.msg, "adb root");
    fk_free(fk);

    c.deny_request = GT_KBASE_IOCTL_GET_GPUPROPS;
    c.deny_errno = EINVAL;
    fk = fk_new(&c);
    HAS(open_error(fk, "mali", &d), "GET_GPUPROPS");
    fk_free(fk);

    memset(&c, 0, sizeof(c));
    c.gpu = FK_T830;
    c.api = FK_PRE_R21;
    c.major = 10;
    c.minor = 1;
    fk = fk_new(&c);
    HAS(open_error(fk, "mali", &d), "too old");
    fk_free(fk);
}

Test(mali_kbase, old_gate_kernel_still_opens)
{
    struct fk_config c;
    struct kb t;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_T830;
    c.api = FK_JM;
    c.major = 11;
    c.minor = 10;
    c.no_cycles = 1;
    kb_start(&t, fk_new(&c), "mali");
    fk_set_counter(t.fk, FK_FE, 0, 6, 7);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_float_eq(kb_metric(&t, "3.1.1"), 7, 1e-9);
    cr_assert_lt(gt_catalog_find(&t.s->catalog, "MaliGPUClockCycles"), 0, "no cycles form");
    kb_stop(&t);
}

/* ---- --probe ---- */

Test(mali_kbase, probe_reports_every_step)
{
    struct fake_kbase *fk = fake(FK_G715, FK_CSF, 1, 21);
    int status;
    char *out = probe(fk, &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "/dev/mali0");
    HAS(out, "CSF");
    HAS(out, "1.21");
    HAS(out, "Mali-G715");
    HAS(out, "core mask 0x");
    HAS(out, "L2 slices:        2");
    HAS(out, "bus width:        128 bits");
    HAS(out, "mali-g715");
    HAS(out, "kinstr_prfcnt");
    HAS(out, "counters enabled:");
    HAS(out, "first sample:     ok");
    free(out);
    fk_free(fk);
}

Test(mali_kbase, probe_without_a_device)
{
    struct fk_config c;
    struct fake_kbase *fk;
    int status;
    char *out;

    memset(&c, 0, sizeof(c));
    c.gpu = FK_T830;
    c.api = FK_JM;
    c.major = 11;
    c.minor = 20;
    c.open_errno = ENOENT;
    fk = fk_new(&c);
    out = probe(fk, &status);
    cr_assert_eq(status, 1);
    HAS(out, "no GPU device found; probed:\n  mali: /dev/mali0: No such file or directory");
    free(out);
    fk_free(fk);
}

/* ---- the binary, as a user runs it ---- */

Test(mali_kbase, batch_output_shows_the_injected_values, .timeout = 60)
{
    int status;
    /* no --source: the Mali device is found on its own */
    char *out = run("T830 jm 11.20 0:0:6=1000 0:0:10=750 -- -b -f csv -n 2 -i 50 --no-cpu "
                    "--metrics '3.2.2'", &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "Fragment queue utilization");
    HAS(out, ",75,");                   /* then the triage verdict */
    free(out);
    out = run("G715 csf 1.21 0:0:4=1000 3:3:53=700 -- -b -f json -n 1 --no-cpu "
              "--metrics 'Shader core usage'", &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "\"shader_core_usage\":10}");   /* mean 100 of 1000 cycles */
    HAS(out, "Mali-G715");
    free(out);
    out = run("G715 csf 1.21 -- --probe", &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "first sample:     ok");
    free(out);
}

Test(mali_kbase, dashboard_shows_the_injected_values, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;
    int found;

    /* 350 cycles of 1000 on each of the 7 cores: 35 % shader core usage */
    snprintf(cmd, sizeof(cmd),
             "%s G715 csf 1.21 0:0:4=1000 3:0:53=350 3:1:53=350 3:2:53=350 3:3:53=350 "
             "3:4:53=350 3:5:53=350 3:6:53=350 -- --no-cpu", fake_bin());
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "Mali-G715", 10000, &found);
    cr_assert(found, "header names the GPU:\n%s", s);
    free(s);
    tmux_literal(&t, "4");                      /* shader core data path */
    s = tmux_wait_for(&t, "35.0 %", 10000, &found);
    cr_assert(found, "shader core usage 35.0 %% on screen:\n%s", s);
    cr_assert(strstr(s, "Shader core usage"), "%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}

/* GPUs without a counter table (Mali-G71, an unknown id) now open with
 * the raw view: tests/test_mali_families.c. */

Test(mali_kbase, protected_mode_blocks_are_reported)
{
    struct kb t;

    kb_start(&t, fake(FK_G720, FK_CSF, 1, 24), "mali");
    fk_set_counter(t.fk, FK_SHADER, 2, 53, 500);
    fk_set_block_state(t.fk, FK_SHADER, 2, 1u | 32u);      /* ON, PROTECTED */
    fk_set_block_state(t.fk, FK_SHADER, 3, 2u);            /* OFF */
    cr_assert_eq(kb_sample(&t), 2, "%s", t.d.msg);
    HAS(t.d.msg, "protected mode");
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesAnyWorkloadActive", 2), 0);
    fk_set_block_state(t.fk, FK_SHADER, 2, 0);
    cr_assert_eq(kb_sample(&t), 0, "%s", t.d.msg);
    cr_assert_eq(kb_counter(&t, "MaliShaderCoreCyclesAnyWorkloadActive", 2), 500);
    kb_stop(&t);
}

/* The header's figures as a user sees them. The fake kernel's samples are
 * 100 ms apart: 25,000,000 GPU clock cycles each is 250 MHz, 15,000,000
 * active of them 60 % busy. A legacy reader without cycles knows only the
 * 850 MHz max clock: 42,500,000 active cycles of its 85,000,000 is 50 %. */
Test(mali_kbase, header_shows_busy_share_from_cycles_or_max_clock, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s G715 csf 1.21 cycles=25000000:25000000 0:0:4=15000000 "
             "-- --no-cpu", fake_bin());
    cr_assert_eq(tmux_start(&t, 140, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "GPU 60% busy @ 250 MHz", 10000, &found);
    cr_assert(found, "busy share and clock in the header:\n%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
    snprintf(cmd, sizeof(cmd), "%s T830 jm 11.10 no-cycles 0:0:6=42500000 -- --no-cpu",
             fake_bin());
    cr_assert_eq(tmux_start(&t, 140, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "GPU 50% of max-clock time", 10000, &found);
    cr_assert(found, "busy share relative to the max clock in the header:\n%s", s);
    /* in the header: the rows below show cycles per second as a clock */
    cr_assert(!strstr(s, "MHz") || strchr(s, '\n') < strstr(s, "MHz"),
              "no clock without the kernel's cycles:\n%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}

Test(mali_kbase, json_records_carry_busy_share_and_clock, .timeout = 60)
{
    int status;
    char *out = run("G715 csf 1.21 cycles=25000000:25000000 0:0:4=15000000 -- -b -f json -n 1 "
                    "--no-cpu --metrics 3.1.1", &status);

    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "\"gpu\":{\"busy_pct\":60,\"clock\":250,\"clock_unit\":\"MHz\"}");
    free(out);
    out = run("T830 jm 11.10 no-cycles 0:0:6=42500000 -- -b -f json -n 1 --no-cpu "
              "--metrics 3.1.1", &status);
    cr_assert_eq(status, 0, "%s", out);
    HAS(out, "\"gpu\":{\"busy_of_max_clock_pct\":50}");
    free(out);
}

/* A T830 on an old kernel whose GPU suspends after a few dumps: the
 * intervals without data show as no data ("-") beside RETRYING in the
 * header, never as rows of zeros. */
Test(mali_kbase, dashboard_shows_no_data_while_the_gpu_is_suspended, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s, *row;
    int found;

    snprintf(cmd, sizeof(cmd), "%s T830 jm 11.20 old-dump suspend:12:1000000 0:0:4=1000 -- --no-cpu",
             fake_bin());
    cr_assert_eq(tmux_start(&t, 100, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "RETRYING", 15000, &found);
    cr_assert(found, "header shows RETRYING:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "GPU active cycles", 5000, &found);
    row = strstr(s, "GPU active cycles");
    cr_assert_not_null(row, "%s", s);
    *strchrnul(row, '\n') = '\0';
    cr_assert(strstr(row, " - cycles") && !strstr(row, " 0 cycles"), "a row of no data: %s", row);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}

/* A G715 on a kernel that gives 64 values per block: the metrics needing
 * counters 64..127 say on their row that they are not delivered, and the
 * footer gives the reason whole, as --probe does. */
Test(mali_kbase, dashboard_says_why_counters_past_63_are_missing, .timeout = 60)
{
    struct tmux t;
    char cmd[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s G715 csf 1.21 values=64 -- --no-cpu --section 3 "
             "--metrics 'Fragments per pixel'", fake_bin());
    cr_assert_eq(tmux_start(&t, 120, 30, "", cmd), 0);
    s = tmux_wait_for(&t, "not delivered", 10000, &found);
    cr_assert(found, "the row says why:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "gives 64 values per block", 10000, &found);
    cr_assert(found, "the footer gives the reason:\n%s", s);
    free(s);
    tmux_literal(&t, "q");
    tmux_stop(&t);
}
