/* The header line: device, source, interval, state, clock, warnings
 * (the section tabs below it are tabs.c's). */
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
 * its max clock reads lower than it is busy); "" when neither is. Returns
 * the length of the shorter form without the clock, 0 when none. */
static size_t header_busy(const struct tui *t, char *buf, size_t len)
{
    struct gt_text h;
    double busy, clock;
    size_t short_len = 0;

    gt_text_init(&h, buf, len);
    /* No data (an idle interval, or no clock counted): nothing to say. */
    if (tui_header_figure(t, GT_HEADER_BUSY, &busy) && !isnan(busy)) {
        gt_text_add(&h, "GPU ");
        add_percent(&h, busy);
        gt_text_add(&h, " busy");
        short_len = h.len;
        if (tui_header_figure(t, GT_HEADER_CLOCK, &clock) && isfinite(clock)) {
            gt_text_add(&h, " @ ");
            gt_text_fixed(&h, clock, clock < 10 ? 2 : 0, 0);
            gt_text_add(&h, " ");
            gt_text_add(&h, t->l->metrics[t->l->header[GT_HEADER_CLOCK]].unit);
        }
    } else if (tui_header_figure(t, GT_HEADER_BUSY_MAX, &busy) && !isnan(busy)) {
        gt_text_add(&h, "GPU ");
        add_percent(&h, busy);
        gt_text_add(&h, " of max-clock time");
    }
    return short_len;
}

/* "18% of max-clock time" beside a busy share at the current clock, the
 * figure the triage's GPU-load steps judge: a GPU 34 % busy at a low clock
 * is idle for them. "" when either is unknown. */
static void header_busy_max(const struct tui *t, char *buf, size_t len)
{
    struct gt_text h;
    double busy, busy_max;

    gt_text_init(&h, buf, len);
    if (!tui_header_figure(t, GT_HEADER_BUSY, &busy) || isnan(busy) ||
        !tui_header_figure(t, GT_HEADER_BUSY_MAX, &busy_max) || isnan(busy_max))
        return;
    add_percent(&h, busy_max);
    gt_text_add(&h, " of max-clock time");
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

/* "400/800 MHz simple_ondemand 95 degC": the devfreq clock and its cap
 * (the layout's freq figures), the governor a source beside the GPU's
 * says it runs (gpu-clocks), the GPU's temperature. *cap and *cap_len
 * mark the cap when it is below the part's top frequency (drawn in the
 * warning colour); *cap_len 0 otherwise. */
static void header_clocks(const struct tui *t, char *buf, size_t len, size_t *cap,
                          size_t *cap_len)
{
    double cur, max, top, temp;
    struct gt_text h;
    char gov[64] = "";
    size_t i;

    gt_text_init(&h, buf, len);
    *cap_len = 0;
    if (tui_header_figure(t, GT_HEADER_FREQ, &cur) && isfinite(cur)) {
        gt_text_fixed(&h, cur, 0, 0);
        if (tui_header_figure(t, GT_HEADER_FREQ_CAP, &max) && isfinite(max)) {
            gt_text_add(&h, "/");
            *cap = h.len;
            gt_text_fixed(&h, max, 0, 0);
            if (tui_header_figure(t, GT_HEADER_FREQ_TOP, &top) && isfinite(top) && max < top)
                *cap_len = h.len - *cap;
        }
        gt_text_add(&h, " MHz");
    }
    for (i = 1; i < t->cfg->nsources && !gov[0]; i++)
        if (t->cfg->sources[i]->type->activity)
            t->cfg->sources[i]->type->activity(t->cfg->sources[i], &t->snap, gov, sizeof(gov));
    if (gov[0]) {
        gt_text_add(&h, h.len ? " " : "");
        gt_text_add(&h, gov);
    }
    if (tui_header_figure(t, GT_HEADER_TEMP, &temp) && isfinite(temp)) {
        gt_text_add(&h, h.len ? " " : "");
        gt_text_fixed(&h, temp, 0, 0);
        gt_text_add(&h, " degC");
    }
}

enum { NPIECES = 16 };   /* the most pieces the header has */

/* What the header says, piece by piece, with how soon each goes when the
 * line is too narrow: the state (live / PAUSED, RETRYING / ENDED) never. */
struct piece {
    const char *text;
    int drop;            /* higher goes first; 0 never */
    char *cut;           /* where a shorter form ends (in text), NULL none */
    int cut_drop;        /* how soon it is shortened, as drop */
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
        p[n++] = (struct piece){ .text = at, .drop = drop[k] };
        at = next;
    }
    return n;
}

/* 1 when the GPU's name already says its core count ("Mali-G715 MC7"). */
static int name_has_cores(const char *gpu, unsigned cores)
{
    char mc[16], mp[16];
    struct gt_text c, p;

    /* Built without printf: this runs every refresh. */
    gt_text_init(&c, mc, sizeof(mc));
    gt_text_add(&c, " MC");
    gt_text_uint(&c, cores);
    gt_text_init(&p, mp, sizeof(mp));
    gt_text_add(&p, " MP");
    gt_text_uint(&p, cores);
    return strstr(gpu, mc) || strstr(gpu, mp);
}

