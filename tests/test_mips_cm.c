/* The mips-cm source against the fake GCR block: base discovery and
 * validation before any write, programming as the document describes,
 * 32-bit wrap, overflow with Perf_Ovf_Stop, multiplexed estimates on a
 * steady load, and the perf registers put back on close. Expected values
 * are worked out from the document's register definitions. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fakes/fake_gcr.h"
#include "gputop/mips_cm.h"
#include "gputop/sampler.h"
#include "gputop/source.h"
#include "../src/sources/mips/cm.h"

#define BASE 0x1fbf8000ull

struct cm {
    struct fake_gcr *fg;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
};

static struct fake_gcr *fake(uint32_t rev, uint32_t readback, uint32_t access_cycles)
{
    struct fg_config c;
    struct fake_gcr *fg;

    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.rev = rev;
    c.base_readback = readback;
    c.config = 0x0103;   /* 4 cores, 1 IOCU */
    c.access_cycles = access_cycles;
    fg = fg_new(&c);
    cr_assert_not_null(fg);
    return fg;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static uint64_t val(const struct cm *t, const char *name)
{
    int k = gt_catalog_find(&t->s->catalog, name);

    cr_assert_geq(k, 0, "%s", name);
    return t->snap.deltas[t->s->catalog.counters[k].slot];
}

/* Opens, selects only the named events (NULL: leave all 11), starts. */
static void cm_begin(struct cm *t, struct fake_gcr *fg, const char *spec, const char *const *ev)
{
    unsigned char used[64];
    size_t i;

    memset(t, 0, sizeof(*t));
    t->fg = fg;
    t->s = gt_source_open(spec, fg_sys(fg), &t->d);
    cr_assert_not_null(t->s, "%s: %s", spec, t->d.msg);
    if (ev) {
        memset(used, 0, sizeof(used));
        for (i = 0; ev[i]; i++) {
            int k = gt_catalog_find(&t->s->catalog, ev[i]);
            cr_assert_geq(k, 0, "%s", ev[i]);
            used[k] = 1;
        }
        cr_assert_eq(t->s->type->select(t->s, used, &t->d), 0);
    }
    cr_assert_eq(gt_snapshot_init(&t->snap, t->s->catalog.nslots), 0);
    cr_assert_eq(t->s->type->start(t->s, &t->d), 0, "%s", t->d.msg);
}

static int cm_sample(struct cm *t)
{
    gt_diag_clear(&t->d);
    return t->s->type->sample(t->s, &t->snap, &t->d);
}

static void cm_end(struct cm *t)
{
    gt_source_close(t->s);
    gt_snapshot_free(&t->snap);
    cr_expect_eq(fg_stats(t->fg)->protocol_errors, 0, "%s", fg_stats(t->fg)->last_error);
    cr_expect_eq(fg_stats(t->fg)->open_fds, 0);
    fg_free(t->fg);
}

static void expect_refused(struct fake_gcr *fg, const char *spec, const char *words)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open(spec, fg_sys(fg), &d);

    cr_assert_null(s);
    cr_expect_not_null(strstr(d.msg, words), "message: %s", d.msg);
    cr_expect_eq(fg_stats(fg)->writes, 0, "a register was written before validation");
    cr_expect_eq(fg_stats(fg)->open_fds, 0);
    cr_expect_eq(fg_stats(fg)->protocol_errors, 0, "%s", fg_stats(fg)->last_error);
    fg_free(fg);
}

Test(mips_cm, wrong_base_readback_is_refused_before_any_write)
{
    /* Another block answering at the address: GCR_BASE holds 0x1fc00000. */
    expect_refused(fake(0x0700, 0x1fc00000, 0), "mips-cm:gcr-base=0x1fbf8000",
                   "GCR_BASE reads 0x1fc00000");
}

