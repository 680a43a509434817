/* The fake kbase kernel's periodic modes, checked by raw byte offsets
 * against the facts of reference/mali/kbase.md: the ring filled at the
 * period from the fake's clock, the 100 us minimum, period 0 refused, 31
 * kinstr samples at most with OVERFLOW on the next, the legacy reader's
 * skipped dumps stretched into the next, and the buggy kernels' periodic
 * STOP race; and on the real clock, the fake's worker thread filling the
 * ring while nobody calls. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fakes/fake_kbase.h"
#include "fakes/mali_harness.h"

#define MS 1000000ull

static uint64_t rd(const void *p, size_t off, size_t n)
{
    const uint8_t *b = (const uint8_t *)p + off;
    uint64_t v = 0;

    while (n--)
        v = (v << 8) | b[n];
    return v;
}

static void wr(void *p, size_t off, size_t n, uint64_t v)
{
    uint8_t *b = (uint8_t *)p + off;

    for (size_t i = 0; i < n; i++, v >>= 8)
        b[i] = (uint8_t)v;
}

struct raw {
    struct fake_kbase *fk;
    const struct gt_sys *sys;
    int dev, reader;
    uint8_t *map;
    size_t map_len;
};

static int rioctl(struct raw *r, int fd, unsigned long req, void *arg)
{
    return r->sys->ioctl(r->sys->ctx, fd, req, arg);
}

static void dev_open(struct raw *r, enum fk_gpu gpu, enum fk_api api, unsigned major,
                     unsigned minor)
{
    uint8_t v[4] = { 0 }, fl[4] = { 0 };

    memset(r, 0, sizeof(*r));
    r->fk = fake(gpu, api, major, minor);
    r->sys = fk_sys(r->fk);
    r->dev = r->sys->open(r->sys->ctx, "/dev/mali0", O_RDWR);
    cr_assert_geq(r->dev, 0);
    cr_assert_eq(rioctl(r, r->dev, api == FK_CSF ? 0xC0048034ul : 0xC0048000ul, v), 0);
    wr(fl, 0, 4, 2);
    cr_assert_eq(rioctl(r, r->dev, 0x40048001ul, fl), 0);
}

/* kinstr_prfcnt set up with [MODE, ENABLE of the front end, sentinel]:
 * the reader fd, or -1 with errno. */
static int kinstr_setup(struct raw *r, int mode, uint64_t period)
{
    uint8_t info[16] = { 0 }, list[8 * 32], req[3 * 32], setup[16];

    cr_assert_eq(rioctl(r, r->dev, 0xC0108038ul, info), 0);
    wr(info, 8, 8, (uintptr_t)list);
    cr_assert_eq(rioctl(r, r->dev, 0xC0108038ul, info), 0);
    memset(req, 0, sizeof(req));
    wr(req, 0, 2, 0x1000);
    wr(req, 8, 1, (uint64_t)mode);
    wr(req, 16, 8, period);
    wr(req + 32, 0, 2, 0x1001);
    wr(req + 32, 8, 1, 0);                 /* the front end, primary set */
    wr(req + 32, 16, 8, ~0ull);
    wr(req + 32, 24, 8, ~0ull);
    wr(setup, 0, 4, 3);
    wr(setup, 4, 4, 32);
    wr(setup, 8, 8, (uintptr_t)req);
    r->reader = rioctl(r, r->dev, 0xC0108039ul, setup);
    if (r->reader < 0)
        return -1;
    r->map_len = rd(setup, 4, 4);
    r->map = r->sys->mmap(r->sys->ctx, NULL, r->map_len, PROT_READ, MAP_SHARED, r->reader, 0);
    cr_assert_neq(r->map, MAP_FAILED);
    return r->reader;
}

static int kcmd(struct raw *r, unsigned cmd)
{
    uint8_t c[16] = { 0 };

    wr(c, 0, 2, cmd);
    return rioctl(r, r->reader, 0x4010BF00ul, c);
}

static int readable(struct raw *r)
{
    struct pollfd p = { r->reader, POLLIN, 0 };

    return r->sys->poll(r->sys->ctx, &p, 1, 0) == 1 && (p.revents & POLLIN);
}

struct ksample {
    uint64_t start, end, seq;
    uint32_t flags;
    uint64_t fe6;              /* front-end value 6 */
};

