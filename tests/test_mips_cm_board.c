/* The mips-cm source on what a real board does that the plain fake GCR did
 * not: qualifier groups (an event counts only when every group matches,
 * vendor document "Counter Qualifier Registers"), bus errors as a real
 * SIGBUS (arch/mips/kernel/traps.c do_be; here a memfd cut under the
 * mapping), a CM clock that runs with time, intervals longer than 2^32
 * cycles, multiplexing ages and pinned events, events this CM lacks, another
 * agent reprogramming the counters, two gputops, a device tree whose buses
 * translate addresses (drivers/of/address.c), and the EPERM hint
 * (drivers/char/mem.c open_port). Expected values are the document's
 * definitions worked by hand. */
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
#include "gputop/source.h"

#define BASE 0x1fbf8000ull
#define SPEC "mips-cm:gcr-base=default"

struct cm {
    struct fake_gcr *fg;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
};

static struct fake_gcr *fake_at(uint32_t rev, uint32_t config, uint32_t access, uint64_t hz,
                                const char *root)
{
    struct fg_config c;
    struct fake_gcr *fg;

    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.rev = rev;
    c.config = config;
    c.access_cycles = access;
    c.hz = hz;
    c.root = root;
    fg = fg_new(&c);
    cr_assert_not_null(fg);
    return fg;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

static int has(const struct cm *t, const char *name)
{
    return gt_catalog_find(&t->s->catalog, name) >= 0;
}

static uint64_t val(const struct cm *t, const char *name)
{
    int k = gt_catalog_find(&t->s->catalog, name);

    cr_assert_geq(k, 0, "no counter %s", name);
    return t->snap.deltas[t->s->catalog.counters[k].slot];
}

static void cm_open_only(struct cm *t, struct fake_gcr *fg, const char *spec)
{
    memset(t, 0, sizeof(*t));
    t->fg = fg;
    t->s = gt_source_open(spec, fg_sys(fg), &t->d);
    cr_assert_not_null(t->s, "%s: %s", spec, t->d.msg);
}

/* Selects the named events (NULL: all it has) and starts. */
static void cm_go(struct cm *t, const char *const *ev)
{
    unsigned char used[128];
    size_t i;

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
    gt_snapshot_zero(&t->snap);
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

/* ---- 1. qualifiers that count ---- */

/* Event 0 has two groups (0x0f, 0xf0) and traffic with attributes 0x11:
 * qualifier 0 matches no group, so it counts nothing; all ones matches
 * both. The start measures that and uses all ones; the write-data event
 * has no groups and keeps 0. 300 requests and 250 write-data cycles per
 * 1000 cycles, so over ~4e6 cycles the counts are 0.3 and 0.25 of
 * CMCycles (register accesses, 10 cycles each, shift them by < 1e-4). */
Test(mips_cm_board, qualifier_measured_so_grouped_events_count)
{
    static const char *const ev[] = { "CMRequests", "CMWriteDataUsage", NULL };
    static const uint32_t groups[] = { 0x0f, 0xf0 };
    struct fg_regs r;
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 10, 0, NULL), SPEC);
    fg_set_rate(t.fg, 0, 300);
    fg_set_rate(t.fg, 2, 250);
    fg_set_qual_groups(t.fg, 0, groups, 2, 0x11);
    cm_go(&t, ev);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.event, 0u | 2u << 8, "EVENT 0x%x", r.event);
    cr_expect_eq(r.qual0, 0xffffffffu, "event 0's qualifier: 0x%x", r.qual0);
    cr_expect_eq(r.qual1, 0u, "event 2's qualifier: 0x%x", r.qual1);
    cr_expect_not_null(strstr(t.s->info.detail, "qual 0xffffffff (measured, 0 counted nothing): 0"),
                       "%s", t.s->info.detail);
    fg_advance(t.fg, 4000000);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_leq(fabs((double)val(&t, "CMRequests") - 0.3 * (double)val(&t, "CMCycles")),
                  1e-4 * (double)val(&t, "CMCycles"), "requests %llu of %llu cycles",
                  (unsigned long long)val(&t, "CMRequests"),
                  (unsigned long long)val(&t, "CMCycles"));
    cr_expect_eq(val(&t, "CMRegQual0"), 0xffffffffu);
    cr_expect_eq(val(&t, "CMRequestsQual"), 0xffffffffu);
    cr_expect_eq(val(&t, "CMWriteDataUsageQual"), 0u);
    cm_end(&t);
}

