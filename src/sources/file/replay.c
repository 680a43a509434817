/* The replay source: plays back a capture written with --record, at the
 * recorded pace, N times faster, or as fast as it is taken; a view can
 * pause it, step and seek (once it has asked for an index of the records). */
#include "gputop/capture.h"
#include "gputop/source.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One record never holds the replay longer than this (the longest
 * sampling period), however far apart a damaged file's timestamps are or
 * however slow the speed. */
#define REPLAY_MAX_WAIT_NS 10000000000ull
#define REPLAY_MIN_SPEED   0.01
#define REPLAY_MAX_SPEED   1e6
#define RECENT             4     /* deliveries remembered: more than the
                                    sampler can hold between us and a view */

/* A record handed out, so that a view can tell which one it shows. */
struct delivered {
    uint64_t t_start, t_end, k;
    uint64_t moves;           /* steps and seeks asked for before it was read */
};

struct replay {
    struct gt_capture_reader *r;
    double speed;             /* 0: as fast as possible */
    uint64_t count;           /* good records indexed; 0 when not indexed */
    int indexed, have_first;
    uint64_t first_start;     /* the first record's start, for t= */
    pthread_mutex_t lock;     /* everything below, and the reader */
    pthread_cond_t cond;      /* a command arrived */
    uint64_t deadline;        /* CLOCK_MONOTONIC ns the previous record was due */
    uint64_t prev_end;        /* recorded end of the previous record */
    int have_prev;
    int paused, hold, interrupted;
    int at_end;               /* the last read found the end or damage */
    int failed_once;          /* batch: a corrupt record was reported */
    int64_t seek;             /* record to deliver at once, -1 none */
    uint64_t moves;           /* steps and seeks asked for so far */
    struct delivered recent[RECENT];
    unsigned ndelivered;
    char why[256];            /* at_end: why, without the file name */
    /* Written by sample() on the sampler thread, so kept here under the
     * lock and copied into the shared info only once the sampler is
     * joined (GT_PLAYBACK_SETTLE): the main thread reads info unlocked. */
    char detail[sizeof(((struct gt_source_info *)0)->detail)];
    char ended[sizeof(((struct gt_source_info *)0)->ended)];
    char path[PATH_MAX];
};

static int parse_speed(const char *text, double *speed, struct gt_diag *d)
{
    char *end;
    double v;

    if (strcmp(text, "max") == 0) {
        *speed = 0;
        return 0;
    }
    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < REPLAY_MIN_SPEED ||
        v > REPLAY_MAX_SPEED) {
        gt_diag_set(d, "replay: bad speed '%s' (a number from %g to %g, or 'max')", text,
                    REPLAY_MIN_SPEED, REPLAY_MAX_SPEED);
        return -1;
    }
    *speed = v;
    return 0;
}

/* Appends src to dst[size], cutting it short rather than overflowing. */
static void append(char *dst, size_t size, const char *src)
{
    size_t have = strnlen(dst, size), n = strlen(src);

    if (have + 1 >= size)
        return;
    if (n > size - have - 1)
        n = size - have - 1;
    memcpy(dst + have, src, n);
    dst[have + n] = '\0';
}

static void set_text(char *dst, size_t size, const char *src)
{
    dst[0] = '\0';
    append(dst, size, src);
}

static void describe(struct gt_source *s, const char *path)
{
    char was[sizeof(s->info.device)];

    memcpy(was, s->info.device, sizeof(was));
    s->info.device[0] = '\0';
    append(s->info.device, sizeof(s->info.device), "replay of ");
    append(s->info.device, sizeof(s->info.device), path);
    append(s->info.device, sizeof(s->info.device), " (was: ");
    append(s->info.device, sizeof(s->info.device), was);
    append(s->info.device, sizeof(s->info.device), ")");
    s->info.self_paced = 1;
}

static void replay_close(struct gt_source *s)
{
    struct replay *p = s->priv;

    if (!p)
        return;
    gt_capture_close(p->r);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
    s->priv = NULL;
}