/* Takes the oldest kinstr sample: its metadata and front-end value 6. */
static int kinstr_take(struct raw *r, struct ksample *out)
{
    uint8_t a[16] = { 0 };
    size_t off;

    if (!readable(r))
        return -1;
    cr_assert_eq(rioctl(r, r->reader, 0x8010BF01ul, a), 0);
    off = rd(a, 8, 8);
    cr_assert_eq(rd(r->map, off, 2), 0x2000, "the SAMPLE item comes first");
    out->start = rd(r->map, off + 8, 8);
    out->end = rd(r->map, off + 16, 8);
    out->seq = rd(r->map, off + 24, 8);
    out->flags = (uint32_t)rd(r->map, off + 40, 4);
    out->fe6 = 0;
    for (off += 48; rd(r->map, off, 2) != 0; off += 48)
        if (rd(r->map, off, 2) == 0x2002 && rd(r->map, off + 8, 1) == 0)
            out->fe6 = rd(r->map, rd(r->map, off + 16, 4) + 6 * 8, 8);
    cr_assert_eq(rioctl(r, r->reader, 0x4010BF10ul, a), 0);
    return 0;
}

static void raw_close(struct raw *r)
{
    cr_assert_eq(fk_stats(r->fk)->protocol_errors, 0, "%s", fk_stats(r->fk)->last_error);
    fk_free(r->fk);
}

/* ---- kinstr_prfcnt ---- */

Test(fake_kbase_periodic, kinstr_fills_the_ring_at_the_period)
{
    struct raw r;
    struct ksample s;
    uint64_t t0;
    int i;

    dev_open(&r, FK_G720, FK_CSF, 1, 21);
    fk_set_counter(r.fk, FK_FE, 0, 6, 700);
    cr_assert_geq(kinstr_setup(&r, 1, 2 * MS), 0);
    t0 = fk_now(r.fk);                 /* 1000 s: a whole multiple of 2 ms */
    cr_assert_eq(kcmd(&r, 1), 0);
    cr_assert_not(readable(&r), "START takes no sample");
    fk_advance(r.fk, 2 * MS - 1);
    cr_assert_not(readable(&r), "nothing before the first tick");
    fk_advance(r.fk, 1 + 8 * MS);      /* ticks at 2, 4, 6, 8 and 10 ms */
    for (i = 0; i < 5; i++) {
        cr_assert_eq(kinstr_take(&r, &s), 0, "sample %d", i);
        cr_assert_eq(s.start, t0 + (uint64_t)i * 2 * MS);
        cr_assert_eq(s.end, t0 + (uint64_t)(i + 1) * 2 * MS);
        cr_assert_eq(s.seq, (uint64_t)i);
        cr_assert_eq(s.flags, 0);
        cr_assert_eq(s.fe6, 700);
    }
    cr_assert_neq(kinstr_take(&r, &s), 0, "five ticks, five samples");
    /* SAMPLE_SYNC is for manual mode only */
    cr_assert_eq(kcmd(&r, 2), 0);
    cr_assert_eq(kinstr_take(&r, &s), 0, "STOP writes the last sample");
    cr_assert_eq(s.end, t0 + 10 * MS);
    cr_assert_eq(s.fe6, 700);
    fk_advance(r.fk, 10 * MS);
    cr_assert_not(readable(&r), "no ticks once stopped");
    raw_close(&r);
}

Test(fake_kbase_periodic, kinstr_period_under_100us_is_raised_and_0_refused)
{
    struct raw r;
    struct ksample s;
    uint64_t t0;

    dev_open(&r, FK_G715, FK_CSF, 1, 21);
    cr_assert_lt(kinstr_setup(&r, 1, 0), 0, "period 0");
    cr_assert_eq(errno, EINVAL);
    cr_assert_geq(kinstr_setup(&r, 1, 40000), 0);
    cr_assert_eq(fk_stats(r.fk)->period, 100000);
    t0 = fk_now(r.fk);
    cr_assert_eq(kcmd(&r, 1), 0);
    fk_advance(r.fk, 250000);          /* ticks at 100 and 200 us */
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.end - s.start, 100000);
    cr_assert_eq(s.end, t0 + 100000);
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.end, t0 + 200000);
    cr_assert_neq(kinstr_take(&r, &s), 0);
    raw_close(&r);
}