/* The layout's qualifier is used as given, even when it selects nothing
 * (0x01 matches group 0x0f but not 0xf0): the count stays 0 while the CM
 * cycles and the write-data bus is busy, and the sample says why. */
Test(mips_cm_board, qualifier_that_selects_nothing_is_flagged)
{
    static const char *const ev[] = { "CMRequests", "CMWriteDataUsage", NULL };
    static const uint32_t groups[] = { 0x0f, 0xf0 };
    struct fg_regs r;
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 10, 0, NULL), SPEC);
    fg_set_rate(t.fg, 0, 300);
    fg_set_rate(t.fg, 2, 250);
    fg_set_qual_groups(t.fg, 0, groups, 2, 0x11);
    cr_assert_eq(t.s->type->configure(t.s, "qual.CMRequests", "0x1", &t.d), 0);
    cm_go(&t, ev);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.qual0, 1u);
    fg_advance(t.fg, 4000000);
    cr_expect_eq(cm_sample(&t), 2);
    cr_expect_eq(val(&t, "CMRequests"), 0u);
    cr_expect_not_null(strstr(t.d.msg, "CMRequests 0 — qualifier 0x1 may select nothing"), "%s",
                       t.d.msg);
    cm_end(&t);
}

/* qual-window=0: nothing measured, the reset value 0 stays (and counts
 * nothing here); a window that is not a time is refused by name. */
Test(mips_cm_board, qual_window_zero_keeps_the_reset_value)
{
    static const char *const ev[] = { "CMRequests", NULL };
    static const uint32_t groups[] = { 0x0f, 0xf0 };
    struct fake_gcr *fg;
    struct fg_regs r;
    struct gt_diag d;
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 10, 0, NULL), SPEC ",qual-window=0");
    fg_set_rate(t.fg, 0, 300);
    fg_set_qual_groups(t.fg, 0, groups, 2, 0x11);
    cm_go(&t, ev);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.qual0, 0u);
    fg_advance(t.fg, 1000000);
    cr_assert_geq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMRequests"), 0u);
    cm_end(&t);
    fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
    cr_expect_null(gt_source_open(SPEC ",qual-window=5s", fg_sys(fg), &d));
    cr_expect_not_null(strstr(d.msg, "qual-window=5s: expected a time up to 1000ms"), "%s", d.msg);
    fg_free(fg);
}

/* Not inlined: gcc otherwise takes the result for a pointer into the
 * local open_memstream buffer variable (-Wdangling-pointer). */
__attribute__((noinline))
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

/* --probe on idle counters counts each event with both qualifiers and
 * prints both, then puts the registers back. A CM clock of 100 MHz over
 * a 20 ms window is 2e6 cycles: event 0 at 300 per 1000 with groups counts
 * 0 with qualifier 0 and ~600000 with all ones. */
