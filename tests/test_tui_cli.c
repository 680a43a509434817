/* The command line on a terminal, as a person types it: the real binary in
 * a tmux pane, so that isatty() is true, and what the pane then shows. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/tmux.h"
#include "gputop/layout.h"

#define WAIT_MS 8000

/* Runs gputop ARGS in a pane and waits for the shell's "EXIT n" after it. */
static char *run_to_end(struct tmux *t, const char *args, size_t *rawlen, char **raw)
{
    char cmd[1024];
    int found;
    char *s;

    /* The pause lets tmux attach its log before the first line is out. */
    snprintf(cmd, sizeof(cmd), "sleep 0.5; %s %s; echo EXIT $?", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, 100, 30, "", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "EXIT ", WAIT_MS, &found);
    cr_assert(found, "gputop %s did not end by itself:\n%s", args, s);
    *raw = tmux_raw(t, rawlen);
    return s;
}

/* Issue 43 item 4: -f, -n and -d on a terminal ask for records, as top -n
 * does; the dashboard (xterm's alternate screen, smcup) never opens. */
Test(tui_cli, format_count_duration_mean_batch_on_a_terminal, .timeout = 60)
{
    static const char *const args[] = {
        "--source sim --no-cpu -f csv -n 3 --metrics 'Shader core count'",
        "--source sim --no-cpu -n 2",
        "--source sim --no-cpu -d 300ms",
    };
    size_t i, n;

    for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
        struct tmux t;
        char *raw, *s = run_to_end(&t, args[i], &n, &raw);
        cr_expect(strstr(s, "EXIT 0"), "%s:\n%s", args[i], s);
        cr_expect_null(strstr(raw, "\033[?1049h"), "%s opened the dashboard", args[i]);
        if (i == 0)
            /* the pane's log may start after the first line (tmux attaches
             * it late under load): the screen has it then */
            cr_expect(strstr(raw, "time_s,interval_s,") || strstr(s, "time_s,interval_s,"),
                      "no CSV header:\n%s", s);
        free(raw);
        free(s);
        tmux_stop(&t);
    }
}