static int init_sync(struct replay *p)
{
    pthread_condattr_t a;
    int bad;

    if (pthread_condattr_init(&a))
        return -1;
    bad = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) || pthread_cond_init(&p->cond, &a);
    pthread_condattr_destroy(&a);
    if (bad)
        return -1;
    if (pthread_mutex_init(&p->lock, NULL)) {
        pthread_cond_destroy(&p->cond);
        return -1;
    }
    return 0;
}

/* The reader's message (which names the file) is kept whole for the
 * exit report and the view, and without the file name as the source's
 * detail line and the reason shown beside the position. */
static void keep_message(struct replay *p, const struct gt_diag *d)
{
    const char *m = d->msg;
    size_t n = strlen(p->path);

    if (strncmp(m, p->path, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    set_text(p->detail, sizeof(p->detail), "replay stopped: ");
    append(p->detail, sizeof(p->detail), m);
    set_text(p->ended, sizeof(p->ended), d->msg);
    set_text(p->why, sizeof(p->why), m);
}

/* Called with the lock held once the sampler thread is gone. */
static void settle(struct gt_source *s, const struct replay *p)
{
    if (p->detail[0])
        set_text(s->info.detail, sizeof(s->info.detail), p->detail);
    if (p->ended[0])
        set_text(s->info.ended, sizeof(s->info.ended), p->ended);
}

/* The index gives the record count and random access, and tells at once
 * where a damaged file stops (the view shows it from the start, and the
 * run fails however far it was watched); a capture that cannot be
 * indexed (a pipe) still plays from start to end. */
static int build_index(struct replay *p, uint32_t nslots)
{
    struct gt_snapshot first;
    struct gt_diag d;

    if (p->indexed)
        return 0;
    gt_diag_clear(&d);
    p->indexed = gt_capture_index(p->r, &p->count, &d) == 0;
    if (!p->indexed)
        return -1;
    if (d.msg[0])
        keep_message(p, &d);
    if (p->count == 0 || gt_snapshot_init(&first, nslots) < 0)
        return 0;
    if (gt_capture_read(p->r, &first, &d) == 0) {
        p->first_start = first.t_start_ns;
        p->have_first = 1;
    }
    gt_snapshot_free(&first);
    gt_capture_seek(p->r, 0, &d);
    return 0;
}

/* replay_open's arguments; the type lists them too, for --help's test. */
static const char *const replay_keys[] = { "", "speed", NULL };

static int replay_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    char speed[32];
    struct replay *p;

    if (gt_args_check(args, replay_keys, "replay", d) < 0)
        return -1;
    p = calloc(1, sizeof(*p));
    if (!p) {
        gt_diag_fail(d, GT_ERR_NOMEM, "replay: out of memory");
        return -1;
    }
    if (!gt_args_get(args, "", p->path, sizeof(p->path)) || !p->path[0]) {
        gt_diag_set(d, "replay: no capture file given (replay:FILE[,speed=1|N|max])");
        free(p);
        return -1;
    }
    p->speed = 1;
    p->seek = -1;
    if (gt_args_get(args, "speed", speed, sizeof(speed)) && parse_speed(speed, &p->speed, d) < 0) {
        free(p);
        return -1;
    }
    if (init_sync(p) < 0) {
        gt_diag_set(d, "replay: cannot set up its lock");
        free(p);
        return -1;
    }
    p->r = gt_capture_open(p->path, &s->info, &s->catalog, d);
    if (!p->r) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return -1;
    }
    s->priv = p;
    describe(s, p->path);
    return 0;
}