Test(mips_cm_board, probe_counts_each_event_with_both_qualifiers)
{
    static const uint32_t groups[] = { 0x0f, 0xf0 };
    struct fg_regs before = { .ctl = 0x00000002, .ov = 0, .event = 0x0309, .cycle = 1000,
                              .qual0 = 0x12345678, .cnt0 = 77, .qual1 = 0x9abcdef0, .cnt1 = 5 };
    struct fake_gcr *fg = fake_at(0x0700, 0x0103, 0, 100000000, NULL);
    struct fg_regs after;
    unsigned long n0, nall;
    const char *at;
    int status;
    char *s;

    fg_set_regs(fg, &before);
    fg_set_rate(fg, 0, 300);
    fg_set_qual_groups(fg, 0, groups, 2, 0x11);
    s = probe_text(fg, "gcr-base=default", &status);
    cr_expect_eq(status, 0);
    at = strstr(s, "qualifier test:   event  0 Request Count");
    cr_assert_not_null(at, "%s", s);
    cr_assert_eq(sscanf(strstr(at, "qual 0x0:"), "qual 0x0: %lu qual 0xffffffff: %lu", &n0,
                        &nall), 2, "%s", at);
    cr_expect_eq(n0, 0u);
    cr_expect(nall > 500000 && nall < 2000000, "with all ones: %lu", nall);
    cr_expect_not_null(strstr(at, "-> 0xffffffff"), "%s", at);
    cr_expect_not_null(strstr(s, "left as found:"), "%s", s);
    fg_get_regs(fg, &after);
    cr_expect_eq(after.ctl & ~0xfu, 0u);
    cr_expect_eq(after.event, before.event);
    cr_expect_eq(after.qual0, before.qual0);
    cr_expect_eq(after.qual1, before.qual1);
    cr_expect_eq(after.cnt0, before.cnt0);
    cr_expect_eq(fg_stats(fg)->protocol_errors, 0, "%s", fg_stats(fg)->last_error);
    free(s);
    fg_free(fg);
}

/* ---- 2. bus errors are SIGBUS ---- */

/* Nothing answers at the address: the first load raises SIGBUS. The
 * process lives, the message says so, nothing was written. */
Test(mips_cm_board, sigbus_at_validation_is_no_cm_there)
{
    struct fake_gcr *fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
    struct gt_diag d;

    fg_bus_error(fg, 1);
    cr_assert_null(gt_source_open(SPEC, fg_sys(fg), &d));
    cr_expect_not_null(strstr(d.msg, "no CM at 0x1fbf8000"), "%s", d.msg);
    cr_expect_not_null(strstr(d.msg, "bus error (SIGBUS)"), "%s", d.msg);
    cr_expect_eq(fg_stats(fg)->writes, 0);
    cr_expect_eq(fg_stats(fg)->open_fds, 0);
    fg_free(fg);
}

/* Mid-run the block goes away: the sample fails naming the register and
 * what may be left programmed; nothing is written to the block again, not
 * even when it answers once more, nor at close. */
Test(mips_cm_board, sigbus_mid_run_stops_without_writing)
{
    static const char *const ev[] = { "CMWriteDataUsage", NULL };
    struct cm t;
    int writes, i;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 0, NULL), SPEC);
    fg_set_rate(t.fg, 2, 250);
    cm_go(&t, ev);
    fg_advance(t.fg, 1000000);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    fg_bus_error(t.fg, 1);
    writes = fg_stats(t.fg)->writes;
    cr_assert_eq(cm_sample(&t), -1);
    cr_expect_not_null(strstr(t.d.msg, "bus error (SIGBUS) reading GCR_DB_PC_CTL"), "%s", t.d.msg);
    cr_expect_not_null(strstr(t.d.msg, "may be left as gputop programmed them"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0u);
    fg_bus_error(t.fg, 0);
    for (i = 0; i < 2; i++)
        cr_expect_eq(cm_sample(&t), -1, "the block is gone");
    gt_source_close(t.s);
    t.s = NULL;
    cr_expect_eq(fg_stats(t.fg)->writes, writes, "written after the bus error");
    gt_snapshot_free(&t.snap);
    fg_free(t.fg);
}

/* ---- 3. intervals longer than 2^32 cycles ---- */

/* A CM clock of 10 GHz (2^32 cycles in 430 ms, so the test is short):
 * 50 ms measure the clock, then 1.2 s pass (a stopped gputop): about
 * 12e9 cycles, 2.8 x 2^32. The 32-bit delta is short by 2 x 2^32; the
 * sample adds them from the elapsed time and says it is an estimate. The
 * read-data bus at 500 per 1000 wraps as well and is corrected from its
 * own earlier rate. */
