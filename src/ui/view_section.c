/* The current section's page: its rows (groups, metrics, histogram
 * buckets), each drawn as a title, a bar, a value and a sparkline. */
#include "tui_internal.h"
#include "gputop/format.h"
#include "gputop/history.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPARK_WIDTH 12    /* at least; wide terminals give it what the bar leaves */
/* Column widths come from the section's content: titles up to NAME_MAX,
 * values as wide as their units need; the bar takes what is left up to
 * bar_cap(), so that on a wide terminal values stay near their titles. */
#define NAME_MIN 12
#define NAME_MAX 46
#define NAME_KEPT 20      /* a title keeps this much before the bar gives way */
#define VALUE_MIN 7       /* "100.0 %" */
#define VALUE_MAX 24
#define BAR_MIN 8
#define BAR_MAX 64        /* the array's size; the cap is bar_cap() */
#define BAR_CAP 40        /* up to 120 columns */

/* Wider terminals get longer bars (issue 43: at 200 columns they stopped
 * at 40), a third of the width up to BAR_MAX: values still stay within
 * 120 columns of their titles. */
static int bar_cap(void)
{
    int w = COLS / 3;

    return w < BAR_CAP ? BAR_CAP : w > BAR_MAX ? BAR_MAX : w;
}

struct columns {
    int name, bar, value, spark;   /* widths; spark 0: none */
    int peak;                      /* "peak P  N %" and a space; 0: none */
    int x0, width;                 /* the panel the rows are drawn in */
};


static int has_metric_rows(const struct tui *t)
{
    size_t i;

    for (i = 0; i < t->nrows; i++)
        if (t->rows[i].kind == ROW_METRIC || t->rows[i].kind == ROW_BUCKET)
            return 1;
    return 0;
}

void tui_build_rows(struct tui *t)
{
    const struct gt_section_def *s = &t->l->sections[t->section];
    size_t g, m;

    t->nrows = 0;
    /* Before the first sample there is nothing to judge: say so. */
    if (!t->have_data)
        tui_add_row(t, ROW_WAITING, 0, -1);
    else if ((int)t->section == t->triage_section)
        tui_add_row(t, ROW_TRIAGE, 0, -1);
    for (g = s->first; g < s->first + s->count; g++) {
        const struct gt_group_def *gd = &t->l->groups[g];
        size_t heading = t->nrows;
        tui_add_row(t, ROW_GROUP, g, -1);
        for (m = gd->first; m < gd->first + gd->count; m++) {
            if (!gt_layout_metric_matches(&t->l->metrics[m], t->cfg->metrics))
                continue;
            tui_add_row(t, gd->histogram ? ROW_BUCKET : ROW_METRIC, m, -1);
            tui_percore_add_rows(t, g, m);
        }
        if (t->nrows == heading + 1)     /* --metrics left none of it */
            t->nrows = heading;
    }
    if (t->cfg->metrics && !has_metric_rows(t))
        tui_add_row(t, ROW_NOMATCH, 0, -1);
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
    while (*unit) {
        size_t n = strcspn(unit, "/");
        const char *a = unit_word(unit, n);
        if (a)
            gt_text_add(s, a);
        else
            gt_text_addn(s, unit, n < 31 ? n : 31);   /* as the word buffer kept */
        unit += n;
        if (*unit == '/') {
            gt_text_add(s, "/");
            unit++;
        }
    }
}

/* A unit that carries its own SI prefix (MHz) takes no other: a clock
 * reads 2860 MHz, as sysfs and amdgpu_top print it, not 2.86k MHz. */
static int prefixed_unit(const char *unit)
{
    return unit && (unit[0] == 'k' || unit[0] == 'M' || unit[0] == 'G') &&
           strcmp(unit + 1, "Hz") == 0;
}

/* Per second, cycles are a frequency and bytes a bandwidth, read as nvtop
 * and amdgpu_top print them: "124 MHz", "5.14 GB/s" (the SI prefix on the
 * unit). 0 for other units, which keep "24.8M beats/s". */
