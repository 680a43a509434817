/* A stop while the sampler drains kbase's ring (issue 46: "every sample
 * delivered with exact values"): the real sampler thread on the fake
 * kernel in its virtual-clock mode, so the ticks before the stop are
 * known. What the ring held at the stop and the last sample ending
 * periodic mode gives (kinstr_prfcnt's STOP sample, the legacy reader's
 * final dump) reach the capture; batch rows (-n) keep the capture to
 * the rows; the kernels whose periodic STOP races give no wrong sample;
 * and the binary's -d rows and capture hold every sample the kernel
 * wrote. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakes/fake_kbase.h"
#include "fakes/fault_sys.h"
#include "fakes/mali_harness.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

#define MS 1000000ull
#define S 1000000000ull
#define ACTIVE "MaliGPUCyclesGPUActive"
#define MAXGOT 64

/* What on_sample (the recorder's hook) was handed, on the sampler thread. */
struct got {
    pthread_mutex_t lock;
    int n;
    uint64_t start[MAXGOT], end[MAXGOT], v[MAXGOT];
    uint32_t slot;
};

struct rig {
    struct fake_kbase *fk;
    struct gt_source *src;
    struct gt_sampler *s;
    struct got got;
    uint32_t off;
    struct gt_diag d;
};

static int collect(void *arg, const struct gt_snapshot *snap, struct gt_diag *d)
{
    struct got *g = arg;

    (void)d;
    pthread_mutex_lock(&g->lock);
    if (g->n < MAXGOT) {
        g->start[g->n] = snap->t_start_ns;
        g->end[g->n] = snap->t_end_ns;
        g->v[g->n] = snap->deltas[g->slot];
    }
    g->n++;
    pthread_mutex_unlock(&g->lock);
    return 0;
}

static int got_n(struct got *g)
{
    int n;

    pthread_mutex_lock(&g->lock);
    n = g->n;
    pthread_mutex_unlock(&g->lock);
    return n;
}

/* The fake kernel with `delta` a dump at ACTIVE's (block, index), the
 * Mali source on it, and the sampler at a 4 s period (the legacy
 * reader's SET_INTERVAL takes 4.29 s at most), started: the kernel
 * samples on the 4 s grid (the fake's clock starts at 1000 s) and the
 * thread sleeps 4 s before its first drain, so the test moves the fake's
 * clock while the thread sleeps. */
static void rig_up_on(struct rig *r, struct fake_kbase *fk, const struct gt_sys *sys,
                      unsigned index, uint64_t delta, int each_drained)
{
    struct gt_sampler_config cfg;
    int k;

    memset(r, 0, sizeof(*r));
    pthread_mutex_init(&r->got.lock, NULL);
    r->fk = fk;
    fk_set_counter(fk, FK_FE, 0, index, delta);
    r->src = gt_source_open("mali", sys, &r->d);
    cr_assert_not_null(r->src, "%s", r->d.msg);
    k = gt_catalog_find(&r->src->catalog, ACTIVE);
    cr_assert_geq(k, 0);
    r->got.slot = r->src->catalog.counters[k].slot;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &r->src;
    cfg.nsources = 1;
    cfg.slot_offset = &r->off;
    cfg.nslots = r->src->catalog.nslots;
    cfg.interval_ns = 4 * S;
    cfg.on_sample = collect;
    cfg.arg = &r->got;
    cfg.each_drained = each_drained;
    r->s = gt_sampler_new(&cfg);
    cr_assert_not_null(r->s);
    cr_assert_eq(gt_sampler_start(r->s, &r->d), 0, "%s", r->d.msg);
}

static void rig_up(struct rig *r, struct fake_kbase *fk, unsigned index, uint64_t delta,
                   int each_drained)
{
    rig_up_on(r, fk, fk_sys(fk), index, delta, each_drained);
}