Test(mips_cm, cm3_revision_is_refused_with_the_reason)
{
    expect_refused(fake(0x0800, 0, 0), "mips-cm:gcr-base=0x1fbf8000",
                   "GCR_REV 8.0 is a CM3 or later, whose performance-register layout is not known");
}

Test(mips_cm, revision_outside_cm2_to_cm35_is_refused)
{
    expect_refused(fake(0x0500, 0, 0), "mips-cm:gcr-base=0x1fbf8000", "GCR_REV 0x0500 (major 5)");
}

Test(mips_cm, perf_num_cnt_other_than_two_is_refused)
{
    struct fg_config c;

    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.num_cnt = 4;
    expect_refused(fg_new(&c), "mips-cm:gcr-base=0x1fbf8000", "Perf_Num_Cnt 4");
}

Test(mips_cm, unaligned_base_is_refused_without_opening_dev_mem)
{
    struct fake_gcr *fg = fake(0x0700, 0, 0);

    expect_refused(fg, "mips-cm:gcr-base=0x1fbf8100", "32 KiB aligned");
}

Test(mips_cm, no_base_and_no_device_tree_says_how_to_give_one)
{
    expect_refused(fake(0x0700, 0, 0), "mips-cm", "gcr-base=0x");
}

Test(mips_cm, dev_mem_permission_denied_names_root)
{
    struct fg_config c;

    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.open_errno = EACCES;
    expect_refused(fg_new(&c), "mips-cm:gcr-base=default", "needs root");
}

static void put_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A device tree as the kernel exposes it: soc with one-cell addresses and
 * an empty ranges, coherency-manager@1bde8000 with reg = <0x1bde8000 0x8000>. */
Test(mips_cm, base_found_in_device_tree)
{
    char root[] = "/tmp/gputop-dt-XXXXXX", p[512];
    static const unsigned char one[4] = { 0, 0, 0, 1 };
    static const unsigned char reg[8] = { 0x1b, 0xde, 0x80, 0x00, 0, 0, 0x80, 0 };
    static const char compat[] = "mti,mips-cm";
    struct fg_config c;
    struct cm t;

    cr_assert_not_null(mkdtemp(root));
    snprintf(p, sizeof(p), "mkdir -p %s/sys/firmware/devicetree/base/soc/coherency-manager@1bde8000",
             root);
    cr_assert_eq(system(p), 0);
    snprintf(p, sizeof(p), "%s/sys/firmware/devicetree/base/soc/#address-cells", root);
    put_file(p, one, 4);
    snprintf(p, sizeof(p), "%s/sys/firmware/devicetree/base/soc/#size-cells", root);
    put_file(p, one, 4);
    /* an empty ranges: the soc bus maps one to one (drivers/of/address.c) */
    snprintf(p, sizeof(p), "%s/sys/firmware/devicetree/base/soc/ranges", root);
    put_file(p, "", 0);
    snprintf(p, sizeof(p), "%s/sys/firmware/devicetree/base/soc/coherency-manager@1bde8000/compatible",
             root);
    put_file(p, compat, sizeof(compat));
    snprintf(p, sizeof(p), "%s/sys/firmware/devicetree/base/soc/coherency-manager@1bde8000/reg",
             root);
    put_file(p, reg, sizeof(reg));
    memset(&c, 0, sizeof(c));
    c.base = 0x1bde8000;
    c.root = root;
    cm_begin(&t, fg_new(&c), "mips-cm", NULL);
    cr_expect_not_null(strstr(t.s->info.device, "0x1bde8000 (device tree)"), "%s", t.s->info.device);
    cm_end(&t);
    snprintf(p, sizeof(p), "rm -rf %s", root);
    cr_expect_eq(system(p), 0);
}

/* Two events: no multiplexing; EVENT holds P1 in 15:8 and P0 in 7:0, the
 * qualifiers go to 0x190 and 0x1a0, and one control write starts all
 * three counters (CountOn bits 8, 6, 4 = 0x150), interrupts off. In wrap
 * mode counts are differences, so no reset bit (9, 7, 5) is ever written:
 * they would clear overflow bits a previous owner left. */
