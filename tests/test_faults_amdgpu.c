/* Fault injection at the seam for the amdgpu source: every call site of a
 * clean run (the render node's open, each AMDGPU_INFO query by id, the
 * AMDGPU_CTX ops, debugfs regs2 SET_STATE, pread and pwrite, the sysfs
 * runtime_status and gpu_metrics reads; found by logging, so a new one is
 * covered without editing this file) fails with every realistic errno,
 * while opening and mid-run; the GPU runtime-suspends mid-run; the device
 * vanishes and returns. The source fails cleanly or keeps going, resumes
 * counting, never reports a counter pass twice, and leaves no fd open and
 * no perf register programmed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fakes/fake_amdgpu.h"
#include "fakes/fault_sampler.h"
#include "fakes/fault_sys.h"
#include "gputop/source.h"

#define PER_PASS 1000       /* GRBM_GUI_ACTIVE per ms: per counter pass of 1 ms */
#define WGP_PER_SE 10       /* SQ records are per WGP: WGP 0 of SE c is c x 10 */
#define POLLS 2             /* GRBM reads per sample (polls=2: no pacing) */
#define RUN_SAMPLES 8       /* samples after the fault: room to recover */
#define SPEC "amdgpu,polls=2"
#define NGL2C 4             /* the fake's GL2C channels */
#define NSE 2               /* and shader engines */

#define IOC_AMDGPU_INFO 0x40206445ul
#define IOC_AMDGPU_CTX  0xC0106442ul

struct run {
    struct fake_amdgpu *fa;
    struct fault_sys fs;
    struct gt_source *s;
    struct gt_snapshot snap;
    struct gt_diag d;
    int active, polls;      /* GRBM_GUI_ACTIVE and GRBM_POLLS in the catalogue */
    int hit;                /* GL2C_HIT: one per channel, so SET_STATE per read */
    int busy;               /* SQ_BUSY_CYCLES: per SE, summed over WGPs; needs SQ CTRL/CTRL2 */
};

/* AMDGPU_INFO's query id (u32 at byte 12 of drm_amdgpu_info), and for
 * READ_MMR_REG the register too (dword_offset at byte 16); AMDGPU_CTX's
 * op (byte 0). */
static unsigned long amd_sub(unsigned long req, const void *arg)
{
    uint32_t q, reg;

    if (req == IOC_AMDGPU_INFO) {
        memcpy(&q, (const char *)arg + 12, 4);
        if (q != 0x15)
            return q;
        memcpy(&reg, (const char *)arg + 16, 4);
        return (unsigned long)reg << 8 | q;
    }
    if (req == IOC_AMDGPU_CTX) {
        memcpy(&q, arg, 4);
        return q;
    }
    return 0;
}

static void init_clock(struct run *r, int manual)
{
    struct fa_config c;

    memset(r, 0, sizeof(*r));
    memset(&c, 0, sizeof(c));
    c.power = "active";
    c.metrics = FA_METRICS_V3_0;
    c.root = 1;
    c.manual_clock = manual;   /* sample() moves it 1 ms: a pass counts 1 ms */
    r->fa = fa_new(&c);
    cr_assert_not_null(r->fa);
    fa_set_rate(r->fa, "GRBM", 2, 0, PER_PASS);    /* GRBM_GUI_ACTIVE */
    for (unsigned i = 0; i < NGL2C; i++)
        fa_set_rate(r->fa, "GL2C", 42, i, PER_PASS * (i + 1));   /* GL2C_HIT */
    for (unsigned i = 0; i < NSE; i++)
        fa_set_rate(r->fa, "SQ", 3, FA_UNIT(i, 0, 0), PER_PASS * (i + 1));  /* SQ_BUSY_CYCLES */
    fs_init(&r->fs, fa_sys(r->fa));
    r->fs.by_file = 1;
    r->fs.by_offset = 1;
    r->fs.ioctl_sub = amd_sub;
}

static void init(struct run *r)
{
    init_clock(r, 1);
}

/* Opens with one counter selected (one pass, so nothing is estimated)
 * and starts; 0, or -1 with r->d set. */
