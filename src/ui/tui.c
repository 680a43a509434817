/* The live dashboard: a header, section tabs, the current section's groups
 * as bars, values and histograms, and a footer. Each refresh composes the
 * frame in a cell buffer and hands ncurses only the cells that changed. */
#include "gputop/tui.h"
#include "gputop/cellbuf.h"
#include "gputop/format.h"
#include "gputop/termout.h"
#include "gputop/history.h"
#include "gputop/terminfo.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define HISTORY_DEPTH 64
#define SPARK_WIDTH 12

enum row_kind { ROW_GROUP, ROW_TRIAGE, ROW_METRIC, ROW_INSTANCE, ROW_BUCKET };

struct row {
    enum row_kind kind;
    size_t idx;          /* group or metric */
    int inst;            /* ROW_INSTANCE */
};

/* What a cell looks like: a foreground colour from the terminal's own
 * palette (dropped without colour) and attributes, which stay, so that a
 * monochrome screen still shows them. */
enum style {
    ST_PLAIN, ST_HEADER, ST_TAB, ST_HEADING, ST_ALERT, ST_SELECTED, ST_DIM,
    ST_LOW, ST_MID, ST_HIGH, ST_ACCENT, NSTYLES
};

static const struct {
    short fg;
    unsigned attrs;
} styles[NSTYLES] = {
    [ST_PLAIN] = { -1, 0 },
    [ST_HEADER] = { COLOR_CYAN, GT_TERM_REVERSE },
    [ST_TAB] = { COLOR_CYAN, GT_TERM_REVERSE | GT_TERM_BOLD },
    [ST_HEADING] = { COLOR_CYAN, GT_TERM_BOLD },
    [ST_ALERT] = { COLOR_MAGENTA, GT_TERM_BOLD },
    [ST_SELECTED] = { -1, GT_TERM_REVERSE },
    [ST_DIM] = { COLOR_BLUE, 0 },
    [ST_LOW] = { COLOR_GREEN, 0 },
    [ST_MID] = { COLOR_YELLOW, 0 },
    [ST_HIGH] = { COLOR_RED, 0 },
    [ST_ACCENT] = { COLOR_CYAN, 0 },
};

struct tui {
    const struct gt_tui_config *cfg;
    const struct gt_layout *l;
    SCREEN *screen;
    struct gt_cellbuf *cells;    /* the frame being composed */
    struct gt_termout *out;      /* how it reaches the terminal */
    int ascii, color, mouse;
    size_t section;
    int scroll;
    long selected;               /* metric index, -1 none */
    int paused, per_second, sparks, count_bars, percore, help, keys_seen;
    int searching;
    char search[64];
    char message[160];
    double *vals;
    struct gt_history *hist;
    struct gt_snapshot snap;
    int have_data;
    struct row *rows;
    size_t nrows, rowcap;
    int triage_section;          /* section showing the triage line, -1 none */
    int *triage_metric;          /* per triage rule: its metric, -1 none */
    uint64_t warnings_seen;      /* sampler warnings already noticed */
    time_t warning_until;        /* the last warning shows until then */
    time_t clock_at;             /* when clock was formatted */
    char clock[16];
    struct sigaction old_tstp;   /* SIGTSTP as it was before the dashboard */
    int wake_fd;                 /* the sampler's new-data descriptor, -1 none */
    int empty_reads, input_gone; /* the keyboard's end of file or hang-up */
    int sampler_live;            /* it is sampling (not retrying, not ended) */
};

/* Ctrl-Z while the dashboard runs. A signal handler reaches the loop only
 * through static storage; this flag is the dashboard's one piece of it. */
static volatile sig_atomic_t suspend_pending;

static const char *const SEP_UTF8 = " \u00b7 ";

/* ---- text helpers ---- */

/* Writes s from (y, x), at most maxw columns (-1: to the end of the row);
 * returns the columns written. */
static int put(struct tui *t, int y, int x, const char *s, int maxw, enum style st)
{
    return gt_cellbuf_text(t->cells, y, x, s, maxw, st);
}

