/* Faults for the mips-cm source on the fake GCR block. Its register loads
 * and stores cannot fail with an errno, so what is injected is what can
 * happen: /dev/mem's open and mmap failing (EPERM under kernel lockdown,
 * EACCES, ENODEV and the other errnos, found by
 * logging the calls of a clean open), and garbage from the bus mid-run:
 * all-ones reads (what some interconnects answer) and GCR_REV changing
 * under gputop. Real bus errors (SIGBUS) are in test_mips_cm_board.c. A bad
 * sample says why and carries no counts, counting resumes with exact
 * deltas, and the perf registers are back as found after close. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/fake_gcr.h"
#include "fakes/fault_sampler.h"
#include "fakes/fault_sys.h"
#include "gputop/source.h"

#define BASE 0x1fbf8000ull
#define SPEC "mips-cm:gcr-base=0x1fbf8000"
#define STEP 4000000u       /* CM cycles between samples */
#define RUN_SAMPLES 6

static const int open_errnos[] = { EINTR, EAGAIN, EBUSY, ENODEV, EIO, EPERM, EACCES };

/* What some other user left in the perf registers: put back on close. */
static const struct fg_regs found = { 0x00000002u, 0, 0x0304u, 77, 0x11, 1234, 0x22, 5678 };

struct run {
    struct fake_gcr *fg;
    struct fault_sys fs;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    int cycles, wr, miss;
};

static void init(struct run *r)
{
    struct fg_config c;

    memset(r, 0, sizeof(*r));
    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.config = 0x0103;
    r->fg = fg_new(&c);
    cr_assert_not_null(r->fg);
    fg_set_regs(r->fg, &found);
    fg_set_rate(r->fg, 2, 250);    /* write data: 250 per 1000 cycles */
    fg_set_rate(r->fg, 5, 10);     /* sharing misses: 10 */
    fs_init(&r->fs, fg_sys(r->fg));
    r->fs.by_file = 1;
}

static int start(struct run *r)
{
    unsigned char used[64] = { 0 };

    r->s = gt_source_open(SPEC, &r->fs.sys, &r->d);
    if (!r->s)
        return -1;
    r->cycles = gt_catalog_find(&r->s->catalog, "CMCycles");
    r->wr = gt_catalog_find(&r->s->catalog, "CMWriteDataUsage");
    r->miss = gt_catalog_find(&r->s->catalog, "CMSharingMiss");
    cr_assert(r->cycles >= 0 && r->wr >= 0 && r->miss >= 0);
    used[r->wr] = used[r->miss] = 1;
    cr_assert_eq(r->s->type->select(r->s, used, &r->d), 0);
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
    cr_assert_eq(r->s->type->start(r->s, &r->d), 0, "%s", r->d.msg);
    return 0;
}

static uint64_t val(const struct run *r, int k)
{
    return r->snap.deltas[r->s->catalog.counters[k].slot];
}

static int sample(struct run *r)
{
    fg_advance(r->fg, STEP);
    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&r->d);
    return r->s->type->sample(r->s, &r->snap, &r->d);
}

static void finish(struct run *r, const char *what)
{
    struct fg_regs now;

    if (r->s) {
        gt_snapshot_free(&r->snap);
        gt_source_close(r->s);
    }
    fg_get_regs(r->fg, &now);
    cr_expect_eq(now.ctl & ~0xfu, found.ctl & ~0xfu, "%s: CTL 0x%x", what, now.ctl);
    cr_expect_eq(now.event, found.event, "%s: EVENT 0x%x", what, now.event);
    cr_expect_eq(now.qual0, found.qual0, "%s", what);
    cr_expect_eq(now.qual1, found.qual1, "%s", what);
    cr_expect_eq(now.cnt0, found.cnt0, "%s: CNT0 %u", what, now.cnt0);
    cr_expect_eq(now.cnt1, found.cnt1, "%s: CNT1 %u", what, now.cnt1);
    cr_expect_eq(now.ov, 0u, "%s: overflow bits left", what);
    cr_expect_eq(fg_stats(r->fg)->open_fds, 0, "%s: /dev/mem left open", what);
    cr_expect_eq(fg_stats(r->fg)->maps, fg_stats(r->fg)->unmaps, "%s: mapping left", what);
    cr_expect_eq(fg_stats(r->fg)->protocol_errors, 0, "%s: %s", what,
                 fg_stats(r->fg)->last_error);
    fg_free(r->fg);
}

