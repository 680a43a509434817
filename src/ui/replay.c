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
static void step(struct tui *t, const struct gt_source_position *pos, int64_t by)
{
    if (!pos->k) {
        command(t, GT_PLAYBACK_STEP, by);
        return;
    }
    command(t, GT_PLAYBACK_PAUSE, 0);
    /* A capture that cannot be sought plays on, as its step leaves it. */
    if (command(t, GT_PLAYBACK_SEEK, (int64_t)pos->k - 1 + by) < 0 && pos->state == GT_PLAY_PLAYING)
        command(t, GT_PLAYBACK_RESUME, 0);
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

int tui_replay_key(struct tui *t, int ch)
{
    struct gt_source_position pos;
    int64_t k;

    if (!t->replay)
        return 0;
    where(t, &pos);
    k = pos.k ? (int64_t)pos.k - 1 : 0;          /* the record shown, from 0 */
    switch (ch) {
    case ' ': toggle_pause(t, &pos); return 1;
    case '.': step(t, &pos, 1); return 1;
    case ',': step(t, &pos, -1); return 1;
    case KEY_HOME: command(t, GT_PLAYBACK_SEEK, 0); return 1;
    case KEY_END: command(t, GT_PLAYBACK_SEEK, pos.n ? (int64_t)pos.n - 1 : 0); return 1;
    case KEY_NPAGE: command(t, GT_PLAYBACK_SEEK, k + tenth(&pos)); return 1;
    case KEY_PPAGE: command(t, GT_PLAYBACK_SEEK, k - tenth(&pos)); return 1;
    case '+': case '=': case '-': case '_':
        snprintf(t->message, sizeof(t->message),
                 " replay: the speed is set with speed= (replay:FILE,speed=N or max)");
        return 1;
    }
    return 0;
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
