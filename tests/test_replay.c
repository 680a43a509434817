/* Random access in captures (the index, seeking) and the replay source's
 * playback controls (pause, step, seek, hold at the end, interrupt). The
 * records hold values the test chose, so each one read back is checked
 * against what was written for its number. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fakes/loopback.h"

#include "gputop/capture.h"
#include "gputop/sampler.h"
#include "gputop/source.h"

extern const struct gt_source_type gt_source_replay;

#define NSLOTS   3
#define T0_NS    5000000000ull
#define STEP_NS  100000000ull           /* 100 ms a record */

/* Record i: slot j holds 1000 * i + j, over [T0 + i * STEP, T0 + (i + 1) * STEP]. */
static uint64_t value(uint64_t i, uint32_t j)
{
    return 1000 * i + j;
}

static void temp_path(char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, len, "%s/gputop-replay-XXXXXX", dir && dir[0] ? dir : "/tmp");
    fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp %s: %s", path, strerror(errno));
    close(fd);
}

/* Writes n records, the header naming layout; offsets[i] is where record
 * i starts (n + 1 entries, the last where the end record starts). */
static void record_naming(const char *path, uint64_t n, uint64_t *offsets, const char *layout)
{
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_capture_writer *w;
    struct gt_snapshot s;
    struct gt_diag d;
    FILE *f;
    uint64_t i;
    uint32_t j;

    memset(&info, 0, sizeof(info));
    snprintf(info.device, sizeof(info.device), "/dev/mali0");
    snprintf(info.layout, sizeof(info.layout), "%s", layout);
    gt_catalog_init(&cat);
    cr_assert_geq(gt_catalog_add(&cat, "MaliGPUCyclesGPUActive", "front-end", GT_COUNTER_DELTA,
                                 NSLOTS, 1.0), 0);
    cr_assert_eq(gt_snapshot_init(&s, NSLOTS), 0);
    w = gt_capture_create(path, &info, &cat, &d);
    cr_assert_not_null(w, "%s", d.msg);
    for (i = 0; i <= n; i++) {
        f = fopen(path, "rb");
        cr_assert_not_null(f);
        cr_assert_eq(fseek(f, 0, SEEK_END), 0);
        offsets[i] = (uint64_t)ftell(f);
        fclose(f);
        if (i == n)
            break;
        for (j = 0; j < NSLOTS; j++)
            s.deltas[j] = value(i, j);
        s.t_start_ns = T0_NS + i * STEP_NS;
        s.t_end_ns = s.t_start_ns + STEP_NS;
        s.nsamples = 1;
        cr_assert_eq(gt_capture_write(w, &s, &d), 0, "%s", d.msg);
    }
    cr_assert_eq(gt_capture_finish(w, &d), 0, "%s", d.msg);
    gt_snapshot_free(&s);
    gt_catalog_free(&cat);
}

static void record(const char *path, uint64_t n, uint64_t *offsets)
{
    record_naming(path, n, offsets, "mali-t8xx");
}

static void truncate_to(const char *path, uint64_t len)
{
    cr_assert_eq(truncate(path, (off_t)len), 0, "%s", strerror(errno));
}

static void flip_byte(const char *path, uint64_t at)
{
    FILE *f = fopen(path, "r+b");
    int c;

    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, (long)at, SEEK_SET), 0);
    c = getc(f);
    cr_assert_eq(fseek(f, (long)at, SEEK_SET), 0);
    putc(c ^ 4, f);
    cr_assert_eq(fclose(f), 0);
}