Test(mips_cm, programs_events_qualifiers_and_one_start_write)
{
    static const char *const ev[] = { "CMWriteDataUsage", "CMSharingMiss", NULL };
    struct fg_regs r;
    struct cm t;
    int i, one_write = 0;

    memset(&t, 0, sizeof(t));
    t.s = gt_source_open("mips-cm:gcr-base=default", fg_sys(t.fg = fake(0x0701, 0, 0)), &t.d);
    cr_assert_not_null(t.s, "%s", t.d.msg);
    cr_assert_eq(t.s->type->configure(t.s, "qual.CMSharingMiss", "0x0000000f", &t.d), 0);
    cr_assert_eq(t.s->type->configure(t.s, "qual.CMSharingMiss", "0x1ffffffff", &t.d), -1);
    cr_expect_not_null(strstr(t.d.msg, "32-bit"), "%s", t.d.msg);
    cr_assert_eq(t.s->type->configure(t.s, "qual.CMNoSuch", "1", &t.d), -1);
    {
        struct gt_source *s = t.s;
        struct fake_gcr *fg = t.fg;
        unsigned char used[64] = { 0 };
        used[gt_catalog_find(&s->catalog, ev[0])] = 1;
        used[gt_catalog_find(&s->catalog, ev[1])] = 1;
        cr_assert_eq(s->type->select(s, used, &t.d), 0);
        cr_assert_eq(gt_snapshot_init(&t.snap, s->catalog.nslots), 0);
        cr_assert_eq(s->type->start(s, &t.d), 0);
        fg_get_regs(fg, &r);
    }
    cr_expect_eq(r.event, 2u | 5u << 8, "EVENT 0x%x", r.event);
    cr_expect_eq(r.qual0, 0u);
    cr_expect_eq(r.qual1, 0xfu);
    cr_expect_eq(r.ctl & 0x600003f0u, 0x150u, "CTL 0x%x: counting, no reset or interrupt left", r.ctl);
    for (i = 0; i < fg_stats(t.fg)->nlog; i++) {
        if (fg_stats(t.fg)->log_off[i] != 0x6100)
            continue;
        if ((fg_stats(t.fg)->log_val[i] & 0x3f0) == 0x150)
            one_write = 1;
        cr_expect_eq(fg_stats(t.fg)->log_val[i] & 0x2a0, 0u, "a reset bit written: 0x%x",
                     fg_stats(t.fg)->log_val[i]);
    }
    cr_expect(one_write, "no single control write starting all three counters");
    cr_expect_not(t.s->catalog.counters[gt_catalog_find(&t.s->catalog, ev[0])].estimated);
    fg_set_rate(t.fg, 2, 250);
    fg_set_rate(t.fg, 5, 10);
    fg_advance(t.fg, 4000000);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    /* 4e6 cycles; write data 250 per 1000 cycles, sharing misses 10 */
    cr_expect_eq(val(&t, "CMCycles"), 4000000u);
    cr_expect_eq(val(&t, "CMWriteDataUsage"), 1000000u);
    cr_expect_eq(val(&t, "CMSharingMiss"), 40000u);
    cr_expect_eq(val(&t, "CMRegP0Event"), 2u);
    cr_expect_eq(val(&t, "CMRegP1Event"), 5u);
    cr_expect_eq(val(&t, "CMRegCountOn"), 3u);
    cm_end(&t);
}

/* The cycle counter passes 0xffffffff between two samples: the delta is
 * taken modulo 2^32, and the overflow bit is cleared by writing 1. */
