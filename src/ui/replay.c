/* The dashboard during a replay: the position in the header (sample k/N,
 * recorded time, playing / paused / ended and why), the keys that pause,
 * step and seek, and where a damaged capture stopped. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <stdio.h>
#include <string.h>

int tui_replay_init(struct tui *t)
{
    struct gt_source_position pos;
    size_t i;

    for (i = 0; i < t->cfg->nsources; i++)
        t->self_paced |= t->cfg->sources[i]->info.self_paced;
    for (i = 0; i < t->cfg->nsources; i++) {
        struct gt_source *s = t->cfg->sources[i];
        if (s->type->playback) {
            t->replay = s;
            s->type->playback->position(s, NULL, &pos);
            /* With a pace of its own each record is one refresh; as fast as
             * possible, one record a refresh, refreshed at least as often as
             * the records were taken (never slower than speed=1). */
            t->replay_paced = pos.speed > 0;
            t->replay_max = pos.speed <= 0;
            t->replay_want = -1;
            t->replay_speed = pos.speed > 0 ? (int)(pos.speed * 1000 + 0.5) : 0;
            return gt_snapshot_init(&t->taken, gt_sampler_nslots(t->cfg->sampler));
        }
    }
    return 0;
}

/* The next snapshot, into t->snap; those read before the latest seek or
 * step (the sampler holds one read ahead) are dropped, so the record
 * sought is the next one shown, never one from before it. */
int tui_replay_take(struct tui *t)
{
    struct gt_source_position pos;

    do {
        if (gt_sampler_take(t->cfg->sampler, &t->taken, 0) <= 0)
            return 0;
        t->replay->type->playback->position(t->replay, &t->taken, &pos);
    } while (pos.stale);
    gt_snapshot_exchange(&t->snap, &t->taken);
    /* Records read before a seek are stale: this one is the one asked for. */
    t->replay_want = -1;
    return 1;
}

static void where(struct tui *t, struct gt_source_position *pos)
{
    t->replay->type->playback->position(t->replay, t->have_data ? &t->snap : NULL, pos);
}

static int command(struct tui *t, enum gt_playback_cmd cmd, int64_t arg)
{
    if (t->replay->type->playback->control(t->replay, cmd, arg) >= 0)
        return 0;
    snprintf(t->message, sizeof(t->message),
             " replay: this capture cannot be stepped or sought (it is not a regular file)");
    return -1;
}

/* One record on from the one shown: paused, then sought. The source's own
 * step counts from the last record it read, which is one ahead of the
 * screen while a record is on its way (just after Space); then a step
 * would skip one. Before any record is shown, its step is all there is. */
/* Where a step or seek goes on from: the record asked for when it is not
 * on screen yet (ten '.' typed at once are ten records, not one), else the
 * one shown (from 0). */
static int64_t from_record(const struct tui *t, const struct gt_source_position *pos)
{
    if (t->replay_want >= 0)
        return t->replay_want;
    return pos->k ? (int64_t)pos->k - 1 : 0;
}

/* A seek to k, clamped to the records there are, remembered until shown. */
static int seek_to(struct tui *t, const struct gt_source_position *pos, int64_t k)
{
    if (pos->n && k >= (int64_t)pos->n)
        k = (int64_t)pos->n - 1;
    if (k < 0)
        k = 0;
    if (command(t, GT_PLAYBACK_SEEK, k) < 0)
        return -1;
    t->replay_want = k;
    return 0;
}

static void step(struct tui *t, const struct gt_source_position *pos, int64_t by)
{
    if (!pos->k && t->replay_want < 0) {
        command(t, GT_PLAYBACK_STEP, by);
        return;
    }
    command(t, GT_PLAYBACK_PAUSE, 0);
    /* A capture that cannot be sought plays on, as its step leaves it. */
    if (seek_to(t, pos, from_record(t, pos) + by) < 0 && pos->state == GT_PLAY_PLAYING)
        command(t, GT_PLAYBACK_RESUME, 0);
}

