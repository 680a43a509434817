/* The help overlay: the keys and what they do, over a cleared screen (only
 * the header stays) so that nothing behind it reads as part of it. */
#include "tui_internal.h"
#include <string.h>

static const char *const help_lines[] = {
    "gputop keys",
    "",
    "  1-9 0 a-z    show the section with that key (named on the tabs)",
    "  Tab, right   next section;  Shift-Tab, left  previous section",
    "  up, down     select a metric;  PgUp, PgDn, Home, End  page, first, last",
    "  c            per-core view: each shader core / L2 slice of the group",
    "  P            Processes: GPU use per process (fdinfo);  o  sort column",
    "  v            the verdict's evidence: each step's tests and values; any key closes",
    "  space        pause / resume the display",
    "  + -          sample faster / slower",
    "  t            counts per second / per interval",
    "  s            sparklines of recent history on / off",
    "  p            bars for counts (scaled to the highest seen) on / off",
    "  r            reset min / max",
    "  /            find a metric by name;  Enter or n  next match;  Esc  cancel",
    "  h ? F1       this help;  arrows and PgUp/PgDn scroll it, any other key closes it",
    "  Ctrl-L       redraw the whole screen;  Ctrl-Z  suspend (fg resumes)",
    "  q F10        quit",
    "",
    "  Above the key hints: the selected metric's guide reference, its",
    "  description (or why it is unavailable) and its min / max.",
    "  A count's bar (p) and sparkline are scaled to the largest row of its",
    "  group in the same unit (a peak's row: percent of peak); constants",
    "  such as the core count have neither.",
};

/* During a replay some keys do other things: these lines stand in for
 * the help_lines that start with the same key names. */
static const struct {
    const char *keys;
    const char *text;
} replay_lines[] = {
    { "  up, down ", "  up, down     select a metric;  PgUp, PgDn  page;  Home, End  first / last sample" },
    { "  space ", "  space        pause / play the replay (at its end: again from the start)" },
    { "  + - ", "  + -          play faster / slower (x0.1 to x64);  [ ]  back / forward 10 %" },
    { "  t ", "  . ,          one sample forward / back (pauses; each key one);  t  per second / interval" },
};

static const char *help_line(const struct tui *t, size_t i)
{
    size_t k;

    for (k = 0; t->replay && k < sizeof(replay_lines) / sizeof(replay_lines[0]); k++)
        if (strncmp(help_lines[i], replay_lines[k].keys, strlen(replay_lines[k].keys)) == 0)
            return replay_lines[k].text;
    return help_lines[i];
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
    size_t n = sizeof(help_lines) / sizeof(help_lines[0]), i;
    int w = 0, h = 2, y0, x0, y;

    for (i = 0; i < n; i++) {
        int c = tui_text_columns(help_line(t, i)) + 2;
        w = c > w ? c : w;
    }
    w = w < COLS - 2 ? w : COLS - 2;
    for (y = 1; y < LINES; y++)
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
    if (w < 10 || LINES < 4)
        return;
    for (i = 0; i < n; i++)
        h += help_rows(t, help_line(t, i), -1, 0, w - 2, 0);
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
        int need = help_rows(t, help_line(t, i), -1, 0, w - 2, 0);
        if (y + need > h - 1)
            break;
        y += help_rows(t, help_line(t, i), y0 + y, x0 + 1, w - 2, need);
    }
    t->help_more = i < n;
    if (t->help_scroll > 0)
        tui_put(t, y0, x0 + w - 3, t->ascii ? "^" : "\u2191", -1, ST_HEADER);
    if (t->help_more)
        tui_put(t, y0 + h - 1, x0 + w - 3, t->ascii ? "v" : "\u2193", -1, ST_HEADER);
}

/* Keys while the help is up: the arrows and page keys scroll it; any other
 * key closes it (q quits). 1 when it was a scrolling key. */
int tui_help_key(struct tui *t, int ch)
{
    int page = LINES > 8 ? LINES - 6 : 1;

    switch (ch) {
    case KEY_UP: t->help_scroll--; return 1;
    case KEY_DOWN: t->help_scroll += t->help_more; return 1;
    case KEY_PPAGE: t->help_scroll -= page; return 1;
    case KEY_NPAGE: t->help_scroll += t->help_more ? page : 0; return 1;
    case KEY_HOME: t->help_scroll = 0; return 1;
    case KEY_END: t->help_scroll = 1 << 20; return 1;
    }
    return 0;
}