Test(mips_cm_board, long_interval_is_corrected_by_whole_wraps)
{
    static const char *const ev[] = { "CMReadDataUsage", NULL };
    uint64_t c0, c1;
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 10000000000ull, NULL), SPEC);
    fg_set_rate(t.fg, 4, 500);
    cm_go(&t, ev);
    sleep_ms(50);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    c0 = fg_now_cycles(t.fg);
    sleep_ms(1200);
    cr_assert_eq(cm_sample(&t), 2, "%s", t.d.msg);
    c1 = fg_now_cycles(t.fg);
    cr_expect_not_null(strstr(t.d.msg, "wrapped 2 more times"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMRegWrapsEstimated"), 2u);
    /* the truth, read just after the sample: within 2 ms of it */
    cr_expect_leq(fabs((double)val(&t, "CMCycles") - (double)(c1 - c0)), 2e7,
                  "cycles %llu, true %llu", (unsigned long long)val(&t, "CMCycles"),
                  (unsigned long long)(c1 - c0));
    cr_expect_leq(fabs((double)val(&t, "CMReadDataUsage") - 0.5 * (double)val(&t, "CMCycles")),
                  1e-3 * (double)val(&t, "CMCycles"), "read data %llu",
                  (unsigned long long)val(&t, "CMReadDataUsage"));
    cm_end(&t);
}

/* The clock changed meanwhile (10 to 15 GHz): 1.25 s are 18.75e9 cycles
 * while the earlier clock says 12.5e9; the 6.25e9 between them is 1.46 x
 * 2^32, no whole number of wraps, so the interval is dropped with the
 * reason, never published short. (Any T in 1.07..1.50 s drops: the
 * difference 5e9 x T must stay more than 2^32/4 from a multiple of 2^32.) */
Test(mips_cm_board, long_interval_that_cannot_be_told_is_dropped)
{
    static const char *const ev[] = { "CMReadDataUsage", NULL };
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 10000000000ull, NULL), SPEC);
    fg_set_rate(t.fg, 4, 500);
    cm_go(&t, ev);
    sleep_ms(50);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    fg_set_hz(t.fg, 15000000000ull);
    sleep_ms(1250);
    cr_expect_eq(cm_sample(&t), -1);
    cr_expect_not_null(strstr(t.d.msg, "interval dropped"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0u);
    cr_expect_eq(val(&t, "CMReadDataUsage"), 0u);
    sleep_ms(50);
    cr_expect_eq(cm_sample(&t), 0, "%s", t.d.msg);
    /* the next interval counts from the drop on, not from before it */
    cr_expect_leq(fabs((double)val(&t, "CMReadDataUsage") - 0.5 * (double)val(&t, "CMCycles")),
                  1e-3 * (double)val(&t, "CMCycles"), "read data %llu of %llu cycles",
                  (unsigned long long)val(&t, "CMReadDataUsage"),
                  (unsigned long long)val(&t, "CMCycles"));
    cm_end(&t);
}

/* Stopped right after the start, before any clock was measured: 1.1 s at
 * 10 GHz wrapped the cycle counter twice, and nothing can say so; the
 * first interval is dropped with the reason, the next one counts. */
Test(mips_cm_board, long_first_interval_is_dropped)
{
    static const char *const ev[] = { "CMReadDataUsage", NULL };
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 10000000000ull, NULL), SPEC);
    fg_set_rate(t.fg, 4, 500);
    cm_go(&t, ev);
    sleep_ms(1100);
    cr_expect_eq(cm_sample(&t), -1);
    cr_expect_not_null(strstr(t.d.msg, "no CM clock measured yet"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMCycles"), 0u);
    sleep_ms(50);
    cr_expect_eq(cm_sample(&t), 0, "%s", t.d.msg);
    cr_expect_gt(val(&t, "CMCycles"), 0u);
    cm_end(&t);
}

/* ---- 4. multiplexing: ages, only the events this CM has, pinning ---- */

/* Six events, three pairs: the pair read at sample n (from 1) is pair
 * (n-1) mod 3; after the warm-up counted pairs 0, 1, 2 in turn, the age of
 * pair p at sample n is (n-1-p) mod 3 samples. (Register accesses take 10
 * cycles, so the warm-up's windows have cycles to give rates.) */
Test(mips_cm_board, each_estimate_carries_its_age)
{
    static const char *const ev[] = { "CMRequests", "CMWriteDataUsage", "CMCommandBusUsage",
                                      "CMReadDataUsage", "CMSharingMiss", "CMIOCU0Requests",
                                      NULL };
    static const char *const age[] = { "CMRequestsAge", "CMWriteDataUsageAge",
                                       "CMCommandBusUsageAge", "CMReadDataUsageAge",
                                       "CMSharingMissAge", "CMIOCU0RequestsAge" };
    struct cm t;
    int n, i;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 10, 0, NULL), SPEC);
    for (i = 0; i < 18; i++)
        fg_set_rate(t.fg, (unsigned)i, 100);
    cm_go(&t, ev);
    for (n = 1; n <= 7; n++) {
        fg_advance(t.fg, 1000000);
        cr_assert_geq(cm_sample(&t), 0, "%s", t.d.msg);
        for (i = 0; i < 6; i++)
            cr_expect_eq(val(&t, age[i]), (uint64_t)((n - 1 - i / 2 + 3) % 3),
                         "sample %d %s: %llu", n, age[i], (unsigned long long)val(&t, age[i]));
    }
    cm_end(&t);
}

