/* The header line (device, source, interval, state, clock, warnings) and
 * the section tabs below it. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The wall clock changes once a second; the time zone lookup need not run
 * on every refresh. */
static const char *clock_text(struct tui *t, time_t now)
{
    struct tm tm;

    if (now != t->clock_at) {
        t->clock_at = now;
        localtime_r(&now, &tm);
        strftime(t->clock, sizeof(t->clock), "%H:%M:%S", &tm);
    }
    return t->clock;
}

void tui_draw_header(struct tui *t)
{
    const struct gt_source_info *in = &t->cfg->sources[0]->info;
    struct gt_sampler_stats st;
    char buf[768];
    struct gt_text h;
    time_t now = time(NULL);
    uint64_t ms = gt_sampler_interval(t->cfg->sampler) / 1000000ull;

    gt_sampler_get_stats(t->cfg->sampler, &st);
    t->sampler_live = st.state == GT_SAMPLER_RUNNING;
    gt_text_init(&h, buf, sizeof(buf));
    gt_text_add(&h, " gputop");
    gt_text_add(&h, tui_sep(t));
    gt_text_add(&h, in->gpu[0] ? in->gpu : in->device);
    gt_text_add(&h, tui_sep(t));
    gt_text_uint(&h, in->shader_cores);
    gt_text_add(&h, " cores");
    gt_text_add(&h, tui_sep(t));
    gt_text_add(&h, t->cfg->sources[0]->type->name);
    if (t->replay) {
        /* A replay has a position, not a sampling period. */
        tui_replay_status(t, &h);
    } else {
        gt_text_add(&h, st.state == GT_SAMPLER_RETRYING ? " RETRYING" :
                        st.state == GT_SAMPLER_ENDED ? " ENDED" : "");
        gt_text_add(&h, tui_sep(t));
        gt_text_uint(&h, ms);
        gt_text_add(&h, t->per_second ? " ms (rates /s)" : " ms");
        gt_text_add(&h, tui_sep(t));
        gt_text_add(&h, t->paused ? "PAUSED" : "live");
    }
    gt_text_add(&h, tui_sep(t));
    gt_text_add(&h, clock_text(t, now));
    gt_cellbuf_fill(t->cells, 0, 0, COLS, ' ', ST_HEADER);
    tui_put(t, 0, 0, buf, -1, ST_HEADER);
    /* A new warning stays on screen for ten seconds. */
    if (st.warnings != t->warnings_seen) {
        t->warnings_seen = st.warnings;
        t->warning_until = now + 10;
    }
    if (st.state == GT_SAMPLER_RETRYING && LINES > 3) {
        snprintf(buf, sizeof(buf), " %s (retrying)", st.last_error);
        tui_put(t, LINES - 2, 0, buf, -1, ST_ALERT);
    } else if (now < t->warning_until && LINES > 3) {
        snprintf(buf, sizeof(buf), " warning: %s", st.last_warning);
        tui_put(t, LINES - 2, 0, buf, -1, ST_ALERT);
    } else if (LINES > 3) {
        tui_replay_alert(t, LINES - 2);
    }
}

/* Tabs: "1 CPU performance"; on narrow screens only the keys. */
static int tab_width(const struct tui *t, size_t i, int keys_only)
{
    return keys_only ? 3 : (int)strlen(t->l->sections[i].title) + 4;
}

static int tabs_keys_only(const struct tui *t)
{
    size_t i;
    int w = 0;

    for (i = 0; i < t->l->nsections; i++)
        w += tab_width(t, i, 0);
    return w > COLS;
}

void tui_draw_tabs(struct tui *t)
{
    int keys_only = tabs_keys_only(t), x = 0;
    char key[4] = { ' ', 0, ' ', 0 };
    size_t i;

    for (i = 0; i < t->l->nsections && x < COLS; i++) {
        const struct gt_section_def *s = &t->l->sections[i];
        enum style st = i == t->section ? ST_TAB : ST_PLAIN;
        key[1] = s->key;
        x += tui_put(t, 1, x, key, -1, st);
        if (keys_only)
            continue;
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
        x += tui_put(t, 1, x, s->title, -1, st);
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    }
    if (keys_only && LINES > 12) {
        x += tui_put(t, 1, x, " ", -1, ST_HEADING);
        tui_put(t, 1, x, t->l->sections[t->section].title, -1, ST_HEADING);
    }
}

long tui_tab_at(const struct tui *t, int col)
{
    int keys_only = tabs_keys_only(t), x = 0;
    size_t i;

    for (i = 0; i < t->l->nsections; i++) {
        int w = tab_width(t, i, keys_only);
        if (col >= x && col < x + w)
            return (long)i;
        x += w;
    }
    return -1;
}