static void rig_down(struct rig *r)
{
    const struct fk_stats *st;

    gt_sampler_free(r->s);
    gt_source_close(r->src);
    st = fk_stats(r->fk);
    cr_expect_eq(st->open_fds, 0, "file descriptors left open: %d", st->open_fds);
    cr_expect_eq(st->protocol_errors, 0, "protocol errors: %s", st->last_error);
    fk_free(r->fk);
    pthread_mutex_destroy(&r->got.lock);
}

/* Sample i of the capture: [start, end] holding v. */
static void expect_got(struct rig *r, int i, uint64_t start, uint64_t end, uint64_t v)
{
    cr_expect_eq(r->got.start[i], start, "sample %d starts at %llu, not %llu", i,
                 (unsigned long long)r->got.start[i], (unsigned long long)start);
    cr_expect_eq(r->got.end[i], end, "sample %d ends at %llu, not %llu", i,
                 (unsigned long long)r->got.end[i], (unsigned long long)end);
    cr_expect_eq(r->got.v[i], v, "sample %d holds %llu, not %llu", i,
                 (unsigned long long)r->got.v[i], (unsigned long long)v);
}

Test(kbase_periodic_stop, kinstr_stop_delivers_the_ring_and_the_stop_sample)
{
    struct rig r;

    /* From 1000 s: START, then the manual client's STOP for the periodic
     * set-up (the fake's manual step, 100 ms: [1000, 1000.1]); periodic
     * from the next 4 s tick. 13 s on: ticks at 1004, 1008, 1012 wait in
     * the ring when the sampler stops at 1013.1, and STOP writes what was
     * counted since 1012 (the fake: one dump's worth). */
    rig_up(&r, fake(FK_G720, FK_CSF, 1, 24), 4, 1000, 0);
    fk_advance(r.fk, 13 * S);
    gt_sampler_stop(r.s);
    cr_assert_eq(got_n(&r.got), 5, "the STOP sample of the set-up, 3 ticks and the STOP "
                 "sample of the stop: %d", got_n(&r.got));
    expect_got(&r, 0, 1000 * S, 1000 * S + 100 * MS, 1000);
    expect_got(&r, 1, 1000 * S + 100 * MS, 1004 * S, 1000);
    expect_got(&r, 2, 1004 * S, 1008 * S, 1000);
    expect_got(&r, 3, 1008 * S, 1012 * S, 1000);
    expect_got(&r, 4, 1012 * S, 1013 * S + 100 * MS, 1000);
    rig_down(&r);
}

Test(kbase_periodic_stop, legacy_stop_delivers_the_ring_and_a_last_dump)
{
    struct rig r;

    /* start(): CLEAR and a DUMP that only fixes the start (1000.1 s);
     * SET_INTERVAL 4 s ticks at 1004, 1008, 1012. At the stop, 1013.1 s,
     * periodic dumps stop and a last manual DUMP (the fake's step: at
     * 1013.2 s) collects what was counted since 1012. */
    rig_up(&r, fake(FK_T830, FK_JM, 11, 20), 6, 777, 0);
    fk_advance(r.fk, 13 * S);
    gt_sampler_stop(r.s);
    cr_assert_eq(got_n(&r.got), 4, "3 ticks and the last dump: %d", got_n(&r.got));
    expect_got(&r, 0, 1000 * S + 100 * MS, 1004 * S, 777);
    expect_got(&r, 1, 1004 * S, 1008 * S, 777);
    expect_got(&r, 2, 1008 * S, 1012 * S, 777);
    expect_got(&r, 3, 1012 * S, 1013 * S + 200 * MS, 777);
    rig_down(&r);
}

/* 40 ticks with nobody draining: the ring fills (kinstr 31 samples, the
 * legacy reader 32 dumps) and the kernel keeps the later ticks' counts
 * for the next sample it can write. At the stop they come in the last
 * one: the capture holds every tick's counts, n samples in all. */
