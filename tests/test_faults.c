/* Fault injection at the seam for the Mali source: every call site it uses
 * (found by logging a clean run) fails with every realistic errno, while
 * opening and mid-run. The source must fail cleanly or keep going, resume
 * counting, never count a dump twice, and leave no fd or mapping behind. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fakes/fake_kbase.h"
#include "fakes/fault_sys.h"
#include "gputop/source.h"

#define DELTA 1000          /* GPU_ACTIVE delta of every dump */
#define RUN_SAMPLES 12      /* samples after the fault: room to recover */

static const int errnos[] = { EINTR, EAGAIN, EBUSY, ENODEV, EIO, EPERM };

struct kernel {
    const char *what;
    enum fk_gpu gpu;
    enum fk_api api;
    unsigned major, minor;
    const char *spec;
    unsigned active;        /* GPU_ACTIVE's index in the front-end block */
};

static const struct kernel kernels[] = {
    { "G715 CSF, kinstr_prfcnt", FK_G715, FK_CSF, 1, 21, "mali:interface=kinstr", 4 },
    { "T830 JM, legacy reader", FK_T830, FK_JM, 11, 20, "mali:interface=legacy", 6 },
    { "T830 pre-r21, legacy reader", FK_T830, FK_PRE_R21, 10, 6, "mali", 6 },
};

struct run {
    struct fake_kbase *fk;
    struct fault_sys fs;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    int counter;            /* MaliGPUCyclesGPUActive in the catalogue */
};

static struct fake_kbase *new_fake(const struct kernel *k)
{
    struct fk_config c;
    struct fake_kbase *fk;

    memset(&c, 0, sizeof(c));
    c.gpu = k->gpu;
    c.api = k->api;
    c.major = k->major;
    c.minor = k->minor;
    c.new_gate = 1;
    fk = fk_new(&c);
    cr_assert_not_null(fk);
    fk_set_counter(fk, FK_FE, 0, k->active, DELTA);
    return fk;
}

/* Opens, enables everything and starts; 0, or -1 with r->d set. */
static int start(struct run *r, const struct kernel *k)
{
    unsigned char used[4096];

    r->s = gt_source_open(k->spec, &r->fs.sys, &r->d);
    if (!r->s)
        return -1;
    memset(used, 1, sizeof(used));
    if ((r->s->type->select && r->s->type->select(r->s, used, &r->d) < 0) ||
        r->s->type->start(r->s, &r->d) < 0) {
        gt_source_close(r->s);
        r->s = NULL;
        return -1;
    }
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
    r->counter = gt_catalog_find(&r->s->catalog, "MaliGPUCyclesGPUActive");
    cr_assert_geq(r->counter, 0);
    return 0;
}

static int sample(struct run *r, uint64_t *active)
{
    int rc;

    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&r->d);
    rc = r->s->type->sample(r->s, &r->snap, &r->d);
    *active = r->snap.deltas[r->s->catalog.counters[r->counter].slot];
    return rc;
}

/* Closes and checks the fake saw every fd and mapping released. */
static void finish(struct run *r, const char *what)
{
    const struct fk_stats *st;

    if (r->s) {
        gt_snapshot_free(&r->snap);
        gt_source_close(r->s);
    }
    st = fk_stats(r->fk);
    cr_expect_eq(st->open_fds, 0, "%s: file descriptors left open: %d", what, st->open_fds);
    cr_expect_eq(st->mapped, 0, "%s: mappings left: %d", what, st->mapped);
    fk_free(r->fk);
}

/* The sites a clean run reaches while opening (phase 0) or sampling (1). */
static size_t sites_of(const struct kernel *k, int phase, struct fs_site *out)
{
    struct run r;
    uint64_t v;
    size_t n;

    memset(&r, 0, sizeof(r));
    r.fk = new_fake(k);
    fs_init(&r.fs, fk_sys(r.fk));
    r.fs.logging = phase == 0;
    cr_assert_eq(start(&r, k), 0, "%s: %s", k->what, r.d.msg);
    r.fs.logging = 1;
    if (phase == 1)
        r.fs.nsites = 0;
    for (int i = 0; i < 3; i++)
        cr_assert_eq(sample(&r, &v), 0, "%s: %s", k->what, r.d.msg);
    n = r.fs.nsites;
    memcpy(out, r.fs.sites, n * sizeof(*out));
    finish(&r, k->what);
    return n;
}