static void assert_record(const struct gt_snapshot *s, uint64_t i)
{
    uint32_t j;

    cr_assert_eq(s->t_start_ns, T0_NS + i * STEP_NS, "record %llu", (unsigned long long)i);
    cr_assert_eq(s->t_end_ns, T0_NS + (i + 1) * STEP_NS, "record %llu", (unsigned long long)i);
    for (j = 0; j < NSLOTS; j++)
        cr_assert_eq(s->deltas[j], value(i, j), "record %llu slot %u: %llu",
                     (unsigned long long)i, j, (unsigned long long)s->deltas[j]);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* ---- the capture index ---- */

struct opened {
    struct gt_capture_reader *r;
    struct gt_source_info info;
    struct gt_catalog cat;
    struct gt_snapshot s;
};

static void open_capture(struct opened *o, const char *path)
{
    struct gt_diag d;

    gt_catalog_init(&o->cat);
    o->r = gt_capture_open(path, &o->info, &o->cat, &d);
    cr_assert_not_null(o->r, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&o->s, o->cat.nslots), 0);
}

static void close_capture(struct opened *o)
{
    gt_capture_close(o->r);
    gt_snapshot_free(&o->s);
    gt_catalog_free(&o->cat);
}

Test(capture_index, counts_records_and_seeks_to_any)
{
    char path[256];
    uint64_t off[11], n = 0;
    struct opened o;
    struct gt_diag d;

    temp_path(path, sizeof(path));
    record(path, 10, off);
    open_capture(&o, path);
    strcpy(d.msg, "stale");
    cr_assert_eq(gt_capture_index(o.r, &n, &d), 0, "%s", d.msg);
    cr_assert_eq(n, 10);
    cr_assert_str_eq(d.msg, "", "a clean file has no damage to report");
    /* The scan came back: reading starts at the first record. */
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 0);
    cr_assert_eq(gt_capture_seek(o.r, 7, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_offset(o.r), off[7]);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 7);
    cr_assert_eq(gt_capture_records(o.r), 8);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 8);
    cr_assert_eq(gt_capture_seek(o.r, 2, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 2);
    cr_assert_eq(gt_capture_seek(o.r, 10, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 1);
    /* The clean end is not sticky past a seek. */
    cr_assert_eq(gt_capture_seek(o.r, 9, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 9);
    cr_assert_eq(gt_capture_seek(o.r, 11, &d), -1);
    cr_assert(strstr(d.msg, path) && strstr(d.msg, "record 11"), "%s", d.msg);
    close_capture(&o);
    unlink(path);
}

Test(capture_index, seek_without_an_index_is_refused)
{
    char path[256];
    uint64_t off[3];
    struct opened o;
    struct gt_diag d;

    temp_path(path, sizeof(path));
    record(path, 2, off);
    open_capture(&o, path);
    cr_assert_eq(gt_capture_seek(o.r, 0, &d), -1);
    cr_assert(strstr(d.msg, "no index"), "%s", d.msg);
    close_capture(&o);
    unlink(path);
}

Test(capture_index, stops_where_a_cut_short_file_stops)
{
    char path[256];
    uint64_t off[6], n = 0;
    struct opened o;
    struct gt_diag d;
    char want[64];

    temp_path(path, sizeof(path));
    record(path, 5, off);
    truncate_to(path, off[5] - 3);
    open_capture(&o, path);
    cr_assert_eq(gt_capture_index(o.r, &n, &d), 0, "%s", d.msg);
    cr_assert_eq(n, 4);
    /* Where it stops is known from the scan. */
    snprintf(want, sizeof(want), "ends at byte %llu", (unsigned long long)(off[5] - 3));
    cr_assert(strstr(d.msg, path) && strstr(d.msg, "cut short") && strstr(d.msg, want),
              "%s", d.msg);
    cr_assert_eq(gt_capture_seek(o.r, 3, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 3);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 2);
    snprintf(want, sizeof(want), "ends at byte %llu", (unsigned long long)(off[5] - 3));
    cr_assert(strstr(d.msg, "cut short") && strstr(d.msg, want) && strstr(d.msg, "4 complete"),
              "%s", d.msg);
    /* Sticky until a seek. */
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 2);
    cr_assert_eq(gt_capture_seek(o.r, 1, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 1);
    close_capture(&o);
    unlink(path);
}

Test(capture_index, stops_at_a_corrupt_record)
{
    char path[256], want[64];
    uint64_t off[6], n = 0;
    struct opened o;
    struct gt_diag d;

    temp_path(path, sizeof(path));
    record(path, 5, off);
    flip_byte(path, off[2] + 10);            /* inside record 2's timestamps */
    open_capture(&o, path);
    cr_assert_eq(gt_capture_index(o.r, &n, &d), 0, "%s", d.msg);
    cr_assert_eq(n, 2);
    snprintf(want, sizeof(want), "corrupt record at byte %llu", (unsigned long long)off[2]);
    cr_assert(strstr(d.msg, want), "%s", d.msg);
    cr_assert_eq(gt_capture_seek(o.r, 2, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), -1);
    snprintf(want, sizeof(want), "corrupt record at byte %llu", (unsigned long long)off[2]);
    cr_assert(strstr(d.msg, want), "%s", d.msg);
    cr_assert_eq(gt_capture_seek(o.r, 0, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
    assert_record(&o.s, 0);
    close_capture(&o);
    unlink(path);
}

/* Feeds a file into a named pipe from another thread. */
struct feeder {
    const char *from, *fifo;
    pthread_t th;
};

static void *feed(void *arg)
{
    struct feeder *f = arg;
    FILE *in = fopen(f->from, "rb"), *out = fopen(f->fifo, "wb");
    int c;

    while (in && out && (c = getc(in)) != EOF)
        putc(c, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    return NULL;
}

/* A pipe cannot be scanned and come back: no index, but it still reads
 * from start to end. */
Test(capture_index, a_pipe_is_not_indexed_and_still_reads, .timeout = 30)
{
    char path[256], fifo[300];
    uint64_t off[4], n = 99;
    struct feeder f;
    struct opened o;
    struct gt_diag d;
    uint64_t i;

    temp_path(path, sizeof(path));
    record(path, 3, off);
    snprintf(fifo, sizeof(fifo), "%s.fifo", path);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    f.from = path;
    f.fifo = fifo;
    cr_assert_eq(pthread_create(&f.th, NULL, feed, &f), 0);
    open_capture(&o, fifo);
    cr_assert_eq(gt_capture_index(o.r, &n, &d), -1);
    cr_assert_eq(n, 0);
    cr_assert(strstr(d.msg, fifo) && strstr(d.msg, "cannot be indexed"), "%s", d.msg);
    for (i = 0; i < 3; i++) {
        cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 0, "%s", d.msg);
        assert_record(&o.s, i);
    }
    cr_assert_eq(gt_capture_read(o.r, &o.s, &d), 1);
    cr_assert_eq(gt_capture_seek(o.r, 0, &d), -1);
    close_capture(&o);
    pthread_join(f.th, NULL);
    unlink(fifo);
    unlink(path);
}

/* ---- the replay source's controls ---- */

struct player {
    char path[256];
    uint64_t off[16];
    struct gt_source s;
    struct gt_snapshot out;
};

static void open_player(struct player *p, uint64_t n, const char *opts)
{
    char args[400];
    struct gt_diag d;

    temp_path(p->path, sizeof(p->path));
    record(p->path, n, p->off);
    snprintf(args, sizeof(args), "%s%s", p->path, opts);
    memset(&p->s, 0, sizeof(p->s));
    p->s.type = &gt_source_replay;
    p->s.sys = gt_sys_real();
    gt_catalog_init(&p->s.catalog);
    cr_assert_eq(gt_source_replay.open(&p->s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_source_replay.start(&p->s, &d), 0);
    cr_assert_eq(gt_snapshot_init(&p->out, p->s.catalog.nslots), 0);
    cr_assert_eq(gt_source_replay.playback->control(&p->s, GT_PLAYBACK_INDEX, 0), 0);
}

/* Opens an already written (perhaps damaged) file. */
static void reopen_player(struct player *p, const char *opts)
{
    char args[400];
    struct gt_diag d;

    snprintf(args, sizeof(args), "%s%s", p->path, opts);
    memset(&p->s, 0, sizeof(p->s));
    p->s.type = &gt_source_replay;
    p->s.sys = gt_sys_real();
    gt_catalog_init(&p->s.catalog);
    cr_assert_eq(gt_source_replay.open(&p->s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_source_replay.start(&p->s, &d), 0);
    cr_assert_eq(gt_snapshot_init(&p->out, p->s.catalog.nslots), 0);
    cr_assert_eq(gt_source_replay.playback->control(&p->s, GT_PLAYBACK_INDEX, 0), 0);
}

static void close_player(struct player *p)
{
    gt_source_replay.close(&p->s);
    gt_catalog_free(&p->s.catalog);
    gt_snapshot_free(&p->out);
    unlink(p->path);
}

static void next_is(struct player *p, uint64_t i)
{
    struct gt_diag d;

    gt_diag_clear(&d);
    cr_assert_eq(gt_source_replay.sample(&p->s, &p->out, &d), 0, "%s", d.msg);
    assert_record(&p->out, i);
}

static void ctl(struct player *p, int cmd, int64_t arg)
{
    cr_assert_eq(gt_source_replay.playback->control(&p->s, cmd, arg), 0);
}

static struct gt_source_position where(struct player *p, const struct gt_snapshot *shown)
{
    struct gt_source_position pos;

    memset(&pos, 0x55, sizeof(pos));
    gt_source_replay.playback->position(&p->s, shown, &pos);
    return pos;
}

Test(replay_control, step_and_seek_deliver_the_recorded_records)
{
    struct player p;
    struct gt_source_position pos;
    struct gt_diag d;

    open_player(&p, 10, ",speed=max");
    pos = where(&p, NULL);
    cr_assert_eq(pos.k, 0);
    cr_assert_eq(pos.n, 10);
    cr_assert_eq(pos.state, GT_PLAY_PLAYING);
    cr_assert(pos.speed == 0);
    next_is(&p, 0);
    next_is(&p, 1);
    next_is(&p, 2);
    ctl(&p, GT_PLAYBACK_STEP, -1);
    next_is(&p, 1);
    pos = where(&p, NULL);
    cr_assert_eq(pos.k, 2);
    cr_assert_eq(pos.state, GT_PLAY_PAUSED);
    /* Record 1 ends 2 steps after record 0 starts. */
    cr_assert_eq(pos.t_ns, 2 * STEP_NS);
    ctl(&p, GT_PLAYBACK_STEP, -1);
    next_is(&p, 0);
    ctl(&p, GT_PLAYBACK_STEP, -1);             /* nothing before the first */
    next_is(&p, 0);
    ctl(&p, GT_PLAYBACK_STEP, 1);
    next_is(&p, 1);
    ctl(&p, GT_PLAYBACK_SEEK, 8);
    next_is(&p, 8);
    pos = where(&p, NULL);
    cr_assert_eq(pos.k, 9);
    cr_assert_eq(pos.t_ns, 9 * STEP_NS);
    cr_assert_eq(pos.state, GT_PLAY_PAUSED);  /* a seek keeps the state */
    ctl(&p, GT_PLAYBACK_SEEK, 1000);           /* clamped to the last */
    next_is(&p, 9);
    cr_assert_eq(where(&p, NULL).k, 10);
    ctl(&p, GT_PLAYBACK_RESUME, 0);
    cr_assert_eq(where(&p, NULL).state, GT_PLAY_PLAYING);
    /* Without HOLD the end is the end, as batch output needs. */
    cr_assert_eq(gt_source_replay.sample(&p.s, &p.out, &d), 1);
    pos = where(&p, NULL);
    cr_assert_eq(pos.state, GT_PLAY_ENDED);
    cr_assert_str_eq(pos.why, "end of capture");
    cr_assert_str_eq(pos.damage, "");
    cr_assert_str_eq(p.s.info.ended, "");
    close_player(&p);
}

/* Batch output never seeks, so it never pays for the index: without it
 * there is no N and no seeking, and the records play in order. */
Test(replay_control, without_an_index_it_just_plays)
{
    struct player p;
    char args[400];
    struct gt_diag d;

    temp_path(p.path, sizeof(p.path));
    record(p.path, 3, p.off);
    snprintf(args, sizeof(args), "%s,speed=max", p.path);
    memset(&p.s, 0, sizeof(p.s));
    p.s.type = &gt_source_replay;
    gt_catalog_init(&p.s.catalog);
    cr_assert_eq(gt_source_replay.open(&p.s, args, &d), 0, "%s", d.msg);
    cr_assert_eq(gt_snapshot_init(&p.out, p.s.catalog.nslots), 0);
    cr_assert_eq(where(&p, NULL).n, 0);
    cr_assert_eq(gt_source_replay.playback->control(&p.s, GT_PLAYBACK_SEEK, 1), -1);
    next_is(&p, 0);
    cr_assert_eq(gt_source_replay.playback->control(&p.s, GT_PLAYBACK_STEP, -1), -1);
    /* Too late: a record has been read. */
    cr_assert_eq(gt_source_replay.playback->control(&p.s, GT_PLAYBACK_INDEX, 0), -1);
    next_is(&p, 1);
    next_is(&p, 2);
    cr_assert_eq(gt_source_replay.sample(&p.s, &p.out, &d), 1);
    cr_assert_eq(where(&p, NULL).k, 3);
    close_player(&p);
}

Test(replay_control, seek_while_playing_goes_on_from_there)
{
    struct player p;

    open_player(&p, 10, ",speed=max");
    next_is(&p, 0);
    ctl(&p, GT_PLAYBACK_SEEK, 5);
    next_is(&p, 5);
    next_is(&p, 6);
    cr_assert_eq(where(&p, NULL).state, GT_PLAY_PLAYING);
    close_player(&p);
}

/* What is on screen may be a record behind what was read: the position
 * is that of the snapshot shown. */
Test(replay_control, position_is_that_of_the_record_shown)
{
    struct player p;
    struct gt_snapshot shown;
    struct gt_source_position pos;

    open_player(&p, 10, ",speed=max");
    cr_assert_eq(gt_snapshot_init(&shown, NSLOTS), 0);
    next_is(&p, 0);
    next_is(&p, 1);
    gt_snapshot_copy(&shown, &p.out);
    next_is(&p, 2);
    pos = where(&p, &shown);
    cr_assert_eq(pos.k, 2);
    cr_assert_eq(pos.t_ns, 2 * STEP_NS);
    cr_assert_eq(where(&p, &p.out).k, 3);
    cr_assert_eq(where(&p, NULL).k, 3);
    gt_snapshot_free(&shown);
    close_player(&p);
}

/* A record read before a seek, still on its way to the screen when the
 * seek is asked for, is marked stale so that the view drops it rather
 * than showing it after (or instead of) the record sought. */
Test(replay_control, records_read_before_a_seek_are_stale)
{
    struct player p;
    struct gt_snapshot ahead;

    open_player(&p, 10, ",speed=max");
    cr_assert_eq(gt_snapshot_init(&ahead, NSLOTS), 0);
    next_is(&p, 0);
    cr_assert_eq(where(&p, &p.out).stale, 0);
    next_is(&p, 1);
    gt_snapshot_copy(&ahead, &p.out);
    ctl(&p, GT_PLAYBACK_SEEK, 5);
    cr_assert_eq(where(&p, &ahead).stale, 1);
    next_is(&p, 5);
    cr_assert_eq(where(&p, &p.out).stale, 0);
    cr_assert_eq(where(&p, &p.out).k, 6);
    gt_snapshot_copy(&ahead, &p.out);
    ctl(&p, GT_PLAYBACK_STEP, 1);
    cr_assert_eq(where(&p, &ahead).stale, 1);
    next_is(&p, 6);
    cr_assert_eq(where(&p, &p.out).stale, 0);
    cr_assert_eq(where(&p, NULL).stale, 0);
    gt_snapshot_free(&ahead);
    close_player(&p);
}

/* A sample() on its own thread, as the sampler calls it. */
struct call {
    struct player *p;
    pthread_t th;
    int r;
    struct gt_diag d;
};

static void *call_sample(void *arg)
{
    struct call *c = arg;

    gt_diag_clear(&c->d);
    c->r = gt_source_replay.sample(&c->p->s, &c->p->out, &c->d);
    return NULL;
}

static void start_call(struct call *c, struct player *p)
{
    c->p = p;
    c->r = 99;
    cr_assert_eq(pthread_create(&c->th, NULL, call_sample, c), 0);
}

/* Polls until the playback reaches state (no timed assertion: the
 * test's own time-out is the limit). */
static struct gt_source_position wait_state(struct player *p, enum gt_play_state state)
{
    struct timespec ms = { 0, 1000000L };
    struct gt_source_position pos;

    for (;;) {
        pos = where(p, NULL);
        if (pos.state == state)
            return pos;
        nanosleep(&ms, NULL);
    }
}

Test(replay_control, held_at_the_end_until_a_seek, .timeout = 30)
{
    struct player p;
    struct call c;

    open_player(&p, 10, ",speed=max");
    ctl(&p, GT_PLAYBACK_HOLD, 1);
    ctl(&p, GT_PLAYBACK_SEEK, 9);
    next_is(&p, 9);
    start_call(&c, &p);
    wait_state(&p, GT_PLAY_ENDED);
    ctl(&p, GT_PLAYBACK_SEEK, 0);
    pthread_join(c.th, NULL);
    cr_assert_eq(c.r, 0, "%s", c.d.msg);
    assert_record(&p.out, 0);
    cr_assert_eq(where(&p, NULL).state, GT_PLAY_PLAYING);
    close_player(&p);
}

Test(replay_control, paused_until_resumed_or_interrupted, .timeout = 30)
{
    struct player p;
    struct call c;

    open_player(&p, 10, ",speed=max");
    next_is(&p, 0);
    ctl(&p, GT_PLAYBACK_PAUSE, 0);
    start_call(&c, &p);
    ctl(&p, GT_PLAYBACK_RESUME, 0);
    pthread_join(c.th, NULL);
    cr_assert_eq(c.r, 0, "%s", c.d.msg);
    assert_record(&p.out, 1);
    ctl(&p, GT_PLAYBACK_PAUSE, 0);
    start_call(&c, &p);
    ctl(&p, GT_PLAYBACK_INTERRUPT, 0);
    pthread_join(c.th, NULL);
    cr_assert_eq(c.r, 1);
    close_player(&p);
}

Test(replay_control, a_damaged_capture_says_where_it_stopped, .timeout = 30)
{
    struct player p;
    struct gt_source_position pos;
    struct call c;
    char want[64];

    temp_path(p.path, sizeof(p.path));
    record(p.path, 5, p.off);
    truncate_to(p.path, p.off[5] - 3);
    reopen_player(&p, ",speed=max");
    ctl(&p, GT_PLAYBACK_HOLD, 1);
    snprintf(want, sizeof(want), "ends at byte %llu", (unsigned long long)(p.off[5] - 3));
    /* Known from the index, before the replay gets there: shown from the
     * start, and the run fails however far it is watched. */
    pos = where(&p, NULL);
    cr_assert_eq(pos.n, 4);
    cr_assert_eq(pos.state, GT_PLAY_PLAYING);
    cr_assert(strstr(pos.damage, p.path) && strstr(pos.damage, want), "%s", pos.damage);
    /* The shared info gets it once no sampler runs (GT_PLAYBACK_SETTLE). */
    ctl(&p, GT_PLAYBACK_SETTLE, 0);
    cr_assert(strstr(p.s.info.ended, want), "%s", p.s.info.ended);
    next_is(&p, 0);
    next_is(&p, 1);
    next_is(&p, 2);
    next_is(&p, 3);
    start_call(&c, &p);
    pos = wait_state(&p, GT_PLAY_ENDED);
    cr_assert(strstr(pos.why, "cut short") && strstr(pos.why, want), "%s", pos.why);
    cr_assert_null(strstr(pos.why, p.path), "%s", pos.why);
    cr_assert(strstr(pos.damage, p.path) && strstr(pos.damage, want), "%s", pos.damage);
    cr_assert_eq(pos.k, 4);
    ctl(&p, GT_PLAYBACK_INTERRUPT, 0);
    pthread_join(c.th, NULL);
    cr_assert_eq(c.r, 1);
    /* The run's exit status reads it from here. */
    cr_assert(strstr(p.s.info.ended, want), "%s", p.s.info.ended);
    close_player(&p);
}

/* In the dashboard a corrupt record is not an error to retry: the replay
 * stays at the last good record and says where the file is corrupt. */
Test(replay_control, a_corrupt_record_when_held_says_where, .timeout = 30)
{
    struct player p;
    struct gt_source_position pos;
    struct call c;
    char want[64];

    temp_path(p.path, sizeof(p.path));
    record(p.path, 5, p.off);
    flip_byte(p.path, p.off[3] + 10);
    reopen_player(&p, ",speed=max");
    ctl(&p, GT_PLAYBACK_HOLD, 1);
    cr_assert_eq(where(&p, NULL).n, 3);
    ctl(&p, GT_PLAYBACK_SEEK, 2);
    next_is(&p, 2);
    start_call(&c, &p);
    pos = wait_state(&p, GT_PLAY_ENDED);
    snprintf(want, sizeof(want), "corrupt record at byte %llu", (unsigned long long)p.off[3]);
    cr_assert(strstr(pos.why, want), "%s", pos.why);
    cr_assert(strstr(pos.damage, p.path) && strstr(pos.damage, want), "%s", pos.damage);
    cr_assert_eq(pos.k, 3);
    ctl(&p, GT_PLAYBACK_STEP, -1);             /* still steps back from there */
    pthread_join(c.th, NULL);
    cr_assert_eq(c.r, 0, "%s", c.d.msg);
    assert_record(&p.out, 1);
    ctl(&p, GT_PLAYBACK_SETTLE, 0);
    cr_assert(strstr(p.s.info.ended, want), "%s", p.s.info.ended);
    close_player(&p);
}

/* The sampler's stop must not wait for a paused replay to go on. */
Test(replay_control, sampler_stop_ends_a_paused_replay, .timeout = 30)
{
    struct player p;
    struct gt_source *srcs[1];
    uint32_t offset[1] = { 0 };
    struct gt_sampler_config cfg;
    struct gt_sampler *s;
    struct gt_snapshot snap;
    struct gt_diag d;

    open_player(&p, 10, "");
    srcs[0] = &p.s;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = srcs;
    cfg.nsources = 1;
    cfg.slot_offset = offset;
    cfg.nslots = NSLOTS;
    cfg.interval_ns = STEP_NS;
    cfg.lossless = 1;
    s = gt_sampler_new(&cfg);
    cr_assert_not_null(s);
    cr_assert_eq(gt_snapshot_init(&snap, NSLOTS), 0);
    ctl(&p, GT_PLAYBACK_HOLD, 1);
    ctl(&p, GT_PLAYBACK_PAUSE, 0);
    ctl(&p, GT_PLAYBACK_STEP, 1);              /* one record, then it waits */
    cr_assert_eq(gt_sampler_start(s, &d), 0, "%s", d.msg);
    while (gt_sampler_take(s, &snap, 1000000000ull) != 1)
        ;
    assert_record(&snap, 0);
    gt_sampler_stop(s);
    gt_sampler_free(s);
    gt_snapshot_free(&snap);
    close_player(&p);
}

static struct gt_sampler *lossless_sampler(struct player *p, struct gt_source **srcs,
                                           uint32_t *offset)
{
    struct gt_sampler_config cfg;
    struct gt_sampler *s;

    srcs[0] = &p->s;
    offset[0] = 0;
    memset(&cfg, 0, sizeof(cfg));
    cfg.sources = srcs;
    cfg.nsources = 1;
    cfg.slot_offset = offset;
    cfg.nslots = NSLOTS;
    cfg.interval_ns = STEP_NS;
    cfg.lossless = 1;
    s = gt_sampler_new(&cfg);
    cr_assert_not_null(s);
    return s;
}

/* What a view shows and what the replay has read differ by one record
 * at most, so a pause stops the screen at once (or after one record). The
 * wait only gives a wrong sampler time to read further; a right one never
 * does, however long it is given. */
Test(replay_control, lossless_sampling_reads_one_record_ahead_at_most, .timeout = 30)
{
    struct player p;
    struct gt_source *srcs[1];
    uint32_t offset[1];
    struct gt_sampler *s;
    struct gt_snapshot snap;
    struct gt_diag d;

    open_player(&p, 10, ",speed=max");
    s = lossless_sampler(&p, srcs, offset);
    cr_assert_eq(gt_snapshot_init(&snap, NSLOTS), 0);
    cr_assert_eq(gt_sampler_start(s, &d), 0, "%s", d.msg);
    while (gt_sampler_take(s, &snap, 1000000000ull) != 1)
        ;
    assert_record(&snap, 0);
    sleep_ms(300);
    cr_assert_leq(where(&p, NULL).k, 2, "sample %llu read while sample 1 is shown",
                  (unsigned long long)where(&p, NULL).k);
    while (gt_sampler_take(s, &snap, 1000000000ull) != 1)
        ;
    assert_record(&snap, 1);
    gt_sampler_free(s);
    gt_snapshot_free(&snap);
    close_player(&p);
}

/* ---- a hostile header (issue 44 item 2) ---- */

/* Replays a capture naming layout in batch mode: it must end by itself,
 * within a generous bound (a FIFO would hold it forever), saying the
 * layout is not built in and showing nothing of the file named. */
static void refuses_layout(const char *layout)
{
    const char *bin = getenv("GPUTOP_BIN");
    char path[256], spec[300];
    uint64_t off[4];
    struct bg_proc p;
    int status;

    temp_path(path, sizeof(path));
    record_naming(path, 3, off, layout);
    snprintf(spec, sizeof(spec), "replay:%s,speed=max", path);
    char *const argv[] = { (char *)(bin ? bin : "build/native/gputop"), "--source", spec,
                           "--batch", "--count", "1", NULL };
    cr_assert_eq(bg_start(&p, argv), 0);
    int said = bg_wait_err(&p, "which is not built in", 20000);
    status = bg_stop(&p, 0, 10000);     /* signal 0: waits for it to exit */
    cr_assert(said, "layout '%s': not refused within 20 s; stderr: %s", layout, p.err);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "layout '%s': status 0x%x", layout,
              status);
    cr_assert_null(strstr(p.err, "root:"), "%s", p.err);
    unlink(path);
}

Test(replay_header, a_capture_never_names_a_file, .timeout = 120)
{
    char fifo[256];

    refuses_layout("/etc/passwd");
    refuses_layout("/proc/self/environ");
    refuses_layout("/dev/zero");
    refuses_layout("mali-t8xx /etc/passwd");     /* a layout beside the GPU's */
    refuses_layout("passwd");                    /* a bare name, in the working directory */
    temp_path(fifo, sizeof(fifo));
    unlink(fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    refuses_layout(fifo);
    unlink(fifo);
}
