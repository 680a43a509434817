/* The dashboard at a glance (issue 28): colours that follow each metric's
 * good direction, idle shares dimmed, honest sparklines, named tabs, the
 * header at 80 columns, the help overlay and the first frame. The real
 * binary in a tmux pane, its screen read back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakes/capture_records.h"
#include "fakes/tmux.h"
#include "gputop/layout.h"

#define WAIT_MS 8000
#define G715 "--source sim:mali-g715,scene=game --no-cpu"

static void start(struct tmux *t, int cols, int rows, const char *env, const char *args)
{
    char cmd[1024];
    int found;
    char *s;

    snprintf(cmd, sizeof(cmd), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(t, cols, rows, env, cmd), 0, "tmux did not start");
    /* The key hints: the header's "gputop" gives way on a narrow screen. */
    s = tmux_wait_for(t, "h help", WAIT_MS, &found);
    cr_assert(found, "the dashboard did not appear:\n%s", s);
    free(s);
}

static void expect(struct tmux *t, const char *text)
{
    int found;
    char *s = tmux_wait_for(t, text, WAIT_MS, &found);

    cr_assert(found, "'%s' not on screen:\n%s", text, s);
    free(s);
}

/* The line holding needle, copied into out ("" if none). */
static void line_with(const char *s, const char *needle, char *out, size_t len)
{
    const char *p = strstr(s, needle), *b;

    out[0] = '\0';
    if (!p)
        return;
    for (b = p; b > s && b[-1] != '\n'; b--)
        ;
    snprintf(out, len, "%.*s", (int)strcspn(b, "\n"), b);
}

/* The first foreground colour set after the title on a styled line
 * (30..37), -1 when none. */
static int bar_colour(const char *line, const char *title)
{
    const char *p = strstr(line, title);
    int c;

    for (p = p ? p : line; (p = strstr(p, "\033[")) != NULL; p += 2)
        if (sscanf(p, "\033[3%1dm", &c) == 1)
            return 30 + c;
    return -1;
}

/* The "NN.N %" value on a plain line. */
static double percent_on(const char *line)
{
    const char *p = strstr(line, " %");
    double v = -1;

    while (p && p > line && (p[-1] == '.' || (p[-1] >= '0' && p[-1] <= '9')))
        p--;
    if (p)
        sscanf(p, "%lf", &v);
    return v;
}

/* The styled and plain lines of a metric, after two samples have come:
 * once its row has a value (the first sample; a loaded machine may take
 * long), the 400 ms in which samples of 100 ms come. */
static void metric_lines(struct tmux *t, const char *title, char *styled, char *plain, size_t len)
{
    int waited;
    char row[256], *s;

    /* the metric's row, indented; not the triage line, which may name it
     * as its evidence ("· Output external read stall rate 37%") */
    snprintf(row, sizeof(row), "  %s", title);
    title = row;
    expect(t, title);
    for (waited = 0;; waited += 50) {
        s = tmux_capture(t);
        line_with(s, title, plain, len);
        free(s);
        if (percent_on(plain) >= 0 || waited >= WAIT_MS)
            break;
        usleep(50 * 1000);
    }
    usleep(400 * 1000);
    s = tmux_capture_styled(t);
    line_with(s, title, styled, len);
    free(s);
    s = tmux_capture(t);
    line_with(s, title, plain, len);
    free(s);
}

/* ---- item 1: colours with a direction ---- */

/* Worked out from man gputop-layout(5), 'good': good low is green under
 * 50 %, yellow under 80 %, red from there; good high the same for 100 less
 * the value. */
static int expected_colour(double v, int good_high)
{
    double bad = good_high ? 100 - v : v;

    return bad < 50 ? 32 : bad < 80 ? 33 : 31;
}

