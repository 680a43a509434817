/* Fault injection at the seam for the panfrost source: every call site of
 * a clean run (the node's open, the uevent read discovery does, GET_PARAM
 * by param, PERFCNT_ENABLE, PERFCNT_DUMP; found by logging) fails with
 * every realistic errno, while opening and mid-run; the device vanishes
 * and returns, or is unplugged and bound again (a new file needed). The
 * source fails cleanly or keeps going, resumes counting, never reports a
 * dump twice, leaves no fd open and the counters disabled. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fakes/fake_panfrost.h"
#include "fakes/fault_sampler.h"
#include "fakes/fault_sys.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

#define ACTIVE 1000         /* GPU_ACTIVE in every dump */
#define RUN_SAMPLES 8
#define LOGGED_SAMPLES 3
#define REQ_GET_PARAM 0xc0106444ul

struct run {
    struct fake_panfrost *fp;
    struct fault_sys fs;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    int active;
};

/* GET_PARAM's param (u32 at byte 0 of drm_panfrost_get_param), tagged
 * 0x100 so GPU_PROD_ID (0) is told from "no query". */
static unsigned long panfrost_sub(unsigned long req, const void *arg)
{
    uint32_t param;

    if (req != REQ_GET_PARAM)
        return 0;
    memcpy(&param, arg, 4);
    return 0x100ul | param;
}

static void init(struct run *r)
{
    struct fp_config c = { .unstable_ioctls = 1 };

    memset(r, 0, sizeof(*r));
    r->fp = fp_new(&c);
    cr_assert_not_null(r->fp);
    fp_set_counter(r->fp, 0, 6, ACTIVE);      /* job manager block, GPU_ACTIVE */
    fs_init(&r->fs, fp_sys(r->fp));
    r->fs.by_file = 1;
    r->fs.ioctl_sub = panfrost_sub;
}

static int start(struct run *r)
{
    r->s = gt_source_open("panfrost", &r->fs.sys, &r->d);
    if (!r->s)
        return -1;
    if (r->s->type->start(r->s, &r->d) < 0) {
        gt_source_close(r->s);
        r->s = NULL;
        return -1;
    }
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
    r->active = gt_catalog_find(&r->s->catalog, "MaliGPUCyclesGPUActive");
    cr_assert_geq(r->active, 0);
    return 0;
}

static int sample(struct run *r, uint64_t *active)
{
    int rc;

    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&r->d);
    rc = r->s->type->sample(r->s, &r->snap, &r->d);
    *active = r->snap.deltas[r->s->catalog.counters[r->active].slot];
    return rc;
}

static void finish(struct run *r, const char *what)
{
    const struct fp_stats *st;

    if (r->s) {
        gt_snapshot_free(&r->snap);
        gt_source_close(r->s);
    }
    st = fp_stats(r->fp);
    cr_expect_eq(st->open_fds, 0, "%s: file descriptors left open: %d", what, st->open_fds);
    cr_expect_eq(st->owner_fd, -1, "%s: the counters were left enabled", what);
    cr_expect_eq(st->protocol_errors, 0, "%s: protocol errors", what);
    fp_free(r->fp);
}

static size_t sites_of(int phase, struct fs_site *out, unsigned *calls)
{
    struct run r;
    uint64_t v;
    size_t n;

    init(&r);
    r.fs.logging = phase == 0;
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    r.fs.logging = phase == 1;
    for (int i = 0; i < LOGGED_SAMPLES; i++)
        cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    n = r.fs.nsites;
    memcpy(out, r.fs.sites, n * sizeof(*out));
    for (size_t i = 0; i < n; i++)
        calls[i] = phase == 1 ? r.fs.calls[i] / LOGGED_SAMPLES : r.fs.calls[i];
    finish(&r, "clean run");
    return n;
}

/* The samples after a fault: a failed one says why and carries nothing; a
 * good one is exactly one dump; the last one is good; no more counted
 * than the kernel dumped. */
static void run_on(struct run *r, const char *what, int dumps_before)
{
    uint64_t v, sum = 0;
    int rc = 0;

    for (int i = 0; i < RUN_SAMPLES; i++) {
        rc = sample(r, &v);
        if (rc < 0) {
            cr_assert(r->d.msg[0], "%s: a failed sample says why", what);
            cr_assert_eq(v, 0, "%s: a failed sample carries no counts", what);
            continue;
        }
        cr_assert_eq(v, ACTIVE, "%s: a good sample is one dump", what);
        sum += v;
    }
    cr_assert_geq(rc, 0, "%s: counting did not resume: %s", what, r->d.msg);
    uint64_t dumps = (uint64_t)(fp_stats(r->fp)->good_dumps - dumps_before);
    cr_assert_leq(sum, dumps * ACTIVE, "%s: %llu counted from %llu dumps", what,
                  (unsigned long long)sum, (unsigned long long)dumps);
}