Test(mips_cm, wrap_across_a_sample)
{
    static const char *const ev[] = { "CMReadDataUsage", NULL };
    struct fg_regs r;
    struct cm t;

    cm_begin(&t, fake(0x0700, 0, 0), "mips-cm:gcr-base=default", ev);
    fg_set_rate(t.fg, 4, 500);
    fg_advance(t.fg, 0xffffff00u);
    sleep_ms(300);   /* a long first interval: the next one cannot look like 2^32 cycles */
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0xffffff00u);
    cr_expect_eq(val(&t, "CMReadDataUsage"), 0x7fffff80u);
    fg_advance(t.fg, 0x300);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.ov, 1u, "the cycle counter rolled over: OV 0x%x", r.ov);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0x300u);
    cr_expect_eq(val(&t, "CMReadDataUsage"), 0x180u);
    cr_expect_eq(val(&t, "CMRegOverflows"), 1u);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.ov, 0u, "overflow bit not cleared: OV 0x%x", r.ov);
    cm_end(&t);
}

/* Perf_Ovf_Stop: all counters stop when one reaches 0xffffffff; the sample
 * says so, and counting starts again from zero. */
Test(mips_cm, overflow_with_stop)
{
    static const char *const ev[] = { "CMCommandBusUsage", NULL };
    struct fg_regs r;
    struct cm t;

    cm_begin(&t, fake(0x0700, 0, 0), "mips-cm:gcr-base=default,overflow=stop", ev);
    fg_get_regs(t.fg, &r);
    cr_expect(r.ctl & (1u << 29), "Perf_Ovf_Stop not set: CTL 0x%x", r.ctl);
    /* here all three start from zero: reset and started by one write (0x3f0) */
    {
        int i, one_write = 0;
        for (i = 0; i < fg_stats(t.fg)->nlog; i++)
            one_write |= fg_stats(t.fg)->log_off[i] == 0x6100 &&
                         (fg_stats(t.fg)->log_val[i] & 0x3f0) == 0x3f0;
        cr_expect(one_write, "no single control write resetting and starting all three");
    }
    fg_set_rate(t.fg, 3, 100);
    fg_advance(t.fg, 0x100000000ull + 5000);   /* past the cycle counter's top */
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.cycle, 0xffffffffu);
    cr_expect_eq(r.ov, 1u);
    cr_expect_eq(cm_sample(&t), 2);
    cr_expect_not_null(strstr(t.d.msg, "Perf_Ovf_Stop"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0xffffffffu);
    /* the command bus counted 100 per 1000 of the 0xffffffff cycles */
    cr_expect_eq(val(&t, "CMCommandBusUsage"), 0xffffffffull * 100 / 1000);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.ov, 0u);
    fg_advance(t.fg, 1000);
    cr_expect_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 1000u);
    cr_expect_eq(val(&t, "CMCommandBusUsage"), 100u);
    /* Past half the range at a sample, all three restart from zero, so
     * the cycle counter alone never stops them at the next one. */
    fg_advance(t.fg, 0x90000000u);
    cr_expect_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0x90000000u);
    fg_get_regs(t.fg, &r);
    cr_expect_lt(r.cycle, 0x1000u, "cycle counter not restarted: 0x%x", r.cycle);
    fg_advance(t.fg, 0x90000000u);
    cr_expect_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0x90000000u);
    cr_expect_eq(val(&t, "CMCommandBusUsage"), 0x90000000ull / 10);
    cm_end(&t);
}

/* Six events over two counters: three pairs rotated. On a steady load,
 * each event's estimate is its rate per counted cycle times the
 * interval's cycles. Register accesses take 50 cycles each, so a pair is
 * counted for slightly less than an interval and the scaling matters.
 * Error bound, by hand: a rate window of ~1e6 cycles is off by at most one
 * count (1e-6) plus the cycles between reading CYCLE and the counters
 * (two accesses, 100 cycles: 1e-4), so 2e-4 of the value. */