static int start(struct run *r)
{
    unsigned char used[4096];

    r->s = gt_source_open(SPEC, &r->fs.sys, &r->d);
    if (!r->s)
        return -1;
    r->active = gt_catalog_find(&r->s->catalog, "GRBM_GUI_ACTIVE");
    r->polls = gt_catalog_find(&r->s->catalog, "GRBM_POLLS");
    r->hit = gt_catalog_find(&r->s->catalog, "GL2C_HIT");
    r->busy = gt_catalog_find(&r->s->catalog, "SQ_BUSY_CYCLES");
    cr_assert_geq(r->polls, 0);
    memset(used, 0, sizeof(used));
    used[r->polls] = 1;
    /* Absent when the counters could not be set up (a fault while
     * opening debugfs): the rest of the source still works. */
    if (r->active >= 0)
        used[r->active] = used[r->hit] = used[r->busy] = 1;
    if (r->s->type->select(r->s, used, &r->d) < 0 || r->s->type->start(r->s, &r->d) < 0) {
        gt_source_close(r->s);
        r->s = NULL;
        return -1;
    }
    cr_assert_eq(gt_snapshot_init(&r->snap, r->s->catalog.nslots), 0);
    return 0;
}

static uint64_t slot(const struct run *r, int k)
{
    return r->snap.deltas[r->s->catalog.counters[k].slot];
}

static int sample(struct run *r, uint64_t *active)
{
    int rc;

    gt_snapshot_zero(&r->snap);
    gt_diag_clear(&r->d);
    fa_advance(r->fa, 1000000);
    rc = r->s->type->sample(r->s, &r->snap, &r->d);
    *active = r->active >= 0 ? slot(r, r->active) : 0;
    return rc;
}

/* Closes and checks the fake was left as found. */
static void finish(struct run *r, const char *what)
{
    const struct fa_stats *st;

    if (r->s) {
        gt_snapshot_free(&r->snap);
        gt_source_close(r->s);
    }
    st = fa_stats(r->fa);
    cr_expect_eq(st->open_fds, 0, "%s: file descriptors left open: %d", what, st->open_fds);
    cr_expect_eq(st->regs_not_restored, 0, "%s: %d of %d registers left programmed", what,
                 st->regs_not_restored, st->regs_written);
    cr_expect_eq(st->gfxoff_refs, 0, "%s: GFXOFF still disallowed", what);
    cr_expect_eq(st->pstate, 0, "%s: stable pstate still held", what);
    cr_expect_eq(st->protocol_errors, 0, "%s: %s", what, st->last_error);
    fa_free(r->fa);
}

#define LOGGED_SAMPLES 3

/* The sites a clean run reaches while opening (phase 0) or sampling (1),
 * and how often each is called (while sampling: per sample). */
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

/* Checks the samples after a fault: a failed one says why; a good one
 * polled exactly POLLS times and counted whole passes; the last one
 * counted one pass; no more was reported than the fake counted. */
static void run_on(struct run *r, const char *what, unsigned long long counted_before)
{
    uint64_t v, sum = 0, hits[NGL2C] = { 0 }, busy[NSE] = { 0 };
    int rc = 0;

    for (int i = 0; i < RUN_SAMPLES; i++) {
        rc = sample(r, &v);
        if (rc < 0) {
            cr_assert(r->d.msg[0], "%s: a failed sample says why", what);
            continue;
        }
        cr_assert_eq(rc, 0, "%s: %s", what, r->d.msg);
        cr_assert_eq(slot(r, r->polls), POLLS, "%s: polls", what);
        cr_assert_eq(v % PER_PASS, 0, "%s: %llu is not whole passes", what,
                     (unsigned long long)v);
        sum += v;
        for (unsigned c = 0; c < NGL2C; c++)
            hits[c] += r->snap.deltas[r->s->catalog.counters[r->hit].slot + c];
        for (unsigned c = 0; c < NSE; c++)
            busy[c] += r->snap.deltas[r->s->catalog.counters[r->busy].slot + c * WGP_PER_SE];
    }
    cr_assert_geq(rc, 0, "%s: counting did not resume: %s", what, r->d.msg);
    cr_assert_eq(v, PER_PASS, "%s: the last sample is one pass", what);
    /* Milliseconds the fake's counters ran since (the counters advance
     * with time, through failed samples too). */
    uint64_t passes = (fa_stats(r->fa)->counted_ns - counted_before) / 1000000;
    cr_assert_leq(sum, passes * PER_PASS, "%s: %llu counted in %llu ms (double-counted)",
                  what, (unsigned long long)sum, (unsigned long long)passes);
    for (unsigned c = 0; c < NGL2C; c++) {
        uint64_t last = r->snap.deltas[r->s->catalog.counters[r->hit].slot + c];
        cr_assert_eq(last, PER_PASS * (c + 1), "%s: GL2C channel %u's last sample", what, c);
        cr_assert_leq(hits[c], passes * PER_PASS * (c + 1), "%s: GL2C channel %u "
                      "double-counted", what, c);
    }
    for (unsigned c = 0; c < NSE; c++) {
        uint64_t last = r->snap.deltas[r->s->catalog.counters[r->busy].slot + c * WGP_PER_SE];
        cr_assert_eq(last, PER_PASS * (c + 1), "%s: SQ_BUSY_CYCLES of SE%u's first WGP in the "
                     "last sample", what, c);
        cr_assert_leq(busy[c], passes * PER_PASS * (c + 1), "%s: SE%u double-counted", what, c);
    }
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
    cr_assert_eq(v, PER_PASS, "%s", what);
    unsigned long long before = fa_stats(r.fa)->counted_ns;
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
        cr_assert(r.d.msg[0], "%s: the failure says why", what);
        cr_assert(strstr(r.d.msg, "amdgpu") || strstr(r.d.msg, "/dev/dri") ||
                  strstr(r.d.msg, "/sys/"), "%s: names the device: %s", what, r.d.msg);
    } else {
        uint64_t v;
        int rc = -1;
        for (int i = 0; i < RUN_SAMPLES && rc < 0; i++)
            rc = sample(&r, &v);
        cr_assert_geq(rc, 0, "%s: opened but never counts: %s", what, r.d.msg);
        if (r.active < 0)
            cr_assert(strstr(r.s->info.detail, "counters: "), "%s: no counters, and no reason "
                      "why: %s", what, r.s->info.detail);
    }
    finish(&r, what);
}