Test(fake_kbase_periodic, kinstr_full_ring_gives_overflow_without_losing_counts)
{
    struct raw r;
    struct ksample s;
    uint64_t t0;
    int i;

    dev_open(&r, FK_G720, FK_CSF, 1, 21);
    fk_set_counter(r.fk, FK_FE, 0, 6, 3);
    cr_assert_geq(kinstr_setup(&r, 1, 1 * MS), 0);
    t0 = fk_now(r.fk);
    cr_assert_eq(kcmd(&r, 1), 0);
    fk_advance(r.fk, 40 * MS);         /* 40 ticks: 31 fit, 9 find it full */
    cr_assert_eq(fk_stats(r.fk)->periodic, 31);
    cr_assert_eq(fk_stats(r.fk)->skipped, 9);
    for (i = 0; i < 31; i++) {
        cr_assert_eq(kinstr_take(&r, &s), 0, "sample %d", i);
        cr_assert_eq(s.flags, 0);
    }
    cr_assert_neq(kinstr_take(&r, &s), 0, "31 samples at most");
    fk_advance(r.fk, 1 * MS);          /* tick 41 finds room */
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.flags & 1u, 1u, "OVERFLOW");
    cr_assert_eq(s.start, t0 + 31 * MS, "stretched back to the last sample");
    cr_assert_eq(s.end, t0 + 41 * MS);
    cr_assert_eq(s.fe6, 10 * 3, "ten periods' counts");
    fk_advance(r.fk, 1 * MS);
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.flags, 0, "the flag is cleared after one sample");
    cr_assert_eq(s.fe6, 3);
    raw_close(&r);
}

Test(fake_kbase_periodic, kinstr_stop_on_a_full_ring_uses_the_reserved_buffer)
{
    struct raw r;
    struct ksample s;
    int i;

    dev_open(&r, FK_G720, FK_CSF, 1, 21);
    fk_set_counter(r.fk, FK_FE, 0, 6, 5);
    cr_assert_geq(kinstr_setup(&r, 1, 1 * MS), 0);
    cr_assert_eq(kcmd(&r, 1), 0);
    fk_advance(r.fk, 33 * MS);         /* 31 samples, 2 ticks owed */
    cr_assert_eq(kcmd(&r, 2), 0);
    for (i = 0; i < 31; i++)
        cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(kinstr_take(&r, &s), 0, "the 32nd buffer holds the STOP sample");
    cr_assert_eq(s.flags & 1u, 1u);
    cr_assert_eq(s.fe6, 3 * 5, "the two owed ticks and the STOP's own");
    raw_close(&r);
}

Test(fake_kbase_periodic, buggy_kernel_periodic_stop_races)
{
    struct raw r;
    struct ksample s;

    dev_open(&r, FK_G715, FK_CSF, 1, 12);      /* 1.10 .. 1.16: the race */
    fk_set_counter(r.fk, FK_FE, 0, 6, 9);
    cr_assert_geq(kinstr_setup(&r, 1, 1 * MS), 0);
    cr_assert_eq(kcmd(&r, 1), 0);
    fk_advance(r.fk, 1 * MS + MS / 2);
    cr_assert_eq(kcmd(&r, 2), 0);
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.fe6, 9);
    cr_assert_eq(kinstr_take(&r, &s), 0, "the STOP sample");
    cr_assert_eq(s.flags, 1u << 30, "flagged ERROR");
    cr_assert_eq(s.fe6, 0, "and empty");
    raw_close(&r);
}

/* ---- the legacy reader ---- */

struct lsample {
    uint64_t ts;
    uint32_t event;
    uint32_t fe6;
};

static int legacy_setup(struct raw *r, uint32_t buffers)
{
    uint8_t s[20] = { 0 }, size[4] = { 0 };

    wr(s, 0, 4, buffers);
    wr(s, 4, 4, 0xFFFFFFFFu);
    r->reader = rioctl(r, r->dev, 0x40148008ul, s);
    cr_assert_geq(r->reader, 0);
    cr_assert_eq(rioctl(r, r->reader, 0x8004BE01ul, size), 0);
    r->map_len = rd(size, 0, 4);
    r->map = r->sys->mmap(r->sys->ctx, NULL, r->map_len * buffers, PROT_READ, MAP_SHARED,
                          r->reader, 0);
    cr_assert_neq(r->map, MAP_FAILED);
    return r->reader;
}

static int set_interval(struct raw *r, uint32_t ns)
{
    return rioctl(r, r->reader, 0x4004BE30ul, (void *)(uintptr_t)ns);
}