/* + and -: the next pace up or down, while it plays. */
static void change_speed(struct tui *t, int dir)
{
    static const int steps[] = { 100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000 };
    size_t n = sizeof(steps) / sizeof(steps[0]), i;

    if (t->replay_max) {
        snprintf(t->message, sizeof(t->message),
                 " replay: speed=max plays as fast as the screen draws");
        return;
    }
    for (i = 0; i < n && steps[i] < t->replay_speed; i++)
        ;
    if (dir > 0)
        i = i < n && steps[i] == t->replay_speed ? i + 1 : i;
    else
        i = i > 0 ? i - 1 : 0;
    i = i < n ? i : n - 1;
    if (t->replay->type->playback->control(t->replay, GT_PLAYBACK_SPEED, steps[i]) < 0)
        return;
    t->replay_speed = steps[i];
    snprintf(t->message, sizeof(t->message), " replay speed %g", steps[i] / 1000.0);
}

/* A tenth of the records, at least one. */
static int64_t tenth(const struct gt_source_position *pos)
{
    return pos->n >= 10 ? (int64_t)(pos->n / 10) : 1;
}

static void toggle_pause(struct tui *t, const struct gt_source_position *pos)
{
    if (pos->state == GT_PLAY_PAUSED) {
        command(t, GT_PLAYBACK_RESUME, 0);
    } else if (pos->state == GT_PLAY_ENDED) {
        /* Nothing left to pause: play it again from the start. */
        command(t, GT_PLAYBACK_RESUME, 0);
        command(t, GT_PLAYBACK_SEEK, 0);
    } else {
        command(t, GT_PLAYBACK_PAUSE, 0);
    }
}

/* The replay's keys (their rows are in actions.c's table). */
int tui_replay_toggle(struct tui *t, int arg)
{
    struct gt_source_position pos;

    (void)arg;
    where(t, &pos);
    toggle_pause(t, &pos);
    return TUI_DONE;
}

int tui_replay_step(struct tui *t, int by)
{
    struct gt_source_position pos;

    where(t, &pos);
    step(t, &pos, by);
    return TUI_DONE;
}

int tui_replay_seek_end(struct tui *t, int last)
{
    struct gt_source_position pos;

    where(t, &pos);
    seek_to(t, &pos, last && pos.n ? (int64_t)pos.n - 1 : 0);
    return TUI_DONE;
}

int tui_replay_seek_tenths(struct tui *t, int way)
{
    struct gt_source_position pos;
    int64_t k;

    where(t, &pos);
    k = from_record(t, &pos);
    seek_to(t, &pos, k + way * tenth(&pos));
    return TUI_DONE;
}

/* + and - while a capture plays: its speed (change_speed). */
int tui_replay_speed(struct tui *t, int dir)
{
    change_speed(t, dir);
    return TUI_DONE;
}

/* "sample 12/300 · t=1.2 s · playing" (or "paused", "ended: why"), in
 * place of the live sampling period. */
void tui_replay_status(struct tui *t, struct gt_text *h)
{
    struct gt_source_position pos;

    where(t, &pos);
    gt_text_add(h, tui_sep(t));
    gt_text_add(h, "sample ");
    gt_text_uint(h, pos.k);
    if (pos.n) {
        gt_text_add(h, "/");
        gt_text_uint(h, pos.n);
    }
    gt_text_add(h, tui_sep(t));
    gt_text_add(h, "t=");
    gt_text_fixed(h, (double)pos.t_ns / 1e9, 1, 0);
    gt_text_add(h, " s");
    gt_text_add(h, tui_sep(t));
    if (pos.state == GT_PLAY_ENDED) {
        /* Its first clause ("cut short", "corrupt record at byte N"): the
         * line above the footer has the rest. */
        char *more = strstr(pos.why, ": ");
        if (more)
            *more = '\0';
        gt_text_add(h, "ended: ");
        gt_text_add(h, pos.why);
    } else {
        gt_text_add(h, pos.state == GT_PLAY_PAUSED ? "paused" : "playing");
        if (t->per_second)
            gt_text_add(h, " (rates /s)");
    }
}

/* A damaged capture: the whole message, file name included, above the
 * footer, once the replay has reached the damage. */
int tui_replay_alert(struct tui *t, int y)
{
    struct gt_source_position pos;
    char buf[300];

    if (!t->replay)
        return 0;
    where(t, &pos);
    if (!pos.damage[0])
        return 0;
    snprintf(buf, sizeof(buf), " gputop: %s", pos.damage);
    tui_put_wrapped_up(t, y, buf, LINES > 12 ? 4 : 2, ST_ALERT);
    return 1;
}