static void start_dashboard(struct tmux *t, int cols, int rows, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, "", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "GPU active cycles", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

static void expect_on(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

/* The line of the screen that holds text (cut at its end). */
static void line_of(const char *screen, const char *text, char *out, size_t len)
{
    const char *p = strstr(screen, text), *start, *end;

    out[0] = '\0';
    if (!p)
        return;
    for (start = p; start > screen && start[-1] != '\n'; start--)
        ;
    end = strchr(p, '\n');
    snprintf(out, len, "%.*s", (int)(end ? end - start : (long)strlen(start)), start);
}

/* Issue 43 item 1: counts are rates by default, as nvtop and amdgpu_top
 * show them, cycles per second as a clock and bytes per second as a
 * bandwidth; --per-interval gives counts per interval, and t turns the
 * rates back on. */
Test(tui_cli, rates_by_default_per_interval_on_request, .timeout = 60)
{
    struct tmux t;
    char line[512], *s;

    start_dashboard(&t, 100, 30, "--source sim:mali-t8xx --no-cpu");
    expect_on(&t, "Hz");
    s = tmux_capture(&t);
    line_of(s, "  GPU active cycles", line, sizeof(line));
    cr_expect(strstr(line, "MHz") || strstr(line, "kHz") || strstr(line, "GHz"), "'%s'", line);
    cr_expect_null(strstr(line + 19, "cycles"), "'%s' per interval", line);
    free(s);
    tmux_literal(&t, "2");                       /* GPU activity: external bytes */
    expect_on(&t, "B/s");
    tmux_stop(&t);

    start_dashboard(&t, 100, 30, "--source sim:mali-t8xx --no-cpu --per-interval");
    expect_on(&t, " %");                         /* values are there */
    s = tmux_capture(&t);
    line_of(s, "  GPU active cycles", line, sizeof(line));
    cr_expect(strstr(line + 19, "cycles") && !strstr(line, "Hz") && !strstr(line, "/s"), "'%s'",
              line);
    free(s);
    tmux_literal(&t, "t");
    expect_on(&t, "Hz");
    tmux_stop(&t);
}

/* Issue 43 item 10: at 80 columns every tab keeps a short label (they read
 * "7 Texture 8 9 0 i"), the Processes view has a tab, and the footer
 * shows v, P and t before it is cut. */
Test(tui_cli, every_tab_labelled_and_the_keys_that_matter_at_80x24, .timeout = 60)
{
    struct tmux t;
    struct gt_diag d;
    struct gt_layout *l = gt_layout_load("mali-g720", &d);
    char tabs[512], foot[512], want[64], *s;
    size_t i;

    cr_assert_not_null(l, "%s", d.msg);
    start_dashboard(&t, 80, 24, "--source sim:mali-g720 --no-cpu");
    expect_on(&t, "Procs");
    s = tmux_capture(&t);
    line_of(strchr(s, '\n') + 1, "", tabs, sizeof(tabs));
    for (i = 0; i < l->nsections; i++) {
        cr_assert_not_null(l->sections[i].tab, "section %zu has no tab label", i);
        snprintf(want, sizeof(want), "%c%s", l->sections[i].key, l->sections[i].tab);
        cr_expect(strstr(tabs, want) || strstr(tabs, want + 1), "no '%s' in '%s'", want, tabs);
    }
    cr_expect(strstr(tabs, "Procs"), "no Processes tab: '%s'", tabs);
    line_of(s, " h help", foot, sizeof(foot));
    cr_expect(strstr(foot, "v verdict") && strstr(foot, "P procs") && strstr(foot, "t rates"),
              "footer: '%s'", foot);
    free(s);
    tmux_stop(&t);
    gt_layout_free(l);
}

/* Issue 43 item 11: the help scrolls with the arrow keys instead of
 * closing on any key; its lines wrap at a blank, never mid-word. */
Test(tui_cli, help_scrolls_with_the_arrows, .timeout = 60)
{
    struct tmux t;
    char *s;
    int found, i;

    start_dashboard(&t, 80, 24, "--source sim:mali-g720 --no-cpu");
    tmux_literal(&t, "h");
    expect_on(&t, "gputop keys");
    for (i = 0; i < 3; i++)
        tmux_keys(&t, "Down");
    s = tmux_wait_for(&t, "gputop keys", 1500, &found);
    /* still the help (its key lines), scrolled past its title */
    cr_expect(strstr(s, "this help"), "the help closed on an arrow:\n%s", s);
    cr_expect(!found, "Down did not scroll:\n%s", s);
    free(s);
    tmux_keys(&t, "Home");
    expect_on(&t, "gputop keys");
    tmux_literal(&t, "x");
    s = tmux_wait_for(&t, "GPU usage", WAIT_MS, &found);
    cr_expect(found && !strstr(s, "gputop keys"), "another key did not close it:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* Full blocks (U+2588) in a line. */
static int full_blocks(const char *line)
{
    int n = 0;

    for (; (line = strstr(line, "\u2588")); line += 3)
        n++;
    return n;
}

/* Issue 43 item 2: a constant gets no bar and no sparkline ("Shader core
 * count 12 cores ████"), and a count's bar is scaled against the largest
 * row of its group, so the 13.6M queue is not as long as the 95.9M GPU
 * active cycles it is part of. */
Test(tui_cli, bars_scaled_to_the_group_and_none_for_constants, .timeout = 60)
{
    struct tmux t;
    char line[1024], whole[1024], *s;
    static const char *const marks[] = { "\u2581", "\u2584", "\u2588", "\u258f", "#" };
    size_t i;

    start_dashboard(&t, 120, 40, "--source sim:mali-g720,scene=game --no-cpu");
    tmux_literal(&t, "p");                       /* bars for counts */
    tmux_literal(&t, "i");
    expect_on(&t, "Shader core count");
    expect_on(&t, " cores");
    usleep(800 * 1000);                          /* a few samples: a sparkline would be drawn */
    s = tmux_capture(&t);
    line_of(s, "  Shader core count", line, sizeof(line));
    for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        cr_expect_null(strstr(line, marks[i]), "a constant with a bar or sparkline: '%s'", line);
    free(s);
    tmux_literal(&t, "2");
    expect_on(&t, "Binning phase queue active cycles");
    usleep(800 * 1000);
    s = tmux_capture(&t);
    line_of(s, "  GPU active cycles", whole, sizeof(whole));
    line_of(s, "  Binning phase queue active cycles", line, sizeof(line));
    cr_expect_lt(full_blocks(line), full_blocks(whole), "a part as long as the whole:\n%s\n%s",
                 line, whole);
    free(s);
    tmux_stop(&t);
}

/* Cells of a bar (U+2581..U+2590 blocks) in a line. */
static int bar_cells(const char *line)
{
    int n = 0;

    for (; *line; line++)
        if ((unsigned char)line[0] == 0xE2 && (unsigned char)line[1] == 0x96 &&
            (unsigned char)line[2] >= 0x88 && (unsigned char)line[2] <= 0x8F)
            n++;
    return n;
}

/* line cut after cols columns (UTF-8: a character a column). */
static void cut_at_column(char *line, int cols)
{
    char *p = line;

    for (; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80 && cols-- == 0)
            break;
    *p = '\0';
}

/* The G720's 12 shader cores in a strip under Non-fragment warps: every
 * strip line ("     0 ██████  8.88M   1 ..."), in the first panel_cols
 * columns, holds more than one core's cell. */
static void expect_no_lone_core(struct tmux *t, int panel_cols)
{
    char line[2048], *s, *at;
    int cells;

    tmux_literal(t, "4");
    expect_on(t, "Non-fragment warps");
    tmux_keys(t, "Down");
    tmux_literal(t, "c");
    expect_on(t, "shader cores: min");
    s = tmux_capture(t);
    for (at = s; (at = strstr(at, "\n     ")); at++) {
        line_of(at + 1, "", line, sizeof(line));
        if (line[5] < '0' || line[5] > '9')
            continue;
        cut_at_column(line, panel_cols);
        /* a cell is "NN bar VALUE": count the values */
        cells = 0;
        for (char *p = line; (p = strpbrk(p, "Mk")); p++)
            cells += p > line && p[-1] >= '0' && p[-1] <= '9';
        cr_expect_gt(cells, 1, "a strip line with one core: '%s'", line);
    }
    free(s);
}

/* Issue 43 item 3: at 200x60 bars stopped at 40 columns and the per-core
 * strip put its last core on a line of its own. At 180 columns the page
 * is still one panel (two need 2 x 96 + 2): its bars use the width. */
Test(tui_cli, wide_terminals_use_the_width, .timeout = 60)
{
    struct tmux t;
    char line[2048], *s;

    start_dashboard(&t, 180, 60, "--source sim:mali-g720,scene=game --no-cpu --no-processes");
    tmux_literal(&t, "2");
    expect_on(&t, "Main phase queue utilization");
    expect_on(&t, " %");
    usleep(500 * 1000);
    s = tmux_capture(&t);
    line_of(s, "  Main phase queue utilization", line, sizeof(line));
    /* ~85 % of the bar: past 40 cells only if the bar is longer than 40 */
    cr_expect_gt(bar_cells(line), 42, "a short bar at 180 columns: '%s'", line);
    free(s);
    expect_no_lone_core(&t, 180);
    tmux_stop(&t);
}

/* Issue 43 item 11: the guide's next step in the triage panel is wrapped
 * at a blank at 80x24, not cut mid-word at the edge. */
Test(tui_cli, triage_next_step_wraps_at_80x24, .timeout = 60)
{
    struct tmux t;

    start_dashboard(&t, 80, 24, "--source sim:mali-g720,scene=texture-bound --no-cpu");
    expect_on(&t, "texture-bound");
    tmux_literal(&t, "v");
    expect_on(&t, "next (");
    expect_on(&t, "simpler filters");            /* past the 80th column on one line */
    tmux_stop(&t);
}

/* Issue 43 item 2, "and says which": a group whose count bars are drawn
 * says on its heading what they are measured against. The G720's GPU
 * usage has no peak: with count bars on ('p') they are scaled to its
 * largest row; its utilization group is all percentages and says
 * nothing. */
Test(tui_cli, a_group_says_what_its_bars_are_scaled_to, .timeout = 60)
{
    struct tmux t;
    char line[512], *s;

    start_dashboard(&t, 80, 24, "--source sim:mali-g720,scene=game --no-cpu --no-processes");
    tmux_literal(&t, "2");
    expect_on(&t, "GPU utilization");
    s = tmux_capture(&t);
    cr_expect_null(strstr(s, "bars:"), "a note without count bars:\n%s", s);
    free(s);
    tmux_literal(&t, "p");
    expect_on(&t, "bars: vs largest");
    s = tmux_capture(&t);
    line_of(s, "GPU usage", line, sizeof(line));
    cr_expect(strstr(line, "bars: vs largest"), "not on GPU usage's heading: '%s'", line);
    line_of(s, "GPU utilization", line, sizeof(line));
    cr_expect_null(strstr(line, "bars:"), "a note on a group of percentages: '%s'", line);
    free(s);
    tmux_stop(&t);
}

/* Peaks of the AMD speed-of-light page: IPC's peak is 5 instructions a
 * cycle (gfx1151 layout), so the sim's ~0.2 is ~4 % of it: a bar of a
 * cell or two of the up to 64, where against the largest row of its own
 * unit (itself) it would be full. Its heading says so. */
Test(tui_cli, peak_rows_are_scaled_to_their_peak_and_say_so, .timeout = 60)
{
    struct tmux t;
    char cmd[512], line[512], *s;
    int found;

    snprintf(cmd, sizeof(cmd), "%s --source sim:amd-gfx1151 --no-cpu --no-processes",
             gputop_bin());
    cr_assert_eq(tmux_start(&t, 80, 24, "", cmd), 0, "tmux did not start");
    tmux_literal(&t, "p");
    s = tmux_wait_for(&t, "Instr/cycle", WAIT_MS, &found);
    cr_assert(found, "the SoL page did not appear:\n%s", s);
    free(s);
    expect_on(&t, "System Speed-of-Light  bars: % of peak");
    usleep(300 * 1000);
    s = tmux_capture(&t);
    line_of(s, "  IPC ", line, sizeof(line));
    cr_expect(strstr(line, "peak 5 "), "IPC's peak: '%s'", line);
    cr_expect_leq(bar_cells(line), 2, "IPC's bar not scaled to its peak: '%s'", line);
    free(s);
    tmux_stop(&t);
}

/* Issue 43 item 3: at 200x60 the section's groups are laid out in two
 * panels (half of every line was empty), each at least 96 columns: two
 * group headings on one line, the second past the first panel. The
 * per-core strip, in its panel, leaves no core on a line of its own. */
Test(tui_cli, two_panels_of_groups_at_200_columns, .timeout = 60)
{
    static const char *const groups[] = { "GPU usage", "GPU utilization", "External memory bandwidth",
                                          "External memory stalls", "External memory read latency",
                                          "GPU time and clock" };
    struct tmux t;
    char line[2048], *s, *at;
    size_t a, b;
    int side_by_side = 0;

    start_dashboard(&t, 200, 60, "--source sim:mali-g720,scene=game --no-cpu --no-processes");
    tmux_literal(&t, "2");
    expect_on(&t, "GPU time and clock");
    s = tmux_capture(&t);
    for (at = s; *at; at++) {
        if (at != s && at[-1] != '\n')
            continue;
        line_of(at, "", line, sizeof(line));
        for (a = 0; a < 6; a++)
            for (b = 0; b < 6; b++)
                if (a != b && strncmp(line, groups[a], strlen(groups[a])) == 0 &&
                    strstr(line, groups[b]) && strstr(line, groups[b]) - line >= 96)
                    side_by_side = 1;
    }
    cr_expect(side_by_side, "no two group headings side by side:\n%s", s);
    free(s);
    expect_no_lone_core(&t, 99);
    tmux_stop(&t);
}