Test(tui_glance, high_is_good_for_early_zs_and_bad_for_late_zs, .timeout = 60)
{
    struct tmux t;
    char styled[4096], plain[1024];
    double v;

    /* one panel (two from 194 columns): a line holds one row */
    start(&t, 190, 60, "", G715);
    tmux_literal(&t, "3");                      /* Content behavior */
    metric_lines(&t, "Early ZS tested quad percentage", styled, plain, sizeof(plain));
    v = percent_on(plain);
    cr_assert_gt(v, 50, "the game scene tests most quads early: '%s'", plain);
    cr_assert_eq(bar_colour(styled, "Early ZS tested"), expected_colour(v, 1),
                 "early ZS %.1f %% is good: '%s'", v, styled);
    metric_lines(&t, "Late ZS tested quad percentage", styled, plain, sizeof(plain));
    v = percent_on(plain);
    cr_assert_eq(bar_colour(styled, "Late ZS tested"), expected_colour(v, 0),
                 "late ZS %.1f %%: '%s'", v, styled);
    tmux_stop(&t);
}

/* Issue 42: on the memory-bound scene the triage line says memory-stall-
 * bound on the read stall rate (G715 layout: '3.4.1 >= 10'), so that bar
 * is drawn red, never green as the 50 % band of 'good low' would draw 39 %;
 * and the tree's 10 % mark makes 5..10 % yellow (man gputop-layout(5)). */
Test(tui_glance, a_value_the_triage_flags_is_never_drawn_good, .timeout = 60)
{
    struct tmux t;
    char styled[4096], plain[1024];
    double v;

    start(&t, 200, 60, "", "--source sim:mali-g715,scene=memory-bound --no-cpu");
    tmux_literal(&t, "2");
    expect(&t, "memory-stall-bound");
    metric_lines(&t, "Output external read stall rate", styled, plain, sizeof(plain));
    v = percent_on(plain);
    cr_assert_geq(v, 10, "the scene stalls its reads: '%s'", plain);
    cr_assert_eq(bar_colour(styled, "Output external read stall"), 31,
                 "read stalls at %.1f %% give the verdict: red, '%s'", v, styled);
    tmux_stop(&t);
}

/* Issue 42: the header's busy share is at the current clock; beside it,
 * named as such, the share of max-clock time the triage's load steps
 * judge, so that "idle" under a GPU busy at a low clock reads right. */
Test(tui_glance, the_header_names_both_busy_figures, .timeout = 60)
{
    struct tmux t;
    char line[1024];
    int found;
    char *s;

    start(&t, 200, 60, "", "--source sim:mali-g715,scene=idle --no-cpu");
    s = tmux_wait_for(&t, "% of max-clock time", WAIT_MS, &found);
    cr_assert(found, "no share of max-clock time in the header:\n%s", s);
    line_with(s, "% of max-clock time", line, sizeof(line));
    cr_assert(strstr(line, "% busy @"), "the busy share at the current clock beside it: '%s'",
              line);
    free(s);
    expect(&t, "idle");
    tmux_stop(&t);
}

/* A metric with no direction (a queue's share of active cycles describes
 * the work, it is neither good nor bad) keeps the neutral colour (cyan);
 * on an idle GPU it is dimmed (blue), never red. */
Test(tui_glance, queue_shares_neutral_when_busy_dimmed_when_idle, .timeout = 60)
{
    struct tmux t;
    char styled[4096], plain[1024];

    start(&t, 200, 60, "", G715);
    tmux_literal(&t, "2");
    expect(&t, "busy @");
    metric_lines(&t, "Fragment iterator utilization", styled, plain, sizeof(plain));
    cr_assert_gt(percent_on(plain), 80, "'%s'", plain);
    cr_assert_eq(bar_colour(styled, "Fragment iterator"), 36, "neutral: '%s'", styled);
    tmux_stop(&t);

    start(&t, 200, 60, "", "--source sim:mali-g715,scene=idle --no-cpu");
    tmux_literal(&t, "2");
    expect(&t, "busy @");
    metric_lines(&t, "Fragment iterator utilization", styled, plain, sizeof(plain));
    cr_assert_gt(percent_on(plain), 50, "the idle scene's little work is fragment work: '%s'",
                 plain);
    cr_assert_eq(bar_colour(styled, "Fragment iterator"), 34, "dimmed while idle: '%s'", styled);
    tmux_stop(&t);
}

