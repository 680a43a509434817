/* The current section's page: its rows (groups, metrics, histogram
 * buckets), each drawn as a title, a bar, a value and a sparkline. */
#include "tui_internal.h"
#include "gputop/format.h"
#include "gputop/history.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPARK_WIDTH 12

int tui_add_row(struct tui *t, enum row_kind k, size_t idx, int inst)
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

void tui_build_rows(struct tui *t)
{
    const struct gt_section_def *s = &t->l->sections[t->section];
    size_t g, m;

    t->nrows = 0;
    if ((int)t->section == t->triage_section)
        tui_add_row(t, ROW_TRIAGE, 0, -1);
    for (g = s->first; g < s->first + s->count; g++) {
        const struct gt_group_def *gd = &t->l->groups[g];
        tui_add_row(t, ROW_GROUP, g, -1);
        for (m = gd->first; m < gd->first + gd->count; m++) {
            tui_add_row(t, gd->histogram ? ROW_BUCKET : ROW_METRIC, m, -1);
            tui_percore_add_rows(t, g, m);
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
    if (t->per_second && tui_is_rate_kind(md->show))
        gt_text_add(&s, "/s");
    if (s.len <= width)
        return;
    s.len = num;
    add_short_unit(&s, md->unit);
    if (t->per_second && tui_is_rate_kind(md->show))
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
        double max = tui_shown_value(t, r->idx, gt_history_max(t->hist, r->idx));
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

/* "peak 14.8k  62.5 %" for a metric with a theoretical peak: the bar
 * then shows the percent of peak. Every row of a section with such a
 * metric keeps the column, so values stay aligned. */
#define PEAK_WIDTH 18

static int section_has_peak(const struct tui *t)
{
    const struct gt_section_def *s = &t->l->sections[t->section];
    size_t g = s->first, m;

    for (; g < s->first + s->count; g++)
        for (m = t->l->groups[g].first; m < t->l->groups[g].first + t->l->groups[g].count; m++)
            if (t->l->metrics[m].peak)
                return 1;
    return 0;
}

static int has_peak(const struct tui *t, const struct row *r)
{
    return r->inst < 0 && r->kind == ROW_METRIC && gt_engine_has_peak(t->cfg->engine, r->idx);
}

static double peak_percent(const struct tui *t, size_t m)
{
    return t->have_data ? gt_engine_pop(t->cfg->engine, m) : NAN;
}

static void peak_text(const struct tui *t, size_t m, char *buf, size_t len)
{
    double peak = t->have_data ? gt_engine_peak(t->cfg->engine, m) : NAN;
    double pop = peak_percent(t, m);
    struct gt_text s;

    gt_text_init(&s, buf, len);
    gt_text_add(&s, "peak ");
    if (isnan(peak))
        gt_text_add(&s, "-");
    else
        gt_text_si(&s, peak);
    gt_text_add(&s, " ");
    if (isnan(pop))
        gt_text_add(&s, "    -");
    else
        gt_text_fixed(&s, pop, 1, 5);
    gt_text_add(&s, " %");
}

static void draw_metric_row(struct tui *t, int y, const struct row *r)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];
    int nw = name_width(), x, vw = 16, bw, selected = r->inst < 0 && (long)r->idx == t->selected;
    int spark = t->sparks && r->inst < 0 && COLS >= 60;
    int peak = has_peak(t, r), pw = section_has_peak(t) ? PEAK_WIDTH + 1 : 0;
    double v = tui_metric_value(t, r->idx, r->inst), frac;
    char name[256], val[64], pk[64];
    uint32_t bar[512];
    const char *why = gt_engine_unavailable(t->cfg->engine, r->idx);
    struct gt_text s;

    gt_text_init(&s, name, sizeof(name));
    if (r->inst >= 0) {
        tui_percore_name(t, r, &s);
    } else {
        gt_text_add(&s, "  ");
        gt_text_add(&s, md->title);
    }
    tui_put_clipped(t, y, 0, name, nw, selected ? ST_SELECTED : ST_PLAIN);
    x = nw + 1;
    if (why) {
        /* A source's own reason ("needs root") says more than the word. */
        size_t label = gt_engine_unavailable_label(t->cfg->engine, r->idx);
        tui_put(t, y, x, label ? why : "unavailable", label ? (int)label : -1, ST_DIM);
        return;
    }
    if (r->kind == ROW_BUCKET && !isnan(v) && (frac = bar_fraction(t, r, t->vals[r->idx])) >= 0) {
        gt_text_init(&s, val, sizeof(val));
        gt_text_fixed(&s, frac * 100, 0, 3);
        gt_text_add(&s, "% ");
        gt_text_si(&s, v);
    } else {
        value_text(t, r->idx, v, val, sizeof(val), (size_t)vw);
        /* "~": the value reads a rotated (multiplexed) counter, an estimate. */
        if (r->inst < 0 && val[0] == ' ' && gt_engine_estimated(t->cfg->engine, r->idx))
            val[0] = '~';
    }
    bw = COLS - x - vw - 2 - pw - (spark ? SPARK_WIDTH + 1 : 0);
    if (pw && spark && bw < 8) {
        spark = 0;      /* the peak column and a bar matter more */
        bw = COLS - x - vw - 2 - pw;
    }
    frac = r->kind == ROW_BUCKET ? bar_fraction(t, r, t->have_data ? t->vals[r->idx] : NAN)
                                 : bar_fraction(t, r, v);
    if (peak) {
        double pop = peak_percent(t, r->idx);
        frac = isnan(pop) ? -1 : pop < 0 ? 0 : pop > 100 ? 1 : pop / 100;
    }
    if (bw >= 4 && frac >= 0) {
        if (bw > (int)(sizeof(bar) / sizeof(bar[0])))
            bw = (int)(sizeof(bar) / sizeof(bar[0]));
        gt_fmt_bar_cells(bar, bw, frac, t->ascii);
        gt_cellbuf_chars(t->cells, y, x, bar, bw,
                         peak ? tui_level_style(peak_percent(t, r->idx))
                         : md->show == GT_SHOW_PERCENT ? tui_level_style(v) : ST_ACCENT);
    }
    if (bw < 4)
        bw = 0;
    tui_put(t, y, x + (bw ? bw + 1 : 0), val, vw + (bw ? 0 : COLS), ST_PLAIN);
    if (peak) {
        peak_text(t, r->idx, pk, sizeof(pk));
        tui_put(t, y, x + (bw ? bw + 1 : 0) + vw + 1, pk, PEAK_WIDTH, ST_PLAIN);
    }
    if (spark)
        draw_spark(t, y, COLS - SPARK_WIDTH, r->idx);
}

static void draw_row(struct tui *t, int y, const struct row *r)
{
    switch (r->kind) {
    case ROW_GROUP: {
        int x = tui_put(t, y, 0, t->l->groups[r->idx].title, -1, ST_HEADING);
        if (t->l->groups[r->idx].histogram)
            tui_put(t, y, x, " (histogram)", -1, ST_HEADING);
        return;
    }
    case ROW_TRIAGE:
        tui_draw_triage(t, y);
        return;
    default:
        draw_metric_row(t, y, r);
        return;
    }
}

static int body_top(void) { return 2; }

int tui_body_height(void) { return LINES - 4 < 1 ? 1 : LINES - 4; }

static long selected_row(const struct tui *t)
{
    size_t i;

    for (i = 0; i < t->nrows; i++)
        if ((t->rows[i].kind == ROW_METRIC || t->rows[i].kind == ROW_BUCKET) &&
            (long)t->rows[i].idx == t->selected)
            return (long)i;
    return -1;
}

void tui_keep_selection_visible(struct tui *t)
{
    long r = selected_row(t);
    int h = tui_body_height();

    if (r >= 0 && r < t->scroll)
        t->scroll = (int)r - (r > 0 && t->rows[r - 1].kind == ROW_GROUP);
    if (r >= 0 && r >= t->scroll + h)
        t->scroll = (int)r - h + 1;
    if (t->scroll > (int)t->nrows - h)
        t->scroll = (int)t->nrows - h;
    if (t->scroll < 0)
        t->scroll = 0;
}

void tui_draw_body(struct tui *t)
{
    int h = tui_body_height(), y;
    size_t i;

    for (y = 0; y < h; y++) {
        i = (size_t)(t->scroll + y);
        if (i >= t->nrows)
            break;
        draw_row(t, body_top() + y, &t->rows[i]);
    }
    if (t->scroll > 0)
        tui_put(t, body_top(), COLS - 1, t->ascii ? "^" : "\u2191", 1, ST_PLAIN);
    if ((size_t)(t->scroll + h) < t->nrows)
        tui_put(t, body_top() + h - 1, COLS - 1, t->ascii ? "v" : "\u2193", 1, ST_PLAIN);
}