/* A CM2 (GCR_REV 6.0; its L2 is not in the CM) with one IOCU: the L2
 * events and the 2nd IOCU are not rotated (8 events, 4 pairs) and not in
 * the catalogue, so their metrics say unavailable rather than ~0. */
Test(mips_cm_board, only_events_this_cm_has_are_rotated)
{
    struct fg_regs r;
    struct cm t;
    int n;

    cm_open_only(&t, fake_at(0x0600, 0x0103, 0, 0, NULL), SPEC);
    cr_expect_not(has(&t, "CML2Pipeline"));
    cr_expect_not(has(&t, "CML2HitsMisses"));
    cr_expect_not(has(&t, "CMIOCU1Requests"));
    cr_expect(has(&t, "CMIOCU0Requests"));
    cm_go(&t, NULL);
    for (n = 0; n < 8; n++) {
        fg_advance(t.fg, 100000);
        cr_assert_geq(cm_sample(&t), 0, "%s", t.d.msg);
        cr_expect_eq(val(&t, "CMRegPairs"), 4u);
        fg_get_regs(t.fg, &r);
        cr_expect((r.event & 0xff) != 8 && (r.event & 0xff) != 9 && (r.event >> 8) != 17 &&
                  (r.event >> 8) != 8 && (r.event >> 8) != 9, "EVENT 0x%x", r.event);
    }
    cm_end(&t);
}

/* events=0,5: exact counts of the two, no rotation, nothing else. */
Test(mips_cm_board, pinned_events_are_exact)
{
    struct gt_diag d;
    struct fg_regs r;
    struct cm t;
    int n;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 0, NULL), SPEC ",events=0,5");
    cr_expect(has(&t, "CMRequests") && has(&t, "CMSharingMiss"));
    cr_expect_not(has(&t, "CMReadDataUsage"));
    cr_expect_not(t.s->catalog.counters[gt_catalog_find(&t.s->catalog, "CMRequests")].estimated);
    cr_expect_not_null(strstr(t.s->info.detail, "2 events pinned (events=), exact"), "%s",
                       t.s->info.detail);
    fg_set_rate(t.fg, 0, 300);
    fg_set_rate(t.fg, 5, 20);
    cm_go(&t, NULL);
    for (n = 0; n < 3; n++) {
        fg_advance(t.fg, 1000000);
        cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
        cr_expect_eq(val(&t, "CMRequests"), 300000u);
        cr_expect_eq(val(&t, "CMSharingMiss"), 20000u);
        cr_expect_eq(val(&t, "CMRegPairs"), 1u);
        fg_get_regs(t.fg, &r);
        cr_expect_eq(r.event, 0u | 5u << 8);
    }
    cm_end(&t);
    {
        struct fake_gcr *fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
        cr_expect_null(gt_source_open(SPEC ",events=0,5,6", fg_sys(fg), &d));
        cr_expect_not_null(strstr(d.msg, "at most two"), "%s", d.msg);
        cr_expect_null(gt_source_open(SPEC ",events=7", fg_sys(fg), &d));
        cr_expect_not_null(strstr(d.msg, "events=7: not an event number"), "%s", d.msg);
        cr_expect_null(gt_source_open(SPEC ",events=17", fg_sys(fg), &d));
        cr_expect_not_null(strstr(d.msg, "this CM has no 2nd IOCU Requests"), "%s", d.msg);
        cr_expect_eq(fg_stats(fg)->open_fds, 0);
        fg_free(fg);
    }
}

