/* The tab row and the footer's key hints, which the dashboard keeps as
 * composed from one frame to the next (issue 46): they still follow the
 * section, the view, the width and the height, and come back after what
 * covers them. The real binary in a tmux pane. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000
/* The T8xx layout without the clocks the simulator models: its sections'
 * keys are 1-5, 7, 8 and i, and it opens on 2, Activity ("GPU activity"). */
#define T8XX "--source sim:mali-t8xx --no-cpu --no-clocks"

/* The live key hints in the key table's order (actions.c, each row's
 * hint rank), with the layout's section keys; a line of c columns shows
 * c - 1 of them, the last one an ellipsis when they are cut. */
static const char HINTS[] = " h help  q quit  Tab 1-5 7 8 i sections  v verdict  P procs"
                            "  t rates/counts  \u2191\u2193 select  c per-core  space pause"
                            "  +/- interval  / find  s sparklines";

/* HINTS as a line of cols columns shows them (one column a character). */
static void hints_at(int cols, char *out, size_t len)
{
    const char *p = HINTS;
    int n = 0;

    for (; *p && n < cols - 2; p++)
        n += ((unsigned char)*p & 0xC0) != 0x80;
    while (((unsigned char)*p & 0xC0) == 0x80)
        p++;
    snprintf(out, len, "%.*s%s", (int)(p - HINTS), HINTS, *p ? "\u2026" : "");
}

static void start(struct tmux *t, int cols, int rows)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), T8XX);
    cr_assert_eq(tmux_start(t, cols, rows, "LC_ALL=C.UTF-8", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "GPU usage", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

/* The text a styled line shows in reverse video (the current tab): SGR
 * parameter 7 turns it on, 0 and 27 off. */
static void reversed_text(const char *line, char *out, size_t len)
{
    size_t n = 0;
    int rev = 0;

    while (*line && *line != '\n' && n + 1 < len) {
        if (line[0] == '\033' && line[1] == '[') {
            const char *p = line + 2;
            while (*p && *p != 'm') {
                long v = strtol(p, (char **)&p, 10);
                rev = v == 7 ? 1 : v == 0 || v == 27 ? 0 : rev;
                if (*p == ';')
                    p++;
                else if (*p != 'm')
                    break;
            }
            line = *p ? p + 1 : p;
            continue;
        }
        if (rev)
            out[n++] = *line;
        line++;
    }
    out[n] = '\0';
}

static void expect_text(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

static void nap(void)
{
    struct timespec ts = { 0, 50000000L };

    nanosleep(&ts, NULL);
}

/* Polls until line n of the pane (styled: its reversed text) is want. */
static void expect_line(struct tmux *t, int n, int styled, const char *want)
{
    char got[4096] = "", line[4096];
    int i;

    for (i = 0; i < WAIT_MS / 50; i++, nap()) {
        char *s = styled ? tmux_capture_styled(t) : tmux_capture(t);
        tmux_line_of(s ? s : "", n, line, sizeof(line));
        free(s);
        if (styled)
            reversed_text(line, got, sizeof(got));
        else
            snprintf(got, sizeof(got), "%s", line);
        if (strcmp(got, want) == 0)
            return;
    }
    cr_assert_fail("line %d%s is '%s', not '%s'", n, styled ? " in reverse video" : "", got,
                   want);
}

/* The current tab, in reverse video, moves with the section and to the
 * Processes tab; the text of the row stays (the fit follows the width). */
Test(tui_lines, the_current_tab_follows_the_section_and_the_view, .timeout = 60)
{
    struct tmux t;

    start(&t, 80, 24);
    expect_line(&t, 1, 1, "2Activity");
    tmux_literal(&t, "3");
    expect_line(&t, 1, 1, "3Content");
    tmux_literal(&t, "P");
    expect_line(&t, 1, 1, "PProcs");
    tmux_literal(&t, "2");
    expect_line(&t, 1, 1, "2Activity");
    tmux_stop(&t);
}

/* Each width fits the tabs and cuts the hints anew: the roomy form at
 * 120 columns, the glued one at 80, the current page labelled at 40; the
 * hints cut one column short of the edge. Below 13 rows the narrowest
 * form leaves the section's title out. By tabs.c's rules: at 40 the page
 * "1 CPU 2 Activity " with six bare keys and "P Procs" takes 36 columns,
 * and a third label would take 44; at 30 no page holds the current
 * section among the bare keys (32 columns), so all are bare keys (18
 * columns with their gaps), then a blank and the title cut to 11. */
Test(tui_lines, tabs_and_hints_follow_each_new_size, .timeout = 90)
{
    static const struct { int cols, rows; const char *tabs; } sizes[] = {
        { 80, 24, "1CPU 2Activity 3Content 4Data path 5Units 7Texture 8Load/store iConfig PProcs" },
        { 120, 30, " 1 CPU  2 Activity  3 Content  4 Data path  5 Units  7 Texture  8 Load/store"
                   "  i Config  P Procs" },
        { 40, 24, "1 CPU 2 Activity 3 4 5 7 8 i P Procs" },
        { 30, 24, "1 2 3 4 5 7 8 i P  GPU activi\u2026" },
        { 30, 10, "1 2 3 4 5 7 8 i P" },
        { 80, 24, "1CPU 2Activity 3Content 4Data path 5Units 7Texture 8Load/store iConfig PProcs" },
    };
    struct tmux t;
    char hints[512];
    size_t i;

    start(&t, 80, 24);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (i)
            tmux_resize(&t, sizes[i].cols, sizes[i].rows);
        expect_line(&t, 1, 0, sizes[i].tabs);
        hints_at(sizes[i].cols, hints, sizeof(hints));
        expect_line(&t, sizes[i].rows - 1, 0, hints);
    }
    tmux_stop(&t);
}

/* The hints give way to a search being typed, to a message, to the help
 * and to the triage panel (no tabs), and come back whole after each. */
Test(tui_lines, hints_and_tabs_come_back_after_what_covers_them, .timeout = 60)
{
    static const char TABS[] = "1CPU 2Activity 3Content 4Data path 5Units 7Texture 8Load/store "
                               "iConfig PProcs";
    struct tmux t;
    char hints[512];

    start(&t, 80, 24);
    hints_at(80, hints, sizeof(hints));
    expect_line(&t, 23, 0, hints);
    tmux_literal(&t, "/");
    tmux_literal(&t, "zz");
    expect_line(&t, 23, 0, "/zz");
    tmux_keys(&t, "Escape");
    expect_line(&t, 23, 0, hints);
    /* '+' samples faster: the step under the default 100 ms */
    tmux_literal(&t, "+");
    expect_line(&t, 23, 0, " sampling every 50 ms");
    tmux_literal(&t, "t");
    expect_line(&t, 23, 0, hints);
    tmux_literal(&t, "v");
    expect_text(&t, "triage (");
    tmux_keys(&t, "Escape");
    expect_line(&t, 1, 0, TABS);
    expect_line(&t, 23, 0, hints);
    tmux_literal(&t, "h");
    expect_text(&t, "sample faster / slower");
    tmux_keys(&t, "Escape");
    expect_line(&t, 1, 0, TABS);
    expect_line(&t, 23, 0, hints);
    tmux_stop(&t);
}