Test(mips_cm, multiplexed_estimates_on_a_steady_load)
{
    static const char *const ev[] = { "CMRequests", "CMWriteDataUsage", "CMCommandBusUsage",
                                      "CMReadDataUsage", "CMSharingMiss", "CMIOCU0Requests",
                                      NULL };
    static const unsigned num[] = { 0, 2, 3, 4, 5, 16 };
    static const uint32_t rate[] = { 300, 250, 400, 600, 20, 75 };
    struct cm t;
    int i, n;

    cm_begin(&t, fake(0x0700, 0, 50), "mips-cm:gcr-base=default", ev);
    for (i = 0; i < 6; i++)
        fg_set_rate(t.fg, num[i], rate[i]);
    for (i = 0; ev[i]; i++)
        cr_expect(t.s->catalog.counters[gt_catalog_find(&t.s->catalog, ev[i])].estimated,
                  "%s not marked as an estimate", ev[i]);
    cr_expect_not(t.s->catalog.counters[gt_catalog_find(&t.s->catalog, "CMCycles")].estimated);
    /* rates set after the warm-up: one rotation to learn them */
    for (n = 0; n < 3; n++) {
        fg_advance(t.fg, 1000000);
        cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    }
    for (n = 0; n < 9; n++) {
        fg_advance(t.fg, 1000000);
        cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
        cr_expect_eq(val(&t, "CMRegPairs"), 3u);
        for (i = 0; ev[i]; i++) {
            double want = (double)val(&t, "CMCycles") * rate[i] / 1000;
            double got = (double)val(&t, ev[i]);
            cr_expect_leq(fabs(got - want), 2e-4 * want + 1, "sample %d %s: %.0f, want %.0f",
                          n, ev[i], got, want);
        }
    }
    cm_end(&t);
}

/* Whatever the counters held before (a JTAG session's setup) is back after
 * close: control, event select, qualifiers and counts. */
Test(mips_cm, registers_restored_after_exit)
{
    struct fg_regs before = { .ctl = 0x00000052, .ov = 0, .event = 0x0309, .cycle = 1000,
                              .qual0 = 0x12345678, .cnt0 = 77, .qual1 = 0x9abcdef0, .cnt1 = 5 };
    struct fg_regs after;
    struct cm t;
    int i;

    t.fg = fake(0x0700, 0, 0);
    fg_set_regs(t.fg, &before);
    before.ctl = 0x00000052;
    cm_begin(&t, t.fg, "mips-cm:gcr-base=default,force", NULL);
    fg_set_rate(t.fg, 0, 100);
    for (i = 0; i < 8; i++) {
        fg_advance(t.fg, 123456);
        cr_assert_geq(cm_sample(&t), 0, "%s", t.d.msg);
    }
    fg_get_regs(t.fg, &after);
    cr_expect_neq(after.event, before.event);
    gt_source_close(t.s);
    t.s = NULL;
    fg_get_regs(t.fg, &after);
    cr_expect_eq(after.ctl, before.ctl, "CTL 0x%x", after.ctl);
    cr_expect_eq(after.event, before.event, "EVENT 0x%x", after.event);
    cr_expect_eq(after.qual0, before.qual0);
    cr_expect_eq(after.qual1, before.qual1);
    cr_expect_eq(after.cycle, before.cycle);
    cr_expect_eq(after.cnt0, before.cnt0);
    cr_expect_eq(after.cnt1, before.cnt1);
    cr_expect_eq(after.ov, 0u);
    gt_snapshot_free(&t.snap);
    cr_expect_eq(fg_stats(t.fg)->protocol_errors, 0, "%s", fg_stats(t.fg)->last_error);
    cr_expect_eq(fg_stats(t.fg)->open_fds, 0);
    cr_expect_eq(fg_stats(t.fg)->unmaps, 1);
    fg_free(t.fg);
}

/* The mapping: /dev/mem opened O_RDWR|O_SYNC (uncached), the offset page
 * aligned below the base, the whole 32 KiB block inside. */