/* ---- 5. the first sample ---- */

/* An 800 MHz CM clock and all events (so the start measures qualifiers
 * and warms up every pair): the first interval's cycles over its length
 * is the clock, not inflated by the warm-up. */
Test(mips_cm_board, first_sample_reads_the_clock_right)
{
    struct cm t;
    double secs, mhz;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 800000000, NULL), SPEC);
    cm_go(&t, NULL);
    sleep_ms(100);
    cr_assert_geq(cm_sample(&t), 0, "%s", t.d.msg);
    secs = (double)(t.snap.t_end_ns - t.snap.t_start_ns) / 1e9;
    mhz = (double)val(&t, "CMCycles") / secs / 1e6;
    cr_expect_leq(fabs(mhz - 800.0), 2.0, "first sample %.1f MHz at 800 MHz", mhz);
    cm_end(&t);
}

/* ---- 6. programming that stays ours ---- */

/* A JTAG script selects its own events mid-run: counting stops with the
 * reason, later samples too, and close leaves its settings alone. */
Test(mips_cm_board, reprogrammed_by_another_agent_stops_counting)
{
    static const char *const ev[] = { "CMWriteDataUsage", "CMSharingMiss", NULL };
    struct fg_regs r, theirs;
    struct cm t;

    cm_open_only(&t, fake_at(0x0700, 0x0103, 0, 0, NULL), SPEC);
    fg_set_rate(t.fg, 2, 250);
    fg_set_rate(t.fg, 5, 10);
    cm_go(&t, ev);
    fg_advance(t.fg, 1000000);
    cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
    fg_get_regs(t.fg, &r);
    theirs = r;
    theirs.event = 0x0309;
    theirs.qual0 = 0x12;
    fg_set_regs(t.fg, &theirs);
    fg_advance(t.fg, 1000000);
    cr_assert_eq(cm_sample(&t), -1);
    cr_expect_not_null(strstr(t.d.msg, "another agent reprogrammed the counters"), "%s", t.d.msg);
    cr_expect_not_null(strstr(t.d.msg, "EVENT 0x0309"), "%s", t.d.msg);
    cr_expect_eq(val(&t, "CMWriteDataUsage"), 0u);
    cr_expect_eq(cm_sample(&t), -1);
    gt_source_close(t.s);
    t.s = NULL;
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.event, 0x0309u, "their selection was overwritten: 0x%x", r.event);
    cr_expect_eq(r.qual0, 0x12u);
    gt_snapshot_free(&t.snap);
    fg_free(t.fg);
}

/* Counting already on when found: refused unless force, nothing written. */
Test(mips_cm_board, running_counters_need_force)
{
    struct fg_regs busy = { .ctl = 0x00000152, .event = 0x0309 };
    struct fake_gcr *fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
    struct gt_source *s;
    struct gt_diag d;

    fg_set_regs(fg, &busy);
    cr_assert_null(gt_source_open(SPEC, fg_sys(fg), &d));
    cr_expect_not_null(strstr(d.msg, "already running (GCR_DB_PC_CTL 0x00000152"), "%s", d.msg);
    cr_expect_not_null(strstr(d.msg, "force"), "%s", d.msg);
    cr_expect_eq(fg_stats(fg)->writes, 0);
    s = gt_source_open(SPEC ",force", fg_sys(fg), &d);
    cr_expect_not_null(s, "%s", d.msg);
    gt_source_close(s);
    cr_expect_eq(fg_stats(fg)->open_fds, 0);
    fg_free(fg);
}