/* Columns of UTF-8 text: every character drawn is one column. */
static int text_columns(const char *s)
{
    int n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* put(), with an ellipsis in the last column when s is cut short. */
static void put_clipped(struct tui *t, int y, int x, const char *s, int maxw, enum style st)
{
    int n = put(t, y, x, s, maxw, st);

    /* Only text that filled its width or the row can have been cut. */
    if (n > 1 && (n == maxw || x + n == COLS) && text_columns(s) > n)
        gt_cellbuf_fill(t->cells, y, x + n - 1, 1, t->ascii ? '~' : 0x2026, st);
}

static enum style level_style(double pct)
{
    if (isnan(pct))
        return ST_DIM;
    return pct < 50 ? ST_LOW : pct < 80 ? ST_MID : ST_HIGH;
}

static const char *sep(const struct tui *t)
{
    return t->ascii ? " | " : SEP_UTF8;
}

/* ---- values ---- */

static int is_rate_kind(enum gt_show s)
{
    return s == GT_SHOW_COUNT || s == GT_SHOW_BUCKET;
}

/* The screen refreshes slower than the sampler, so a snapshot may hold
 * several sampling intervals: counts are kept per interval (divided by
 * their number) so that values, sparklines and min / max compare like
 * with like, and shown per second on request. */
static double per_interval(const struct tui *t, size_t m, double v)
{
    if (!is_rate_kind(t->l->metrics[m].show) || t->snap.nsamples <= 1)
        return v;
    return v / t->snap.nsamples;
}

static double shown_value(const struct tui *t, size_t m, double v)
{
    double secs = t->have_data ? gt_engine_seconds(&t->snap) : 0;

    if (!t->per_second || !is_rate_kind(t->l->metrics[m].show))
        return v;
    if (t->snap.nsamples > 1)
        secs /= t->snap.nsamples;
    return secs > 0 ? v / secs : NAN;
}

static double metric_value(const struct tui *t, size_t m, int inst)
{
    double v;

    if (!t->have_data)
        return NAN;
    v = inst < 0 ? t->vals[m]
                 : per_interval(t, m, gt_engine_eval_instance(t->cfg->engine, &t->snap, m,
                                                              (uint32_t)inst));
    return shown_value(t, m, v);
}

/* ---- rows of the current section ---- */

static int add_row(struct tui *t, enum row_kind k, size_t idx, int inst)
{
    if (t->nrows == t->rowcap) {
        size_t cap = t->rowcap ? t->rowcap * 2 : 256;
        struct row *r = realloc(t->rows, cap * sizeof(*r));
        if (!r)
            return -1;
        t->rows = r;
        t->rowcap = cap;
    }
    t->rows[t->nrows].kind = k;
    t->rows[t->nrows].idx = idx;
    t->rows[t->nrows].inst = inst;
    t->nrows++;
    return 0;
}

static int group_selected(const struct tui *t, size_t g)
{
    return t->selected >= 0 && (size_t)t->l->metrics[t->selected].group == g;
}

static void build_rows(struct tui *t)
{
    const struct gt_section_def *s = &t->l->sections[t->section];
    size_t g, m;
    uint32_t i, n;

    t->nrows = 0;
    if ((int)t->section == t->triage_section)
        add_row(t, ROW_TRIAGE, 0, -1);
    for (g = s->first; g < s->first + s->count; g++) {
        const struct gt_group_def *gd = &t->l->groups[g];
        add_row(t, ROW_GROUP, g, -1);
        for (m = gd->first; m < gd->first + gd->count; m++) {
            int expand = gt_engine_instanced(t->cfg->engine, m) ||
                         (t->percore && group_selected(t, g));
            add_row(t, gd->histogram ? ROW_BUCKET : ROW_METRIC, m, -1);
            n = expand ? gt_engine_instances(t->cfg->engine, m) : 0;
            for (i = 0; n > 1 && i < n; i++)
                add_row(t, ROW_INSTANCE, m, (int)i);
        }
    }
}

/* ---- drawing ---- */

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

static void draw_header(struct tui *t)
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
    gt_text_add(&h, sep(t));
    gt_text_add(&h, in->gpu[0] ? in->gpu : in->device);
    gt_text_add(&h, sep(t));
    gt_text_uint(&h, in->shader_cores);
    gt_text_add(&h, " cores");
    gt_text_add(&h, sep(t));
    gt_text_add(&h, t->cfg->sources[0]->type->name);
    gt_text_add(&h, st.state == GT_SAMPLER_RETRYING ? " RETRYING" :
                    st.state == GT_SAMPLER_ENDED ? " ENDED" : "");
    gt_text_add(&h, sep(t));
    gt_text_uint(&h, ms);
    gt_text_add(&h, t->per_second ? " ms (rates /s)" : " ms");
    gt_text_add(&h, sep(t));
    gt_text_add(&h, t->paused ? "PAUSED" : "live");
    gt_text_add(&h, sep(t));
    gt_text_add(&h, clock_text(t, now));
    gt_cellbuf_fill(t->cells, 0, 0, COLS, ' ', ST_HEADER);
    put(t, 0, 0, buf, -1, ST_HEADER);
    /* A new warning stays on screen for ten seconds. */
    if (st.warnings != t->warnings_seen) {
        t->warnings_seen = st.warnings;
        t->warning_until = now + 10;
    }
    if (st.state == GT_SAMPLER_RETRYING && LINES > 3) {
        snprintf(buf, sizeof(buf), " %s (retrying)", st.last_error);
        put(t, LINES - 2, 0, buf, -1, ST_ALERT);
    } else if (now < t->warning_until && LINES > 3) {
        snprintf(buf, sizeof(buf), " warning: %s", st.last_warning);
        put(t, LINES - 2, 0, buf, -1, ST_ALERT);
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

static void draw_tabs(struct tui *t)
{
    int keys_only = tabs_keys_only(t), x = 0;
    char key[4] = { ' ', 0, ' ', 0 };
    size_t i;

    for (i = 0; i < t->l->nsections && x < COLS; i++) {
        const struct gt_section_def *s = &t->l->sections[i];
        enum style st = i == t->section ? ST_TAB : ST_PLAIN;
        key[1] = s->key;
        x += put(t, 1, x, key, -1, st);
        if (keys_only)
            continue;
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
        x += put(t, 1, x, s->title, -1, st);
        gt_cellbuf_fill(t->cells, 1, x++, 1, ' ', st);
    }
    if (keys_only && LINES > 12) {
        x += put(t, 1, x, " ", -1, ST_HEADING);
        put(t, 1, x, t->l->sections[t->section].title, -1, ST_HEADING);
    }
}

static void triage_text(struct tui *t, char *buf, size_t len)
{
    double best_q = NAN, best_u = NAN;
    const struct gt_triage_rule *q = NULL, *u = NULL;
    struct gt_text s;
    size_t i;

    for (i = 0; i < t->l->ntriage; i++) {
        const struct gt_triage_rule *r = &t->l->triage[i];
        int m = t->triage_metric[i];
        double v = m >= 0 && t->have_data ? t->vals[m] : NAN;
        if (isnan(v))
            continue;
        if (strcmp(r->kind, "queue") == 0 && (isnan(best_q) || v > best_q)) {
            best_q = v;
            q = r;
        } else if (strcmp(r->kind, "unit") == 0 && (isnan(best_u) || v > best_u)) {
            best_u = v;
            u = r;
        }
    }
    gt_text_init(&s, buf, len);
    if (!q && !u) {
        gt_text_add(&s, " triage: no data yet");
        return;
    }
    if (q) {
        gt_text_add(&s, " ");
        gt_text_add(&s, q->label);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_q, 0, 0);
        gt_text_add(&s, "%");
    }
    if (u) {
        gt_text_add(&s, q ? sep(t) : " ");
        gt_text_add(&s, u->label);
        gt_text_add(&s, " ");
        gt_text_fixed(&s, best_u, 0, 0);
        gt_text_add(&s, "%");
        if (u->verdict) {
            gt_text_add(&s, t->ascii ? " -> " : " \u2192 ");
            gt_text_add(&s, u->verdict);
        }
    }
}

static int name_width(void)
{
    int w = COLS - 44;

    return w < 12 ? 12 : w > 46 ? 46 : w;
}

/* Short forms of the words in the layouts' units, for a value column too
 * narrow for "0.15 cycles/instruction"; batch output keeps the full units. */
static const char *unit_word(const char *w, size_t n)
{
    static const char *const abbr[][2] = {
        { "instruction", "instr" }, { "primitive", "prim" }, { "primitives", "prims" },
        { "fragments", "frags" }, { "pixel", "px" }, { "pixels", "px" }, { "cycles", "cyc" },
        { "cycle", "cyc" }, { "threads", "thr" }, { "thread", "thr" }, { "bytes", "B" },
        { "issues", "iss" },
    };
    size_t i;

    for (i = 0; i < sizeof(abbr) / sizeof(abbr[0]); i++)
        if (strlen(abbr[i][0]) == n && strncmp(abbr[i][0], w, n) == 0)
            return abbr[i][1];
    return NULL;
}

static void add_short_unit(struct gt_text *s, const char *unit)
{
    char word[32];

    while (*unit) {
        size_t n = strcspn(unit, "/");
        const char *a = unit_word(unit, n);
        if (!a) {
            snprintf(word, sizeof(word), "%.*s", (int)n, unit);
            a = word;
        }
        gt_text_add(s, a);
        unit += n;
        if (*unit == '/') {
            gt_text_add(s, "/");
            unit++;
        }
    }
}

static void value_text(const struct tui *t, size_t m, double v, char *buf, size_t len,
                       size_t width)
{
    const struct gt_metric_def *md = &t->l->metrics[m];
    struct gt_text s;
    size_t num;

    gt_text_init(&s, buf, len);
    if (md->show == GT_SHOW_PERCENT) {
        if (isnan(v)) {
            gt_text_add(&s, "-");
            return;
        }
        gt_text_fixed(&s, v, 1, 5);
        gt_text_add(&s, " %");
        return;
    }
    gt_text_si(&s, v);
    gt_text_add(&s, " ");
    num = s.len;
    gt_text_add(&s, md->unit);
    if (t->per_second && is_rate_kind(md->show))
        gt_text_add(&s, "/s");
    if (s.len <= width)
        return;
    s.len = num;
    add_short_unit(&s, md->unit);
    if (t->per_second && is_rate_kind(md->show))
        gt_text_add(&s, "/s");
}

/* The bar's fraction: percentages of 100, counts of the highest seen,
 * buckets of their histogram's total; -1 when no bar is drawn. */
static double bar_fraction(const struct tui *t, const struct row *r, double v)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];

    if (isnan(v))
        return -1;
    if (md->show == GT_SHOW_PERCENT)
        return v / 100;
    if (r->kind == ROW_BUCKET) {
        const struct gt_group_def *g = &t->l->groups[md->group];
        double total = 0;
        size_t m;
        for (m = g->first; m < g->first + g->count; m++)
            if (t->have_data && !isnan(t->vals[m]) && t->vals[m] > 0)
                total += t->vals[m];
        return total > 0 ? t->vals[r->idx] / total : -1;
    }
    if (md->show == GT_SHOW_COUNT && t->count_bars && r->inst < 0) {
        double max = shown_value(t, r->idx, gt_history_max(t->hist, r->idx));
        return max > 0 ? v / max : -1;
    }
    return -1;
}