static int rate_text(struct gt_text *s, double v, const char *unit)
{
    const char *base = strcmp(unit, "cycles") == 0 ? "Hz" : strcmp(unit, "bytes") == 0 ? "B/s" : NULL;
    char num[16];
    size_t n;

    if (!base)
        return 0;
    gt_fmt_si(num, sizeof(num), v);
    n = strlen(num);
    if (n > 1 && (num[n - 1] == 'k' || num[n - 1] == 'M' || num[n - 1] == 'G' ||
                  num[n - 1] == 'T' || num[n - 1] == 'P')) {
        gt_text_addn(s, num, n - 1);
        gt_text_add(s, " ");
        gt_text_addn(s, num + n - 1, 1);
    } else {
        gt_text_add(s, num);
        gt_text_add(s, " ");
    }
    gt_text_add(s, base);
    return 1;
}

static void value_text_plain(const struct tui *t, size_t m, double v, char *buf, size_t len,
                             size_t width)
{
    const struct gt_metric_def *md = &t->l->metrics[m];
    struct gt_text s;
    size_t num;

    gt_text_init(&s, buf, len);
    if (t->per_second && tui_is_rate_kind(md->show) && !isnan(v) && rate_text(&s, v, md->unit))
        return;
    if (md->show == GT_SHOW_PERCENT) {
        if (isnan(v)) {
            gt_text_add(&s, "-");
            return;
        }
        gt_text_fixed(&s, v, 1, 5);
        gt_text_add(&s, " %");
        return;
    }
    if (prefixed_unit(md->unit) && !isnan(v) && fabs(v) < 1e6)
        gt_text_fixed(&s, v, 0, 0);
    else
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

/* The value as shown; '~' before an estimate (a counter the source
 * multiplexes), in the padding when there is some ("~75.0 %"). */
void tui_value_text(const struct tui *t, size_t m, double v, char *buf, size_t len,
                    size_t width)
{
    size_t n;

    value_text_plain(t, m, v, buf, len, width);
    if (isnan(v) || !gt_engine_estimated(t->cfg->engine, m) || len < 2)
        return;
    if (buf[0] == ' ') {
        buf[0] = '~';
        return;
    }
    n = strlen(buf);
    if (n + 2 > len)
        n = len - 2;
    memmove(buf + 1, buf, n + 1);
    buf[n + 1] = '\0';
    buf[0] = '~';
}

static double group_largest(const struct tui *t, size_t m);

/* The bar's fraction: percentages of 100, counts of their group's largest
 * row, buckets of their histogram's total; -1 when no bar is drawn. */
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
    if (r->inst >= 0)
        return tui_percore_fraction(t, r->idx, v);
    if (md->show == GT_SHOW_COUNT && t->count_bars && !gt_engine_constant(t->cfg->engine, r->idx)) {
        double max = group_largest(t, r->idx);
        return max > 0 ? v / max : -1;
    }
    return -1;
}

/* Rows a count is measured against: the same group's counts in the same
 * unit that can change (a queue's cycles beside the GPU's active cycles,
 * not the core count). */
static int same_scale(const struct tui *t, size_t a, size_t b)
{
    const struct gt_metric_def *x = &t->l->metrics[a], *y = &t->l->metrics[b];

    return x->group == y->group && x->show == y->show && strcmp(x->unit, y->unit) == 0 &&
           !gt_engine_unavailable(t->cfg->engine, b) && !gt_engine_constant(t->cfg->engine, b);
}

/* A count's bar is scaled to the largest row of its group now (issue 43:
 * its own maximum made a steady value look saturated, and a 13.6M queue
 * as long as the 95.9M it is part of). */
static double group_largest(const struct tui *t, size_t m)
{
    const struct gt_group_def *g = &t->l->groups[t->l->metrics[m].group];
    double max = 0, v;
    size_t k;

    for (k = g->first; k < g->first + g->count; k++) {
        if (!same_scale(t, m, k))
            continue;
        v = tui_metric_value(t, k, -1);
        max = !isnan(v) && v > max ? v : max;
    }
    return max;
}

