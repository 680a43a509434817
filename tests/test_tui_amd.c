/* The gfx1151 speed-of-light page as a person sees it: the real binary on
 * the simulated GPU in a tmux pane shows every row with value, peak, % of
 * peak and its bar, and the triage line names the limiter. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes/tmux.h"

#define WAIT_MS 8000

static void start(struct tmux *t, int cols, int rows, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, "", cmd), 0, "tmux did not start");
    s = tmux_wait_for(t, "gputop", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

/* Waits for text, then returns the screen line holding it (malloc'd). */
static char *line_with(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found), *at, *end, *out;

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    at = strstr(s, text);
    while (at > s && at[-1] != '\n')
        at--;
    end = strchr(at, '\n');
    out = strndup(at, end ? (size_t)(end - at) : strlen(at));
    free(s);
    return out;
}

static void expect_in(const char *line, const char *what)
{
    cr_expect(strstr(line, what) != NULL, "'%s' missing from:\n%s", what, line);
}

/* The screen column of " %" after the peak in a row (UTF-8 bar cells
 * before it are one column each). */
static long percent_column(const char *ln)
{
    const char *at = strstr(ln, "peak "), *p;
    long col = 0;

    cr_assert_not_null(at, "no peak in:\n%s", ln);
    at = strstr(at, " %");
    cr_assert_not_null(at, "no %% after the peak in:\n%s", ln);
    for (p = ln; p < at; p++)
        col += ((unsigned char)*p & 0xc0) != 0x80;
    return col;
}

static void rows_with_peaks(int cols, int rows)
{
    struct tmux t;
    char *ln;
    long fp32, ipc;

    start(&t, cols, rows, "--source sim:amd-gfx1151,scene=compute-bound --no-cpu");
    /* The triage line opens the first page: the layout's tree (issue 26)
     * judges the speed-of-light rows by their % of peak. */
    if (cols >= 120) {
        /* compute-bound on the VALU, at about 85 % of FP32's peak a busy
         * cycle (test_triage.c works the scene out) */
        ln = line_with(&t, "triage: compute-bound (VALU)");
        expect_in(ln, "triage: ");
        expect_in(ln, "% of peak");
    } else {
        free(line_with(&t, "peak 14.8k"));  /* data has arrived */
        ln = line_with(&t, "triage: "); /* the verdict alone when the values do not fit */
    }
    free(ln);
    ln = line_with(&t, "  VALU FLOPs (FP32) "); /* the row, not the triage line */
    expect_in(ln, "GFLOP/s");
    expect_in(ln, "peak 14.8k");       /* 2900 MHz x 40 CUs x 128 / 1000 */
    expect_in(ln, " %");
    fp32 = percent_column(ln);
    free(ln);
    ln = line_with(&t, "IPC  ");
    expect_in(ln, "Instr/cycle");
    expect_in(ln, "peak 5");
    expect_in(ln, "\u2588");            /* the % of peak bar: ~90 % of it */
    ipc = percent_column(ln);
    free(ln);
    /* "peak 14.8k  62.5 %" and "peak 5      90.0 %": one column. */
    cr_expect_eq(fp32, ipc, "%% of peak at column %ld and %ld", fp32, ipc);
    ln = line_with(&t, "Wavefront Occupancy");
    expect_in(ln, "peak 1.28k");       /* 32 waves x 40 CUs */
    free(ln);
    ln = line_with(&t, "L2-Fabric Read BW");
    expect_in(ln, "Bytes/s");
    cr_expect(strstr(ln, "peak") == NULL, "no peak in the document:\n%s", ln);
    free(ln);
    tmux_stop(&t);
}

Test(tui_amd, speed_of_light_rows_show_value_peak_and_percent_at_120x40, .timeout = 60)
{
    rows_with_peaks(120, 40);
}

Test(tui_amd, speed_of_light_rows_fit_80x24, .timeout = 60)
{
    rows_with_peaks(80, 24);
}

/* Issue 26: the tree calls the memory-bound scene memory-bound, with the
 * fabric's share of the DRAM peak that shows it. */
Test(tui_amd, memory_bound_scene_is_memory_bound, .timeout = 60)
{
    struct tmux t;
    char *ln;

    start(&t, 100, 30, "--source sim:amd-gfx1151,scene=memory-bound --no-cpu");
    ln = line_with(&t, "triage: memory-bound");
    expect_in(ln, "Fabric bandwidth while busy");
    expect_in(ln, "% of peak");
    free(ln);
    tmux_stop(&t);
}
