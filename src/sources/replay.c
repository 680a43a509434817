/* The replay source: plays back a capture written with --record, at the
 * recorded pace, N times faster, or as fast as it can be read. */
#include "gputop/capture.h"
#include "gputop/source.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
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

struct replay {
    struct gt_capture_reader *r;
    double speed;             /* 0: as fast as possible */
    uint64_t deadline;        /* CLOCK_MONOTONIC ns the previous record was due */
    uint64_t prev_end;        /* recorded end of the previous record */
    int started, have_prev, ended;
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
    free(p);
    s->priv = NULL;
}

static int replay_open(struct gt_source *s, const char *args, struct gt_diag *d)
{
    static const char *const keys[] = { "", "speed", NULL };
    char speed[32];
    struct replay *p;

    if (gt_args_check(args, keys, "replay", d) < 0)
        return -1;
    p = calloc(1, sizeof(*p));
    if (!p) {
        gt_diag_set(d, "replay: out of memory");
        return -1;
    }
    if (!gt_args_get(args, "", p->path, sizeof(p->path)) || !p->path[0]) {
        gt_diag_set(d, "replay: no capture file given (replay:FILE[,speed=1|N|max])");
        free(p);
        return -1;
    }
    p->speed = 1;
    if (gt_args_get(args, "speed", speed, sizeof(speed)) && parse_speed(speed, &p->speed, d) < 0) {
        free(p);
        return -1;
    }
    p->r = gt_capture_open(p->path, &s->info, &s->catalog, d);
    if (!p->r) {
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
    p->deadline = gt_now_ns();
    p->started = 1;
    p->have_prev = 0;
    return 0;
}

/* The recorded time from the previous record's end (or this one's start,
 * for the first) to this one's end: how long the original run waited. */
static uint64_t recorded_gap(struct replay *p, const struct gt_snapshot *out)
{
    uint64_t from = p->have_prev ? p->prev_end : out->t_start_ns;
    uint64_t gap = out->t_end_ns > from ? out->t_end_ns - from : 0;

    p->prev_end = out->t_end_ns;
    p->have_prev = 1;
    return gap;
}

/* Sleeps to an absolute deadline so the pace does not drift with the
 * time spent reading and in the sampler. */
static void wait_until(uint64_t deadline)
{
    struct timespec ts = {
        .tv_sec = (time_t)(deadline / 1000000000ull),
        .tv_nsec = (long)(deadline % 1000000000ull),
    };

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void pace(struct replay *p, const struct gt_snapshot *out)
{
    double wait = (double)recorded_gap(p, out);

    if (p->speed <= 0)
        return;
    if (!p->started) {
        p->deadline = gt_now_ns();
        p->started = 1;
    }
    wait /= p->speed;
    p->deadline += wait < (double)REPLAY_MAX_WAIT_NS ? (uint64_t)wait : REPLAY_MAX_WAIT_NS;
    wait_until(p->deadline);
}

/* The reader's message becomes the source's detail line, so the user
 * sees where a damaged capture stopped; the device line already names the
 * file, so the message's leading "FILE: " is dropped to leave room. */
static void keep_message(struct gt_source *s, const char *path, const struct gt_diag *d)
{
    const char *m = d->msg;
    size_t n = strlen(path);

    if (strncmp(m, path, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
    s->info.detail[0] = '\0';
    append(s->info.detail, sizeof(s->info.detail), "replay stopped: ");
    append(s->info.detail, sizeof(s->info.detail), m);
    s->info.ended[0] = '\0';
    append(s->info.ended, sizeof(s->info.ended), d->msg);
}

static int replay_sample(struct gt_source *s, struct gt_snapshot *out, struct gt_diag *d)
{
    struct replay *p = s->priv;
    int r;

    if (p->ended)
        return 1;
    r = gt_capture_read(p->r, out, d);
    if (r == 0) {
        pace(p, out);
        return 0;
    }
    p->ended = 1;
    if (r == 1)
        return 1;
    keep_message(s, p->path, d);
    return r == 2 ? 1 : -1;
}

static int replay_available(const struct gt_sys *sys, char *why, size_t len)
{
    (void)sys;
    (void)why;
    (void)len;
    return 0;
}

const struct gt_source_type gt_source_replay = {
    .name = "replay",
    .help = "a capture written with --record: replay:FILE[,speed=1|N|max]",
    .kind = GT_SOURCE_VIRTUAL,
    .available = replay_available,
    .open = replay_open,
    .start = replay_start,
    .sample = replay_sample,
    .close = replay_close,
};