/* Good samples: exactly STEP cycles and the rates' events; bad ones say
 * why and carry nothing. The last must be good. */
static void run_on(struct run *r, const char *what, int samples)
{
    int rc = 0;

    for (int i = 0; i < samples; i++) {
        rc = sample(r);
        if (rc < 0) {
            cr_assert(r->d.msg[0] && r->d.code != GT_ERR_NONE,
                      "%s: a failed sample says why, with a code: %s (%s)", what, r->d.msg,
                      gt_err_name(r->d.code));
            cr_assert_eq(val(r, r->cycles), 0, "%s: a failed sample carries counts", what);
            cr_assert_eq(val(r, r->wr), 0, "%s: a failed sample carries counts", what);
            continue;
        }
        cr_assert_eq(rc, 0, "%s: %s", what, r->d.msg);
        cr_assert_eq(val(r, r->cycles), STEP, "%s: cycles %llu", what,
                     (unsigned long long)val(r, r->cycles));
        cr_assert_eq(val(r, r->wr), STEP / 4, "%s: write data %llu", what,
                     (unsigned long long)val(r, r->wr));
        cr_assert_eq(val(r, r->miss), STEP / 100, "%s", what);
    }
    cr_assert_eq(rc, 0, "%s: counting did not resume: %s", what, r->d.msg);
}

static void fault_at_open(void *arg, struct fs_site site, int err, int times, int skip)
{
    struct run r;
    char what[200], name[120];

    (void)arg;
    snprintf(what, sizeof(what), "%s fails with %s while opening",
             fs_site_name(site, name, sizeof(name)), strerror(err));
    init(&r);
    fs_arm_after(&r.fs, site, err, times, skip);
    cr_assert_lt(start(&r), 0, "%s: opened anyway", what);
    cr_assert(strstr(r.d.msg, "/dev/mem"), "%s: names /dev/mem: %s", what, r.d.msg);
    cr_assert(strstr(r.d.msg, strerror(err)), "%s: says why: %s", what, r.d.msg);
    if (err == EPERM)
        cr_assert(strstr(r.d.msg, "lockdown"), "%s", r.d.msg);
    cr_assert_eq(fg_stats(r.fg)->writes, 0, "%s: a register written", what);
    finish(&r, what);
}

Test(faults_mips, open_and_mmap_of_dev_mem_fail_with_every_errno)
{
    struct run r;
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    char name[120];
    size_t n;

    init(&r);
    r.fs.logging = 1;
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    n = r.fs.nsites;
    memcpy(sites, r.fs.sites, n * sizeof(sites[0]));
    memcpy(calls, r.fs.calls, n * sizeof(calls[0]));
    finish(&r, "clean");
    for (size_t i = 0; i < n; i++)
        cr_log_info("mips-cm while opening: %s", fs_site_name(sites[i], name, sizeof(name)));
    cr_assert_geq(n, 2, "open and mmap of /dev/mem");
    fs_every_case_of(sites, calls, n, 0, open_errnos,
                     sizeof(open_errnos) / sizeof(open_errnos[0]), fault_at_open, NULL);
}

/* Bus errors for one and for three samples running. */
Test(faults_mips, all_ones_reads_mid_run)
{
    for (int len = 1; len <= 3; len += 2) {
        struct run r;
        char what[64];

        snprintf(what, sizeof(what), "bus error for %d samples", len);
        init(&r);
        cr_assert_eq(start(&r), 0, "%s", r.d.msg);
        run_on(&r, what, 2);
        fg_all_ones(r.fg, 1);
        for (int i = 0; i < len; i++) {
            cr_assert_lt(sample(&r), 0, "%s: garbage taken for counts (cycles %llu)", what,
                         (unsigned long long)val(&r, r.cycles));
            cr_assert_eq(val(&r, r.cycles), 0, "%s", what);
        }
        fg_all_ones(r.fg, 0);
        run_on(&r, what, RUN_SAMPLES);
        finish(&r, what);
    }
}