/* ---- item 2: sparklines from zero ---- */

/* The sparkline cells (U+2581..U+2588) after the value's unit; levels[i]
 * gets 0..7 for each; returns their count. */
static int spark_levels(const char *line, const char *unit, int *levels, int max)
{
    const unsigned char *p = (const unsigned char *)strstr(line, unit);
    int n = 0;

    if (!p)
        return 0;
    for (; *p; p++)
        if (p[0] == 0xE2 && p[1] == 0x96 && p[2] >= 0x81 && p[2] <= 0x88) {
            if (n < max)
                levels[n] = p[2] - 0x81;
            n++;
            p += 2;
        }
    return n;
}

/* The game scene's GPU active cycles hold steady within a few percent:
 * from zero, every cell is within the top quarter (level 6 or 7 of 0..7
 * is 75 % or more of the highest), not the full range a min-to-max scale
 * stretches noise to; the wide terminal holds more than 12 samples. */
Test(tui_glance, steady_count_draws_a_steady_line_wider_when_there_is_room, .timeout = 90)
{
    struct tmux t;
    char *s, line[2048];
    int lv[256], n = 0, i, tries;

    /* the sparkline after "cycles "; one panel (two from 194 columns) */
    start(&t, 190, 30, "", G715 " --per-interval");
    expect(&t, "M cycles");
    for (tries = 0; tries < 150 && n < 24; tries++) {
        usleep(100 * 1000);
        s = tmux_capture(&t);
        line_with(s, "GPU active cycles", line, sizeof(line));
        free(s);
        n = spark_levels(line, "cycles ", lv, 256);
    }
    cr_assert_geq(n, 24, "a 190-column terminal shows more history: '%s'", line);
    for (i = 0; i < n && i < 256; i++)
        cr_assert_geq(lv[i], 5, "cell %d at level %d of a steady count: '%s'", i, lv[i], line);
    tmux_stop(&t);
}

/* One sample says nothing about change: no sparkline until the second. */
Test(tui_glance, first_sample_draws_no_full_block, .timeout = 60)
{
    struct tmux t;
    char *s, line[2048];
    int lv[16];

    start(&t, 120, 30, "", "--source sim:mali-g715,scene=game --no-cpu -i 3s --per-interval");
    expect(&t, "M cycles");                     /* the first sample, the next 3 s away */
    s = tmux_capture(&t);
    line_with(s, "GPU active cycles", line, sizeof(line));
    free(s);
    cr_assert_eq(spark_levels(line, "cycles ", lv, 16), 0, "'%s'", line);
    tmux_stop(&t);
}

/* ---- item 3: every section named ---- */

static char *tab_line(struct tmux *t, char *line, size_t len)
{
    char *s = tmux_capture(t);

    tmux_line_of(s, 1, line, len);
    free(s);
    return line;
}

/* At 100 columns every Mali layout's tabs show their labels whole: the
 * labels are the layout files' 'tab' lines. */
Test(tui_glance, every_mali_tab_label_whole_at_100_columns, .timeout = 90)
{
    static const char *const family[] = { "mali-t8xx", "mali-g715", "mali-g720" };
    char args[128], line[1024];
    struct gt_diag d;
    struct tmux t;
    size_t f, i;

    for (f = 0; f < sizeof(family) / sizeof(family[0]); f++) {
        struct gt_layout *l = gt_layout_load(family[f], &d);
        cr_assert_not_null(l, "%s", d.msg);
        /* the guide's sections alone: with the clocks tab they need 110 */
        snprintf(args, sizeof(args), "--source sim:%s --no-cpu --no-clocks", family[f]);
        start(&t, 100, 30, "", args);
        expect(&t, "GPU usage");
        tab_line(&t, line, sizeof(line));
        for (i = 0; i < l->nsections; i++) {
            char want[64];
            snprintf(want, sizeof(want), "%c%s%s", l->sections[i].key,
                     strstr(line, "1CPU") ? "" : " ", l->sections[i].tab);
            cr_assert(strstr(line, want), "%s: '%s' not whole in '%s'", family[f], want, line);
        }
        tmux_stop(&t);
        gt_layout_free(l);
    }
}

