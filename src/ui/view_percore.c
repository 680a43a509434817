/* The per-instance view under a metric (the 'c' key, for the selected
 * group; always, for metrics written per cluster): one row per shader
 * core, L2 slice or CPU cluster, or for many of them a compact strip of
 * short bars, several per line as htop draws many CPUs, with a line giving
 * min / max / spread so that imbalance shows. Values come from the engine
 * (a count is the instance's own count) and names from the engine too, so
 * batch output uses the same. */
#include "tui_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROWS_MAX   8     /* more instances than this go into a strip */
#define CELL_BAR   6     /* a strip cell: number, bar, value */
#define CELL_VAL   6
#define CELL_GAP   2
#define INDENT     4

static int group_selected(const struct tui *t, size_t g)
{
    return t->selected >= 0 && (size_t)t->l->metrics[t->selected].group == g;
}

/* 1 when some metric of group g can be broken down by core. */
int tui_percore_available(const struct tui *t, size_t g)
{
    const struct gt_group_def *gd = &t->l->groups[g];
    size_t m;

    for (m = gd->first; m < gd->first + gd->count; m++)
        if (!gt_engine_instanced(t->cfg->engine, m) && gt_engine_instances(t->cfg->engine, m) > 1)
            return 1;
    return 0;
}

/* Columns the widest instance number takes. */
static int number_width(const struct tui *t, size_t m)
{
    uint32_t n = gt_engine_instances(t->cfg->engine, m);
    unsigned last = n ? gt_engine_instance_number(t->cfg->engine, m, n - 1) : 0;
    int w = 1;

    for (; last >= 10; last /= 10)
        w++;
    return w;
}

static int cell_width(const struct tui *t, size_t m)
{
    return number_width(t, m) + 1 + CELL_BAR + 1 + CELL_VAL;
}

/* As many cells as fit, evened out over the lines the strip needs, so
 * that twelve cores where eleven fit are two lines of six, not a last
 * core on a line of its own (issue 43). */
static int cells_per_line(const struct tui *t, size_t m)
{
    int k = (tui_panel_cols(t) - INDENT + CELL_GAP) / (cell_width(t, m) + CELL_GAP);
    int n = (int)gt_engine_instances(t->cfg->engine, m), lines;

    if (k < 1)
        return 1;
    if (n <= k)
        return k;
    lines = (n + k - 1) / k;
    return (n + lines - 1) / lines;
}

/* Rows for metric m of group g, when it has more than one instance. */
void tui_percore_add_rows(struct tui *t, size_t g, size_t m)
{
    int asked = t->percore && group_selected(t, g);
    int expand = asked || gt_engine_instanced(t->cfg->engine, m);
    uint32_t i, n = expand ? gt_engine_instances(t->cfg->engine, m) : 0, k;

    if (n <= 1)
        return;
    /* A row each when few, or when not even one strip cell fits. */
    /* The min / max line first in both forms, where the eye looks. */
    if (n <= ROWS_MAX || tui_panel_cols(t) < INDENT + cell_width(t, m)) {
        if (asked)
            tui_add_row(t, ROW_SPREAD, m, -1);
        for (i = 0; i < n; i++)
            tui_add_row(t, ROW_INSTANCE, m, (int)i);
        return;
    }
    tui_add_row(t, ROW_SPREAD, m, -1);
    k = (uint32_t)cells_per_line(t, m);
    for (i = 0; i < n; i += k)
        tui_add_row(t, ROW_STRIP, m, (int)i);
}

/* "shader core 4" (brief: "core 4"): the catalogue's word for the block,
 * and the number the instance goes by. */
static const char *instance_name(const struct tui *t, size_t m, uint32_t inst, int brief,
                                 char *buf, size_t len)
{
    const struct gt_engine *e = t->cfg->engine;

    return gt_catalog_instance_name(gt_engine_instance_block(e, m),
                                    gt_engine_instance_number(e, m, inst), brief, buf, len);
}

/* "    shader core 4", shortened to "  core 4" when the column is narrow:
 * the number stays visible. */
void tui_percore_name(const struct tui *t, const struct row *r, char *buf, size_t len, int width)
{
    char name[64];

    instance_name(t, r->idx, (uint32_t)r->inst, 0, name, sizeof(name));
    snprintf(buf, len, "    %s", name);
    if ((int)strlen(buf) <= width)
        return;
    instance_name(t, r->idx, (uint32_t)r->inst, 1, name, sizeof(name));
    snprintf(buf, len, "  %s", name);
    if ((int)strlen(buf) > width && width > 0)
        memmove(buf, buf + strlen(buf) - (size_t)width, (size_t)width + 1);
}

/* The largest instance value shown, NaN when none has data. */
static double instance_max(const struct tui *t, size_t m)
{
    uint32_t i, n = gt_engine_instances(t->cfg->engine, m);
    double max = NAN, v;

    for (i = 0; i < n; i++) {
        v = tui_metric_value(t, m, (int)i);
        if (!isnan(v) && (isnan(max) || v > max))
            max = v;
    }
    return max;
}

/* An instance's bar: a percentage of 100, anything else of the largest
 * instance (max, NaN: not yet known), so the bars compare the instances. */
static double fraction(const struct tui *t, size_t m, double v, double max)
{
    if (isnan(v))
        return -1;
    if (t->l->metrics[m].show == GT_SHOW_PERCENT)
        return v / 100;
    if (isnan(max))
        max = instance_max(t, m);
    return max > 0 ? v / max : -1;
}

double tui_percore_fraction(const struct tui *t, size_t m, double v)
{
    return fraction(t, m, v, NAN);
}