static void full_ring_at_the_stop(struct fake_kbase *fk, unsigned index, uint64_t delta,
                                  int n, uint64_t ticks)
{
    struct rig r;
    uint64_t sum = 0;
    int i;

    rig_up(&r, fk, index, delta, 0);
    fk_advance(r.fk, 40 * 4 * S + 1 * S);
    gt_sampler_stop(r.s);
    cr_assert_eq(got_n(&r.got), n, "%d samples, not %d", got_n(&r.got), n);
    for (i = 0; i < n; i++)
        sum += r.got.v[i];
    cr_expect_eq(sum, ticks * delta, "%llu counted, not %llu ticks' worth",
                 (unsigned long long)sum, (unsigned long long)ticks);
    cr_expect_eq(r.got.v[n - 1], (ticks - (uint64_t)n + 1) * delta,
                 "the last sample holds the ticks that found the ring full and the rest");
    for (i = 1; i < n; i++)
        cr_expect_eq(r.got.start[i], r.got.end[i - 1], "sample %d follows on", i);
    rig_down(&r);
}

Test(kbase_periodic_stop, a_full_ring_at_the_stop_loses_nothing)
{
    /* kinstr: the set-up's STOP sample, 31 ticks, and STOP with the 9
     * ticks that found the ring full and the part period (one more) */
    full_ring_at_the_stop(fake(FK_G720, FK_CSF, 1, 24), 4, 1000, 33, 1 + 40 + 1);
    /* legacy: 32 dumps, and the last DUMP with 8 ticks' counts and its own */
    full_ring_at_the_stop(fake(FK_T830, FK_JM, 11, 20), 6, 777, 33, 40 + 1);
}

/* A source that fails at the stop does not hold it up: what it gave
 * before failing is delivered, the failure is noted, and the stop ends.
 * STOP refused: the ring's samples, no last one, a warning. */
Test(kbase_periodic_stop, a_refused_stop_keeps_the_ring_and_is_said, .timeout = 30)
{
    struct rig r;
    struct fake_kbase *fk = fake(FK_G720, FK_CSF, 1, 24);
    struct fault_sys fs;
    struct fs_site stop = { FS_IOCTL, 0x4010BF00ul, 0, "" };   /* kinstr CMD (STOP) */
    struct gt_sampler_stats st;

    fs_init(&fs, fk_sys(fk));
    rig_up_on(&r, fk, &fs.sys, 4, 1000, 0);
    fk_advance(r.fk, 13 * S);
    fs_arm(&fs, stop, EIO, 1);
    gt_sampler_stop(r.s);
    cr_expect_eq(got_n(&r.got), 4, "the set-up's STOP sample and 3 ticks: %d", got_n(&r.got));
    gt_sampler_get_stats(r.s, &st);
    cr_expect(strstr(st.last_warning, "STOP failed"), "%s", st.last_warning);
    rig_down(&r);
}

/* The device gone at the stop: no sample, an error noted, the stop ends. */
Test(kbase_periodic_stop, a_lost_device_at_the_stop_ends_it, .timeout = 30)
{
    struct rig r;
    struct fake_kbase *fk = fake(FK_T830, FK_JM, 11, 20);
    struct fault_sys fs;
    struct gt_sampler_stats st;

    fs_init(&fs, fk_sys(fk));
    rig_up_on(&r, fk, &fs.sys, 6, 777, 0);
    fk_advance(r.fk, 13 * S);
    fs_vanish(&fs, ENODEV);
    gt_sampler_stop(r.s);
    cr_expect_eq(got_n(&r.got), 0, "nothing counted could be read: %d", got_n(&r.got));
    gt_sampler_get_stats(r.s, &st);
    cr_expect_geq(st.errors, 1);
    cr_expect(strstr(st.last_error, "No such device"), "%s", st.last_error);
    rig_down(&r);
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };

    nanosleep(&ts, NULL);
}