static void fault_mid_run(void *arg, struct fs_site site, int err, int times, int skip)
{
    struct run r;
    char what[200], name[120];
    uint64_t v;

    (void)arg;
    snprintf(what, sizeof(what), "%s (call %d) fails %d times with %s",
             fs_site_name(site, name, sizeof(name)), skip + 1, times, strerror(err));
    init(&r);
    cr_assert_eq(start(&r), 0, "%s: %s", what, r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s: %s", what, r.d.msg);
    int before = fp_stats(r.fp)->good_dumps;
    fs_arm_after(&r.fs, site, err, times, skip);
    run_on(&r, what, before);
    cr_assert_eq(r.fs.remaining, 0, "%s: the site was not reached again", what);
    finish(&r, what);
}

static void fault_at_open(void *arg, struct fs_site site, int err, int times, int skip)
{
    struct run r;
    char what[200], name[120];

    (void)arg;
    snprintf(what, sizeof(what), "%s (call %d) fails with %s while opening",
             fs_site_name(site, name, sizeof(name)), skip + 1, strerror(err));
    init(&r);
    fs_arm_after(&r.fs, site, err, times, skip);
    if (start(&r) < 0) {
        /* Discovery failing leaves the default node, which the message
         * says was a guess. */
        cr_assert(strstr(r.d.msg, "/dev/dri/renderD129") ||
                  strstr(r.d.msg, "no DRM device driven by panfrost was found"),
                  "%s: names the node: %s", what, r.d.msg);
    } else {
        uint64_t v;
        int rc = -1;
        for (int i = 0; i < RUN_SAMPLES && rc < 0; i++)
            rc = sample(&r, &v);
        cr_assert_geq(rc, 0, "%s: opened but never counts: %s", what, r.d.msg);
        cr_assert_eq(v, ACTIVE, "%s", what);
    }
    finish(&r, what);
}

Test(faults_panfrost, every_site_every_errno_mid_run)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n = sites_of(1, sites, calls);
    char name[120];

    for (size_t i = 0; i < n; i++)
        cr_log_info("panfrost while sampling: %s, %u a sample",
                    fs_site_name(sites[i], name, sizeof(name)), calls[i]);
    cr_assert_geq(n, 1);
    fs_every_case(sites, calls, n, 1, fault_mid_run, NULL);
}

Test(faults_panfrost, every_site_every_errno_while_opening)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n = sites_of(0, sites, calls);
    char name[120];

    for (size_t i = 0; i < n; i++)
        cr_log_info("panfrost while opening: %s, %u calls",
                    fs_site_name(sites[i], name, sizeof(name)), calls[i]);
    /* open and read of uevent, the node's open, 5 GET_PARAMs, ENABLE, DUMP */
    cr_assert_geq(n, 9, "only %zu sites while opening", n);
    fs_every_case(sites, calls, n, 0, fault_at_open, NULL);
}

Test(faults_panfrost, device_vanishes_and_returns)
{
    struct run r;
    uint64_t v;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    int before = fp_stats(r.fp)->good_dumps;
    fs_vanish(&r.fs, ENODEV);
    for (int i = 0; i < 4; i++) {
        cr_assert_lt(sample(&r, &v), 0, "gone, yet the sample succeeded");
        cr_assert_eq(v, 0);
    }
    fs_vanish(&r.fs, 0);
    run_on(&r, "vanished and back", before);
    finish(&r, "vanished and back");
}

/* An unbind and bind (hot unplug, a driver reload): the old file answers
 * ENODEV for good, so counting resumes only on a new one. */
Test(faults_panfrost, unplugged_and_bound_again_reopens)
{
    struct run r;
    uint64_t v;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    int before = fp_stats(r.fp)->good_dumps;
    fp_unplug(r.fp);
    for (int i = 0; i < 3; i++) {
        cr_assert_lt(sample(&r, &v), 0, "unplugged, yet the sample succeeded");
        cr_assert(strstr(r.d.msg, "/dev/dri/renderD129"), "%s", r.d.msg);
    }
    fp_replug(r.fp);
    run_on(&r, "unplugged and bound again", before);
    cr_assert_eq(fp_stats(r.fp)->open_fds, 1, "the dead file was not closed");
    finish(&r, "unplugged and bound again");
}

/* Through the sampler thread: RETRYING with the source's message while
 * the device is gone, counts in published snapshots after. */
Test(faults_panfrost, sampler_shows_retrying_and_resumes, .timeout = 60)
{
    struct run r;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    fault_sampler_vanish_and_return(r.s, &r.fs, ENODEV, r.active, GT_ERR_NODEV);
    finish(&r, "under the sampler");
}

/* A dump the kernel fails reaches the sampler with the code of its errno
 * (gputop/diag.h: EIO is IO, EPERM and EACCES PERM, EBUSY BUSY, EAGAIN
 * and EINTR AGAIN, ETIMEDOUT AGAIN, ENOMEM NOMEM), not only as text. */
Test(faults_panfrost, a_failed_dump_reaches_the_sampler_with_its_code, .timeout = 120)
{
    static const struct { int err; enum gt_err code; } cases[] = {
        { EIO, GT_ERR_IO }, { EPERM, GT_ERR_PERM }, { EACCES, GT_ERR_PERM },
        { EBUSY, GT_ERR_BUSY }, { EAGAIN, GT_ERR_AGAIN }, { ETIMEDOUT, GT_ERR_AGAIN },
        { ENOMEM, GT_ERR_NOMEM },
    };
    const struct fs_site dump = { FS_IOCTL, 0x40086447ul, 0, "" };   /* PERFCNT_DUMP */
    struct gt_sampler_stats st;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run r;
        init(&r);
        r.fs.by_file = 0;
        cr_assert_eq(start(&r), 0, "%s", r.d.msg);
        /* the sampler's own start dumps once more: that one goes through */
        fs_arm_after(&r.fs, dump, cases[i].err, 1000000, 1);
        fault_sampler_first_error(r.s, &st);
        cr_expect_eq(st.last_error_code, cases[i].code, "%s: code %s, not %s (%s)",
                     strerror(cases[i].err), gt_err_name(st.last_error_code),
                     gt_err_name(cases[i].code), st.last_error);
        cr_expect(strstr(st.last_error, "panfrost: "), "%s", st.last_error);
        r.fs.remaining = 0;
        finish(&r, "code");
    }
}