/* "REC · trace · serving :9100": the exports running beside the
 * dashboard, so that a recording is never forgotten ("REC STOPPED" once
 * a write failed: a full disk); "" when none. */
static void exports_text(const struct tui *t, char *buf, size_t len)
{
    const char *url = t->cfg->serve_url, *port, *end;
    struct gt_text h;

    gt_text_init(&h, buf, len);
    if (t->cfg->record_file)
        gt_text_add(&h, gt_sampler_capture_errors(t->cfg->sampler) ? "REC STOPPED" : "REC");
    if (t->cfg->trace_file) {
        if (h.len)
            gt_text_add(&h, tui_sep(t));
        gt_text_add(&h, "trace");
    }
    if (!url)
        return;
    if (h.len)
        gt_text_add(&h, tui_sep(t));
    gt_text_add(&h, "serving ");
    /* "http://127.0.0.1:9100/metrics": the port says enough; the footer
     * gave the whole address at start. */
    port = strrchr(url, ':');
    end = port ? strchr(port, '/') : NULL;
    if (port && end && end - port < 16) {
        char p[16];
        snprintf(p, sizeof(p), "%.*s", (int)(end - port), port);
        gt_text_add(&h, p);
    } else {
        gt_text_add(&h, url);
    }
}

/* The texts made here are written into text[0..6]. What a narrow line
 * drops first: what the source is doing (the sim's scene), the decoration
 * and the wall clock, the source's name, the share of max-clock time;
 * the busy share goes last of all but the state, which never does. */
static size_t header_pieces(struct tui *t, enum gt_sampler_state state, char text[7][96],
                            time_t now, struct piece *p, size_t *cap, size_t *cap_len)
{
    const struct gt_source_info *in = &t->cfg->sources[0]->info;
    const char *gpu = in->gpu[0] ? in->gpu : in->device;
    char *cores = text[0], *period = text[1], *busy = text[2], *activity = text[3];
    char *exports = text[4], *busy_max = text[5], *clocks = text[6];
    size_t n = 0, short_busy;
    struct gt_text ct;

    gt_text_init(&ct, cores, sizeof(text[0]));
    gt_text_uint(&ct, in->shader_cores);
    gt_text_add(&ct, " ");
    gt_text_add(&ct, in->core_noun[0] ? in->core_noun : "cores");
    tui_period_text(period, sizeof(text[1]) - 16, gt_sampler_interval(t->cfg->sampler));
    if (t->per_second)
        strcat(period, " (rates /s)");
    short_busy = header_busy(t, busy, sizeof(text[2]));
    header_busy_max(t, busy_max, sizeof(text[5]));
    header_activity(t, activity, sizeof(text[3]));
    exports_text(t, exports, sizeof(text[4]));
    header_clocks(t, clocks, sizeof(text[6]), cap, cap_len);
    p[n++] = (struct piece){ .text = "gputop", .drop = 11 };
    p[n++] = (struct piece){ .text = gpu, .drop = 8 };
    /* A source that counts none (drm-fdinfo) says nothing; nor does a name
     * that already says it. */
    if (in->shader_cores && !name_has_cores(gpu, in->shader_cores))
        p[n++] = (struct piece){ .text = cores, .drop = 13 };
    /* The clock goes before the period, the busy share itself last. */
    if (busy[0])
        p[n++] = (struct piece){ .text = busy, .drop = 2, .cut_drop = 8,
                                 .cut = short_busy && busy[short_busy] ? busy + short_busy : NULL };
    if (busy_max[0])
        p[n++] = (struct piece){ .text = busy_max, .drop = 12 };
    /* A replay's source name says what is playing: it stays longer. */
    p[n++] = (struct piece){ .text = t->cfg->sources[0]->type->name, .drop = t->replay ? 5 : 10 };
    if (activity[0])
        p[n++] = (struct piece){ .text = activity, .drop = 14 };
    /* the first to go at the top clock, the Power & clocks page says it
     * all; a cap below the top is a warning and outlasts the scene, the
     * decoration and the share of max-clock time */
    if (clocks[0])
        p[n++] = (struct piece){ .text = clocks, .drop = *cap_len ? 9 : 15 };
    if (t->replay) {
        /* A replay has a position, not a sampling period: "sample k/N",
         * "t=1.2 s" and its state, the state never dropped. */
        n = replay_pieces(t, period, sizeof(text[1]), p, n);
    } else {
        if (state == GT_SAMPLER_RETRYING || state == GT_SAMPLER_ENDED)
            p[n++] = (struct piece){
                .text = state == GT_SAMPLER_RETRYING ? "RETRYING" : "ENDED", .drop = 0 };
        p[n++] = (struct piece){ .text = period, .drop = 7 };
        p[n++] = (struct piece){ .text = t->paused ? "PAUSED" : "live", .drop = 0 };
    }
    if (exports[0])
        p[n++] = (struct piece){ .text = exports, .drop = 3 };
    p[n++] = (struct piece){ .text = clock_text(t, now), .drop = 12 };
    return n;
}