/* Batch rows (-n 3): the reader takes three snapshots and stops the
 * sampler while samples still wait in the ring. A row is written after
 * its snapshot is taken, so the sampler must not record the next sample
 * before the reader asks for it: the capture ends at the third. */
static void rows_then_stop(struct fake_kbase *fk, unsigned index, uint64_t delta)
{
    struct rig r;
    struct gt_snapshot snap;
    int i, waited;

    rig_up(&r, fk, index, delta, 1);
    cr_assert_eq(gt_snapshot_init(&snap, r.src->catalog.nslots), 0);
    fk_advance(r.fk, 21 * S);          /* 5 ticks in the ring */
    gt_sampler_wake_after(r.s, gt_now_ns());   /* a reader due: the thread drains now */
    for (i = 0; i < 3; i++) {
        cr_assert_eq(gt_sampler_take(r.s, &snap, 5 * S), 1, "row %d", i);
        cr_expect_eq(snap.deltas[r.got.slot], delta, "row %d", i);
    }
    /* the writer takes its time with the third row; the capture must not
     * run ahead of it meanwhile (up to 200 ms given to show it) */
    for (waited = 0; waited < 200 && got_n(&r.got) <= 3; waited += 10)
        nap_ms(10);
    gt_sampler_stop(r.s);
    cr_expect_eq(got_n(&r.got), 3, "3 rows, %d samples in the capture", got_n(&r.got));
    gt_snapshot_free(&snap);
    rig_down(&r);
}

Test(kbase_periodic_stop, rows_n_keep_the_capture_to_the_rows, .timeout = 30)
{
    rows_then_stop(fake(FK_G720, FK_CSF, 1, 24), 4, 1000);
    rows_then_stop(fake(FK_T830, FK_JM, 11, 20), 6, 777);
}

Test(kbase_periodic_stop, racy_periodic_stop_kernels_give_no_wrong_sample, .timeout = 30)
{
    struct rig r;
    struct gt_sampler_config cfg;
    int k, waited, n, i;

    /* CSF 1.12: a periodic STOP races the periodic dump and gives an
     * empty sample flagged ERROR, so this kernel is sampled on gputop's
     * timer (manual SAMPLE_SYNC, each one dump's worth); stopping it
     * adds nothing the kernel did not count. */
    memset(&r, 0, sizeof(r));
    pthread_mutex_init(&r.got.lock, NULL);
    r.fk = fake(FK_G715, FK_CSF, 1, 12);
    fk_set_counter(r.fk, FK_FE, 0, 4, 4321);
    r.src = gt_source_open("mali", fk_sys(r.fk), &r.d);
    cr_assert_not_null(r.src, "%s", r.d.msg);
    k = gt_catalog_find(&r.src->catalog, ACTIVE);
    r.got.slot = r.src->catalog.counters[k].slot;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = &r.src;
    cfg.nsources = 1;
    cfg.slot_offset = &r.off;
    cfg.nslots = r.src->catalog.nslots;
    cfg.interval_ns = 5 * MS;
    cfg.on_sample = collect;
    cfg.arg = &r.got;
    r.s = gt_sampler_new(&cfg);
    cr_assert_eq(gt_sampler_start(r.s, &r.d), 0, "%s", r.d.msg);
    for (waited = 0; waited < 5000 && got_n(&r.got) < 4; waited += 10)
        nap_ms(10);
    gt_sampler_stop(r.s);
    n = got_n(&r.got);
    cr_assert_geq(n, 4, "timer rounds: %d", n);
    for (i = 0; i < n && i < MAXGOT; i++) {
        cr_expect_eq(r.got.v[i], 4321, "sample %d of %d holds %llu", i, n,
                     (unsigned long long)r.got.v[i]);
        cr_expect_gt(r.got.end[i], r.got.start[i], "sample %d has an interval", i);
    }
    cr_expect_eq(fk_stats(r.fk)->periodic, 0, "never periodic");
    rig_down(&r);
}

