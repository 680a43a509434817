/* The header line (device, source, interval, state, clock, warnings) and
 * the section tabs below it. */
#include "tui_internal.h"
#include "gputop/format.h"
#include <math.h>
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

/* A header figure's value, when the layout names one the source can feed
 * and a snapshot has arrived. */
static int header_figure(const struct tui *t, enum gt_header_fig f, double *v)
{
    int m = t->l->header[f];

    if (m < 0 || !t->have_data || gt_engine_unavailable(t->cfg->engine, (size_t)m))
        return 0;
    *v = t->vals[m];
    return 1;
}

static void add_percent(struct gt_text *h, double v)
{
    if (isnan(v)) {
        gt_text_add(h, "-");
        return;
    }
    gt_text_fixed(h, v, 0, 0);
    gt_text_add(h, "%");
}

/* "GPU 63% busy @ 850 MHz" from the GPU's clock cycles; "GPU 63% of
 * max-clock time" when only the max clock is known (a GPU running below
 * its max clock reads lower than it is busy); "" when neither is. */
static void header_busy(const struct tui *t, char *buf, size_t len)
{
    struct gt_text h;
    double busy, clock;

    gt_text_init(&h, buf, len);
    /* No data (an idle interval, or no clock counted): nothing to say. */
    if (header_figure(t, GT_HEADER_BUSY, &busy) && !isnan(busy)) {
        gt_text_add(&h, "GPU ");
        add_percent(&h, busy);
        gt_text_add(&h, " busy");
        if (header_figure(t, GT_HEADER_CLOCK, &clock) && isfinite(clock)) {
            gt_text_add(&h, " @ ");
            gt_text_fixed(&h, clock, clock < 10 ? 2 : 0, 0);
            gt_text_add(&h, " ");
            gt_text_add(&h, t->l->metrics[t->l->header[GT_HEADER_CLOCK]].unit);
        }
    } else if (header_figure(t, GT_HEADER_BUSY_MAX, &busy) && !isnan(busy)) {
        gt_text_add(&h, "GPU ");
        add_percent(&h, busy);
        gt_text_add(&h, " of max-clock time");
    }
}

/* What the source is doing, e.g. the sim's scene ("scene cycle: game"),
 * shown after the source's name; "" when it says nothing. */
static void header_activity(const struct tui *t, char *buf, size_t len)
{
    const struct gt_source *s = t->cfg->sources[0];

    buf[0] = '\0';
    if (s->type->activity)
        s->type->activity(s, &t->snap, buf, len);
}


/* What the header says, piece by piece, with how soon each goes when the
 * line is too narrow: the state (live / PAUSED, RETRYING / ENDED) never. */
struct piece {
    const char *text;
    int drop;            /* higher goes first; 0 never */
};

/* Where a replay is, "sample k/N · t=1.2 s · playing", as three pieces
 * cut from the text buf receives: the state stays, the time goes first. */
static size_t replay_pieces(struct tui *t, char *buf, size_t len, struct piece *p, size_t n)
{
    static const int drop[] = { 3, 7, 0 };
    const char *sep = tui_sep(t);
    size_t seplen = strlen(sep), k = 0;
    struct gt_text h;
    char *at, *next;

    gt_text_init(&h, buf, len);
    tui_replay_status(t, &h);
    at = strncmp(buf, sep, seplen) == 0 ? buf + seplen : buf;
    for (; at && k < 3; k++) {
        next = k < 2 ? strstr(at, sep) : NULL;
        if (next) {
            *next = '\0';
            next += seplen;
        }
        p[n++] = (struct piece){ at, drop[k] };
        at = next;
    }
    return n;
}

/* The texts made here are written into text[0..3]. The busy share stays
 * longer than the core count and the source's name; what the source is
 * doing (the sim's scene) goes first. */