/* At 50 columns the G715's eleven sections do not all fit (at 80 they do
 * since issue 43): the current one and its neighbours keep their labels,
 * and moving to a neighbour on the same page moves nothing on the tab
 * line. */
Test(tui_glance, tabs_at_50_columns_label_neighbours_and_stay_put, .timeout = 60)
{
    struct tmux t;
    char before[1024], after[1024], *s;
    int found;

    start(&t, 50, 24, "", G715);
    expect(&t, "GPU usage");
    tab_line(&t, before, sizeof(before));
    cr_assert(strstr(before, "2 GPU"), "the current tab: '%s'", before);
    cr_assert(strstr(before, "1 CPU") && strstr(before, "3 Content"), "neighbours: '%s'", before);
    tmux_literal(&t, "3");
    s = tmux_wait_for(&t, "Geometry usage", WAIT_MS, &found);
    free(s);
    cr_assert(found);
    tab_line(&t, after, sizeof(after));
    cr_assert_str_eq(after, before, "tabs moved when the selection did");
    tmux_literal(&t, "9");
    expect(&t, "Ray tracing unit usage");
    tab_line(&t, after, sizeof(after));
    cr_assert(strstr(after, "9 RT"), "the current tab: '%s'", after);
    cr_assert(strstr(after, "0 Mem"), "a neighbour: '%s'", after);
    tmux_stop(&t);
}

/* ---- item 4: the header at 80x24 ---- */

/* The busy figure outlasts the decoration, the wall clock, the core count
 * the GPU's name already gives (MC7) and the source's name; the period
 * reads "1 s". */
Test(tui_glance, header_keeps_gpu_busy_at_80_and_60_columns, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s;

    start(&t, 80, 24, "", "--source sim:mali-g715,scene=game --no-cpu -i 1s");
    expect(&t, "% busy @");
    expect(&t, "(rates /s)");                   /* the default: it makes the line longer */
    s = tmux_capture(&t);
    tmux_line_of(s, 0, line, sizeof(line));
    free(s);
    cr_assert(strstr(line, "% busy @"), "busy dropped: '%s'", line);
    cr_assert(strstr(line, " 1 s "), "the period: '%s'", line);
    cr_assert_null(strstr(line, "1000 ms"), "'%s'", line);
    cr_assert_null(strstr(line, "7 cores"), "MC7 says it already: '%s'", line);
    tmux_resize(&t, 60, 20);
    usleep(300 * 1000);
    expect(&t, "% busy @");
    tmux_stop(&t);
}

/* ---- item 10: the first frame ---- */