/* Two gputops on one block: the second is refused, naming the first. */
Test(mips_cm_board, second_gputop_is_refused_by_the_lock)
{
    char root[] = "/tmp/gputop-lock-XXXXXX", dir[256], cmd[300], want[64];
    struct fake_gcr *a, *b;
    struct gt_source *s1, *s2;
    struct gt_diag d;

    cr_assert_not_null(mkdtemp(root));
    snprintf(dir, sizeof(dir), "%s/run/lock", root);
    snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
    cr_assert_eq(system(cmd), 0);
    a = fake_at(0x0700, 0x0103, 0, 0, root);
    b = fake_at(0x0700, 0x0103, 0, 0, root);
    s1 = gt_source_open(SPEC, fg_sys(a), &d);
    cr_assert_not_null(s1, "%s", d.msg);
    cr_expect_null(s2 = gt_source_open(SPEC, fg_sys(b), &d));
    snprintf(want, sizeof(want), "in use by another gputop (pid %ld", (long)getpid());
    cr_expect_not_null(strstr(d.msg, want), "%s", d.msg);
    cr_expect_eq(fg_stats(b)->writes, 0);
    gt_source_close(s1);
    s2 = gt_source_open(SPEC, fg_sys(b), &d);
    cr_expect_not_null(s2, "the lock outlived its holder: %s", d.msg);
    gt_source_close(s2);
    fg_free(a);
    fg_free(b);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    cr_expect_eq(system(cmd), 0);
}

/* ---- 7. left as found ---- */

/* The owner had interrupts on: they come back only after our overflow
 * bits are cleared, so our wrap never interrupts the owner. */
Test(mips_cm_board, interrupt_enable_back_after_our_overflow_bits)
{
    static const char *const ev[] = { "CMReadDataUsage", NULL };
    struct fg_regs owner = { .ctl = 0x40000002, .event = 0x0309, .cycle = 5 };
    const struct fg_stats *st;
    struct fg_regs r;
    struct cm t;
    int i, ov_at = -1, int_at = -1;

    t.fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
    fg_set_regs(t.fg, &owner);
    cm_open_only(&t, t.fg, SPEC);
    cm_go(&t, ev);
    fg_advance(t.fg, 0x100000100ull);   /* the cycle counter wraps: OV bit 0 */
    gt_source_close(t.s);
    t.s = NULL;
    st = fg_stats(t.fg);
    for (i = st->nwrites > 64 ? st->nwrites - 64 : 0; i < st->nwrites; i++) {
        if (st->last_off[i % 64] == 0x6120 && (st->last_val[i % 64] & 1))
            ov_at = i;
        if (st->last_off[i % 64] == 0x6100 && (st->last_val[i % 64] & (1u << 30)))
            int_at = i;
    }
    cr_expect_geq(ov_at, 0, "our overflow bit not cleared");
    cr_expect_gt(int_at, ov_at, "interrupt enable written (%d) before the overflow clear (%d)",
                 int_at, ov_at);
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.ctl, 0x40000002u);
    cr_expect_eq(r.ov, 0u);
    gt_snapshot_free(&t.snap);
    fg_free(t.fg);
}

/* A previous owner's overflow bit (P0 had overflowed: OV 0x2) is left as
 * found through a run in wrap mode and after close; our own cycle-counter
 * overflow is cleared. Counts are still exact: differences, one wrap
 * taken modulo 2^32. */
Test(mips_cm_board, owners_overflow_bits_are_kept)
{
    static const char *const ev[] = { "CMRequests", "CMReadDataUsage", NULL };
    struct fg_regs owner = { .ctl = 0x00000002, .ov = 0x2, .event = 0x0309, .cycle = 0xfff00000u,
                             .cnt0 = 1234 };
    struct fg_regs r;
    struct cm t;
    int n;

    t.fg = fake_at(0x0700, 0x0103, 0, 0, NULL);
    fg_set_regs(t.fg, &owner);
    cm_open_only(&t, t.fg, SPEC);
    fg_set_rate(t.fg, 0, 300);
    fg_set_rate(t.fg, 4, 500);
    cm_go(&t, ev);
    for (n = 0; n < 3; n++) {
        fg_advance(t.fg, 1000000);   /* the cycle counter wraps in the second */
        cr_assert_eq(cm_sample(&t), 0, "%s", t.d.msg);
        cr_expect_eq(val(&t, "CMCycles"), 1000000u);
        cr_expect_eq(val(&t, "CMRequests"), 300000u);
        cr_expect_eq(val(&t, "CMReadDataUsage"), 500000u);
        fg_get_regs(t.fg, &r);
        cr_expect_eq(r.ov, 0x2u, "sample %d: OV 0x%x", n, r.ov);
    }
    cr_expect_eq(val(&t, "CMRegOverflows"), 0u);
    gt_source_close(t.s);
    t.s = NULL;
    fg_get_regs(t.fg, &r);
    cr_expect_eq(r.ov, 0x2u, "after close: OV 0x%x", r.ov);
    cr_expect_eq(r.cnt0, 1234u);
    gt_snapshot_free(&t.snap);
    fg_free(t.fg);
}

