/* The bottom two lines: the selected metric (guide reference, description
 * or why it is unavailable, min / max with units) above, and below it the
 * search being typed, a message, or the key hints (from the key table,
 * actions.c), which stay reachable. */
#include "tui_internal.h"
#include "gputop/format.h"
#include "gputop/history.h"
#include <math.h>
#include <stdio.h>

/* "1-5 7 8 i": the sections' keys, runs of consecutive ones joined. */
static void section_keys(const struct tui *t, struct gt_text *s)
{
    size_t i = 0, j, n = t->l->nsections;
    char k[2] = { 0, 0 };

    while (i < n) {
        for (j = i; j + 1 < n && t->l->sections[j + 1].key == t->l->sections[j].key + 1; j++)
            ;
        if (i)
            gt_text_add(s, " ");
        k[0] = (char)t->l->sections[i].key;
        gt_text_add(s, k);
        if (j > i + 1)
            gt_text_add(s, "-");
        else if (j == i + 1)
            gt_text_add(s, " ");
        if (j > i) {
            k[0] = (char)t->l->sections[j].key;
            gt_text_add(s, k);
        }
        i = j + 1;
    }
}

/* " h help  q quit  Tab 1-5 7 sections  ...": the key table's rows in
 * force that have a hint, by rank, most wanted first (a narrow screen
 * keeps the start, cut with an ellipsis: at 80 columns through t, or in a
 * replay through its own keys, which rank before the rest); the
 * sections' keys are the layout's. */
#define HINT_RANKS 32

static void hints_text(const struct tui *t, struct gt_text *h)
{
    size_t n, i;
    const struct tui_binding *b = tui_bindings(&n);
    int rank, shown = 0;

    for (rank = 1; rank <= HINT_RANKS; rank++)
        for (i = 0; i < n; i++) {
            if (b[i].hint != rank || !tui_binding_shown(t, &b[i]))
                continue;
            gt_text_add(h, shown++ ? "  " : " ");
            gt_text_add(h, t->ascii && b[i].hint_key_ascii ? b[i].hint_key_ascii
                                                           : b[i].hint_key);
            if (b[i].hint_sections) {
                gt_text_add(h, " ");
                section_keys(t, h);
            }
            gt_text_add(h, " ");
            gt_text_add(h, b[i].hint_note);
        }
}

/* "  min 1.2G cycles  max 3.4G cycles", "" before any data. */
static void range_text(const struct tui *t, size_t m, char *buf, size_t len)
{
    double lo = tui_history_shown(t, m, gt_history_min(t->hist, m));
    double hi = tui_history_shown(t, m, gt_history_max(t->hist, m));
    char mn[64], mx[64];
    struct gt_text s;

    gt_text_init(&s, buf, len);
    if (isnan(lo) || isnan(hi))
        return;
    tui_value_text(t, m, lo, mn, sizeof(mn), 24);
    tui_value_text(t, m, hi, mx, sizeof(mx), 24);
    gt_text_add(&s, "  min ");
    gt_text_add(&s, mn);
    gt_text_add(&s, "  max ");
    gt_text_add(&s, mx);
    gt_text_add(&s, " ");
}

/* The range follows the description, which takes what the range leaves,
 * cut with an ellipsis. */
static void draw_selected(struct tui *t, int y)
{
    size_t m = (size_t)t->selected;
    const struct gt_metric_def *md = &t->l->metrics[m];
    const char *why = gt_engine_unavailable(t->cfg->engine, m);
    char desc[512], range[160];
    struct gt_text d;
    int rw, dw;

    range_text(t, m, range, sizeof(range));
    rw = tui_text_columns(range);
    if (rw > COLS / 2)
        rw = 0;
    gt_text_init(&d, desc, sizeof(desc));
    gt_text_add(&d, " ");
    if (md->ref) {
        gt_text_add(&d, md->ref);
        gt_text_add(&d, " ");
    }
    gt_text_add(&d, why ? why : md->desc ? md->desc : md->title);
    dw = tui_text_columns_upto(desc, COLS - rw);
    if (dw > COLS - rw)
        dw = COLS - rw;
    tui_put_clipped(t, y, 0, desc, dw, ST_PLAIN);
    if (rw)
        tui_put(t, y, dw, range, rw, ST_ACCENT);
}

/* The hints follow the key table, the layout's section keys, live or
 * replay and ASCII or not, all the run's: of a frame's, only the width
 * changes them, so they are composed again only for a new width. */
static void draw_hints(struct tui *t, int y)
{
    long key[TUI_LINE_KEY] = { COLS, t->ascii, t->replay != NULL };
    char buf[512];
    struct gt_text h;
    int n;

    if (tui_line_reuse(t, &t->hints, key, y))
        return;
    gt_text_init(&h, buf, sizeof(buf));
    hints_text(t, &h);
    tui_put_clipped(t, y, 0, buf, COLS - 1, ST_ACCENT);
    /* the cells it wrote, no more: the rest of the row is not the hints' */
    n = tui_text_columns_upto(buf, COLS - 1);
    tui_line_keep(t, &t->hints, key, y, n < COLS - 1 ? n : COLS - 1);
}

void tui_draw_footer(struct tui *t)
{
    char buf[512];

    /* the Processes view writes its own line there (view_processes.c) */
    if (LINES > 3 && !t->alert_shown && t->selected >= 0 && !t->procs_view)
        draw_selected(t, LINES - 2);
    if (t->searching) {
        snprintf(buf, sizeof(buf), "/%s", t->search);
        tui_put(t, LINES - 1, 0, buf, -1, ST_PLAIN);
        return;
    }
    /* The screen's last cell is never written (the terminal would scroll):
     * the ellipsis goes in the one before. */
    if (t->message[0]) {
        tui_put_clipped(t, LINES - 1, 0, t->message, COLS - 1, ST_PLAIN);
        return;
    }
    draw_hints(t, LINES - 1);
}