/* The sparkline: percentages on their own 0-100 scale, anything else
 * from 0 to the highest value in view, so that a steady count draws a
 * steady line and noise of a few percent stays a few percent high; a
 * single value says nothing about change and draws nothing. */
static void draw_spark(struct tui *t, int y, int x, size_t m, int width)
{
    double v[TUI_SPARK_MAX], w[TUI_SPARK_MAX], lo = 0, hi = 0;
    uint32_t cells[TUI_SPARK_MAX];
    size_t n, i, known = 0, k, nk;
    const struct gt_group_def *g = &t->l->groups[t->l->metrics[m].group];

    /* A constant says nothing over time. */
    if (gt_engine_constant(t->cfg->engine, m))
        return;
    width = width > TUI_SPARK_MAX ? TUI_SPARK_MAX : width;
    n = gt_history_recent(t->hist, m, v, (size_t)width);
    /* Counts are drawn against the largest of their group's rows in view,
     * so that a part reads as a part of the whole beside it. */
    for (k = g->first; t->l->metrics[m].show != GT_SHOW_PERCENT && k < g->first + g->count; k++) {
        if (k == m || !same_scale(t, m, k))
            continue;
        nk = gt_history_recent(t->hist, k, w, (size_t)width);
        for (i = 0; i < nk; i++)
            hi = !isnan(w[i]) && w[i] > hi ? w[i] : hi;
    }
    for (i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        known++;
        hi = v[i] > hi ? v[i] : hi;
        lo = v[i] < lo ? v[i] : lo;
    }
    if (known < 2)
        return;
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

    char num[16] = "-";
    size_t w;

    gt_text_init(&s, buf, len);
    gt_text_add(&s, "peak ");
    if (!isnan(peak) && prefixed_unit(t->l->metrics[m].unit) && fabs(peak) < 1e5)
        snprintf(num, sizeof(num), "%.0f", peak);
    else if (!isnan(peak))
        gt_fmt_si(num, sizeof(num), peak);
    /* Padded to the widest SI figure ("29.7k"), so the percents line up
     * whether the peak reads 5 or 29.7k. */
    gt_text_add(&s, num);
    for (w = strlen(num); w < 5; w++)
        gt_text_add(&s, " ");
    gt_text_add(&s, " ");
    if (isnan(pop))
        gt_text_add(&s, "    -");
    else
        gt_text_fixed(&s, pop, 1, 5);
    gt_text_add(&s, " %");
}

/* The row's title, indented under its group, in at most width columns
 * where it can be said shorter (an instance: "core 4" for "shader core
 * 4"). */
static void row_name(const struct tui *t, const struct row *r, char *buf, size_t len, int width)
{
    struct gt_text s;

    if (r->inst >= 0) {
        tui_percore_name(t, r, buf, len, width);
        return;
    }
    gt_text_init(&s, buf, len);
    gt_text_add(&s, "  ");
    gt_text_add(&s, t->l->metrics[r->idx].title);
}

/* Columns the row's value needs with its full unit: "999.9M " and the unit. */
static int value_room(const struct tui *t, const struct row *r)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];

    if (md->show == GT_SHOW_PERCENT)
        return VALUE_MIN;
    if (r->kind == ROW_BUCKET)
        return 11;                       /* "100% 999.9M" */
    if (t->per_second && tui_is_rate_kind(md->show)) {
        if (strcmp(md->unit, "cycles") == 0)
            return 6 + 3;                /* "999.9 MHz" */
        if (strcmp(md->unit, "bytes") == 0)
            return 6 + 4;                /* "999.9 GB/s" */
        return 7 + tui_text_columns(md->unit) + 2;
    }
    return 7 + tui_text_columns(md->unit);
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Widths for the whole section, not only the rows in view, so that they
 * hold still while it scrolls. Narrow, the title keeps NAME_KEPT columns
 * before the bar gives way; the value always keeps its own. */
static struct columns size_columns(const struct tui *t)
{
    struct columns c = { 0, 0, 0, 0, 0, 0, 0 };
    const int W = tui_panel_cols(t);
    int nw = 0, vw = 0, room;
    char name[256];
    size_t i;