static void draw_spark(struct tui *t, int y, int x, size_t m)
{
    double v[SPARK_WIDTH], lo = 0, hi = 0;
    uint32_t cells[SPARK_WIDTH];
    size_t n = gt_history_recent(t->hist, m, v, SPARK_WIDTH), i;

    /* Percentages on their own scale; counts between their recent
     * extremes, so that variation shows. */
    lo = NAN;
    for (i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        hi = v[i] > hi ? v[i] : hi;
        lo = isnan(lo) || v[i] < lo ? v[i] : lo;
    }
    if (isnan(lo) || lo == hi)
        lo = 0;
    if (t->l->metrics[m].show == GT_SHOW_PERCENT) {
        lo = 0;
        hi = 100;
    }
    gt_fmt_sparkline_cells(cells, v, n, lo, hi, t->ascii);
    /* Default colour: every attribute change costs escape sequences. */
    gt_cellbuf_chars(t->cells, y, x, cells, (int)n, ST_PLAIN);
}

static void draw_metric_row(struct tui *t, int y, const struct row *r)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];
    int nw = name_width(), x, vw = 16, bw, selected = r->inst < 0 && (long)r->idx == t->selected;
    int spark = t->sparks && r->inst < 0 && COLS >= 60;
    double v = metric_value(t, r->idx, r->inst), frac;
    char name[256], val[64];
    uint32_t bar[512];
    const char *why = gt_engine_unavailable(t->cfg->engine, r->idx);
    struct gt_text s;

    gt_text_init(&s, name, sizeof(name));
    if (r->inst >= 0) {
        gt_text_add(&s, gt_engine_instanced(t->cfg->engine, r->idx) ? "    cluster "
                                                                    : "    instance ");
        gt_text_uint(&s, (unsigned)r->inst);
    } else {
        gt_text_add(&s, "  ");
        gt_text_add(&s, md->title);
    }
    put_clipped(t, y, 0, name, nw, selected ? ST_SELECTED : ST_PLAIN);
    x = nw + 1;
    if (why) {
        put(t, y, x, "unavailable", -1, ST_DIM);
        return;
    }
    if (r->kind == ROW_BUCKET && !isnan(v) && (frac = bar_fraction(t, r, t->vals[r->idx])) >= 0) {
        gt_text_init(&s, val, sizeof(val));
        gt_text_fixed(&s, frac * 100, 0, 3);
        gt_text_add(&s, "% ");
        gt_text_si(&s, v);
    } else {
        value_text(t, r->idx, v, val, sizeof(val), (size_t)vw);
    }
    bw = COLS - x - vw - 2 - (spark ? SPARK_WIDTH + 1 : 0);
    frac = r->kind == ROW_BUCKET ? bar_fraction(t, r, t->have_data ? t->vals[r->idx] : NAN)
                                 : bar_fraction(t, r, v);
    if (bw >= 4 && frac >= 0) {
        if (bw > (int)(sizeof(bar) / sizeof(bar[0])))
            bw = (int)(sizeof(bar) / sizeof(bar[0]));
        gt_fmt_bar_cells(bar, bw, frac, t->ascii);
        gt_cellbuf_chars(t->cells, y, x, bar, bw,
                         md->show == GT_SHOW_PERCENT ? level_style(v) : ST_ACCENT);
    }
    if (bw < 4)
        bw = 0;
    put(t, y, x + (bw ? bw + 1 : 0), val, vw + (bw ? 0 : COLS), ST_PLAIN);
    if (spark)
        draw_spark(t, y, COLS - SPARK_WIDTH, r->idx);
}