Test(tui_glance, first_frame_waits_for_the_first_sample, .timeout = 60)
{
    struct tmux t;
    char *s;
    int found;

    start(&t, 100, 30, "", "--source sim:mali-g715,scene=game --no-cpu -i 3s");
    s = tmux_capture(&t);
    cr_assert(strstr(s, "waiting for the first sample (every 3 s)"), "first frame:\n%s", s);
    cr_assert_null(strstr(s, "triage:"), "a verdict before any sample:\n%s", s);
    cr_assert_null(strstr(s, " - cycles"), "values before any sample:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "triage: ", WAIT_MS, &found);
    cr_assert(found, "no verdict after the first sample:\n%s", s);
    cr_assert_null(strstr(s, "waiting for the first sample"), "still waiting:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* ---- item 5: the help overlay ---- */

/* 1 when every word of text is on screen as a whole word. */
static int words_whole(const char *screen, const char *text, char *missing, size_t len)
{
    char word[64];
    const char *p = text, *q;
    size_t n;

    while (*p) {
        n = strcspn(p, " ");
        snprintf(word, sizeof(word), "%.*s", (int)n, p);
        for (q = strstr(screen, word); q; q = strstr(q + 1, word))
            if ((q == screen || q[-1] == ' ' || q[-1] == '\n') &&
                (q[n] == ' ' || q[n] == '\n' || q[n] == '\0'))
                break;
        if (!q) {
            snprintf(missing, len, "%s", word);
            return 0;
        }
        p += n;
        while (*p == ' ')
            p++;
    }
    return 1;
}

#define V_HELP "the verdict's evidence: each step's tests and values; any key closes"

Test(tui_glance, help_fits_the_terminal_without_cutting_words, .timeout = 60)
{
    struct tmux t;
    char *s, missing[64];
    int waited;

    start(&t, 200, 40, "", G715);
    tmux_literal(&t, "h");
    expect(&t, "gputop keys");
    s = tmux_capture(&t);
    cr_assert(strstr(s, V_HELP), "a line cut at 200 columns:\n%s", s);
    free(s);
    tmux_resize(&t, 80, 40);
    /* Until the help is drawn again at 80 columns: tmux shows the wide
     * one cut meanwhile, for as long as a loaded machine takes. */
    for (waited = 0;; waited += 50) {
        s = tmux_capture(&t);
        if ((strstr(s, "gputop keys") && words_whole(s, V_HELP, missing, sizeof(missing))) ||
            waited >= WAIT_MS)
            break;
        free(s);
        usleep(50 * 1000);
    }
    cr_assert(words_whole(s, V_HELP, missing, sizeof(missing)), "'%s' cut at 80:\n%s", missing, s);
    cr_assert(strstr(s, "q F10"), "the last key cut off:\n%s", s);
    free(s);
    tmux_stop(&t);
}

/* ---- item 7: --layout replaces ---- */

/* Another family's layout replaces the source's own instead of joining it
 * (which failed on the clash of their section keys); the CM layout given
 * alone is what the dashboard shows. */
Test(tui_glance, layout_of_another_family_replaces_the_sources_own, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s;

    start(&t, 120, 30, "", "--source sim:mali-g715 --layout mali-g720 --no-cpu");
    expect(&t, "Binning phase queue utilization");   /* the G720's own queue */
    tmux_stop(&t);

    start(&t, 120, 30, "", "--source sim --layout mips-cm --no-cpu");
    expect(&t, "Coherency manager");
    s = tmux_capture(&t);
    tmux_line_of(s, 1, line, sizeof(line));
    free(s);
    cr_assert_null(strstr(line, "Activity"), "the GPU's sections joined it: '%s'", line);
    tmux_stop(&t);
}

/* A clash with a layout beside the user's names that layout by name: the
 * user gave no file of ours. */
Test(tui_glance, messages_name_no_file_the_user_did_not_give, .timeout = 30)
{
    char cmd[1024], out[1024] = "";
    const char *dir = getenv("TMPDIR");
    char path[256];
    FILE *f, *p;
    size_t n;

    snprintf(path, sizeof(path), "%s/gputop-glance-%d.layout", dir && dir[0] ? dir : "/tmp",
             (int)getpid());
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("gputop-layout 1\nname x\ntitle X\nfamily x\nsection S\n  key m\n  group G\n"
          "    metric M\n      expr 1\n      show count\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s --source sim --source sim:mips-cm --layout %s --no-cpu -b -n 1 2>&1",
             gputop_bin(), path);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    pclose(p);
    unlink(path);
    cr_assert(strstr(out, "layout mips-cm"), "'%s'", out);
    cr_assert_null(strstr(out, "layouts/"), "a file of our source tree named: '%s'", out);
}

/* ---- item 6: the per-core view ---- */

/* The rows after the line holding title, up to n, copied into out. */
static void lines_after(const char *s, const char *title, int n, char *out, size_t len)
{
    const char *p = strstr(s, title);
    const char *e = p;

    out[0] = '\0';
    if (!p)
        return;
    p = strchr(p, '\n');
    for (e = p; e && n > 0; n--)
        e = strchr(e + 1, '\n');
    if (p)
        snprintf(out, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

/* End selects the section's last metric; c then shows its breakdown
 * under it on screen, the min / max line first (as the strip has it) and
 * percentages written as the section's rows write them ("87.7 %"). */
Test(tui_glance, per_core_breakdown_of_the_last_metric_stays_on_screen, .timeout = 60)
{
    struct tmux t;
    char below[2048], *s;
    int i, waited;

    start(&t, 100, 30, "", G715);
    tmux_literal(&t, "4");
    expect(&t, "Shader core workload");
    tmux_keys(&t, "End");
    expect(&t, "5.3.5");                        /* Execution core utilization, selected */
    tmux_literal(&t, "c");
    s = tmux_wait_for(&t, "shader core 6", WAIT_MS, &i);
    free(s);
    /* Until the breakdown has its values (the min / max line comes with
     * them), however long a loaded machine takes. */
    for (waited = 0;; waited += 50) {
        s = tmux_capture(&t);
        lines_after(s, "  Execution core utilization", 8, below, sizeof(below));
        if (strncmp(below, "\n    shader cores: min ", 23) == 0 || waited >= WAIT_MS)
            break;
        free(s);
        usleep(50 * 1000);
    }
    cr_assert(strncmp(below, "\n    shader cores: min ", 23) == 0,
              "the min / max line first under the metric:\n%s", s);
    cr_assert(strstr(below, "shader core 0") && strstr(below, "shader core 6"),
              "the breakdown off screen:\n%s", s);
    for (i = 0; below[i]; i++)
        cr_assert(!(below[i] == '%' && below[i - 1] >= '0' && below[i - 1] <= '9'),
                  "'N%%' where the rows say 'N %%':\n%s", below);
    free(s);
    tmux_stop(&t);
}

/* The G715 layout averages shader-core counters: its per-core view says the
 * metric's row is the cores' mean, not their total. */
Test(tui_glance, g715_per_core_rows_say_they_are_means, .timeout = 60)
{
    struct tmux t;

    start(&t, 160, 30, "", G715);
    tmux_literal(&t, "4");
    expect(&t, "Shader core workload");
    tmux_keys(&t, "Home");
    expect(&t, " 5.1.1 ");                      /* Non-fragment warps, a count */
    tmux_literal(&t, "c");
    expect(&t, "the row above is their per-core mean");
    tmux_stop(&t);
}

/* ---- item 8: exports visible ---- */

/* --serve, --record and --trace beside the dashboard show in its header;
 * the server's address is said once in the footer, where it can be read. */
Test(tui_glance, exports_show_in_the_header_and_the_url_in_the_footer, .timeout = 60)
{
    const char *dir = getenv("TMPDIR");
    char cap[256], trace[256], args[1024], line[2048], *s;
    struct tmux t;
    int found;

    snprintf(cap, sizeof(cap), "%s/gputop-glance-%d.cap", dir && *dir ? dir : "/tmp", (int)getpid());
    snprintf(trace, sizeof(trace), "%s/gputop-glance-%d.json", dir && *dir ? dir : "/tmp",
             (int)getpid());
    snprintf(args, sizeof(args), "--source sim:mali-t8xx --no-cpu --serve 127.0.0.1:0 "
             "--record %s --trace %s", cap, trace);
    snprintf(line, sizeof(line), "%s %s", gputop_bin(), args);
    cr_assert_eq(tmux_start(&t, 160, 30, "", line), 0);
    s = tmux_wait_for(&t, "serving Prometheus metrics at http://127.0.0.1:", WAIT_MS, &found);
    cr_assert(found, "no address in the footer:\n%s", s);
    free(s);
    s = tmux_wait_for(&t, "REC", WAIT_MS, &found);
    tmux_line_of(s, 0, line, sizeof(line));
    free(s);
    cr_assert(strstr(line, "REC") && strstr(line, "trace") && strstr(line, "serving :"),
              "header: '%s'", line);
    tmux_stop(&t);
    unlink(cap);
    unlink(trace);
}

/* Issue 44 item 4: a recording that cannot be written (here the file-size
 * limit, as a full disk) is said in the header and the alert line while
 * the dashboard runs on, not only after q. */
Test(tui_glance, a_recording_that_stops_says_so_in_the_header, .timeout = 60)
{
    const char *dir = getenv("TMPDIR");
    char cap[256], line[2048], *s;
    struct tmux t;
    int found;

    snprintf(cap, sizeof(cap), "%s/gputop-glance-full-%d.cap", dir && *dir ? dir : "/tmp",
             (int)getpid());
    snprintf(line, sizeof(line), "ulimit -f 128; exec %s --source sim:mali-t8xx --no-cpu -i 5ms "
             "--record %s", gputop_bin(), cap);
    cr_assert_eq(tmux_start(&t, 160, 30, "", line), 0);
    s = tmux_wait_for(&t, "recording stopped, sampling goes on", 20000, &found);
    cr_assert(found, "no alert:\n%s", s);
    tmux_line_of(s, 0, line, sizeof(line));
    cr_assert(strstr(line, "REC STOPPED"), "header: '%s'", line);
    cr_assert(strstr(s, cap), "the alert names the file:\n%s", s);
    free(s);
    tmux_stop(&t);
    unlink(cap);
}

/* ---- item 9: replay ---- */

/* n records of the simulated T830 at a virtual 100 ms each into path. */
static void record_capture(const char *path, int n)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx,step=100000000 --no-cpu -i 10ms -n %d "
             "--record %s -b > /dev/null", gputop_bin(), n, path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    /* n exactly: the recorder may take more rounds than -n rows (one
     * before the sampler is stopped, rounds the reader merged). */
    cr_assert_eq(capture_keep_samples(path, n), 0);
}

/* 60 records of 100 ms: 6 s at speed=1. At speed=max the dashboard shows
 * them one a frame but no slower than recorded, so it ends within the 12 s
 * the test waits; one record a 250 ms refresh took 15 s. */
Test(tui_glance, replay_at_max_speed_is_not_slower_than_recorded, .timeout = 60)
{
    const char *dir = getenv("TMPDIR");
    char path[256], args[512], *s;
    struct tmux t;
    int found;

    snprintf(path, sizeof(path), "%s/gputop-glance-max-%d.cap", dir && *dir ? dir : "/tmp",
             (int)getpid());
    record_capture(path, 60);
    snprintf(args, sizeof(args), "--source replay:%s,speed=max --no-cpu", path);
    start(&t, 120, 30, "", args);
    s = tmux_wait_for(&t, "ended: end of capture", 12000, &found);
    cr_assert(found, "speed=max slower than the recorded pace:\n%s", s);
    free(s);
    tmux_stop(&t);
    unlink(path);
}

/* A damage message longer than the line wraps onto the line above it. */
Test(tui_glance, replay_damage_message_wraps_at_80_columns, .timeout = 60)
{
    const char *dir = getenv("TMPDIR");
    char path[256], args[512], *s, *p;
    struct tmux t;
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/gputop-glance-a-rather-long-capture-name-to-wrap-%d.cap",
             dir && *dir ? dir : "/tmp", (int)getpid());
    record_capture(path, 50);
    f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    cr_assert_eq(truncate(path, n - 3), 0);     /* the last record cut short */
    snprintf(args, sizeof(args), "--source replay:%s --no-cpu", path);
    start(&t, 80, 24, "", args);
    expect(&t, "cut short");
    s = tmux_capture(&t);
    p = strrchr(path, '/');
    cr_assert(strstr(s, p + 1), "the file name cut:\n%s", s);
    cr_assert(strstr(s, "gputop: /"), "the message's start:\n%s", s);
    free(s);
    tmux_stop(&t);
    unlink(path);
}

/* ---- item 12: consistency ---- */

/* The footer's section keys are the layout's (the T8xx has no 6 or 9);
 * the selection is the whole row, its value in reverse video too. */
Test(tui_glance, footer_keys_follow_the_layout_and_selection_is_the_whole_row, .timeout = 60)
{
    struct tmux t;
    char line[4096], *s, *p;

    start(&t, 120, 30, "", "--source sim:mali-t8xx --no-cpu");
    expect(&t, "Tab 1-5 7 8 i k sections");
    tmux_keys(&t, "Down");
    expect(&t, " 3.1.2 ");
    usleep(300 * 1000);
    s = tmux_capture_styled(&t);
    line_with(s, "Non-fragment queue active cycles", line, sizeof(line));
    free(s);
    cr_assert(strncmp(line, "\033[7m", 4) == 0, "the selected row not in reverse: '%s'", line);
    p = strstr(line, " cycles ");
    cr_assert_not_null(p, "'%s'", line);
    *p = '\0';
    cr_assert_null(strstr(line, "\033[27m"), "reverse ends before the value: '%s'", line);
    cr_assert_null(strstr(line, "\033[0m"), "reverse ends before the value: '%s'", line);
    cr_assert_null(strstr(line + 4, "\033[m"), "reverse ends before the value: '%s'", line);
    tmux_stop(&t);
}

/* Without UTF-8 a cut line ends in "...": '~' marks an estimate. */
Test(tui_glance, ascii_cut_marker_is_three_dots, .timeout = 60)
{
    struct tmux t;
    char line[1024], *s;

    start(&t, 80, 24, "LANG=C LC_ALL=C", "--source sim:mali-t8xx --no-cpu");
    expect(&t, "GPU usage");
    s = tmux_capture(&t);
    line_with(s, " h help", line, sizeof(line));
    free(s);
    cr_assert(strstr(line, "...") && !strchr(line, '~'), "footer: '%s'", line);
    tmux_stop(&t);
}

/* Without the cpu source the CPU rows say the CPU counters are off, not
 * which counter the GPU source lacks; a --metrics pattern that leaves a
 * section empty says so there. */
Test(tui_glance, no_cpu_rows_and_an_emptied_section_say_why, .timeout = 60)
{
    struct tmux t;
    char *s;

    /* (The simulator now models the CPU counters itself, so --no-cpu
     * leaves its CPU rows with data; the real sources' rows say "CPU
     * counters off".) */
    (void)s;
    start(&t, 100, 30, "", "--source sim:mali-t8xx --no-cpu --metrics '*utilization*'");
    tmux_literal(&t, "1");
    expect(&t, "no metric of this section matches --metrics '*utilization*'");
    tmux_stop(&t);
}

/* CSV columns do not change with the sources present: a per-cluster CPU
 * metric is "CPU activity[0] [%]" with or without the cpu source. */
Test(tui_glance, csv_columns_keep_their_names_without_the_cpu_source, .timeout = 30)
{
    char cmd[512], head[4096] = "";
    FILE *p;

    snprintf(cmd, sizeof(cmd), "%s --source sim:mali-t8xx --no-cpu -b -f csv -n 1 --section 1",
             gputop_bin());
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(head, sizeof(head), p));
    pclose(p);
    cr_assert(strstr(head, "CPU activity[0] [%]"), "'%s'", head);
    cr_assert_null(strstr(head, "CPU activity [%]"), "'%s'", head);
}