/* Up to six columns: "45.2 %" as the section's rows write it, "1.60k", "-". */
static void short_value(const struct tui *t, size_t m, double v, char *buf, size_t len)
{
    if (t->l->metrics[m].show == GT_SHOW_PERCENT && !isnan(v)) {
        gt_fmt_fixed(buf, len, v, v >= 99.95 ? 0 : 1, 0);
        strncat(buf, " %", len - strlen(buf) - 1);
        return;
    }
    gt_fmt_si(buf, len, v);
}

static void draw_cell(struct tui *t, int y, int x, size_t m, uint32_t inst, int nw, double max)
{
    char num[16], val[16];
    uint32_t bar[CELL_BAR];
    double v = tui_metric_value(t, m, (int)inst), frac = fraction(t, m, v, max);
    int percent = t->l->metrics[m].show == GT_SHOW_PERCENT;

    snprintf(num, sizeof(num), "%*u", nw, (unsigned)gt_engine_instance_number(t->cfg->engine, m, inst));
    x += tui_put(t, y, x, num, nw, ST_DIM) + 1;
    gt_fmt_bar_cells(bar, CELL_BAR, frac < 0 ? 0 : frac, t->ascii);
    gt_cellbuf_chars(t->cells, y, x, bar, CELL_BAR, percent ? tui_metric_style(t, m, v) : ST_ACCENT);
    x += CELL_BAR + 1;
    short_value(t, m, v, val, sizeof(val));
    snprintf(num, sizeof(num), "%*s", CELL_VAL, val);
    tui_put(t, y, x, num, CELL_VAL, ST_PLAIN);
}

/* One line of the strip: instances r->inst onwards, as many as fit. */
void tui_percore_draw_strip(struct tui *t, int y, const struct row *r, int x0, int width)
{
    uint32_t n = gt_engine_instances(t->cfg->engine, r->idx), i = (uint32_t)r->inst;
    int k = cells_per_line(t, r->idx), w = cell_width(t, r->idx), nw = number_width(t, r->idx);
    int c, x = x0 + INDENT;
    double max = instance_max(t, r->idx);     /* once a line, not once a cell */

    for (c = 0; c < k && i < n; c++, i++, x += w + CELL_GAP)
        if (x + w <= x0 + width)
            draw_cell(t, y, x, r->idx, i, nw, max);
}

/* 1 when metric m's total is the mean of its instances: its counters'
 * block is averaged by the layout and each instance shows its own count. */
static int per_core_mean(const struct tui *t, size_t m)
{
    const char *block = gt_engine_instance_block(t->cfg->engine, m);

    return block[0] && t->l->metrics[m].show != GT_SHOW_PERCENT &&
           gt_layout_agg_for(t->l, block) == GT_AGG_MEAN &&
           gt_engine_instance_mode(t->cfg->engine, m) == GT_INSTANCE_OWN;
}

static void add_value(const struct tui *t, size_t m, struct gt_text *s, double v)
{
    char buf[16];

    short_value(t, m, v, buf, sizeof(buf));
    gt_text_add(s, buf);
}

/* "    shader cores: min 1.60k (core 4) · max 4.80k (core 8) · spread
 * 3.20k bytes": spread is max - min, in the metric's unit. */
void tui_percore_draw_spread(struct tui *t, int y, const struct row *r, int x0, int width)
{
    const struct gt_metric_def *md = &t->l->metrics[r->idx];
    uint32_t i, n = gt_engine_instances(t->cfg->engine, r->idx), lo = 0, hi = 0;
    double mn = NAN, mx = NAN, v;
    char line[256], name[48];
    struct gt_text s;

    for (i = 0; i < n; i++) {
        v = tui_metric_value(t, r->idx, (int)i);
        if (isnan(v))
            continue;
        if (isnan(mn) || v < mn) {
            mn = v;
            lo = i;
        }
        if (isnan(mx) || v > mx) {
            mx = v;
            hi = i;
        }
    }
    gt_text_init(&s, line, sizeof(line));
    gt_text_add(&s, "    ");
    gt_text_add(&s, gt_catalog_block_noun(gt_engine_instance_block(t->cfg->engine, r->idx), 0));
    gt_text_add(&s, "s: ");
    if (isnan(mn)) {
        gt_text_add(&s, "no data");
        tui_put(t, y, x0, line, width, ST_DIM);
        return;
    }
    gt_text_add(&s, "min ");
    add_value(t, r->idx, &s, mn);
    gt_text_add(&s, " (");
    gt_text_add(&s, instance_name(t, r->idx, lo, 1, name, sizeof(name)));
    gt_text_add(&s, ")");
    gt_text_add(&s, tui_sep(t));
    gt_text_add(&s, "max ");
    add_value(t, r->idx, &s, mx);
    gt_text_add(&s, " (");
    gt_text_add(&s, instance_name(t, r->idx, hi, 1, name, sizeof(name)));
    gt_text_add(&s, ")");
    gt_text_add(&s, tui_sep(t));
    gt_text_add(&s, "spread ");
    add_value(t, r->idx, &s, mx - mn);
    if (md->show != GT_SHOW_PERCENT && md->unit[0]) {
        gt_text_add(&s, " ");
        gt_text_add(&s, md->unit);
        if (t->per_second && tui_is_rate_kind(md->show))
            gt_text_add(&s, "/s");
    }
    /* Under a mean rule (the G715's shader cores) the metric's row is not
     * a GPU-wide total: say what it is. */
    if (per_core_mean(t, r->idx)) {
        gt_text_add(&s, tui_sep(t));
        gt_text_add(&s, "the row above is their per-core mean");
    }
    tui_put_clipped(t, y, x0, line, width, ST_DIM);
}