static void draw_row(struct tui *t, int y, const struct row *r)
{
    char buf[256];

    switch (r->kind) {
    case ROW_GROUP: {
        int x = put(t, y, 0, t->l->groups[r->idx].title, -1, ST_HEADING);
        if (t->l->groups[r->idx].histogram)
            put(t, y, x, " (histogram)", -1, ST_HEADING);
        return;
    }
    case ROW_TRIAGE:
        triage_text(t, buf, sizeof(buf));
        put(t, y, 0, buf, -1, ST_ALERT);
        return;
    default:
        draw_metric_row(t, y, r);
        return;
    }
}

static int body_top(void) { return 2; }
static int body_height(void) { return LINES - 4 < 1 ? 1 : LINES - 4; }

static long selected_row(const struct tui *t)
{
    size_t i;

    for (i = 0; i < t->nrows; i++)
        if ((t->rows[i].kind == ROW_METRIC || t->rows[i].kind == ROW_BUCKET) &&
            (long)t->rows[i].idx == t->selected)
            return (long)i;
    return -1;
}

static void keep_selection_visible(struct tui *t)
{
    long r = selected_row(t);
    int h = body_height();

    if (r >= 0 && r < t->scroll)
        t->scroll = (int)r - (r > 0 && t->rows[r - 1].kind == ROW_GROUP);
    if (r >= 0 && r >= t->scroll + h)
        t->scroll = (int)r - h + 1;
    if (t->scroll > (int)t->nrows - h)
        t->scroll = (int)t->nrows - h;
    if (t->scroll < 0)
        t->scroll = 0;
}

static void draw_body(struct tui *t)
{
    int h = body_height(), y;
    size_t i;

    for (y = 0; y < h; y++) {
        i = (size_t)(t->scroll + y);
        if (i >= t->nrows)
            break;
        draw_row(t, body_top() + y, &t->rows[i]);
    }
    if (t->scroll > 0)
        put(t, body_top(), COLS - 1, t->ascii ? "^" : "\u2191", 1, ST_PLAIN);
    if ((size_t)(t->scroll + h) < t->nrows)
        put(t, body_top() + h - 1, COLS - 1, t->ascii ? "v" : "\u2193", 1, ST_PLAIN);
}

