/* Drawing primitives the dashboard's views share: clipped text, the
 * separator, the colour of a level, lines kept from one frame to the next. */
#include "tui_internal.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const SEP_UTF8 = " \u00b7 ";

/* Writes s from (y, x), at most maxw columns (-1: to the end of the row);
 * returns the columns written. */
int tui_put(struct tui *t, int y, int x, const char *s, int maxw, enum style st)
{
    return gt_cellbuf_text(t->cells, y, x, s, maxw, st);
}

/* Columns of UTF-8 text: every character drawn is one column. */
int tui_text_columns(const char *s)
{
    return tui_text_columns_upto(s, INT_MAX - 1);
}

int tui_text_columns_upto(const char *s, int cap)
{
    int n = 0;

    for (; *s && n <= cap; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    /* Stopped on a character past cap: its continuation bytes uncounted. */
    return n;
}

/* tui_put(), with an ellipsis in the last column when s is cut short. */
void tui_put_clipped(struct tui *t, int y, int x, const char *s, int maxw, enum style st)
{
    int n = tui_put(t, y, x, s, maxw, st);

    /* Only text that filled its width or the row can have been cut. In
     * ASCII "..." ('~' marks an estimate, and "+/~" read as a key). */
    if (n > 1 && (n == maxw || x + n == COLS) && tui_text_columns_upto(s, n) > n) {
        if (!t->ascii)
            gt_cellbuf_fill(t->cells, y, x + n - 1, 1, 0x2026, st);
        else
            gt_cellbuf_fill(t->cells, y, x + n - (n > 3 ? 3 : 1), n > 3 ? 3 : 1, '.', st);
    }
}

enum style tui_level_style(double pct)
{
    if (isnan(pct))
        return ST_DIM;
    return pct < 50 ? ST_LOW : pct < 80 ? ST_MID : ST_HIGH;
}

/* Green, yellow or red as a percentage is good, middling or bad in the
 * direction the layout gives (man gputop-layout(5), 'good'); no direction:
 * the neutral accent, so a busy queue is not read as a fault. */
enum style tui_good_style(enum gt_good good, double pct)
{
    if (isnan(pct))
        return ST_DIM;
    if (good == GT_GOOD_NONE)
        return ST_ACCENT;
    return tui_level_style(good == GT_GOOD_HIGH ? 100 - pct : pct);
}

/* Where the triage tree tests the metric (man gputop-layout(5), 'good'),
 * its bands come from that test: red from the threshold on, yellow over
 * the half of the way from the good end to it, so that a value the tree
 * flags is never drawn as good. */
static enum style flagged_style(const struct gt_metric_def *md, double v)
{
    double t = md->flag_at;

    if (md->good == GT_GOOD_LOW)
        return v >= t ? ST_HIGH : v >= t / 2 ? ST_MID : ST_LOW;
    return v < t ? ST_HIGH : v < (t + 100) / 2 ? ST_MID : ST_LOW;
}

/* A metric's bar style: its good direction, dimmed when it is a share of
 * active cycles while the GPU is idle. */
enum style tui_metric_style(const struct tui *t, size_t m, double pct)
{
    const struct gt_metric_def *md = &t->l->metrics[m];

    if (md->share_active && tui_gpu_idle(t))
        return ST_DIM;
    if (md->flagged && !isnan(pct))
        return flagged_style(md, pct);
    return tui_good_style(md->good, pct);
}

/* Bytes of s's next line within width columns: up to the last blank that
 * fits, or the last '/' (a long path), else cut at the width. */
static int line_len(const char *s, int width)
{
    int i, cols = 0, cut = -1;

    for (i = 0; s[i] && cols < width; i++) {
        cols += ((unsigned char)s[i] & 0xC0) != 0x80;
        if (s[i] == ' ' || s[i] == '/')
            cut = s[i] == ' ' ? i : i + 1;
    }
    if (!s[i])
        return i;
    if (s[i] == ' ')
        return i;
    return cut > 0 ? cut : i;
}

int tui_put_wrapped_up(struct tui *t, int bottom, const char *s, int maxlines, enum style st)
{
    const char *p = s;
    int n = 0, top, y, len;

    /* Counted first: the lines end on the bottom row. */
    while (*p && n < maxlines) {
        len = line_len(p, COLS);
        p += len;
        while (*p == ' ')
            p++;
        n++;
    }
    top = bottom - n + 1;
    for (p = s, y = top; y <= bottom; y++) {
        char line[1024];
        len = line_len(p, COLS);
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
        /* The line's own bytes: a width in columns would run on into the
         * next line's text where a character takes several bytes. */
        snprintf(line, sizeof(line), "%.*s", len, p);
        if (y == bottom && p[len])
            tui_put_clipped(t, y, 0, p, COLS, st);   /* more than maxlines */
        else
            tui_put(t, y, 0, line, -1, st);
        p += len;
        while (*p == ' ')
            p++;
    }
    return n;
}

int tui_line_reuse(struct tui *t, const struct tui_line *l, const long *key, int y)
{
    if (!l->valid || memcmp(l->key, key, sizeof(l->key)) != 0)
        return 0;
    gt_cellbuf_put_cells(t->cells, y, 0, l->cells, l->n);
    return 1;
}

/* Out of memory, the line is composed every frame, as before. */
void tui_line_keep(struct tui *t, struct tui_line *l, const long *key, int y, int n)
{
    const uint32_t *row = gt_cellbuf_row(t->cells, y);

    l->valid = 0;
    if (!row || n < 0 || n > gt_cellbuf_cols(t->cells))
        return;
    if (n > l->cap) {
        uint32_t *c = realloc(l->cells, (size_t)n * sizeof(*c));
        if (!c)
            return;
        l->cells = c;
        l->cap = n;
    }
    if (n)
        memcpy(l->cells, row, (size_t)n * sizeof(*row));
    l->n = n;
    memcpy(l->key, key, sizeof(l->key));
    l->valid = 1;
}

void tui_line_free(struct tui_line *l)
{
    free(l->cells);
    memset(l, 0, sizeof(*l));
}

/* "100 ms", "1 s", "2.5 s": a period the way a person says it. */
void tui_period_text(char *buf, size_t len, uint64_t ns)
{
    uint64_t ms = ns / 1000000ull;
    struct gt_text h;

    gt_text_init(&h, buf, len);
    if (ms < 1000) {
        gt_text_fixed(&h, (double)ms, 0, 0);
        gt_text_add(&h, " ms");
        return;
    }
    gt_text_fixed(&h, (double)ms / 1000, ms % 1000 ? (ms % 100 ? 3 : 1) : 0, 0);
    gt_text_add(&h, " s");
}

const char *tui_sep(const struct tui *t)
{
    return t->ascii ? " | " : SEP_UTF8;
}

/* Two panels of groups side by side where each still gets TUI_PANEL_MIN
 * columns (issue 43: at 200 columns half of every line was empty) and
 * the section has groups to set beside each other; else one panel the
 * screen's width, as before (a lone group keeps its long bars). */
int tui_body_panels(const struct tui *t)
{
    return COLS >= 2 * TUI_PANEL_MIN + TUI_PANEL_GAP && t->l->sections[t->section].count > 1 ? 2 : 1;
}

int tui_panel_cols(const struct tui *t)
{
    return tui_body_panels(t) == 2 ? (COLS - TUI_PANEL_GAP) / 2 : COLS;
}