static int legacy_take(struct raw *r, struct lsample *out)
{
    uint8_t md[16] = { 0 };

    if (!readable(r))
        return -1;
    cr_assert_eq(rioctl(r, r->reader, 0x8010BE20ul, md), 0);
    out->ts = rd(md, 0, 8);
    out->event = (uint32_t)rd(md, 8, 4);
    out->fe6 = (uint32_t)rd(r->map, rd(md, 12, 4) * r->map_len + 6 * 4, 4);
    cr_assert_eq(rioctl(r, r->reader, 0x4010BE21ul, md), 0);
    return 0;
}

Test(fake_kbase_periodic, legacy_set_interval_dumps_at_the_period)
{
    struct raw r;
    struct lsample s;
    uint64_t t0;
    int i;

    dev_open(&r, FK_T830, FK_JM, 11, 20);
    fk_set_counter(r.fk, FK_FE, 0, 6, 1234);
    legacy_setup(&r, 8);
    t0 = fk_now(r.fk);
    cr_assert_eq(set_interval(&r, 5 * MS), 0);
    fk_advance(r.fk, 15 * MS);
    for (i = 1; i <= 3; i++) {
        cr_assert_eq(legacy_take(&r, &s), 0, "dump %d", i);
        cr_assert_eq(s.ts, t0 + (uint64_t)i * 5 * MS, "the timestamp is the interval's end");
        cr_assert_eq(s.event, 1, "BASE_HWCNT_READER_EVENT_PERIODIC");
        cr_assert_eq(s.fe6, 1234);
    }
    cr_assert_neq(legacy_take(&r, &s), 0);
    cr_assert_eq(set_interval(&r, 0), 0, "0 stops, passed by value");
    fk_advance(r.fk, 15 * MS);
    cr_assert_neq(legacy_take(&r, &s), 0);
    cr_assert_eq(set_interval(&r, 1000), 0);
    cr_assert_eq(fk_stats(r.fk)->period, 100000, "1 us raised to 100 us");
    raw_close(&r);
}

Test(fake_kbase_periodic, legacy_full_ring_stretches_the_next_dump)
{
    struct raw r;
    struct lsample s;
    uint64_t t0;
    int i;

    dev_open(&r, FK_T830, FK_JM, 11, 20);
    fk_set_counter(r.fk, FK_FE, 0, 6, 10);
    legacy_setup(&r, 4);
    t0 = fk_now(r.fk);
    cr_assert_eq(set_interval(&r, 1 * MS), 0);
    fk_advance(r.fk, 7 * MS);          /* 4 dumps fit, 3 ticks skipped */
    cr_assert_eq(fk_stats(r.fk)->skipped, 3);
    for (i = 1; i <= 4; i++) {
        cr_assert_eq(legacy_take(&r, &s), 0);
        cr_assert_eq(s.ts, t0 + (uint64_t)i * MS);
        cr_assert_eq(s.fe6, 10);
    }
    fk_advance(r.fk, 1 * MS);
    cr_assert_eq(legacy_take(&r, &s), 0);
    cr_assert_eq(s.ts, t0 + 8 * MS, "four periods after the last dump");
    cr_assert_eq(s.fe6, 40, "with the skipped ticks' counts");
    raw_close(&r);
}

/* ---- the real clock: the fake's worker thread takes the ticks ----
 * As kbase's dump worker does (mali_kbase_kinstr_prfcnt.c,
 * mali_kbase_vinstr.c), not the caller of the next seam call: the ring
 * fills while nobody calls. No figure here depends on timing; a fake
 * without its worker never fills the ring and the test times out. */

/* The device on the real clock, front-end value 6 counting fe6 a period. */
static void real_open(struct raw *r, enum fk_gpu gpu, enum fk_api api, unsigned major,
                      unsigned minor, uint64_t fe6)
{
    dev_open(r, gpu, api, major, minor);
    fk_real_clock(r->fk);
    fk_set_counter(r->fk, FK_FE, 0, 6, fe6);
}

/* Waits, making no call into the fake but fk_stats, until the worker has
 * written n periodic samples, or found the ring full `skipped` times. */
static void await_worker(struct raw *r, uint64_t n, uint64_t skipped)
{
    for (;;) {
        const struct fk_stats *st = fk_stats(r->fk);
        if (st->periodic >= n && st->skipped >= skipped)
            return;
        nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
    }
}

