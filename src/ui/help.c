/* The help overlay: the keys and what they do, made from the key table
 * (actions.c), over a cleared screen (only the header stays) so that
 * nothing behind it reads as part of it. */
#include "tui_internal.h"
#include <string.h>

/* Before and after the keys. */
static const char *const help_head[] = { "gputop keys", "" };
static const char *const help_tail[] = {
    "",
    "  Above the key hints: the selected metric's guide reference, its",
    "  description (or why it is unavailable) and its min / max.",
    "  A count's bar (p) and sparkline are scaled to the largest row of its",
    "  group in the same unit (a peak's row: percent of peak); constants",
    "  such as the core count have neither.",
};

#define NAME_COLUMNS 13   /* a line's keys, padded: its description starts after */
#define HELP_LINES 48     /* the most lines the overlay has */
#define HELP_LINE_MAX 192

/* The overlay's text: one line per named row of the key table in force,
 * the rows that join it appended ("keys  what;  keys  what"). */
struct help_text {
    const char *line[HELP_LINES];
    char made[HELP_LINES][HELP_LINE_MAX];
    size_t n;
};

static void add_fixed(struct help_text *h, const char *const *lines, size_t n)
{
    size_t i;

    for (i = 0; i < n && h->n < HELP_LINES; i++)
        h->line[h->n++] = lines[i];
}

static void add_row(struct help_text *h, const struct tui_binding *b)
{
    struct gt_text s;
    int pad;

    if (b->join && h->n > 0 && h->line[h->n - 1] == h->made[h->n - 1]) {
        s = (struct gt_text){ h->made[h->n - 1], HELP_LINE_MAX, strlen(h->made[h->n - 1]) };
        gt_text_add(&s, ";  ");
        gt_text_add(&s, b->name);
        if (b->note) {
            gt_text_add(&s, "  ");
            gt_text_add(&s, b->note);
        }
        return;
    }
    if (h->n >= HELP_LINES)
        return;
    gt_text_init(&s, h->made[h->n], HELP_LINE_MAX);
    gt_text_add(&s, "  ");
    gt_text_add(&s, b->name);
    /* at least two blanks: they mark where the description starts */
    pad = NAME_COLUMNS - tui_text_columns(b->name);
    for (pad = pad < 2 ? 2 : pad; b->note && pad > 0; pad--)
        gt_text_add(&s, " ");
    gt_text_add(&s, b->note ? b->note : "");
    h->line[h->n] = h->made[h->n];
    h->n++;
}

static void make_help(const struct tui *t, struct help_text *h)
{
    size_t n, i;
    const struct tui_binding *b = tui_bindings(&n);

    h->n = 0;
    add_fixed(h, help_head, sizeof(help_head) / sizeof(help_head[0]));
    for (i = 0; i < n; i++)
        if (b[i].name && tui_binding_shown(t, &b[i]))
            add_row(h, &b[i]);
    add_fixed(h, help_tail, sizeof(help_tail) / sizeof(help_tail[0]));
}

/* Where a line's description starts: after the key names and the run of
 * blanks that ends them; its wrapped lines are indented to it. */
static int description_column(const char *s)
{
    const char *p = strlen(s) > 2 ? strstr(s + 2, "   ") : NULL;   /* "" is a line too */

    if (!p)
        return 2;
    while (*p == ' ')
        p++;
    return (int)(p - s);
}

/* The columns of s's next piece within width: up to the last blank that
 * fits (a word is never cut unless it alone is wider than the box). */
static int piece_len(const char *s, int width)
{
    int n = tui_text_columns(s), i, cut = -1;

    if (n <= width)
        return (int)strlen(s);
    for (i = 0; s[i] && i <= width; i++)
        if (s[i] == ' ')
            cut = i;
    return cut > 0 ? cut : width;
}

/* Draws line i wrapped into width columns from row y, at most rows rows;
 * returns the rows it takes (drawn or not, when y is -1). */
static int help_rows(struct tui *t, const char *line, int y, int x, int width, int rows)
{
    int indent = description_column(line), n = 0, len, off = 0;
    const char *s = line;

    for (;;) {
        len = piece_len(s, width - off);
        if (y >= 0 && n < rows)
            tui_put(t, y + n, x + off, s, len, ST_HEADER);
        n++;
        s += len;
        while (*s == ' ')
            s++;
        if (!*s)
            return n;
        off = indent < width / 2 ? indent : 2;
    }
}

void tui_draw_help(struct tui *t)
{
    struct help_text ht;
    size_t n, i;
    int w = 0, h = 2, y0, x0, y;

    make_help(t, &ht);
    n = ht.n;
    for (i = 0; i < n; i++) {
        int c = tui_text_columns(ht.line[i]) + 2;
        w = c > w ? c : w;
    }
    w = w < COLS - 2 ? w : COLS - 2;
    for (y = 1; y < LINES; y++)
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
    if (w < 10 || LINES < 4)
        return;
    for (i = 0; i < n; i++)
        h += help_rows(t, ht.line[i], -1, 0, w - 2, 0);
    h = h < LINES - 1 ? h : LINES - 1;
    y0 = 1 + (LINES - 1 - h) / 2;
    x0 = (COLS - w) / 2;
    for (y = 0; y < h; y++)
        gt_cellbuf_fill(t->cells, y0 + y, x0, w, ' ', ST_HEADER);
    /* From the line scrolled to, whole lines only; what is left below
     * (or above) is marked at the box's edge, and the arrows scroll. */
    if (t->help_scroll > (int)n - 1)
        t->help_scroll = (int)n - 1;
    if (t->help_scroll < 0)
        t->help_scroll = 0;
    for (i = (size_t)t->help_scroll, y = 1; i < n; i++) {
        int need = help_rows(t, ht.line[i], -1, 0, w - 2, 0);
        if (y + need > h - 1)
            break;
        y += help_rows(t, ht.line[i], y0 + y, x0 + 1, w - 2, need);
    }
    t->help_more = i < n;
    if (t->help_scroll > 0)
        tui_put(t, y0, x0 + w - 3, t->ascii ? "^" : "\u2191", -1, ST_HEADER);
    if (t->help_more)
        tui_put(t, y0 + h - 1, x0 + w - 3, t->ascii ? "v" : "\u2193", -1, ST_HEADER);
}