/* Another block answers, or the CM was reset to other settings: GCR_REV
 * reads differently; when it reads as before, counting starts over. */
Test(faults_mips, revision_changes_mid_run)
{
    struct run r;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    run_on(&r, "revision", 2);
    fg_set_rev(r.fg, 0x0801);
    for (int i = 0; i < 2; i++) {
        cr_assert_lt(sample(&r), 0, "GCR_REV changed, yet counted");
        cr_assert(strstr(r.d.msg, "GCR_REV"), "%s", r.d.msg);
    }
    fg_set_rev(r.fg, 0x0700);
    run_on(&r, "revision back", RUN_SAMPLES);
    finish(&r, "revision");
}

/* Garbage while closing is beyond help, but a bus error that ended
 * before the close leaves the registers as found. */
Test(faults_mips, closed_right_after_a_bus_error)
{
    struct run r;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    fg_all_ones(r.fg, 1);
    cr_assert_lt(sample(&r), 0);
    fg_all_ones(r.fg, 0);
    finish(&r, "closed after a bus error");
}

/* Through the sampler thread: the block reads all ones a while (RETRYING,
 * with the source's message), then counting resumes. The fake's cycles
 * move only when told, so each register access here takes a few. */
Test(faults_mips, sampler_shows_retrying_and_resumes, .timeout = 60)
{
    struct fg_config c;
    struct run r;

    init(&r);
    fg_free(r.fg);
    memset(&c, 0, sizeof(c));
    c.base = BASE;
    c.config = 0x0103;
    c.access_cycles = 10;
    r.fg = fg_new(&c);
    cr_assert_not_null(r.fg);
    fg_set_regs(r.fg, &found);
    fg_set_rate(r.fg, 2, 250);
    fs_init(&r.fs, fg_sys(r.fg));
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    fault_sampler_vanish_and_return(r.s, &r.fs, ENODEV, r.wr, GT_ERR_NODEV);
    finish(&r, "under the sampler");
}

static void put(const char *root, const char *rel, const void *data, size_t len)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/sys/firmware/devicetree/base/soc/%s", root, rel);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* The device tree is read with stdio (outside the seam); what can go
 * wrong with it is its contents: a reg shorter than its cells, cell counts
 * out of range, no reg at all. Each is refused with the way out, and
 * /dev/mem is never opened on a guess. */
Test(faults_mips, malformed_device_trees_are_refused)
{
    static const unsigned char one[4] = { 0, 0, 0, 1 }, three[4] = { 0, 0, 0, 3 };
    static const unsigned char reg[8] = { 0x1b, 0xde, 0x80, 0x00, 0, 0, 0x80, 0 };
    static const char compat[] = "mti,mips-cm";
    static const struct { const char *what; const unsigned char *acells; size_t reglen; } bad[] = {
        { "reg of 4 bytes for 1+1 cells", one, 4 },
        { "#address-cells 3", three, 8 },
        { "no reg", one, 0 },
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char root[] = "/tmp/gputop-dt-XXXXXX", cmd[600];
        struct fg_config c;
        struct fake_gcr *fg;
        struct gt_diag d;

        cr_assert_not_null(mkdtemp(root));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/firmware/devicetree/base/soc/"
                 "coherency-manager@1bde8000", root);
        cr_assert_eq(system(cmd), 0);
        put(root, "#address-cells", bad[i].acells, 4);
        put(root, "#size-cells", one, 4);
        put(root, "coherency-manager@1bde8000/compatible", compat, sizeof(compat));
        if (bad[i].reglen)
            put(root, "coherency-manager@1bde8000/reg", reg, bad[i].reglen);
        memset(&c, 0, sizeof(c));
        c.base = 0x1bde8000;
        c.root = root;
        fg = fg_new(&c);
        cr_assert_null(gt_source_open("mips-cm", fg_sys(fg), &d), "%s: opened", bad[i].what);
        cr_assert(strstr(d.msg, "gcr-base="), "%s: no way out in: %s", bad[i].what, d.msg);
        cr_assert_eq(fg_stats(fg)->opens, 0, "%s: /dev/mem opened on a guess", bad[i].what);
        fg_free(fg);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        cr_assert_eq(system(cmd), 0);
    }
}