static void draw_footer(struct tui *t)
{
    char buf[512];
    const char *why;

    if (t->searching) {
        snprintf(buf, sizeof(buf), "/%s", t->search);
        put(t, LINES - 1, 0, buf, -1, ST_PLAIN);
        return;
    }
    if (t->message[0]) {
        put(t, LINES - 1, 0, t->message, -1, ST_PLAIN);
        return;
    }
    if (t->selected >= 0 && t->keys_seen) {
        const struct gt_metric_def *md = &t->l->metrics[t->selected];
        char mn[32], mx[32];
        why = gt_engine_unavailable(t->cfg->engine, (size_t)t->selected);
        gt_fmt_si(mn, sizeof(mn), shown_value(t, (size_t)t->selected,
                                               gt_history_min(t->hist, (size_t)t->selected)));
        gt_fmt_si(mx, sizeof(mx), shown_value(t, (size_t)t->selected,
                                               gt_history_max(t->hist, (size_t)t->selected)));
        snprintf(buf, sizeof(buf), " %s%s%s  [min %s max %s]", md->ref ? md->ref : "",
                 md->ref ? " " : "", why ? why : md->desc ? md->desc : md->title, mn, mx);
        put(t, LINES - 1, 0, buf, -1, ST_DIM);
        return;
    }
    put(t, LINES - 1, 0, " h help  keys/Tab sections  up/down select  c per-core  "
        "space pause  +/- interval  t per-second  s sparklines  / find  q quit", -1, ST_ACCENT);
}

static const char *const help_lines[] = {
    "gputop keys",
    "",
    "  1-9 0 a-z    show the section with that key (see the tabs)",
    "  Tab, right   next section;  Shift-Tab, left  previous section",
    "  up, down     select a metric;  PgUp, PgDn, Home, End  scroll",
    "  c            per-core view: one bar per instance in the selected group",
    "  space        pause / resume the display",
    "  + -          sample faster / slower",
    "  t            counts per second / per interval",
    "  s            sparklines of recent history on / off",
    "  p            bars for counts (scaled to the highest seen) on / off",
    "  r            reset min / max",
    "  /            find a metric by name (Enter: next match, Esc: cancel)",
    "  h ? F1       this help;  any key closes it",
    "  Ctrl-L       redraw the whole screen;  Ctrl-Z  suspend (fg resumes)",
    "  q            quit",
    "",
    "  The footer shows the selected metric: guide reference, description",
    "  (or why it is unavailable) and its min / max.",
};

static void draw_help(struct tui *t)
{
    size_t n = sizeof(help_lines) / sizeof(help_lines[0]), i;
    int w = 76 < COLS - 2 ? 76 : COLS - 2, h = (int)n + 2 < LINES - 1 ? (int)n + 2 : LINES - 1;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2, y;

    if (w < 10 || h < 3)
        return;
    for (y = 0; y < h; y++)
        gt_cellbuf_fill(t->cells, y0 + y, x0, w, ' ', ST_HEADER);
    for (i = 0; i < n && (int)i < h - 2; i++)
        put(t, y0 + 1 + (int)i, x0 + 1, help_lines[i], w - 2, ST_HEADER);
}

/* All of it, through interrupted and partial writes and a terminal that
 * is not ready (non-blocking, or a slow link): returns 0, or -1 when the
 * terminal went away or stayed blocked for a second (SIGHUP ends us in the
 * first case; the caller redraws everything next time in the second). */
static int write_all(const char *p, size_t n)
{
    struct pollfd out = { STDOUT_FILENO, POLLOUT, 0 };

    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (poll(&out, 1, 1000) > 0)
                continue;
            return -1;
        }
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One write() a refresh, of only the cells that changed. */
static void flush_cells(struct tui *t)
{
    const char *bytes;
    size_t n = gt_termout_render(t->out, t->cells, &bytes);

    /* What did not arrive is unknown on screen: all of it next time. */
    if (write_all(bytes, n) < 0) {
        gt_cellbuf_invalidate(t->cells);
        gt_termout_forget(t->out);
    }
}

/* Before ncurses writes to the terminal again: our style off, the cursor
 * where ncurses left it. */
static void hand_back(struct tui *t)
{
    const char *bytes;
    size_t n = gt_termout_release(t->out, &bytes);

    if (write_all(bytes, n) < 0) {
        gt_cellbuf_invalidate(t->cells);
        gt_termout_forget(t->out);
    }
}

/* The whole screen is unknown (resized, or back from a suspend): ncurses
 * clears it, and the next frame is drawn whole. */
static void repaint_all(struct tui *t)
{
    hand_back(t);
    clearok(curscr, TRUE);
    refresh();
    gt_cellbuf_invalidate(t->cells);
}

static void draw(struct tui *t)
{
    if (gt_cellbuf_begin(t->cells, LINES, COLS) < 0)
        return;
    build_rows(t);
    keep_selection_visible(t);
    draw_header(t);
    if (LINES >= 3) {
        draw_tabs(t);
        draw_body(t);
    }
    draw_footer(t);
    if (t->help)
        draw_help(t);
    flush_cells(t);
}

/* ---- input ---- */

static void select_first_in_section(struct tui *t)
{
    const struct gt_section_def *s = &t->l->sections[t->section];

    t->selected = (long)t->l->groups[s->first].first;
    t->scroll = 0;
}

static void go_section(struct tui *t, size_t i)
{
    if (i >= t->l->nsections)
        return;
    t->section = i;
    select_first_in_section(t);
}