/* Whether a thread of this process is named name. */
static int thread_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int found = 0;

    cr_assert_not_null(d);
    while (!found && (e = readdir(d))) {
        char path[300], comm[32] = "";
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (f && fgets(comm, sizeof(comm), f))
            found = strncmp(comm, name, strlen(name)) == 0 && comm[strlen(name)] == '\n';
        if (f)
            fclose(f);
    }
    closedir(d);
    return found;
}

Test(fake_kbase_periodic, real_clock_worker_fills_the_kinstr_ring_on_the_grid, .timeout = 20)
{
    struct raw r;
    struct ksample s, prev = { 0 };
    int i;

    real_open(&r, FK_G720, FK_CSF, 1, 24, 700);
    cr_assert(thread_named("fk-kworker"), "the worker is a thread of its own, named");
    cr_assert_geq(kinstr_setup(&r, 1, 1 * MS), 0);
    cr_assert_eq(kcmd(&r, 1), 0);
    await_worker(&r, 4, 0);
    for (i = 0; i < 4; i++) {
        cr_assert_eq(kinstr_take(&r, &s), 0, "sample %d", i);
        cr_assert_eq(s.end % MS, 0, "sample %d ends on a tick of the period", i);
        cr_assert_gt(s.end, s.start);
        cr_assert_eq(s.seq, (uint64_t)i);
        if (i)
            cr_assert_eq(s.start, prev.end, "each from the last");
        /* a ring that filled meanwhile stretches a sample over whole
         * periods, with each one's counts */
        if (!s.flags && i) {
            cr_assert_eq(s.end - s.start, MS);
            cr_assert_eq(s.fe6, 700);
        } else if (i) {
            cr_assert_eq(s.fe6, 700 * ((s.end - s.start) / MS));
        }
        prev = s;
    }
    cr_assert_eq(kcmd(&r, 2), 0);
    raw_close(&r);
    /* fk_free joined it; the kernel drops the thread's entry just after */
    while (thread_named("fk-kworker"))
        nanosleep(&(struct timespec){ 0, 1000000L }, NULL);
}

Test(fake_kbase_periodic, real_clock_worker_full_kinstr_ring_overflows_with_every_count,
     .timeout = 20)
{
    struct raw r;
    struct ksample s;
    int i;

    real_open(&r, FK_G720, FK_CSF, 1, 24, 3);
    cr_assert_geq(kinstr_setup(&r, 1, 1 * MS), 0);
    cr_assert_eq(kcmd(&r, 1), 0);
    await_worker(&r, 0, 2);
    cr_assert_eq(fk_stats(r.fk)->periodic, 31, "31 samples, then the ring is full");
    for (i = 0; i < 31; i++)
        cr_assert_eq(kinstr_take(&r, &s), 0, "sample %d", i);
    await_worker(&r, 32, 0);
    cr_assert_eq(kinstr_take(&r, &s), 0);
    cr_assert_eq(s.flags & 1u, 1u, "OVERFLOW");
    cr_assert_geq(s.end - s.start, 3 * MS, "over the ticks that found the ring full");
    cr_assert_eq((s.end - s.start) % MS, 0);
    cr_assert_eq(s.fe6, 3 * ((s.end - s.start) / MS), "with each one's counts");
    cr_assert_eq(kcmd(&r, 2), 0);
    raw_close(&r);
}

Test(fake_kbase_periodic, real_clock_worker_legacy_dumps_stretch_over_a_full_ring, .timeout = 20)
{
    struct raw r;
    struct lsample s, prev = { 0 };
    int i;

    real_open(&r, FK_T830, FK_JM, 11, 20, 10);
    legacy_setup(&r, 4);
    cr_assert_eq(set_interval(&r, 1 * MS), 0);
    await_worker(&r, 0, 2);
    cr_assert_eq(fk_stats(r.fk)->periodic, 4, "4 buffers, then the ring is full");
    for (i = 0; i < 4; i++) {
        cr_assert_eq(legacy_take(&r, &s), 0);
        cr_assert_eq(s.ts % MS, 0, "dated on a tick");
        cr_assert_eq(s.event, 1, "periodic");
        cr_assert_eq(s.fe6, 10);
        cr_assert(i == 0 || s.ts == prev.ts + MS);
        prev = s;
    }
    await_worker(&r, 5, 0);
    cr_assert_eq(legacy_take(&r, &s), 0);
    cr_assert_geq(s.ts - prev.ts, 3 * MS, "over the skipped ticks");
    cr_assert_eq(s.fe6, 10 * ((s.ts - prev.ts) / MS), "with their counts");
    raw_close(&r);
}