/* One fault mid-run: fails the site `times` times, then samples on. */
static void fault_mid_run(const struct kernel *k, struct fs_site site, int err, int times)
{
    struct run r;
    char what[160], name[32];
    uint64_t v, sum = 0;
    int rc = 0, failed = 0;

    snprintf(what, sizeof(what), "%s: %s fails %d times with %s", k->what,
             fs_site_name(site, name, sizeof(name)), times, strerror(err));
    memset(&r, 0, sizeof(r));
    r.fk = new_fake(k);
    fs_init(&r.fs, fk_sys(r.fk));
    cr_assert_eq(start(&r, k), 0, "%s: %s", what, r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s: %s", what, r.d.msg);
    cr_assert_eq(v, DELTA, "%s", what);
    unsigned dumps_before = (unsigned)fk_stats(r.fk)->dumps;
    fs_arm(&r.fs, site, err, times);
    for (int i = 0; i < RUN_SAMPLES; i++) {
        rc = sample(&r, &v);
        if (rc < 0) {
            failed++;
            cr_assert(r.d.msg[0], "%s: a failed sample says why", what);
            cr_assert_eq(v, 0, "%s: a failed sample carries no counts", what);
            continue;
        }
        cr_assert_eq(v % DELTA, 0, "%s: %llu is not whole dumps", what, (unsigned long long)v);
        cr_assert_gt(v, 0, "%s: a good sample counted nothing", what);
        sum += v;
    }
    cr_assert_eq(r.fs.remaining, 0, "%s: the site was not reached again", what);
    cr_assert_geq(rc, 0, "%s: counting did not resume: %s", what, r.d.msg);
    cr_assert_eq(v, DELTA, "%s: the last sample is one dump", what);
    uint64_t dumps = (uint64_t)fk_stats(r.fk)->dumps - dumps_before;
    cr_assert_leq(sum, dumps * DELTA, "%s: %llu counted from %llu dumps (double-counted)", what,
                  (unsigned long long)sum, (unsigned long long)dumps);
    (void)failed;
    finish(&r, what);
}

/* One fault while opening: a clean failure naming the cause, or a source
 * that works. */
static void fault_at_open(const struct kernel *k, struct fs_site site, int err)
{
    struct run r;
    char what[160], name[32];
    uint64_t v;

    snprintf(what, sizeof(what), "%s: %s fails with %s while opening", k->what,
             fs_site_name(site, name, sizeof(name)), strerror(err));
    memset(&r, 0, sizeof(r));
    r.fk = new_fake(k);
    fs_init(&r.fs, fk_sys(r.fk));
    fs_arm(&r.fs, site, err, 1);
    if (start(&r, k) < 0) {
        cr_assert(r.d.msg[0], "%s: the failure says why", what);
    } else {
        int rc = -1;
        for (int i = 0; i < RUN_SAMPLES && rc < 0; i++)
            rc = sample(&r, &v);
        cr_assert_geq(rc, 0, "%s: opened but never counts: %s", what, r.d.msg);
        cr_assert_eq(v % DELTA, 0, "%s", what);
    }
    finish(&r, what);
}

Test(faults, every_site_every_errno_mid_run, .timeout = 600)
{
    struct fs_site sites[FS_MAX_SITES];

    for (size_t ki = 0; ki < sizeof(kernels) / sizeof(kernels[0]); ki++) {
        size_t n = sites_of(&kernels[ki], 1, sites);
        cr_log_info("%s: %zu call sites while sampling", kernels[ki].what, n);
        for (size_t i = 0; i < n; i++) {
            char name[32];
            cr_log_info("  %s", fs_site_name(sites[i], name, sizeof(name)));
        }
        cr_assert_gt(n, 0);
        for (size_t i = 0; i < n; i++)
            for (size_t e = 0; e < sizeof(errnos) / sizeof(errnos[0]); e++) {
                fault_mid_run(&kernels[ki], sites[i], errnos[e], 1);
                /* The device gone for three calls, then back. */
                fault_mid_run(&kernels[ki], sites[i], errnos[e], 3);
            }
    }
}

Test(faults, every_site_every_errno_while_opening, .timeout = 600)
{
    struct fs_site sites[FS_MAX_SITES];

    for (size_t ki = 0; ki < sizeof(kernels) / sizeof(kernels[0]); ki++) {
        size_t n = sites_of(&kernels[ki], 0, sites);
        cr_log_info("%s: %zu call sites while opening", kernels[ki].what, n);
        cr_assert_gt(n, 0);
        for (size_t i = 0; i < n; i++)
            for (size_t e = 0; e < sizeof(errnos) / sizeof(errnos[0]); e++)
                fault_at_open(&kernels[ki], sites[i], errnos[e]);
    }
}

/* The device vanishes for many calls in a row (every site at once would
 * need the fake's own switch): lose it, sample while gone, restore. */
Test(faults, device_vanishes_and_returns_on_every_reader)
{
    for (size_t ki = 0; ki < sizeof(kernels) / sizeof(kernels[0]); ki++) {
        struct run r;
        uint64_t v;
        int rc = -1;

        memset(&r, 0, sizeof(r));
        r.fk = new_fake(&kernels[ki]);
        fs_init(&r.fs, fk_sys(r.fk));
        cr_assert_eq(start(&r, &kernels[ki]), 0, "%s", r.d.msg);
        cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
        fk_lose_device(r.fk);
        for (int i = 0; i < 4; i++) {
            cr_assert_eq(sample(&r, &v), -1, "%s: gone", kernels[ki].what);
            cr_assert_eq(v, 0);
        }
        fk_restore_device(r.fk);
        for (int i = 0; i < RUN_SAMPLES && rc < 0; i++)
            rc = sample(&r, &v);
        cr_assert_eq(rc, 0, "%s: back: %s", kernels[ki].what, r.d.msg);
        cr_assert_eq(v, DELTA, "%s", kernels[ki].what);
        finish(&r, kernels[ki].what);
    }
}