/* ---- the binary: -d rows and the capture hold every sample ---- */

/* The value of key=N in the fake's kbase-final line. */
static long final_stat(const char *out, const char *key)
{
    const char *l = strstr(out, "kbase-final:"), *p;
    char pat[32];

    cr_assert_not_null(l, "%s", out);
    snprintf(pat, sizeof(pat), " %s=", key);
    p = strstr(l, pat);
    cr_assert_not_null(p, "%s", l);
    return atol(p + strlen(pat));
}

/* The value column of CSV rows (time_s, interval_s, time_unix, value):
 * how many rows, and how many hold other than want. */
static int csv_rows(const char *text, double want, int *bad)
{
    char *copy = strdup(text), *line, *save = NULL;
    int rows = 0;

    *bad = 0;
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *a = strchr(line, ','), *b = a ? strchr(a + 1, ',') : NULL,
             *c = b ? strchr(b + 1, ',') : NULL;
        double t, v;
        if (!c || sscanf(line, "%lf,", &t) != 1 || sscanf(c + 1, "%lf", &v) != 1)
            continue;
        rows++;
        *bad += v != want;
    }
    free(copy);
    return rows;
}

static char *replay_rows(const char *cap)
{
    char args[512];
    const char *bin = getenv("GPUTOP_BIN");
    int status;
    char *out;
    FILE *p;
    size_t len = 0, n;
    char chunk[4096];
    FILE *m;

    snprintf(args, sizeof(args), "%s --source replay:%s,speed=max -b -f csv --per-interval "
             "--no-cpu --metrics 'GPU active cycles' 2>/dev/null", bin ? bin : "./gputop", cap);
    out = NULL;
    m = open_memstream(&out, &len);
    p = popen(args, "r");
    cr_assert_not_null(p);
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        fwrite(chunk, 1, n, m);
    status = pclose(p);
    fclose(m);
    cr_assert_eq(status, 0, "%s: %s", args, out);
    return out;
}

/* -d on a kernel-timed run: the rows and the capture cover the samples
 * up to the stop, the ring and the last sample included: every sample
 * the kernel wrote periodically, and the one that ended periodic mode
 * (kinstr: and the set-up's STOP sample before the first tick). */
static void every_sample_to_the_end(const char *kernel, long extra)
{
    char args[512], cap[64];
    char *out, *rec;
    int status, rows, rec_rows, bad, rec_bad;
    long periodic;

    snprintf(cap, sizeof(cap), "/tmp/gputop-stopdrain-%d.cap", (int)getpid());
    unlink(cap);
    snprintf(args, sizeof(args), "%s real-clock 0:0:4=700 0:0:6=700 -- -b -f csv -d 400ms -i 2 "
             "--no-cpu --metrics 'GPU active cycles' --record %s", kernel, cap);
    out = run(args, &status);
    cr_assert_eq(status, 0, "%s", out);
    periodic = final_stat(out, "periodic");
    rows = csv_rows(out, 700, &bad);
    rec = replay_rows(cap);
    rec_rows = csv_rows(rec, 700, &rec_bad);
    unlink(cap);
    cr_expect_gt(periodic, 100, "%s: the kernel sampled at 1 ms", kernel);
    cr_expect_eq(rows, periodic + extra, "%s: %d rows for %ld periodic samples", kernel, rows,
                 periodic);
    cr_expect_eq(rec_rows, rows, "%s: %d records in the capture, %d rows", kernel, rec_rows,
                 rows);
    cr_expect_eq(bad, 0, "%s: every row 700", kernel);
    cr_expect_eq(rec_bad, 0, "%s: every record 700", kernel);
    free(rec);
    free(out);
}

Test(kbase_periodic_stop, d_rows_and_capture_hold_every_sample, .timeout = 60)
{
    every_sample_to_the_end("G720 csf 1.24", 2);
    every_sample_to_the_end("T830 jm 11.20", 1);
}