/* ---- 8. device-tree base through the parents' ranges ---- */

static void put_file(const char *root, const char *rel, const void *data, size_t len)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/sys/firmware/devicetree/base/%s", root, rel);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* soc maps its child address 0 to physical 0x10000000 (ranges = <0x0
 * 0x10000000 0x10000000>, one cell each); the CM's reg 0x0bde8000 is
 * therefore at 0x1bde8000, as of_address_to_resource() would say. */
Test(mips_cm_board, device_tree_reg_goes_through_ranges)
{
    static const unsigned char one[4] = { 0, 0, 0, 1 };
    static const unsigned char ranges[12] = { 0, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0, 0 };
    static const unsigned char reg[8] = { 0x0b, 0xde, 0x80, 0x00, 0, 0, 0x80, 0 };
    static const char compat[] = "mti,mips-cm";
    char root[] = "/tmp/gputop-dt-XXXXXX", cmd[512];
    struct cm t;

    cr_assert_not_null(mkdtemp(root));
    snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/firmware/devicetree/base/soc/cm@bde8000", root);
    cr_assert_eq(system(cmd), 0);
    put_file(root, "#address-cells", one, 4);
    put_file(root, "#size-cells", one, 4);
    put_file(root, "soc/#address-cells", one, 4);
    put_file(root, "soc/#size-cells", one, 4);
    put_file(root, "soc/ranges", ranges, sizeof(ranges));
    put_file(root, "soc/cm@bde8000/compatible", compat, sizeof(compat));
    put_file(root, "soc/cm@bde8000/reg", reg, sizeof(reg));
    memset(&t, 0, sizeof(t));
    {
        struct fg_config c;
        memset(&c, 0, sizeof(c));
        c.base = 0x1bde8000;
        c.config = 0x0103;
        c.root = root;
        cm_open_only(&t, fg_new(&c), "mips-cm");
    }
    cr_expect_not_null(strstr(t.s->info.device, "0x1bde8000 (device tree)"), "%s",
                       t.s->info.device);
    cm_go(&t, NULL);
    cm_end(&t);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    cr_expect_eq(system(cmd), 0);
}

/* ---- 9. the EPERM hint ---- */

/* MIPS has no STRICT_DEVMEM; as root, EPERM from /dev/mem is kernel
 * lockdown (drivers/char/mem.c open_port, LOCKDOWN_DEV_MEM); no node at
 * all is a kernel without CONFIG_DEVMEM. */
Test(mips_cm_board, dev_mem_errors_name_lockdown_and_config_devmem)
{
    struct fg_config c;
    struct fake_gcr *fg;
    struct gt_diag d;

    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.open_errno = EPERM;
    fg = fg_new(&c);
    cr_assert_null(gt_source_open(SPEC, fg_sys(fg), &d));
    cr_expect_not_null(strstr(d.msg, "kernel lockdown"), "%s", d.msg);
    cr_expect_null(strstr(d.msg, "STRICT_DEVMEM"), "%s", d.msg);
    fg_free(fg);
    c.open_errno = ENOENT;
    fg = fg_new(&c);
    cr_assert_null(gt_source_open(SPEC, fg_sys(fg), &d));
    cr_expect_not_null(strstr(d.msg, "CONFIG_DEVMEM"), "%s", d.msg);
    fg_free(fg);
}