    for (i = 0; i < t->nrows; i++) {
        const struct row *r = &t->rows[i];
        if (r->kind == ROW_GROUP || r->kind == ROW_TRIAGE || r->kind == ROW_WAITING ||
            r->kind == ROW_NOMATCH)
            continue;
        row_name(t, r, name, sizeof(name), NAME_MAX);
        nw = clamp(tui_text_columns(name), nw, NAME_MAX);
        vw = clamp(value_room(t, r), vw, VALUE_MAX);
    }
    nw = clamp(nw, NAME_MIN, NAME_MAX);
    c.value = clamp(vw, VALUE_MIN, VALUE_MAX);
    c.spark = t->sparks && W >= 60 ? SPARK_WIDTH + 1 : 0;
    c.peak = section_has_peak(t) ? PEAK_WIDTH + 1 : 0;
    room = W - 1 - c.value - 1 - c.peak - c.spark - BAR_MIN;
    /* Titles, the peak column and a bar matter more than the sparkline. */
    if (c.peak && c.spark && nw > room) {
        c.spark = 0;
        room = W - 1 - c.value - 1 - c.peak - BAR_MIN;
    }
    c.name = nw <= room ? nw : room > NAME_KEPT ? room : nw < NAME_KEPT ? nw : NAME_KEPT;
    c.name = clamp(c.name, 1, W - c.value - 1 > NAME_MIN ? W - c.value - 1 : NAME_MIN);
    c.bar = clamp(W - c.name - 1 - c.value - 1 - c.peak - c.spark, 0, bar_cap());
    if (c.bar < 4)
        c.bar = 0;
    /* What the bar leaves at a wide terminal is more history. */
    if (c.spark)
        c.spark = clamp(W - c.name - 1 - (c.bar ? c.bar + 1 : 0) - c.value - c.peak - 1,
                        c.spark, TUI_SPARK_MAX + 1);
    return c;
}

/* Percentages and histogram buckets have bars, counts when 'p' asks. */
static int may_have_bar(const struct tui *t, const struct row *r)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];

    return md->show == GT_SHOW_PERCENT || r->kind == ROW_BUCKET || has_peak(t, r) ||
           (md->show == GT_SHOW_COUNT && t->count_bars && r->inst < 0 &&
            !gt_engine_constant(t->cfg->engine, r->idx));
}

static void draw_metric_row(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];
    int x = c->x0 + c->name + 1, bw = c->bar, vx, selected = r->inst < 0 && (long)r->idx == t->selected;
    double v = tui_metric_value(t, r->idx, r->inst), frac;
    int peak = has_peak(t, r);
    char name[256], val[64], pk[64];
    uint32_t bar[BAR_MAX];
    const char *why = gt_engine_unavailable(t->cfg->engine, r->idx);
    struct gt_text s;
    enum style st;

    row_name(t, r, name, sizeof(name), c->name);
    /* A row that never draws a bar lends its bar's columns to the title. */
    tui_put_clipped(t, y, c->x0, name, c->name + (bw && !may_have_bar(t, r) ? bw + 1 : 0),
                    selected ? ST_SELECTED : ST_PLAIN);
    if (why) {
        /* A source's own reason ("needs root") says more than the word. */
        size_t label = gt_engine_unavailable_label(t->cfg->engine, r->idx);
        tui_put(t, y, x, label ? why : "unavailable", label ? (int)label : -1, ST_DIM);
        return;
    }
    if (!t->have_data)
        return;                          /* the waiting line says why */
    if (r->kind == ROW_BUCKET && !isnan(v) && (frac = bar_fraction(t, r, t->vals[r->idx])) >= 0) {
        gt_text_init(&s, val, sizeof(val));
        gt_text_fixed(&s, frac * 100, 0, 3);
        gt_text_add(&s, "% ");
        gt_text_si(&s, v);
    } else {
        tui_value_text(t, r->idx, v, val, sizeof(val), (size_t)c->value);
    }
    frac = r->kind == ROW_BUCKET ? bar_fraction(t, r, t->have_data ? t->vals[r->idx] : NAN)
                                 : bar_fraction(t, r, v);
    if (peak) {
        double pop = peak_percent(t, r->idx);
        frac = isnan(pop) ? -1 : pop < 0 ? 0 : pop > 100 ? 1 : pop / 100;
    }
    st = peak ? tui_metric_style(t, r->idx, peak_percent(t, r->idx))
       : md->show == GT_SHOW_PERCENT ? tui_metric_style(t, r->idx, v) : ST_ACCENT;
    if (bw && frac >= 0) {
        gt_fmt_bar_cells(bar, bw, frac, t->ascii);
        gt_cellbuf_chars(t->cells, y, x, bar, bw, st);
    }
    vx = x + (bw ? bw + 1 : 0);
    /* An idle GPU's share of active cycles: the value is dimmed too. */
    tui_put(t, y, vx, val, c->value + (bw ? 0 : c->x0 + c->width - vx),
            md->share_active && tui_gpu_idle(t) ? ST_DIM : ST_PLAIN);
    if (peak) {
        peak_text(t, r->idx, pk, sizeof(pk));
        tui_put(t, y, vx + c->value + 1, pk, PEAK_WIDTH, ST_PLAIN);
    }
    if (c->spark && r->inst < 0 && vx + c->value + c->peak + c->spark <= c->x0 + c->width)
        draw_spark(t, y, vx + c->value + c->peak + 1, r->idx, c->spark - 1);
}