static size_t header_pieces(struct tui *t, const struct gt_sampler_stats *st, char text[4][96],
                            time_t now, struct piece *p)
{
    const struct gt_source_info *in = &t->cfg->sources[0]->info;
    uint64_t ms = gt_sampler_interval(t->cfg->sampler) / 1000000ull;
    char *cores = text[0], *period = text[1], *busy = text[2], *activity = text[3];
    size_t n = 0;

    snprintf(cores, sizeof(text[0]), "%u %s", in->shader_cores,
             in->core_noun[0] ? in->core_noun : "cores");
    snprintf(period, sizeof(text[1]), "%llu ms%s", (unsigned long long)ms, t->per_second ? " (rates /s)" : "");
    header_busy(t, busy, sizeof(text[2]));
    header_activity(t, activity, sizeof(text[3]));
    p[n++] = (struct piece){ " gputop", 0 };
    p[n++] = (struct piece){ in->gpu[0] ? in->gpu : in->device, 8 };
    if (in->shader_cores)   /* a source that counts none (drm-fdinfo) says nothing */
        p[n++] = (struct piece){ cores, 10 };
    if (busy[0])
        p[n++] = (struct piece){ busy, 9 };
    /* A replay's source name says what is playing: it stays longer. */
    p[n++] = (struct piece){ t->cfg->sources[0]->type->name, t->replay ? 5 : 12 };
    if (activity[0])
        p[n++] = (struct piece){ activity, 14 };
    if (t->replay) {
        /* A replay has a position, not a sampling period: "sample k/N",
         * "t=1.2 s" and its state, the state never dropped. */
        n = replay_pieces(t, period, sizeof(text[1]), p, n);
    } else {
        if (st->state == GT_SAMPLER_RETRYING || st->state == GT_SAMPLER_ENDED)
            p[n++] = (struct piece){ st->state == GT_SAMPLER_RETRYING ? "RETRYING" : "ENDED", 0 };
        p[n++] = (struct piece){ period, 4 };
        p[n++] = (struct piece){ t->paused ? "PAUSED" : "live", 0 };
    }
    p[n++] = (struct piece){ clock_text(t, now), 6 };
    return n;
}

/* Drops the pieces that go first until the rest fits in COLS. */
static void fit_pieces(const struct tui *t, struct piece *p, size_t n)
{
    int w, sepw = tui_text_columns(tui_sep(t));
    size_t i, worst;

    for (;;) {
        w = 0;
        worst = n;
        for (i = 0; i < n; i++) {
            if (!p[i].text)
                continue;
            w += tui_text_columns(p[i].text) + (w ? sepw : 0);
            if (p[i].drop && (worst == n || p[i].drop > p[worst].drop))
                worst = i;
        }
        if (w <= COLS || worst == n)
            return;
        p[worst].text = NULL;
    }
}

static void draw_alert(struct tui *t, const struct gt_sampler_stats *st, time_t now)
{
    char buf[768];

    t->alert_shown = 0;
    /* A new warning stays on screen for ten seconds. */
    if (st->warnings != t->warnings_seen) {
        t->warnings_seen = st->warnings;
        t->warning_until = now + 10;
    }
    if (LINES <= 3)
        return;
    if (st->state == GT_SAMPLER_RETRYING)
        snprintf(buf, sizeof(buf), " %s (retrying)", st->last_error);
    else if (now < t->warning_until)
        snprintf(buf, sizeof(buf), " warning: %s", st->last_warning);
    else {
        t->alert_shown = tui_replay_alert(t, LINES - 2);
        return;
    }
    tui_put(t, LINES - 2, 0, buf, -1, ST_ALERT);
    t->alert_shown = 1;
}

void tui_draw_header(struct tui *t)
{
    struct gt_sampler_stats st;
    struct piece p[12];
    char buf[768], text[4][96];
    struct gt_text h;
    time_t now = time(NULL);
    size_t i, n;

    gt_sampler_get_stats(t->cfg->sampler, &st);
    t->sampler_live = st.state == GT_SAMPLER_RUNNING;
    n = header_pieces(t, &st, text, now, p);
    fit_pieces(t, p, n);
    gt_text_init(&h, buf, sizeof(buf));
    for (i = 0; i < n; i++) {
        if (!p[i].text)
            continue;
        if (h.len)
            gt_text_add(&h, tui_sep(t));
        gt_text_add(&h, p[i].text);
    }
    gt_cellbuf_fill(t->cells, 0, 0, COLS, ' ', ST_HEADER);
    tui_put(t, 0, 0, buf, -1, ST_HEADER);
    draw_alert(t, &st, now);
}

/* Tabs: " 1 CPU performance ". When the titles do not all fit, the other
 * tabs lose the leading words their titles share ("Shader core") and are
 * cut to an equal width, the current one whole if it can be; keys alone
 * when not even three letters each fit. */
enum tabs_mode { TABS_KEYS, TABS_SHORT, TABS_FULL };