Test(mips_cm, maps_dev_mem_uncached_and_aligned)
{
    struct cm t;

    cm_begin(&t, fake(0x0700, 0, 0), "mips-cm:gcr-base=0x1fbf8000", NULL);
    cr_expect_eq(fg_stats(t.fg)->maps, 1);
    cr_expect_eq(t.s->info.max_interval_ns, 1000000000ull);
    cr_expect_not_null(strstr(t.s->info.detail, "CM2.5 GCR_REV 7.0, 4 cores, 1 IOCU"), "%s",
                       t.s->info.detail);
    /* one IOCU (GCR_CONFIG 0x0103): the 2nd IOCU's event is not rotated */
    cr_expect_not_null(strstr(t.s->info.detail, "10 events over 2 counters"), "%s",
                       t.s->info.detail);
    cm_end(&t);
}

static char *probe_text(struct fake_gcr *fg, const char *args, int *status)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    cr_assert_not_null(f);
    *status = gt_mips_cm_probe(args, fg_sys(fg), f);
    fclose(f);
    return buf;
}

/* --probe reads: base, revision, counters, the registers' state; and
 * writes nothing, not even on a CM3 it would refuse to count on. */
Test(mips_cm, probe_reports_the_block_and_writes_nothing)
{
    struct fg_regs before = { .ctl = 0x00000052, .ov = 2, .event = 0x0305, .cycle = 1000,
                              .qual0 = 0x12345678, .cnt0 = 77, .qual1 = 0x9abcdef0, .cnt1 = 5 };
    struct fake_gcr *fg = fake(0x0701, 0, 0);
    int status;
    char *s;

    fg_set_regs(fg, &before);
    s = probe_text(fg, "gcr-base=0x1fbf8000", &status);
    cr_expect_eq(status, 0);
    cr_expect_not_null(strstr(s, "GCR at 0x1fbf8000 (gcr-base option)"), "%s", s);
    cr_expect_not_null(strstr(s, "GCR_REV 0x0701: CM2.5 (major 7, minor 1)"), "%s", s);
    cr_expect_not_null(strstr(s, "4 cores, 1 IOCU"), "%s", s);
    cr_expect_not_null(strstr(s, "0x00000052  Perf_Int_En 0, Perf_Ovf_Stop 0, counting: cycles P0,"),
                       "%s", s);
    cr_expect_not_null(strstr(s, "overflowed: P0"), "%s", s);
    cr_expect_not_null(strstr(s, "P0 event 5 (Sharing Miss), P1 event 3 (CM Command Bus Usage)"),
                       "%s", s);
    cr_expect_not_null(strstr(s, "P0 0x12345678, P1 0x9abcdef0"), "%s", s);
    cr_expect_not_null(strstr(s, "cycles 1000, P0 77, P1 5"), "%s", s);
    cr_expect_not_null(strstr(s, "counting is on"), "%s", s);
    cr_expect_eq(fg_stats(fg)->writes, 0);
    cr_expect_eq(fg_stats(fg)->open_fds, 0);
    free(s);
    fg_free(fg);
    fg = fake(0x0900, 0, 0);
    s = probe_text(fg, "gcr-base=default", &status);
    cr_expect_eq(status, 0);
    cr_expect_not_null(strstr(s, "CM3.5 (major 9, minor 0)"), "%s", s);
    cr_expect_not_null(strstr(s, "counting refused"), "%s", s);
    cr_expect_eq(fg_stats(fg)->writes, 0);
    free(s);
    fg_free(fg);
    fg = fake(0x0700, 0x1fc00000, 0);
    s = probe_text(fg, "gcr-base=default", &status);
    cr_expect_eq(status, 1);
    cr_expect_not_null(strstr(s, "not found: mips-cm: no GCR block at 0x1fbf8000"), "%s", s);
    free(s);
    fg_free(fg);
}

