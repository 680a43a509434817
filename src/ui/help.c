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
    "  space        pause / resume the display",
    "  + -          sample faster / slower",
    "  t            counts per second / per interval",
    "  s            sparklines of recent history on / off",
    "  p            bars for counts (scaled to the highest seen) on / off",
    "  r            reset min / max",
    "  /            find a metric by name;  Enter or n  next match;  Esc  cancel",
    "  h ? F1       this help;  any key closes it",
    "  Ctrl-L       redraw the whole screen;  Ctrl-Z  suspend (fg resumes)",
    "  q F10        quit",
    "",
    "  Above the key hints: the selected metric's guide reference, its",
    "  description (or why it is unavailable) and its min / max.",
};

/* During a replay some keys do other things: these lines stand in for
 * the help_lines that start with the same key names. */
static const struct {
    const char *keys;
    const char *text;
} replay_lines[] = {
    { "  up, down ", "  up, down     select a metric;  PgUp, PgDn  back / forward 10 % of a replay" },
    { "  space ", "  space        pause / play the replay (at its end: again from the start)" },
    { "  + - ", "  . ,          one sample forward / back (pauses);  Home, End  first / last" },
};

static const char *help_line(const struct tui *t, size_t i)
{
    size_t k;

    for (k = 0; t->replay && k < sizeof(replay_lines) / sizeof(replay_lines[0]); k++)
        if (strncmp(help_lines[i], replay_lines[k].keys, strlen(replay_lines[k].keys)) == 0)
            return replay_lines[k].text;
    return help_lines[i];
}

void tui_draw_help(struct tui *t)
{
    size_t n = sizeof(help_lines) / sizeof(help_lines[0]), i;
    int w = 76 < COLS - 2 ? 76 : COLS - 2, h = (int)n + 2 < LINES - 1 ? (int)n + 2 : LINES - 1;
    int y0 = 1 + (LINES - 1 - h) / 2, x0 = (COLS - w) / 2, y;

    for (y = 1; y < LINES; y++)
        gt_cellbuf_fill(t->cells, y, 0, COLS, ' ', ST_PLAIN);
    if (w < 10 || h < 3)
        return;
    for (y = 0; y < h; y++)
        gt_cellbuf_fill(t->cells, y0 + y, x0, w, ' ', ST_HEADER);
    for (i = 0; i < n && (int)i < h - 2; i++)
        tui_put(t, y0 + 1 + (int)i, x0 + 1, help_line(t, i), w - 2, ST_HEADER);
}