static void move_selection(struct tui *t, int delta)
{
    const struct gt_section_def *s = &t->l->sections[t->section];
    long first = (long)t->l->groups[s->first].first;
    const struct gt_group_def *lg = &t->l->groups[s->first + s->count - 1];
    long last = (long)(lg->first + lg->count) - 1;

    t->selected += delta;
    if (t->selected < first)
        t->selected = first;
    if (t->selected > last)
        t->selected = last;
}

static void change_interval(struct tui *t, int dir)
{
    static const uint64_t steps_ms[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000 };
    size_t n = sizeof(steps_ms) / sizeof(steps_ms[0]), i;
    uint64_t cur = gt_sampler_interval(t->cfg->sampler) / 1000000ull;

    for (i = 0; i < n && steps_ms[i] < cur; i++)
        ;
    if (dir < 0 && i + 1 < n && steps_ms[i] <= cur)
        i++;
    else if (dir > 0 && i > 0)
        i--;
    gt_sampler_set_interval(t->cfg->sampler, steps_ms[i] * 1000000ull);
    snprintf(t->message, sizeof(t->message), " sampling every %llu ms",
             (unsigned long long)steps_ms[i]);
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}

static void find_next(struct tui *t)
{
    size_t n = t->l->nmetrics, k, m;

    if (!t->search[0] || n == 0)
        return;
    for (k = 1; k <= n; k++) {
        m = ((size_t)(t->selected < 0 ? 0 : t->selected) + k) % n;
        if (contains_nocase(t->l->metrics[m].title, t->search)) {
            t->section = (size_t)t->l->metrics[m].section;
            t->selected = (long)m;
            snprintf(t->message, sizeof(t->message), " found: %s", t->l->metrics[m].title);
            return;
        }
    }
    snprintf(t->message, sizeof(t->message), " no metric matches '%s'", t->search);
}

static void search_key(struct tui *t, int ch)
{
    size_t n = strlen(t->search);

    if (ch == 27) {
        t->searching = 0;
    } else if (ch == '\n' || ch == KEY_ENTER || ch == '\r') {
        t->searching = 0;
        find_next(t);
    } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n > 0) {
        t->search[n - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && n + 1 < sizeof(t->search)) {
        t->search[n] = (char)ch;
        t->search[n + 1] = '\0';
    }
}

static void mouse_key(struct tui *t)
{
    MEVENT ev;
    int keys_only = tabs_keys_only(t), x = 0;
    size_t i;

    if (getmouse(&ev) != OK || ev.y != 1)
        return;
    for (i = 0; i < t->l->nsections; i++) {
        int w = tab_width(t, i, keys_only);
        if (ev.x >= x && ev.x < x + w) {
            go_section(t, i);
            return;
        }
        x += w;
    }
}

/* Returns 1 to quit. */
static int handle_key(struct tui *t, int ch)
{
    size_t i;

    t->message[0] = '\0';
    if (t->searching) {
        search_key(t, ch);
        return 0;
    }
    if (t->help && ch != KEY_RESIZE && ch != KEY_MOUSE) {
        t->help = 0;
        return ch == 'q';
    }
    t->keys_seen = 1;
    switch (ch) {
    case 'q': case 'Q': return 1;
    case 'h': case '?': case KEY_F(1): t->help = 1; return 0;
    case '\t': case KEY_RIGHT: go_section(t, (t->section + 1) % t->l->nsections); return 0;
    case KEY_BTAB: case KEY_LEFT:
        go_section(t, (t->section + t->l->nsections - 1) % t->l->nsections);
        return 0;
    case KEY_UP: move_selection(t, -1); return 0;
    case KEY_DOWN: move_selection(t, 1); return 0;
    case KEY_PPAGE: move_selection(t, -(body_height() - 1)); return 0;
    case KEY_NPAGE: move_selection(t, body_height() - 1); return 0;
    case KEY_HOME: move_selection(t, -100000); return 0;
    case KEY_END: move_selection(t, 100000); return 0;
    case ' ': t->paused = !t->paused; return 0;
    case '+': case '=': change_interval(t, 1); return 0;
    case '-': case '_': change_interval(t, -1); return 0;
    case 'c': t->percore = !t->percore; return 0;
    case 't': t->per_second = !t->per_second; return 0;
    case 's': t->sparks = !t->sparks; return 0;
    case 'p': t->count_bars = !t->count_bars; return 0;
    case 'r':
        gt_history_reset(t->hist);
        snprintf(t->message, sizeof(t->message), " min / max reset");
        return 0;
    case '/': t->searching = 1; t->search[0] = '\0'; return 0;
    case KEY_MOUSE: mouse_key(t); return 0;
    case KEY_RESIZE: return 0;
    case 12: repaint_all(t); return 0;       /* Ctrl-L: the screen was garbled */
    }
    for (i = 0; i < t->l->nsections; i++)
        if (t->l->sections[i].key == ch) {
            go_section(t, i);
            return 0;
        }
    return 0;
}

/* ---- terminal ---- */