static int replay_start(struct gt_source *s, struct gt_diag *d)
{
    struct replay *p = s->priv;

    (void)d;
    pthread_mutex_lock(&p->lock);
    p->deadline = gt_now_ns();
    p->have_prev = 0;
    p->interrupted = 0;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

/* The recorded time from the previous record's end (or this one's start,
 * for the first) to this one's end: how long the original run waited. */
static uint64_t recorded_gap(const struct replay *p, const struct gt_snapshot *out)
{
    uint64_t from = p->have_prev ? p->prev_end : out->t_start_ns;

    return out->t_end_ns > from ? out->t_end_ns - from : 0;
}

/* When the record in out is due: on an absolute grid, so the pace does
 * not drift with the time spent reading and in the sampler. */
static uint64_t due_time(const struct replay *p, const struct gt_snapshot *out)
{
    double wait = (double)recorded_gap(p, out) / p->speed;

    return p->deadline + (wait < (double)REPLAY_MAX_WAIT_NS ? (uint64_t)wait
                                                              : REPLAY_MAX_WAIT_NS);
}

/* Waits for a command, or until the absolute CLOCK_MONOTONIC time until
 * (0: no limit). */
static void wait_command(struct replay *p, uint64_t until)
{
    struct timespec ts;

    if (!until) {
        pthread_cond_wait(&p->cond, &p->lock);
        return;
    }
    ts.tv_sec = (time_t)(until / 1000000000ull);
    ts.tv_nsec = (long)(until % 1000000000ull);
    pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

/* The end of the records (1 clean, 2 cut short, -1 corrupt): kept, so
 * that the view can say why; its sample() result unless held. A file
 * without its end record (a killed recording) is told like one cut short. */
static int reached_end(struct replay *p, int r, struct gt_diag *d)
{
    p->at_end = 1;
    if (r == 1 && !gt_capture_unfinished(p->r, d))
        set_text(p->why, sizeof(p->why), "end of capture");
    else
        keep_message(p, d);
    if (r != -1 || p->failed_once)
        return 1;
    /* A corrupt record is reported once as an error, then it is the end. */
    p->failed_once = 1;
    return -1;
}

static void remember(struct replay *p, const struct gt_snapshot *out)
{
    struct delivered *dl = &p->recent[p->ndelivered++ % RECENT];

    dl->t_start = out->t_start_ns;
    dl->t_end = out->t_end_ns;
    dl->k = gt_capture_records(p->r);
    dl->moves = p->moves;
    if (!p->have_first) {
        p->first_start = out->t_start_ns;
        p->have_first = 1;
    }
    p->prev_end = out->t_end_ns;
    p->have_prev = 1;
    p->at_end = 0;
}

static uint64_t last_delivered(const struct replay *p)
{
    return p->ndelivered ? p->recent[(p->ndelivered - 1) % RECENT].k : 0;
}

/* A seek or step: the record goes out at once and the pace restarts
 * from it. */
static int deliver_at(struct replay *p, uint64_t k, struct gt_snapshot *out, struct gt_diag *d)
{
    int r;

    if (gt_capture_seek(p->r, k, d) < 0)
        return -1;
    r = gt_capture_read(p->r, out, d);
    if (r != 0)
        return reached_end(p, r, d);
    remember(p, out);
    p->deadline = gt_now_ns();
    return 0;
}

/* Playing: the next record, once it is due. A command that arrives
 * meanwhile is obeyed at once (a seek drops the record read ahead; a
 * pause holds it, and the time paused does not count). */
static enum gt_sample_result replay_sample(struct gt_source *s, struct gt_snapshot *out,
                                           struct gt_diag *d)
{
    struct replay *p = s->priv;
    uint64_t due = 0;
    int have = 0, r;

    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->interrupted) {
            r = 1;
            break;
        }
        if (p->seek >= 0) {
            uint64_t k = (uint64_t)p->seek;
            p->seek = -1;
            r = deliver_at(p, k, out, d);
            if (r == 0 || !p->hold)
                break;
            continue;
        }
        if (p->at_end && !p->hold) {
            r = 1;
            break;
        }
        if (p->paused || p->at_end) {
            uint64_t t = gt_now_ns();
            wait_command(p, 0);
            p->deadline += gt_now_ns() - t;
            if (due)
                due += gt_now_ns() - t;
            continue;
        }
        if (!have) {
            r = gt_capture_read(p->r, out, d);
            if (r != 0) {
                r = reached_end(p, r, d);
                if (!p->hold)
                    break;
                continue;
            }
            have = 1;
            due = p->speed > 0 ? due_time(p, out) : 0;
        }
        if (!due || gt_now_ns() >= due) {
            if (due)
                p->deadline = due;
            remember(p, out);
            r = 0;
            break;
        }
        wait_command(p, due);
    }
    pthread_mutex_unlock(&p->lock);
    return r;
}