/* " waiting for the first sample (every 1 s)" until one comes. */
static void draw_waiting(struct tui *t, int y, int x0, int width)
{
    char buf[96], period[32];

    tui_period_text(period, sizeof(period), gt_sampler_interval(t->cfg->sampler));
    snprintf(buf, sizeof(buf), " waiting for the first sample (every %s)", period);
    tui_put_clipped(t, y, x0, buf, width, ST_HEADING);
}

/* What the group's count bars are measured against, said on its heading
 * (issue 43): a peak the layout gives, else the group's largest row;
 * NULL when no count of it draws a bar (percentages need no note). */
static const char *scale_note(const struct tui *t, size_t g)
{
    const struct gt_group_def *gd = &t->l->groups[g];
    int peak = 0, largest = 0;
    size_t m;

    if (gd->histogram)
        return NULL;
    for (m = gd->first; m < gd->first + gd->count; m++) {
        const struct gt_metric_def *md = &t->l->metrics[m];
        if (!gt_layout_metric_matches(md, t->cfg->metrics) ||
            gt_engine_unavailable(t->cfg->engine, m))
            continue;
        if (gt_engine_has_peak(t->cfg->engine, m))
            peak = 1;
        else if (md->show == GT_SHOW_COUNT && t->count_bars &&
                 !gt_engine_constant(t->cfg->engine, m))
            largest = 1;
    }
    return peak && largest ? "bars: % of peak, else vs largest"
         : peak ? "bars: % of peak" : largest ? "bars: vs largest" : NULL;
}

static void draw_group(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    int x = tui_put(t, y, c->x0, t->l->groups[r->idx].title, c->width, ST_HEADING);
    const char *note = scale_note(t, r->idx);

    if (t->l->groups[r->idx].histogram)
        x += tui_put(t, y, c->x0 + x, " (histogram)", c->width - x, ST_HEADING);
    /* Dim and after two blanks, so that it reads as a note, not a title;
     * left out where it does not fit whole. */
    if (note && x + 2 + tui_text_columns(note) <= c->width - 1)
        tui_put(t, y, c->x0 + x + 2, note, -1, ST_DIM);
}

static void draw_triage_row(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    (void)r;
    (void)c;
    tui_draw_triage(t, y);
}

static void draw_waiting_row(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    (void)r;
    draw_waiting(t, y, c->x0, c->width);
}