static int utf8_locale(void)
{
    const char *cs;

    /* The character set only: numbers keep the C locale's decimal point,
     * and the other categories need not be loaded. */
    setlocale(LC_CTYPE, "");
    cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

static SCREEN *try_term(const char *name, char *used, size_t len)
{
    SCREEN *s = newterm(name, stdout, stdin);

    if (s)
        snprintf(used, len, "%s", name);
    return s;
}

/* newterm() with $TERM, then common entries from the system's database,
 * then the same from the built-in entries (phones have no database).
 * ncurses returns NULL rather than exiting when an entry is missing. */
static SCREEN *open_terminal(char *used, size_t len, char *why, size_t whylen)
{
    static const char *const fallbacks[] = { "xterm-256color", "xterm", "vt100", "linux" };
    const char *term = getenv("TERM");
    char dir[512];
    SCREEN *s = NULL;
    size_t i;

    if (term && strcmp(term, "dumb") == 0) {
        snprintf(why, whylen, "TERM=dumb cannot draw a dashboard");
        return NULL;
    }
    if (term && *term && (s = try_term(term, used, len)))
        return s;
    for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
        if ((s = try_term(fallbacks[i], used, len)))
            return s;
    if (gt_terminfo_install(dir, sizeof(dir), why, whylen) < 0)
        return NULL;
    if (term && *term && gt_terminfo_builtin(term) && (s = try_term(term, used, len)))
        return s;
    for (i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
        if ((s = try_term(fallbacks[i], used, len)))
            return s;
    snprintf(why, whylen, "no usable terminal description for TERM=%s", term ? term : "(unset)");
    return NULL;
}

static void restore_on_crash(int sig)
{
    endwin();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_tstp(int sig)
{
    (void)sig;
    suspend_pending = 1;
}

/* Our own SIGTSTP handler, set before the screen opens: ncurses then
 * leaves the signal alone instead of swapping its handler around every
 * update (two system calls a refresh), and the loop suspends in its own
 * time. No SA_RESTART, so the keyboard wait returns at once. */
static void catch_tstp(struct tui *t)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_tstp;
    sigemptyset(&sa.sa_mask);
    suspend_pending = 0;
    sigaction(SIGTSTP, &sa, &t->old_tstp);
}

/* Leaves the screen, stops as Ctrl-Z would by default, and comes back on
 * SIGCONT; ncurses repaints everything on the next update. */
static void suspend(void)
{
    struct sigaction dfl, ours;

    suspend_pending = 0;
    endwin();
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    kill(getpid(), SIGTSTP);
    sigaction(SIGTSTP, &ours, NULL);
}

/* The styles' escape sequences, from the terminal's terminfo entry. */
static int setup_output(struct tui *t, struct gt_diag *d)
{
    const char *nc = getenv("NO_COLOR");
    struct gt_termout_caps caps;
    unsigned attrs[NSTYLES];
    short fg[NSTYLES];
    char buf[4096];
    int i;

    t->color = !t->cfg->no_color && !(nc && *nc) && has_colors();
    for (i = 0; i < NSTYLES; i++) {
        attrs[i] = styles[i].attrs;
        fg[i] = t->color ? styles[i].fg : -1;
    }
    if (gt_termout_caps_from_terminfo(&caps, attrs, fg, NSTYLES, !t->ascii, buf,
                                      sizeof(buf)) < 0) {
        gt_diag_set(d, "the terminal (TERM=%s) cannot move its cursor",
                    termname() ? termname() : "?");
        return -1;
    }
    t->out = gt_termout_new(&caps);
    if (!t->out) {
        gt_diag_set(d, "out of memory");
        return -1;
    }
    return 0;
}

static int setup_terminal(struct tui *t, struct gt_diag *d)
{
    char used[64] = "", why[300] = "";

    t->ascii = !utf8_locale();
    t->cells = gt_cellbuf_new(t->ascii);
    if (!t->cells) {
        gt_diag_set(d, "out of memory");
        return -1;
    }
    catch_tstp(t);
    t->screen = open_terminal(used, sizeof(used), why, sizeof(why));
    if (!t->screen) {
        sigaction(SIGTSTP, &t->old_tstp, NULL);
        gt_diag_set(d, "%s", why);
        return -1;
    }
    set_term(t->screen);
    signal(SIGSEGV, restore_on_crash);
    signal(SIGBUS, restore_on_crash);
    signal(SIGFPE, restore_on_crash);
    signal(SIGABRT, restore_on_crash);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    /* Without this, ncurses polls the keyboard between lines of every
     * update and flushes before each poll: dozens of small writes per
     * refresh instead of one. A keypress waits at most one refresh. */
    typeahead(-1);
    /* ncurses enters the terminal's full-screen mode and clears it; frames
     * are ours from here (termout.c), ncurses writes again only to clear
     * (resize, Ctrl-L, resume) and to leave. */
    refresh();
    if (setup_output(t, d) < 0) {
        endwin();
        sigaction(SIGTSTP, &t->old_tstp, NULL);
        delscreen(t->screen);
        return -1;
    }
    if (!t->cfg->no_mouse)
        t->mouse = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL) != 0;
    return 0;
}

static int init_state(struct tui *t, const struct gt_tui_config *cfg)
{
    size_t i, nm = gt_engine_nmetrics(cfg->engine);

    memset(t, 0, sizeof(*t));
    t->cfg = cfg;
    t->l = cfg->layout;
    t->per_second = cfg->per_second;
    t->sparks = 1;
    t->count_bars = 0;
    t->triage_section = -1;
    t->triage_metric = calloc(t->l->ntriage + 1, sizeof(int));
    if (!t->triage_metric)
        return -1;
    for (i = 0; i < t->l->ntriage; i++) {
        int m = gt_layout_find_metric(t->l, t->l->triage[i].metric);
        t->triage_metric[i] = m;
        if (m >= 0 && t->triage_section < 0)
            t->triage_section = t->l->metrics[m].section;
    }
    t->vals = calloc(nm + 1, sizeof(double));
    t->hist = gt_history_new(nm, HISTORY_DEPTH);
    if (!t->vals || !t->hist || gt_snapshot_init(&t->snap, gt_sampler_nslots(cfg->sampler)) < 0)
        return -1;
    /* Start on the section with the triage line (GPU activity), else the first. */
    go_section(t, t->triage_section >= 0 ? (size_t)t->triage_section : 0);
    return 0;
}

static void free_state(struct tui *t)
{
    free(t->vals);
    free(t->rows);
    free(t->triage_metric);
    gt_history_free(t->hist);
    gt_snapshot_free(&t->snap);
    gt_cellbuf_free(t->cells);
    gt_termout_free(t->out);
}

/* Paused, the snapshot on screen stays (the per-core rows are computed
 * from it); the sampler keeps adding up what comes meanwhile. */
static void take_sample(struct tui *t)
{
    size_t i;
    int r;

    if (t->paused)
        return;
    r = gt_sampler_take(t->cfg->sampler, &t->snap, 0);
    if (r <= 0)
        return;
    gt_engine_eval(t->cfg->engine, &t->snap, t->vals);
    for (i = 0; i < t->l->nmetrics; i++)
        t->vals[i] = per_interval(t, i, t->vals[i]);
    gt_history_push(t->hist, t->vals);
    t->have_data = 1;
}

enum { WOKE_SAMPLE = 1, WOKE_INPUT = 2, WOKE_SIGNAL = 4 };

/* Sleeps until a refresh is due or a key or signal arrives. While the
 * sampler runs at least as often as the screen refreshes, the refresh
 * follows the first sample after it is due (fresh data, and no timer of
 * our own to wake for); a timeout a little past that covers a late one. */
static int wait_for_work(struct tui *t, uint64_t next, uint64_t refresh)
{
    struct pollfd p[2] = { { t->input_gone ? -1 : STDIN_FILENO, POLLIN, 0 },
                           { t->wake_fd, POLLIN, 0 } };
    uint64_t interval = gt_sampler_interval(t->cfg->sampler), now = gt_now_ns(), until = next;
    int paced = t->wake_fd >= 0 && t->sampler_live && interval <= refresh, r, woke = 0;
    uint64_t junk;

    if (paced) {
        gt_sampler_wake_after(t->cfg->sampler, next);
        until = next + interval + interval / 2;
    }
    r = poll(p, paced ? 2 : 1, until > now ? (int)((until - now + 999999) / 1000000) : 0);
    if (r < 0)
        return errno == EINTR ? WOKE_SIGNAL : 0;    /* maybe a resize */
    if (paced && (p[1].revents & POLLIN)) {
        if (read(t->wake_fd, &junk, sizeof(junk)) < 0) {
            /* already cleared */
        }
        woke |= WOKE_SAMPLE;
    }
    if (p[0].revents)
        woke |= WOKE_INPUT;
    return woke;
}

/* Every key ncurses has, then one redraw; returns 1 to quit. A terminal
 * that keeps saying "readable" with nothing to read has gone (end of file,
 * hang-up): it is not polled again, rather than spun on; the dashboard
 * goes on until a signal stops it. */
static int read_keys(struct tui *t, int woke)
{
    int ch, quit = 0, any = 0;

    timeout(0);
    while (!quit && (ch = getch()) != ERR) {
        if (ch == KEY_RESIZE)
            repaint_all(t);
        quit = handle_key(t, ch);
        any = 1;
    }
    if (any && !quit)
        draw(t);
    if (any || !(woke & WOKE_INPUT))
        t->empty_reads = 0;
    else if (++t->empty_reads >= 3)
        t->input_gone = 1;
    return quit;
}

int gt_tui_run(const struct gt_tui_config *cfg, volatile sig_atomic_t *stop, struct gt_diag *d)
{
    struct tui t;
    uint64_t refresh = cfg->refresh_ns ? cfg->refresh_ns : 250000000ull, next;
    int quit = 0;

    if (init_state(&t, cfg) < 0) {
        free_state(&t);
        gt_diag_set(d, "out of memory");
        return -1;
    }
    if (setup_terminal(&t, d) < 0) {
        free_state(&t);
        return 1;
    }
    t.wake_fd = gt_sampler_wake_fd(cfg->sampler);
    next = gt_now_ns();
    while (!quit && !*stop) {
        uint64_t now = gt_now_ns();
        int woke;
        if (suspend_pending) {
            hand_back(&t);
            suspend();
            repaint_all(&t);
            draw(&t);
        }
        if (now >= next) {
            take_sample(&t);
            draw(&t);
            next += refresh;
            if (next <= now)
                next = now + refresh;
        }
        /* A sample wakes us only once the refresh is due: the top of the
         * loop draws, on the same grid of refresh times. */
        woke = wait_for_work(&t, next, refresh);
        if (woke & (WOKE_INPUT | WOKE_SIGNAL))
            quit = read_keys(&t, woke);
    }
    hand_back(&t);
    endwin();
    sigaction(SIGTSTP, &t.old_tstp, NULL);
    delscreen(t.screen);
    free_state(&t);
    return 0;
}