static int replay_control(struct gt_source *s, enum gt_playback_cmd cmd, int64_t arg)
{
    struct replay *p = s->priv;
    int r = 0;

    pthread_mutex_lock(&p->lock);
    switch (cmd) {
    case GT_PLAYBACK_PAUSE: p->paused = 1; break;
    case GT_PLAYBACK_RESUME: p->paused = 0; break;
    case GT_PLAYBACK_INDEX: r = p->ndelivered ? -1 : build_index(p, s->catalog.nslots); break;
    case GT_PLAYBACK_HOLD: p->hold = arg != 0; break;
    case GT_PLAYBACK_INTERRUPT: p->interrupted = 1; break;
    case GT_PLAYBACK_SETTLE: settle(s, p); break;
    case GT_PLAYBACK_SPEED:
        if (p->speed <= 0 || arg < REPLAY_MIN_SPEED * 1000 || arg > REPLAY_MAX_SPEED * 1000) {
            r = -1;
            break;
        }
        p->speed = (double)arg / 1000;
        break;
    case GT_PLAYBACK_STEP:
    case GT_PLAYBACK_SEEK: {
        int64_t k = cmd == GT_PLAYBACK_SEEK ? arg
                  : p->ndelivered ? (int64_t)last_delivered(p) - 1 + (arg < 0 ? -1 : 1) : 0;
        if (!p->indexed || p->count == 0) {
            r = -1;
            break;
        }
        if (cmd == GT_PLAYBACK_STEP)
            p->paused = 1;
        p->moves++;
        p->seek = k < 0 ? 0 : (uint64_t)k >= p->count ? (int64_t)p->count - 1 : k;
        break;
    }
    default: r = -1;
    }
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    return r;
}

/* The delivery that shown is (the newest with its times), else the newest. */
static const struct delivered *find_shown(const struct replay *p, const struct gt_snapshot *shown)
{
    unsigned i, n = p->ndelivered < RECENT ? p->ndelivered : RECENT;

    if (n == 0)
        return NULL;
    for (i = 0; shown && i < n; i++) {
        const struct delivered *dl = &p->recent[(p->ndelivered - 1 - i) % RECENT];
        if (dl->t_start == shown->t_start_ns && dl->t_end == shown->t_end_ns)
            return dl;
    }
    return &p->recent[(p->ndelivered - 1) % RECENT];
}

static void replay_position(struct gt_source *s, const struct gt_snapshot *shown,
                            struct gt_source_position *pos)
{
    struct replay *p = s->priv;
    const struct delivered *dl;

    memset(pos, 0, sizeof(*pos));
    pthread_mutex_lock(&p->lock);
    dl = find_shown(p, shown);
    if (dl) {
        pos->k = dl->k;
        pos->stale = shown && dl->moves != p->moves;
        pos->t_ns = dl->t_end > p->first_start ? dl->t_end - p->first_start : 0;
    }
    pos->n = p->count;
    pos->speed = p->speed;
    pos->state = p->at_end ? GT_PLAY_ENDED : p->paused ? GT_PLAY_PAUSED : GT_PLAY_PLAYING;
    if (p->at_end)
        set_text(pos->why, sizeof(pos->why), p->why);
    set_text(pos->damage, sizeof(pos->damage), p->ended);
    pthread_mutex_unlock(&p->lock);
}

static int replay_available(const struct gt_sys *sys, char *why, size_t len)
{
    (void)sys;
    (void)why;
    (void)len;
    return 0;
}

static const struct gt_playback_ops replay_playback = {
    .control = replay_control,
    .position = replay_position,
};

const struct gt_source_type gt_source_replay = {
    .name = "replay",
    .usage = "replay:FILE[,speed=1|N|max]",
    .help = "a capture written with --record",
    .keys = replay_keys,
    .kind = GT_SOURCE_VIRTUAL,
    .recorded = 1,
    .available = replay_available,
    .open = replay_open,
    .start = replay_start,
    .sample = replay_sample,
    .close = replay_close,
    .playback = &replay_playback,
};