Test(faults_amdgpu, every_site_every_errno_mid_run, .timeout = 300)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n = sites_of(1, sites, calls);
    char name[120];

    for (size_t i = 0; i < n; i++)
        cr_log_info("amdgpu while sampling: %s, %u a sample",
                    fs_site_name(sites[i], name, sizeof(name)), calls[i]);
    /* GRBM_STATUS and STATUS2 by MMR read, runtime_status, gpu_metrics,
     * regs2 SET_STATE, pread and pwrite at least. */
    cr_assert_geq(n, 7, "only %zu sites while sampling", n);
    fs_every_case(sites, calls, n, 1, fault_mid_run, NULL);
}

Test(faults_amdgpu, every_site_every_errno_while_opening, .timeout = 300)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n = sites_of(0, sites, calls);
    char name[120];

    for (size_t i = 0; i < n; i++)
        cr_log_info("amdgpu while opening: %s, %u calls",
                    fs_site_name(sites[i], name, sizeof(name)), calls[i]);
    cr_assert_geq(n, 8, "only %zu sites while opening", n);
    fs_every_case(sites, calls, n, 0, fault_at_open, NULL);
}

/* A short gpu_metrics read is a torn blob: rejected, not decoded. */
Test(faults_amdgpu, short_reads_of_every_file)
{
    struct fs_site sites[FS_MAX_SITES];
    unsigned calls[FS_MAX_SITES];
    size_t n = sites_of(1, sites, calls);

    for (size_t i = 0; i < n; i++)
        if (sites[i].call == FS_READ)
            fault_mid_run(NULL, sites[i], FS_SHORT_READ, 3, 0);
}

Test(faults_amdgpu, device_vanishes_and_returns)
{
    struct run r;
    uint64_t v;
    int rc = -1;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    unsigned long long before = fa_stats(r.fa)->counted_ns;
    fs_vanish(&r.fs, ENODEV);
    for (int i = 0; i < 4; i++) {
        cr_assert_lt(sample(&r, &v), 0, "gone, yet the sample succeeded");
        cr_assert(r.d.msg[0]);
    }
    fs_vanish(&r.fs, 0);
    for (int i = 0; i < RUN_SAMPLES && rc < 0; i++)
        rc = sample(&r, &v);
    cr_assert_geq(rc, 0, "back: %s", r.d.msg);
    run_on(&r, "vanished and back", before);
    finish(&r, "vanished and back");
}

/* Runtime suspend mid-run: nothing is touched while asleep (the fake
 * counts any access as a wake-up), and counting resumes once awake. */