/* How soon a piece gives way: shortened, while it can be, else dropped. */
static int soon(const struct piece *p)
{
    return p->cut ? p->cut_drop : p->drop;
}

/* Drops the pieces that go first until the rest fits in COLS. */
static void fit_pieces(const struct tui *t, struct piece *p, size_t n)
{
    int w, sepw = tui_text_columns(tui_sep(t)), pw[NPIECES];
    size_t i, worst;

    /* Each piece measured once, and again only when it is cut. */
    for (i = 0; i < n; i++)
        pw[i] = p[i].text ? tui_text_columns(p[i].text) : 0;
    for (;;) {
        w = 0;
        worst = n;
        for (i = 0; i < n; i++) {
            if (!p[i].text)
                continue;
            w += pw[i] + (w ? sepw : 0);
            if (p[i].drop && (worst == n || soon(&p[i]) > soon(&p[worst])))
                worst = i;
        }
        if (w + 1 <= COLS || worst == n)   /* and the leading blank */
            return;
        if (p[worst].cut) {
            *p[worst].cut = '\0';
            p[worst].cut = NULL;
            pw[worst] = tui_text_columns(p[worst].text);
        } else {
            p[worst].text = NULL;
        }
    }
}

/* A message may take the body's last rows too, never half of it. */
static int alert_lines(void)
{
    return LINES > 12 ? 4 : LINES > 6 ? 2 : 1;
}

void tui_draw_alert(struct tui *t)
{
    struct gt_sampler_stats st;
    time_t now = time(NULL);
    uint64_t warnings;
    enum gt_sampler_state state = gt_sampler_state(t->cfg->sampler, &warnings);
    char buf[768];

    t->alert_shown = 0;
    /* A new warning stays on screen for ten seconds. */
    if (warnings != t->warnings_seen) {
        t->warnings_seen = warnings;
        t->warning_until = now + 10;
    }
    if (LINES <= 3)
        return;
    if (state != GT_SAMPLER_RETRYING && now >= t->warning_until &&
        !gt_sampler_capture_errors(t->cfg->sampler)) {
        t->alert_shown = tui_replay_alert(t, LINES - 2);
        return;
    }
    /* The messages are copied only when one is shown (the state is read
     * again with them: it may have changed meanwhile). */
    gt_sampler_get_stats(t->cfg->sampler, &st);
    if (st.state == GT_SAMPLER_RETRYING)
        snprintf(buf, sizeof(buf), " %s (retrying)", st.last_error);
    else if (now < t->warning_until)
        snprintf(buf, sizeof(buf), " warning: %s", st.last_warning);
    else if (st.capture_errors)
        snprintf(buf, sizeof(buf), " %s; recording stopped, sampling goes on",
                 st.last_capture_error);
    else {
        t->alert_shown = tui_replay_alert(t, LINES - 2);
        return;
    }
    tui_put_wrapped_up(t, LINES - 2, buf, alert_lines(), ST_ALERT);
    t->alert_shown = 1;
}

void tui_draw_header(struct tui *t)
{
    enum gt_sampler_state state = gt_sampler_state(t->cfg->sampler, NULL);
    struct piece p[NPIECES];
    char buf[768], text[7][96], capped[32];
    struct gt_text h;
    time_t now = time(NULL);
    size_t i, n, cap = 0, cap_len = 0, cap_at = 0;

    t->sampler_live = state == GT_SAMPLER_RUNNING;
    n = header_pieces(t, state, text, now, p, &cap, &cap_len);
    fit_pieces(t, p, n);
    gt_text_init(&h, buf, sizeof(buf));
    gt_text_add(&h, " ");
    for (i = 0; i < n; i++) {
        if (!p[i].text)
            continue;
        if (h.len > 1)
            gt_text_add(&h, tui_sep(t));
        if (p[i].text == text[6])
            cap_at = h.len + cap;
        gt_text_add(&h, p[i].text);
    }
    gt_cellbuf_fill(t->cells, 0, 0, COLS, ' ', ST_HEADER);
    tui_put(t, 0, 0, buf, -1, ST_HEADER);
    /* a cap below the part's top frequency stands out */
    if (cap_len && cap_at && cap_len < sizeof(capped)) {
        snprintf(capped, sizeof(capped), "%.*s", (int)cap_len, text[6] + cap);
        buf[cap_at] = '\0';
        tui_put(t, 0, tui_text_columns(buf), capped, -1, ST_ALERT);
    }
}