static void draw_nomatch(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    char buf[160];

    (void)r;
    snprintf(buf, sizeof(buf), " no metric of this section matches --metrics '%s'",
             t->cfg->metrics);
    tui_put_clipped(t, y, c->x0, buf, c->width, ST_DIM);
}

static void draw_strip(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    tui_percore_draw_strip(t, y, r, c->x0, c->width);
}

static void draw_spread(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    tui_percore_draw_spread(t, y, r, c->x0, c->width);
}

/* How each kind of row is drawn, as htop's meters have a draw function
 * per mode: the page is a list of rows, and a row's kind picks its line. */
static void (*const draw_kind[])(struct tui *t, int y, const struct row *r,
                                 const struct columns *c) = {
    [ROW_GROUP] = draw_group,
    [ROW_TRIAGE] = draw_triage_row,
    [ROW_METRIC] = draw_metric_row,
    [ROW_INSTANCE] = draw_metric_row,
    [ROW_BUCKET] = draw_metric_row,
    [ROW_STRIP] = draw_strip,
    [ROW_SPREAD] = draw_spread,
    [ROW_WAITING] = draw_waiting_row,
    [ROW_NOMATCH] = draw_nomatch,
};

static void draw_row(struct tui *t, int y, const struct row *r, const struct columns *c)
{
    draw_kind[r->kind](t, y, r, c);
    /* The selection is the whole row, bar and value too. */
    if ((r->kind == ROW_METRIC || r->kind == ROW_BUCKET) && (long)r->idx == t->selected)
        gt_cellbuf_restyle(t->cells, y, c->x0, c->width, ST_SELECTED);
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

/* The last row of the selected metric's breakdown (its instance rows,
 * strip and min / max line), r itself when it has none. */
static long breakdown_end(const struct tui *t, long r)
{
    long e = r;

    while (e + 1 < (long)t->nrows && t->rows[e + 1].idx == t->rows[r].idx &&
           (t->rows[e + 1].kind == ROW_INSTANCE || t->rows[e + 1].kind == ROW_STRIP ||
            t->rows[e + 1].kind == ROW_SPREAD))
        e++;
    return e;
}

/* Rows drawn across the whole width above the panels: the waiting and
 * triage lines, which come before the first group. */
static int full_width(const struct row *r)
{
    return r->kind == ROW_TRIAGE || r->kind == ROW_WAITING;
}

/* Where the rows from scroll go on a body h lines high: full-width lines
 * first (lead of them), then the left panel up to left_end, the right one
 * up to the returned end. The left panel ends at a group's heading, so
 * that a group is read whole beside the next, and holds about half. */
static size_t body_layout(const struct tui *t, int scroll, int h, int *lead, size_t *left_end)
{
    size_t i = (size_t)scroll, end, k, best, cost, split = 0;
    int y = 0;

    while (i < t->nrows && y < h && full_width(&t->rows[i])) {
        i++;
        y++;
    }
    *lead = y;
    h -= y;
    end = i + (size_t)h < t->nrows ? i + (size_t)h : t->nrows;
    if (tui_body_panels(t) == 1) {
        *left_end = end;
        return end;
    }
    /* The group boundary that evens the panels out best: the longer
     * panel as short as it can be. */
    for (k = i + 1, best = t->nrows - i; k <= end; k++) {
        if (k < t->nrows && t->rows[k].kind != ROW_GROUP)
            continue;
        cost = k - i > t->nrows - k ? k - i : t->nrows - k;
        if (cost < best) {
            best = cost;
            split = k;
        }
    }
    end = split ? split : end;
    *left_end = end;
    return end + (size_t)h < t->nrows ? end + (size_t)h : t->nrows;
}

static size_t visible_end(const struct tui *t, int scroll)
{
    int lead;
    size_t left;

    return body_layout(t, scroll, tui_body_height(), &lead, &left);
}

/* Two panels: the least move that shows the selection's rows [r, e]. */
static void keep_visible_in_panels(struct tui *t, long r, long e)
{
    if (r < 0)
        return;
    if (r < t->scroll)
        t->scroll = (int)r - (r > 0 && t->rows[r - 1].kind == ROW_GROUP);
    while (t->scroll < r && (long)visible_end(t, t->scroll) <= e)
        t->scroll++;
    /* No further on than the last rows need (after a resize). */
    while (t->scroll > 0 && visible_end(t, t->scroll - 1) >= t->nrows)
        t->scroll--;
}

void tui_keep_selection_visible(struct tui *t)
{
    long r = selected_row(t), e;
    int h = tui_body_height();

    if (tui_body_panels(t) == 2) {
        keep_visible_in_panels(t, r, r >= 0 ? breakdown_end(t, r) : -1);
        return;
    }

    if (r >= 0 && r < t->scroll)
        t->scroll = (int)r - (r > 0 && t->rows[r - 1].kind == ROW_GROUP);
    /* The selection with its breakdown when it fits, else from its row. */
    e = r >= 0 ? breakdown_end(t, r) : -1;
    if (e >= t->scroll + h)
        t->scroll = e - r + 1 <= h ? (int)e - h + 1 : (int)r;
    if (r >= 0 && r >= t->scroll + h)
        t->scroll = (int)r - h + 1;
    if (t->scroll > (int)t->nrows - h)
        t->scroll = (int)t->nrows - h;
    if (t->scroll < 0)
        t->scroll = 0;
}

/* Whether w was sized from the rows and settings on screen now. */
static int widths_fresh(const struct tui *t, const struct tui_widths *w)
{
    size_t i;

    if (!w->valid || w->section != t->section || w->nrows != t->nrows || w->cols != COLS || w->sparks != t->sparks ||
        w->per_second != t->per_second)
        return 0;
    for (i = 0; i < t->nrows; i++)
        if (w->rows[i].kind != t->rows[i].kind || w->rows[i].idx != t->rows[i].idx ||
            w->rows[i].inst != t->rows[i].inst)
            return 0;
    return 1;
}

/* size_columns, redone only when what it depends on changed; sized
 * afresh (and not kept) when there is no memory to keep the rows in. */
static struct columns body_columns(struct tui *t)
{
    struct tui_widths *w = &t->widths;
    struct columns c;

    if (widths_fresh(t, w))
        return (struct columns){ w->name, w->bar, w->value, w->spark, w->peak, 0, tui_panel_cols(t) };
    c = size_columns(t);
    c.width = tui_panel_cols(t);
    w->valid = 0;
    if (t->nrows > w->cap) {
        struct row *r = realloc(w->rows, t->nrows * sizeof(*r));
        if (!r)
            return c;
        w->rows = r;
        w->cap = t->nrows;
    }
    if (t->nrows)
        memcpy(w->rows, t->rows, t->nrows * sizeof(*w->rows));
    w->nrows = t->nrows;
    w->section = t->section;
    w->cols = COLS;
    w->sparks = t->sparks;
    w->per_second = t->per_second;
    w->name = c.name;
    w->bar = c.bar;
    w->value = c.value;
    w->spark = c.spark;
    w->peak = c.peak;
    w->valid = 1;
    return c;
}

void tui_draw_body(struct tui *t)
{
    int h = tui_body_height(), y, lead;
    struct columns c = body_columns(t), whole = c;
    size_t i = (size_t)t->scroll, left, end = body_layout(t, t->scroll, h, &lead, &left);

    whole.width = COLS;
    for (y = 0; y < lead; y++, i++)
        draw_row(t, body_top() + y, &t->rows[i], &whole);
    for (; i < left; i++, y++)
        draw_row(t, body_top() + y, &t->rows[i], &c);
    c.x0 = c.width + TUI_PANEL_GAP;
    for (y = lead; i < end; i++, y++)
        draw_row(t, body_top() + y, &t->rows[i], &c);
    if (t->scroll > 0)
        tui_put(t, body_top(), COLS - 1, t->ascii ? "^" : "\u2191", 1, ST_PLAIN);
    if (end < t->nrows)
        tui_put(t, body_top() + h - 1, COLS - 1, t->ascii ? "v" : "\u2193", 1, ST_PLAIN);
}