Test(faults_amdgpu, runtime_suspend_mid_run_and_back)
{
    struct run r;
    uint64_t v;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    unsigned long long before = fa_stats(r.fa)->counted_ns;
    fa_set_power(r.fa, "suspended");
    for (int i = 0; i < 3; i++) {
        cr_assert_lt(sample(&r, &v), 0, "asleep, yet the sample succeeded");
        cr_assert(strstr(r.d.msg, "asleep"), "%s", r.d.msg);
    }
    cr_assert_eq(fa_stats(r.fa)->woken, 0, "the sleeping GPU was touched");
    fa_set_power(r.fa, "active");
    run_on(&r, "suspended and back", before);
    finish(&r, "suspended and back");
}

/* Through the sampler thread: the header's RETRYING with the source's
 * message while the device is gone, counts in published snapshots after. */
Test(faults_amdgpu, sampler_shows_retrying_and_resumes, .timeout = 60)
{
    struct run r;

    init_clock(&r, 0);      /* the sampler's thread runs on real time */
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    fault_sampler_vanish_and_return(r.s, &r.fs, ENODEV, r.active, GT_ERR_NODEV);
    finish(&r, "under the sampler");
}

/* An unbind and bind (eGPU unplugged, driver reloaded): the old files
 * answer ENODEV for good, so counting resumes only on new ones, with the
 * counters set up again on the reset GPU. */
Test(faults_amdgpu, unplugged_and_bound_again_reopens)
{
    struct run r;
    uint64_t v;

    init(&r);
    cr_assert_eq(start(&r), 0, "%s", r.d.msg);
    cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
    fa_unplug(r.fa);
    for (int i = 0; i < 3; i++) {
        cr_assert_lt(sample(&r, &v), 0, "unplugged, yet the sample succeeded");
        cr_assert(strstr(r.d.msg, "/dev/dri/renderD128"), "%s", r.d.msg);
    }
    fa_replug(r.fa);
    unsigned long long before = fa_stats(r.fa)->counted_ns;
    run_on(&r, "unplugged and bound again", before);
    finish(&r, "unplugged and bound again");
}

/* The layout shows each gpu_metrics row as its sum over the interval's
 * reads divided by GPU_METRICS_READS: a read that failed must not count
 * as a read of zeros (the fake's blob is the same every read, so each
 * row of a good sample equals the clean one's). */
Test(faults_amdgpu, a_failed_gpu_metrics_read_is_not_a_reading_of_zero)
{
    struct fs_site site;
    uint64_t clean[512];
    size_t nrows = 0;
    int idx[512];

    memset(&site, 0, sizeof(site));
    site.call = FS_READ;
    snprintf(site.file, sizeof(site.file), "/sys/class/drm/renderDN/device/gpu_metrics");
    for (size_t e = 0; e < FS_NERRNOS; e++) {
        struct run r;
        uint64_t v;
        int rc;

        init(&r);
        /* Rows only gpu_metrics has (no sensor stands in for them). */
        fa_set_metric(r.fa, 94, 2, 1200);      /* average_dram_reads, MB/s */
        fa_set_metric(r.fa, 96, 2, 300);       /* average_dram_writes */
        fa_set_metric(r.fa, 124, 4, 15000);    /* average_gfx_power, mW */
        cr_assert_eq(start(&r), 0, "%s", r.d.msg);
        cr_assert_eq(sample(&r, &v), 0, "%s", r.d.msg);
        nrows = 0;
        for (size_t k = 0; k < r.s->catalog.ncounters && nrows < 512; k++)
            if (strncmp(r.s->catalog.counters[k].name, "GPU_METRICS_", 12) == 0 ||
                strcmp(r.s->catalog.counters[k].block, "gpu_metrics") == 0) {
                idx[nrows] = (int)k;
                clean[nrows++] = slot(&r, (int)k);
            }
        cr_assert_gt(nrows, 1, "no gpu_metrics rows");
        fs_arm(&r.fs, site, fs_errnos[e], 1);
        rc = sample(&r, &v);
        cr_assert_eq(r.fs.injected, 1, "the gpu_metrics read was not reached");
        if (rc < 0) {
            cr_assert(strstr(r.d.msg, "gpu_metrics"), "%s", r.d.msg);
        } else {
            for (size_t i = 0; i < nrows; i++)
                cr_assert_eq(slot(&r, idx[i]), clean[i], "%s: %s is %llu, was %llu",
                             strerror(fs_errnos[e]), r.s->catalog.counters[idx[i]].name,
                             (unsigned long long)slot(&r, idx[i]),
                             (unsigned long long)clean[i]);
        }
        finish(&r, "gpu_metrics read failed");
    }
}