/* The model over many stepped intervals: what the document's definitions
 * make impossible never happens — a bus in use for more cycles than the CM
 * had, sharing misses beyond coherent requests beyond requests. Checked
 * on exact counts (two events at a time, no rotation): rotated estimates
 * hold rates from different moments, as the hardware's would. */
static void sim_pair(const char *a, const char *b, int bounded_by_cycles)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open("sim:mips-cm,step=250000000,seed=7", NULL, &d);
    struct gt_snapshot snap;
    unsigned char used[128] = { 0 };
    int n, ka, kb;
    uint64_t cyc, va, vb;

    cr_assert_not_null(s, "%s", d.msg);
    ka = gt_catalog_find(&s->catalog, a);
    kb = gt_catalog_find(&s->catalog, b);
    cr_assert(ka >= 0 && kb >= 0);
    used[ka] = used[kb] = 1;
    cr_assert_eq(s->type->select(s, used, &d), 0);
    cr_expect_not(s->catalog.counters[ka].estimated);
    cr_assert_eq(gt_snapshot_init(&snap, s->catalog.nslots), 0);
    cr_assert_eq(s->type->start(s, &d), 0);
    for (n = 0; n < 400; n++) {
        cr_assert_eq(s->type->sample(s, &snap, &d), 0);
        cyc = snap.deltas[s->catalog.counters[gt_catalog_find(&s->catalog, "CMCycles")].slot];
        va = snap.deltas[s->catalog.counters[ka].slot];
        vb = snap.deltas[s->catalog.counters[kb].slot];
        /* 250 ms at 800 MHz */
        cr_assert_eq(cyc, 200000000u);
        if (bounded_by_cycles) {
            cr_assert_leq(va, cyc);
            cr_assert_leq(vb, cyc);
            cr_assert_gt(va, 0u);
        } else {
            cr_assert_leq(va, vb, "%s %llu > %s %llu", a, (unsigned long long)va, b,
                          (unsigned long long)vb);
        }
    }
    gt_snapshot_free(&snap);
    gt_source_close(s);
}

Test(mips_cm, sim_model_is_consistent)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open("sim:mips-cm,step=250000000,seed=7", NULL, &d);

    cr_assert_not_null(s, "%s", d.msg);
    cr_expect_str_eq(s->info.layout, "mips-cm");
    cr_expect(s->catalog.counters[gt_catalog_find(&s->catalog, "CMRequests")].estimated);
    /* a CM2.5 with one IOCU: ten events */
    cr_expect_not_null(strstr(s->info.detail, "10 events over 2 counters"), "%s", s->info.detail);
    cr_expect_lt(gt_catalog_find(&s->catalog, "CMIOCU1Requests"), 0);
    gt_source_close(s);
    sim_pair("CMReadDataUsage", "CMWriteDataUsage", 1);
    sim_pair("CMCommandBusUsage", "CMReadDataUsage", 1);
    sim_pair("CMSharingMiss", "CMCoherentReqResp", 0);
    sim_pair("CMCoherentReqResp", "CMRequests", 0);
    sim_pair("CML2HitsMisses", "CMRequests", 0);
}

/* 32-bit counters must be read before they can wrap twice: the sampler
 * keeps the period at or below the source's 1 s, also when the dashboard's
 * '+' key asks for more. */
Test(mips_cm, sampling_period_capped_at_one_second)
{
    struct gt_sampler_config cfg;
    struct gt_sampler *smp;
    uint32_t off = 0;
    struct cm t;

    cm_begin(&t, fake(0x0700, 0, 0), "mips-cm:gcr-base=default", NULL);
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &t.s;
    cfg.nsources = 1;
    cfg.slot_offset = &off;
    cfg.nslots = t.s->catalog.nslots;
    cfg.interval_ns = 5000000000ull;
    smp = gt_sampler_new(&cfg);
    cr_assert_not_null(smp);
    cr_expect_eq(gt_sampler_interval(smp), 1000000000ull);
    gt_sampler_set_interval(smp, 2000000000ull);
    cr_expect_eq(gt_sampler_interval(smp), 1000000000ull);
    gt_sampler_set_interval(smp, 200000000ull);
    cr_expect_eq(gt_sampler_interval(smp), 200000000ull);
    gt_sampler_free(smp);
    cm_end(&t);
}