/* The title without a leading run of two or more words that another
 * section's title starts with too. */
static const char *short_title(const struct tui *t, size_t i)
{
    const char *ti = t->l->sections[i].title, *best = ti, *p, *q;
    size_t j;
    int words;

    for (j = 0; j < t->l->nsections; j++) {
        if (j == i)
            continue;
        words = 0;
        for (p = ti, q = t->l->sections[j].title; *p && *p == *q; p++, q++)
            if (*p == ' ' && ++words >= 2 && p[1] && p + 1 > best)
                best = p + 1;
    }
    return best;
}

/* Columns of the longest run of whole words of s within cap; 0 if none. */
static int whole_words(const char *s, int cap)
{
    int n = 0, best = 0;

    for (; *s && n <= cap; s++) {
        if (*s == ' ')
            best = n;
        n += ((unsigned char)*s & 0xC0) != 0x80;
    }
    return !*s && n <= cap ? n : best;
}

/* The tab's name and its columns; *cut: shortened mid-word (an ellipsis
 * then ends it). A name too long keeps its first words when they fit. */
static int tab_name(const struct tui *t, size_t i, const struct tab_fit *f, const char **name,
                    int *cut)
{
    int cur = i == t->section, n, w;

    *name = f->mode == TABS_FULL || (cur && f->cur_full) ? t->l->sections[i].title
                                                         : short_title(t, i);
    n = tui_text_columns(*name);
    *cut = 0;
    if (f->mode != TABS_SHORT || (cur && f->cur_full) || n <= f->cap)
        return n;
    w = whole_words(*name, f->cap);
    *cut = w < 3;
    return *cut ? f->cap : w;
}

static int tab_width(const struct tui *t, size_t i, const struct tab_fit *f)
{
    const char *name;
    int cut;

    return f->mode == TABS_KEYS ? 3 : 4 + tab_name(t, i, f, &name, &cut);
}

static int tabs_fit(const struct tui *t, const struct tab_fit *f)
{
    size_t i;
    int w = 0;

    for (i = 0; i < t->l->nsections; i++)
        w += tab_width(t, i, f);
    return w <= COLS;
}

/* Trying every width costs ~0.5 M instructions with a dozen sections, so
 * the result is kept (t->tabs) until the width or the current tab changes:
 * a refresh then costs no search. */
static struct tab_fit fit_tabs(const struct tui *t)
{
    struct tab_fit f = { TABS_FULL, 0, 1, COLS, t->section };

    if (t->tabs.cols == COLS && t->tabs.section == t->section)
        return t->tabs;
    if (tabs_fit(t, &f))
        return f;
    f.mode = TABS_SHORT;
    for (f.cur_full = 1; f.cur_full >= 0; f.cur_full--)
        for (f.cap = 40; f.cap >= 4; f.cap--)
            if (tabs_fit(t, &f))
                return f;
    f.mode = TABS_KEYS;
    return f;
}

void tui_draw_tabs(struct tui *t)
{
    struct tab_fit f = t->tabs = fit_tabs(t);
    char key[4] = { ' ', 0, ' ', 0 };
    const char *name;
    int x = 0, n, cut;
    size_t i;

    for (i = 0; i < t->l->nsections && x < COLS; i++) {
        /* under the Processes view no section is the one shown */
        enum style st = i == t->section && !t->procs_view ? ST_TAB : ST_PLAIN;
        key[1] = (char)t->l->sections[i].key;
        x += tui_put(t, 1, x, key, -1, st);
        if (f.mode == TABS_KEYS)
            continue;
        n = tab_name(t, i, &f, &name, &cut);
        if (cut)
            tui_put_clipped(t, 1, x, name, n, st);
        else
            tui_put(t, 1, x, name, n, st);
        x += n;
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    }
    if (f.mode == TABS_KEYS && LINES > 12) {
        x += tui_put(t, 1, x, " ", -1, ST_HEADING);
        tui_put(t, 1, x, t->l->sections[t->section].title, -1, ST_HEADING);
    }
}

long tui_tab_at(const struct tui *t, int col)
{
    struct tab_fit f = fit_tabs(t);
    int x = 0;
    size_t i;

    for (i = 0; i < t->l->nsections; i++) {
        int w = tab_width(t, i, &f);
        if (col >= x && col < x + w)
            return (long)i;
        x += w;
    }
    return -1;
}