/* The CSV table names what the source counts, with the event numbers. */
Test(mips_cm, csv_table_matches_the_events)
{
    const struct gt_counter_table *t = gt_mips_cm_counter_table();
    int i;

    cr_assert_eq(t->ndefs, (size_t)CM_NEVENTS + 1);
    cr_expect_str_eq(t->defs[0].name, "CMCycles");
    for (i = 0; i < CM_NEVENTS; i++) {
        cr_expect_str_eq(t->defs[i + 1].name, cm_events[i].counter);
        cr_expect_eq(t->defs[i + 1].index, (int)cm_events[i].number);
    }
}

/* sim:mips-cm,scene=step multiplexes like the hardware: the read share
 * steps from 0.10 to 0.80 at 2 s (sample 20 of 100 ms). By the model's
 * definitions at 80e6 cycles a sample: command bus 0.5 x (read + write) +
 * 0.05 of the cycles, write 0.55 of read, a request two command cycles,
 * so requests go from 80e6 x 0.1275 / 2 = 5.1e6 to 80e6 x 0.67 / 2 =
 * 26.8e6, read data from 8e6 to 64e6. Ten events make five pairs;
 * requests (pair 0) are counted at samples 1, 6, ... 16, 21 and read
 * data (pair 2) at 3, 8, ... 18, 23: in between the old rate is shown,
 * with its age. */
Test(mips_cm, sim_step_shows_multiplexing_lag_and_age)
{
    struct gt_diag d;
    struct gt_source *s = gt_source_open("sim:mips-cm,scene=step,step=100000000", NULL, &d);
    struct gt_snapshot snap;
    uint64_t req, reqage, rd, rdage;
    int n;

    cr_assert_not_null(s, "%s", d.msg);
    cr_expect_not_null(strstr(s->info.detail, "scene step"), "%s", s->info.detail);
    cr_assert_eq(gt_snapshot_init(&snap, s->catalog.nslots), 0);
    cr_assert_eq(s->type->start(s, &d), 0);
    for (n = 1; n <= 23; n++) {
        cr_assert_eq(s->type->sample(s, &snap, &d), 0);
        req = snap.deltas[s->catalog.counters[gt_catalog_find(&s->catalog, "CMRequests")].slot];
        reqage = snap.deltas[s->catalog.counters[gt_catalog_find(&s->catalog,
                                                                 "CMRequestsAge")].slot];
        rd = snap.deltas[s->catalog.counters[gt_catalog_find(&s->catalog,
                                                             "CMReadDataUsage")].slot];
        rdage = snap.deltas[s->catalog.counters[gt_catalog_find(&s->catalog,
                                                                "CMReadDataUsageAge")].slot];
        cr_expect_eq(reqage, (uint64_t)((n - 1) % 5), "sample %d", n);
        cr_expect_eq(rdage, (uint64_t)((n - 3 + 5) % 5), "sample %d", n);
        if (n >= 16 && n <= 20)
            cr_expect(req >= 5099998 && req <= 5100002, "sample %d: requests %llu", n,
                      (unsigned long long)req);
        if (n == 21)
            cr_expect(req >= 26799998 && req <= 26800002, "sample 21: requests %llu",
                      (unsigned long long)req);
        if (n >= 18 && n <= 22)
            cr_expect(rd >= 7999998 && rd <= 8000002, "sample %d: read data %llu", n,
                      (unsigned long long)rd);
        if (n == 23)
            cr_expect(rd >= 63999998 && rd <= 64000002, "sample 23: read data %llu",
                      (unsigned long long)rd);
    }
    gt_snapshot_free(&snap);
    gt_source_close(s);
}
